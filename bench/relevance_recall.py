"""An experiment: can the embeddings also RECALL a memory that no word of the message matched?

    python -m bench.relevance --sweep-recall        # choose the setting on A (all), B, C and D pooled
    python -m bench.relevance --recall-check SETTING # then set E, once, before and after

The semantic profile (docs/ranking.md, "The semantic floor") only vetoes the words' hits. The
misses the words leave are paraphrases and messages in the other language that share no word (nor
keyword) with their memory. The rule tried here adds such a memory on the embedding's word alone:

- every entry is embedded as the floor embeds it (text, then keywords when the run uses them;
  passage side), the message on the query side, and each entry's cosine with the message is known;
- the candidate is the entry of highest cosine in the whole store; it is recalled when it took no
  part in the words' choice (`scope` "zero": no scored term of the message is in it, status
  zero_score; "any": also a lexical hit the gate held back), its cosine reaches `R`, and it leads
  the second-highest cosine by at least `M`;
- `when` "empty": only when the words (gate and floor) injected nothing; "free": whenever they
  left a slot of top_k free. A recalled entry goes after the words' picks; nothing is displaced.

A cross-check, `rrf`: the words' picks and every zero-score entry whose cosine reaches R, ranked by
reciprocal rank fusion (1/(60 + BM25 rank) + 1/(60 + cosine rank); an entry without a word has the
last BM25 rank), the first top_k of them (so a recalled entry may displace the words' last pick).

The selection rule, written down before the sweep ran: the baseline is the semantic profile as it
stands (floor 0.80, slots refilled). A setting is eligible when, pooled over A (all), B, C and D,
in both runs (keywords, texts alone), its false recall rises at most 1.0 point, its other entries
per relevant turn at most 0.05, and its lexical hits kept do not fall. Among the eligible, the
largest gain of pooled hit@4 summed over both runs wins; ties go to the lower summed false recall,
then the higher R, then the larger M, then "empty" before "free", then "zero" before "any". No
eligible setting with a gain: recall is not adopted. Set E is measured once, with the chosen
setting, and decides whether it is built (at least +4 points of hit@4 in the keywords run with
false recall not worse).

With the rule off (`Setting(None)`), the picker is exactly the semantic profile's choice
(tests/test_relevance_recall.py checks it against `search`, with a fake embedder). Measured and not
adopted: docs/ranking.md, "Tried and not adopted", has the figures.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

# The semantic profile as this experiment ran on it: the semantic floor alone, at 0.80 (before
# meaning's keep and admit bars, docs/ranking.md).
FLOOR_BEFORE_MEANING = 0.80

DEV_SETS = ("A", "B", "C", "D")
RS = (0.80, 0.82, 0.83, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90, 0.92)
MS = (0.0, 0.01, 0.02, 0.03, 0.05)
RRF_K = 60


@dataclass(frozen=True)
class Setting:
    r: float | None  # None: the rule is off (the semantic profile's own choice)
    m: float = 0.0
    when: str = "empty"  # "empty" or "free"
    scope: str = "zero"  # "zero" or "any"
    rrf: bool = False

    def label(self) -> str:
        if self.r is None:
            return "recall off"
        if self.rrf:
            return f"rrf R>={self.r:.2f}"
        return f"R>={self.r:.2f} M>={self.m:.2f} {self.when} {self.scope}"

    @staticmethod
    def parse(text: str) -> "Setting":
        """`R,M,when,scope` (e.g. `0.86,0.02,empty,zero`) or `rrf,R`."""
        parts = [p.strip() for p in text.split(",")]
        if parts[0] == "rrf":
            return Setting(float(parts[1]), rrf=True)
        return Setting(float(parts[0]), float(parts[1]), parts[2], parts[3])


class Turn:
    """What one message met in one store: the words' choice (the semantic profile), which entries
    held a scored term, each entry's BM25 rank and cosine."""

    __slots__ = ("picked", "scored", "bm25_rank", "cosines")

    def __init__(self, picked: list[str], scored: set[str], bm25_rank: dict[str, int], cosines: dict[str, float]):
        self.picked = picked
        self.scored = scored
        self.bm25_rank = bm25_rank
        self.cosines = cosines


