"""Warm queries of two versions of the code, interleaved: `python -m bench.ab BEFORE AFTER [--sizes 500,10000]`.

BEFORE and AFTER are folders to put first on PYTHONPATH, each holding `memtui_core` (a link to
that tree's core/), `memtui` and `bench` (e.g. made from `git archive`). On a loaded machine two
benchmark runs minutes apart are not comparable; here each round runs one process per version and
size, alternating which goes first, and the medians of the rounds' medians are printed. Each
process measures what `python -m bench` measures for a long-running agent: repeated queries, the
whole `retrieve_block` with never-asked terms, the ranking step alone on the peers' token lists,
and bm25s on the same tokens in the same process (ratios are taken within one process).
With `--inject N`, it also times N rounds of whole `memtui inject` processes of each version, each
round running `python -c "import orjson"` (the floor), BEFORE and AFTER back to back; with
`--first N`, N interleaved rounds of the first `memtui inject` on a store another program wrote
(memory.json alone, no derived index yet: the whole file is parsed and the index derived).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path


def one(directory: Path, count: int, repeat: int, seed: int) -> dict[str, float]:
    """The measurements of one process (run by `--one`)."""
    from bench import peers
    from bench.__main__ import TOP_K, limits_for, median_ms
    from bench.corpus import QUERIES, fresh_queries
    from memtui_core import MemoryStore
    from memtui_core.ranking.index import document_tokens
    from memtui_core.text.tokenize import tokenize

    store = MemoryStore(directory, limits_for(count))
    entries = store.entries()
    fresh = fresh_queries([e.text for e in entries], repeat * 3, seed=seed)
    for query in QUERIES:
        store.retrieve_block(query)
    out = {"repeated": median_ms(lambda i: store.retrieve_block(QUERIES[i % 8]), repeat),
           "block": median_ms(lambda i: store.retrieve_block(fresh[i]), repeat)}
    tokens = [tokenize(query) for query in fresh[repeat:]]
    index = store._snap(lean=True).index
    index.top(tokenize(QUERIES[0]), TOP_K)
    out["rank"] = median_ms(lambda i: index.top(tokens[i], TOP_K), repeat)
    retriever = peers.bm25s_build([document_tokens(e.text, e.kind.label, e.kind.value) for e in entries])
    out["bm25s"] = median_ms(lambda i: peers.bm25s_query(retriever, tokens[i]), repeat)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="?")
    parser.add_argument("after", nargs="?")
    parser.add_argument("--sizes", default="500,10000")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=150)
    parser.add_argument("--inject", type=int, default=0, metavar="N",
                        help="also time N interleaved rounds of whole `memtui inject` processes")
    parser.add_argument("--first", type=int, default=0, metavar="N",
                        help="also time N interleaved rounds of a first `memtui inject` on a store without its index")
    parser.add_argument("--work", default=None, help="folder for the stores (default: a new temporary one)")
    parser.add_argument("--one", nargs=4, metavar=("DIR", "COUNT", "REPEAT", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        directory, count, repeat, seed = args.one
        print(json.dumps(one(Path(directory), int(count), int(repeat), int(seed))))
        return 0
    if not (args.before and args.after):
        parser.error("give the BEFORE and AFTER folders")
    import tempfile

    work = Path(args.work or tempfile.mkdtemp(prefix="memtui-ab-"))
    try:
        _compare(args, work)
    finally:
        if not args.work:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
    return 0


def _inject_rounds(codes: dict[str, str], dirs: dict[str, Path], rounds: int) -> dict[str, float]:
    """Whole processes, interleaved: the orjson floor, then each version's `memtui inject` (medians, ms)."""
    import time

    from bench.corpus import QUERIES

    commands = {"orjson": ([sys.executable, "-c", "import orjson"], None)}
    for name, path in codes.items():
        commands[name] = ([sys.executable, "-m", "memtui", "--dir", str(dirs[name]), "inject", QUERIES[3]], path)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(rounds + 1):  # round 0 warms up: .pyc written, index saved, page cache filled
        order = list(commands.items()) if round_ % 2 == 0 else list(reversed(commands.items()))
        for name, (cmd, path) in order:
            env = dict(os.environ, PYTHONPATH=path) if path else dict(os.environ)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            start = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
            if round_:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def _first_turns(codes: dict[str, str], source: Path, work: Path, rounds: int) -> dict[str, float]:
    """The first `memtui inject` of each version on a fresh copy of `source`'s memory.json (medians, s)."""
    import shutil
    import time

    from bench.corpus import QUERIES

    times: dict[str, list[float]] = {name: [] for name in codes}
    for round_ in range(rounds):
        order = list(codes.items()) if round_ % 2 == 0 else list(reversed(codes.items()))
        for name, path in order:
            directory = work / f"first-{name}"
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir()
            shutil.copy(source / "memory.json", directory / "memory.json")
            env = dict(os.environ, PYTHONPATH=path)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "memtui", "--dir", str(directory), "inject", QUERIES[3]],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def _compare(args, work: Path) -> None:
    from bench.corpus import write_realistic_store

    sizes = [int(size) for size in args.sizes.split(",")]
    codes = {"before": args.before, "after": args.after}
    for count in sizes:
        for name in codes:  # a store per version: each derives and keeps its own index
            if not (work / f"{name}{count}" / "memory.json").exists():
                write_realistic_store(work / f"{name}{count}", count)
    if args.inject:
        print(f"{'entries':>8} {'orjson':>8} " + " ".join(f"{name:>8} {name + '/orjson':>13}" for name in codes))
        for count in sizes:
            m = _inject_rounds(codes, {name: work / f"{name}{count}" for name in codes}, args.inject)
            print(f"{count:>8} {m['orjson']:>8.1f} "
                  + " ".join(f"{m[name]:>8.1f} {m[name] / m['orjson']:>12.2f}x" for name in codes))
    if args.first:
        print("first `memtui inject` on a store without its index, seconds")
        print(f"{'entries':>8} " + " ".join(f"{name:>8}" for name in codes))
        for count in sizes:
            m = _first_turns(codes, work / f"before{count}", work, args.first)
            print(f"{count:>8} " + " ".join(f"{m[name]:>8.2f}" for name in codes))
    if (args.inject or args.first) and not args.rounds:
        return
    results: dict[tuple[str, int], list[dict[str, float]]] = {(name, count): [] for name in codes for count in sizes}
    for round_ in range(args.rounds):
        for count in sizes:
            order = list(codes.items()) if round_ % 2 == 0 else list(reversed(codes.items()))
            for name, path in order:
                env = dict(os.environ, PYTHONPATH=path)
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                done = subprocess.run([sys.executable, "-m", "bench.ab", "--one", str(work / f"{name}{count}"),
                                       str(count), str(args.repeat), str(round_ + 5)],
                                      capture_output=True, text=True, env=env, cwd=work, check=True)
                results[(name, count)].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'entries':>8} {'code':>6} {'repeated':>9} {'block':>8} {'rank':>8} {'bm25s':>8} {'rank/bm25s':>10} "
          f"{'block/bm25s':>11}")
    for count in sizes:
        for name in codes:
            rows = results[(name, count)]
            m = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
            print(f"{count:>8} {name:>6} {m['repeated']:>9.3f} {m['block']:>8.3f} {m['rank']:>8.3f} {m['bm25s']:>8.3f} "
                  f"{m['rank'] / m['bm25s']:>9.2f}x {m['block'] / m['bm25s']:>10.2f}x")


if __name__ == "__main__":
    raise SystemExit(main())
