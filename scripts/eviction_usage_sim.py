"""Should usage (from the injection log) break eviction ties? A small simulation, not a change.

    python scripts/eviction_usage_sim.py [--days 180] [--seeds 20]

A store at its cap receives new memories every day; every day queries arrive, each wanting one
memory chosen by its (hidden) usefulness: a third of memories are never wanted, the rest follow a
long-tailed popularity, and a memory's popularity fades with age at a per-memory rate. When the
store is over the cap one entry is evicted by one of three rules:

- specified:  highest eviction rank (facts first), then oldest ts, then store order (as specified);
- tiebreak:   the specified order, with usage (injections in the last 30 days, fewer first) breaking
              exact ties of kind and ts -- ties are real when a batch was imported at one time;
- usage-first: within the most expendable kind, never-injected-in-30-days entries first, then
              oldest (a change of the rule, measured for comparison only).

The measure: of the queries whose wanted memory was ever stored, the share that find it gone
(evicted). Lower is better. Each rule sees the same days, memories and queries (same seeds).
"""

from __future__ import annotations

import argparse
import random
import statistics

KINDS = ("preference", "correction", "lesson", "fact")
RANK = {"preference": 0, "correction": 1, "lesson": 2, "fact": 3}  # higher is evicted first
WINDOW = 30


def run(rule: str, seed: int, days: int, cap: int, new_per_day: int, queries_per_day: int) -> float:
    rng = random.Random(seed)
    memories: dict[int, dict] = {}
    stored: list[int] = []
    order = 0

    def new_memory(day: int) -> None:
        nonlocal order
        mid = len(memories)
        useful = rng.random() > 1 / 3
        memories[mid] = {
            "kind": rng.choice(KINDS), "ts": day, "order": order,
            "weight": rng.lognormvariate(0, 1.2) if useful else 0.0,
            "fade": rng.uniform(0.0, 0.05), "born": day, "hits": [],
        }
        order += 1
        stored.append(mid)

    for _ in range(cap):  # an imported batch: all at day 0, the ties the tie-break is for
        new_memory(0)
    misses = asked = 0
    for day in range(1, days + 1):
        for _ in range(new_per_day):
            new_memory(day)
        while len(stored) > cap:
            stored.remove(min(stored, key=lambda m: _key(rule, memories[m], day)))
        present = set(stored)
        ids = list(memories)
        weights = [memories[m]["weight"] * (1 - memories[m]["fade"]) ** (day - memories[m]["born"]) for m in ids]
        for target in rng.choices(ids, weights=weights, k=queries_per_day):
            asked += 1
            if target in present:
                memories[target]["hits"].append(day)
            else:
                misses += 1
    return misses / asked


def _key(rule: str, m: dict, day: int) -> tuple:
    recent = sum(1 for d in m["hits"] if d > day - WINDOW)
    if rule == "specified":
        return (-RANK[m["kind"]], m["ts"], m["order"])
    if rule == "tiebreak":
        return (-RANK[m["kind"]], m["ts"], recent, m["order"])
    return (-RANK[m["kind"]], recent > 0, m["ts"], m["order"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=180)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--cap", type=int, default=500)
    parser.add_argument("--new-per-day", type=int, default=5)
    parser.add_argument("--queries-per-day", type=int, default=40)
    args = parser.parse_args()
    print(f"cap {args.cap}, {args.new_per_day} new memories and {args.queries_per_day} queries a day, "
          f"{args.days} days, {args.seeds} seeds")
    print(f"{'rule':<12} {'miss rate':>10} {'stdev':>8} {'vs specified, paired':>22}")
    specified: list[float] = []
    for rule in ("specified", "tiebreak", "usage-first"):
        rates = [run(rule, seed, args.days, args.cap, args.new_per_day, args.queries_per_day)
                 for seed in range(args.seeds)]
        specified = specified or rates
        diffs = [(a - b) * 100 for a, b in zip(rates, specified)]
        paired = f"{statistics.mean(diffs):+.2f} ± {statistics.stdev(diffs):.2f} pts" if rule != "specified" else ""
        print(f"{rule:<12} {statistics.mean(rates) * 100:>9.2f}% {statistics.stdev(rates) * 100:>7.2f}% {paired:>22}")


if __name__ == "__main__":
    main()