def observe(store, text: str, cosines: dict[str, float]) -> Turn:
    """The semantic profile's explanation of `text`, reduced to what the recall rule reads."""
    explanation = store.explain(text)
    live = [e for e in explanation.entries if str(e.status) != "blocked"]
    chosen = sorted((e for e in live if str(e.status) in ("injected", "cut_budget")), key=lambda e: e.rank)
    scored = [e for e in live if e.score > 0.0]
    bm25_rank = {e.id: n for n, e in enumerate(sorted(scored, key=lambda e: -e.score), start=1)}
    return Turn([e.id for e in chosen], {e.id for e in scored}, bm25_rank,
                {e.id: cosines[e.id] for e in live if e.id in cosines})


def choose(turn: Turn, setting: Setting, k: int) -> list[str]:
    picked = list(turn.picked)
    if setting.r is None or not turn.cosines:
        return picked
    if setting.rrf:
        n = len(turn.cosines) + 1
        by_cosine = sorted(turn.cosines, key=lambda i: -turn.cosines[i])
        cos_rank = {i: position for position, i in enumerate(by_cosine, start=1)}
        pool = picked + [i for i in by_cosine if i not in turn.scored and turn.cosines[i] >= setting.r]
        fused = lambda i: 1 / (RRF_K + turn.bm25_rank.get(i, n)) + 1 / (RRF_K + cos_rank[i])  # noqa: E731
        return sorted(pool, key=lambda i: -fused(i))[:k]
    if len(picked) >= k or (setting.when == "empty" and picked):
        return picked
    ranked = sorted(turn.cosines.items(), key=lambda item: -item[1])
    top, cosine = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else -1.0
    if top in picked or cosine < setting.r or cosine - second < setting.m:
        return picked
    if setting.scope == "zero" and top in turn.scored:
        return picked
    return picked + [top]


def _cosines(store, texts: list[str], with_keywords: bool) -> list[dict[str, float]]:
    """Each message's cosine with every entry (vectors through the floor's caches, one batch each)."""
    import numpy

    from memtui_core.text import semantic
    from memtui_core.ranking import semantic_floor

    entries = store.entries()
    passages = semantic_floor._passage_vectors(
        [semantic_floor.passage_text(e.text, e.keywords, with_keywords) for e in entries])
    matrix = numpy.stack(passages)
    queries = semantic.queries(texts)
    out = []
    for vector in queries:
        row = matrix @ vector
        out.append({e.id: round(float(c), 4) for e, c in zip(entries, row)})
    return out


def settings() -> list[Setting]:
    grid = [Setting(None)]
    for r in RS:
        for m in MS:
            for when in ("empty", "free"):
                for scope in ("zero", "any"):
                    grid.append(Setting(r, m, when, scope))
        grid.append(Setting(r, rrf=True))
    return grid


def _runs(sets, grid):
    from bench.relevance import build, built, measure
    from memtui_core import Limits

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name, run, with_keywords, store, ids, memories, messages in built(sets, Limits(semantic_floor=FLOOR_BEFORE_MEANING, core_budget=0), tmp):
            k = store.limits.top_k
            texts = [m["text"] for m in messages]
            turns = {t: observe(store, t, c) for t, c in zip(texts, _cosines(store, texts, with_keywords))}
            out[(set_name, run, "search")] = measure(store, ids, messages)
            for setting in grid:
                out[(set_name, run, setting)] = measure(
                    store, ids, messages, lambda _s, text, s=setting: choose(turns[text], s, k))
            # the default profile, for the table's first row
            plain, plain_ids = build(Path(tmp) / f"{set_name}{run}d", memories, with_keywords, Limits(core_budget=0))
            out[(set_name, run, "default")] = measure(plain, plain_ids, messages)
    return out


def _pooled(figures: list[dict]) -> dict[str, float]:
    rel = sum(f["relevant"] for f in figures)
    none = sum(f["none"] for f in figures)
    lex = sum(f["lexical"] for f in figures)
    return {"hit": sum(f["hit@4"] * f["relevant"] for f in figures) / rel,
            "fr": sum(f["false_recall"] * f["none"] for f in figures) / none,
            "others": sum(f["others_per_relevant_turn"] * f["relevant"] for f in figures) / rel,
            "lex": sum(f["lexical_hits_kept"] * f["lexical"] for f in figures) / lex}


def select(results, sets=DEV_SETS, grid=None):
    """The setting the rule in this module's docstring chooses, or None; and every eligible one."""
    grid = grid or settings()
    base = {run: _pooled([results[(s, run, Setting(None))] for s in sets]) for run in ("keywords", "texts")}
    eligible = []
    for setting in grid[1:]:
        p = {run: _pooled([results[(s, run, setting)] for s in sets]) for run in ("keywords", "texts")}
        if all(p[run]["fr"] - base[run]["fr"] <= 0.010 + 1e-9 and p[run]["others"] - base[run]["others"] <= 0.05 + 1e-9
               and p[run]["lex"] >= base[run]["lex"] - 1e-9 for run in p):
            gain = sum(p[run]["hit"] - base[run]["hit"] for run in p)
            fr = sum(p[run]["fr"] for run in p)
            eligible.append((round(gain, 6), -round(fr, 6), setting.r, setting.m, setting.when == "empty",
                             setting.scope == "zero", setting))
    eligible.sort(key=lambda e: e[:6], reverse=True)
    best = eligible[0][-1] if eligible and eligible[0][0] > 0 else None
    return best, [e[-1] for e in eligible]


def _line(label: str, figures: list[dict]) -> str:
    p = _pooled(figures)
    cells = " ".join(f"{f['hit@4']:>4.0%}/{f['false_recall']:>3.0%}" for f in figures)
    return f"{label:<40} {p['hit']:>6.1%} {p['fr']:>6.1%} {p['others']:>6.2f} {p['lex']:>6.1%} | {cells}"


def sweep(verbose: bool = False) -> str:
    from memtui_core.text import semantic

    if semantic.status() != "ok":
        return f"recall needs the embedder: {semantic.status()}"
    grid = settings()
    results = _runs(DEV_SETS, grid)
    best, eligible = select(results, DEV_SETS, grid)
    lines = [f"{'run, setting':<40} {'hit@4':>6} {'FR':>6} {'others':>6} {'lex':>6} | "
             + " ".join(f"{s + ' hit/FR':>8}" for s in DEV_SETS)]
    shown = grid if verbose else [Setting(None), *eligible[:15], *(s for s in grid if s.rrf)]
    for run in ("keywords", "texts"):
        for extra in ("default", "search"):
            lines.append(_line(f"{run}, {extra}", [results[(s, run, extra)] for s in DEV_SETS]))
        for setting in dict.fromkeys(shown):
            lines.append(_line(f"{run}, {setting.label()}", [results[(s, run, setting)] for s in DEV_SETS]))
    lines.append(f"eligible settings: {len(eligible)}; chosen: {best.label() if best else 'none (no gain)'}")
    if best:
        lines.append(f"  (--recall-check {best.r},{best.m},{best.when},{best.scope})" if not best.rrf
                     else f"  (--recall-check rrf,{best.r})")
    return "\n".join(lines)


def check(setting: Setting, sets=("E",)) -> str:
    """The given sets (E: once, with the chosen setting), before and after, both runs."""
    results = _runs(sets, [Setting(None), setting])
    lines = [f"{'sets ' + '+'.join(sets) + ', run':<34} {'hit@4':>6} {'FR':>6} {'others':>6} {'lex':>6}"]
    for run in ("keywords", "texts"):
        for key, label in (("default", "default profile"), (Setting(None), "semantic (recall off)"),
                           (setting, setting.label())):
            p = _pooled([results[(s, run, key)] for s in sets])
            lines.append(f"{run + ', ' + label:<34} {p['hit']:>6.1%} {p['fr']:>6.1%} {p['others']:>6.2f} {p['lex']:>6.1%}")
        for s in sets:
            before, after = results[(s, run, Setting(None))], results[(s, run, setting)]
            gained = sorted(set(before["misses"]) - set(after["misses"]))
            noise = sorted(set(after["false_recalls"]) - set(before["false_recalls"]))
            lines.append(f"  {s} {run}: recalled {gained}\n  new false recalls {noise}")
    return "\n".join(lines)


COST_SCRIPT = """
import json, sys, time
start = time.perf_counter()
from memtui_core.text import semantic
texts = json.loads(sys.stdin.read())
semantic.queries(["warm-up query"])
loaded = time.perf_counter()
semantic.passages(texts)
embedded = time.perf_counter()
print(json.dumps([loaded - start, embedded - loaded]))
"""


def cost(rounds: int = 3) -> str:
    """What recall would pay in a new process (the per-turn hook's case): numpy, the model and one
    query, then every entry's passage vector (recall compares the message with all of them), on set
    A's 36 memories with keywords and on 500 entries of bench/corpus.py's realistic store."""
    import json
    import os
    import statistics
    import subprocess
    import sys

    from bench.corpus import make_realistic_entries
    from bench.relevance import load
    from memtui_core.text import semantic
    from memtui_core.ranking import semantic_floor

    if semantic.status() != "ok":
        return f"recall needs the embedder: {semantic.status()}"
    memories, _ = load("A")
    stores = {"set A, 36 entries": [semantic_floor.passage_text(m["text"], m["keywords"], True) for m in memories],
              "realistic, 500 entries": [e["text"] for e in make_realistic_entries(500)]}
    lines = [f"new process, medians of {rounds}; load average {os.getloadavg()[0]:.1f}"]
    for name, texts in stores.items():
        runs = [json.loads(subprocess.run([sys.executable, "-c", COST_SCRIPT], input=json.dumps(texts), text=True,
                                          capture_output=True, check=True).stdout) for _ in range(rounds)]
        load_s = statistics.median(r[0] for r in runs)
        embed_s = statistics.median(r[1] for r in runs)
        lines.append(f"{name}: numpy + model + first query {load_s * 1000:.0f} ms; every passage {embed_s * 1000:.0f} ms "
                     f"({embed_s / len(texts) * 1000:.1f} ms each)")
    return "\n".join(lines)


def ceiling(sets=DEV_SETS) -> str:
    """Why no threshold does better: for the misses whose memory holds no word of the message, where
    that memory stands by cosine; for the no-memory messages the words leave empty, the best cosine."""
    from bench.relevance import build, load
    from memtui_core import Limits

    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for with_keywords in (True, False):
            run = "keywords" if with_keywords else "texts"
            top1, cos_missed, cos_none, margins_missed, margins_none, misses = [], [], [], [], [], 0
            for set_name in sets:
                memories, messages = load(set_name)
                store, ids = build(Path(tmp) / f"{set_name}{run}", memories, with_keywords, Limits(semantic_floor=FLOOR_BEFORE_MEANING, core_budget=0))
                back = {v: k for k, v in ids.items()}
                texts = [m["text"] for m in messages]
                for message, cosines in zip(messages, _cosines(store, texts, with_keywords)):
                    turn = observe(store, message["text"], cosines)
                    ranked = sorted(cosines.values(), reverse=True)
                    expect = [back[e] for e in message["expect"]]
                    if message["expect"] and not set(expect) & set(turn.picked) and not turn.picked:
                        if any(e in turn.scored for e in expect):
                            continue
                        misses += 1
                        best = max(cosines[e] for e in expect)
                        cos_missed.append(best)
                        top1.append(best == ranked[0])
                        margins_missed.append(best - ranked[1] if best == ranked[0] else best - ranked[0])
                    elif not message["expect"] and not turn.picked:
                        cos_none.append(ranked[0])
                        margins_none.append(ranked[0] - ranked[1])

            def q(values):
                v = sorted(values)
                return " ".join(f"{v[int(p * (len(v) - 1))]:.3f}" for p in (0.1, 0.25, 0.5, 0.75, 0.9))

            lines.append(f"{run}: {misses} relevant messages the words leave empty whose memory holds no word of them; "
                         f"their memory is the top cosine in {sum(top1)} ({sum(top1) / max(misses, 1):.0%})")
            lines.append(f"  its cosine, quantiles 10/25/50/75/90%: {q(cos_missed)}; margin over the next: {q(margins_missed)}")
            lines.append(f"  {len(cos_none)} no-memory messages the words leave empty: top cosine {q(cos_none)}; "
                         f"margin {q(margins_none)}; at or above 0.88: {sum(c >= 0.88 for c in cos_none)}")
            lines.append(f"  relevant at or above 0.88: {sum(c >= 0.88 for c in cos_missed)}; as top by any margin: "
                         f"{sum(1 for c, t in zip(cos_missed, top1) if t and c >= 0.88)}")
    return "\n".join(lines)
