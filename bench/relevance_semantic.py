"""How the semantic floor was chosen: `python -m bench.relevance --sweep-semantic`.

Sets A (all of it), B, C and D, both runs (keywords, texts alone), the floor off and a grid of
floors, each with a vetoed hit's slot refilled by the next hit that passed the gate and left
empty. Set E is not in the sweep: it confirms the chosen floor afterwards (`python -m
bench.relevance`, the "semantic" runs). The rule, fixed before the sweep was run: the highest
floor, refilled or not, that loses at most 2 points of pooled hit@4 and of pooled lexical hits
kept in both runs (docs/ranking.md, "The semantic floor").
"""

from __future__ import annotations

import tempfile
from pathlib import Path

FLOORS = (0.76, 0.78, 0.79, 0.80, 0.81, 0.82, 0.83, 0.84)
SETS = ("A", "B", "C", "D")


def _runs(sets=SETS, floors=FLOORS) -> dict:
    """The figures of every (set, run, floor, refill). Each message's candidates (the hits the gate
    passes, as many as the floor may look at) and their cosines are worked out once; each setting
    then keeps what `semantic_floor.judge` would keep (the same walk, on the same numbers)."""
    from bench.relevance import built, measure
    from memtui_core import Limits
    from memtui_core.ranking import semantic_floor

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name, run, with_keywords, store, ids, memories, messages in built(sets, Limits(core_budget=0), tmp):
            out[(set_name, run, None, None)] = measure(store, ids, messages)
            k = store.limits.top_k
            judged = {}
            for message in messages:
                hits = store.search(message["text"], top_k=semantic_floor.DEPTH * k)
                texts = [semantic_floor.passage_text(h.entry.text, h.entry.keywords, with_keywords) for h in hits]
                verdict = semantic_floor.judge(message["text"], list(range(len(hits))), texts.__getitem__,
                                               len(hits), -1.0, refill=False)
                judged[message["text"]] = [(h.entry.id, verdict.cosines[i]) for i, h in enumerate(hits)]
            for floor in floors:
                for fill in (True, False):
                    out[(set_name, run, floor, fill)] = measure(store, ids, messages, _picker(judged, floor, fill, k))
    return out


def _picker(judged: dict, floor: float, refill: bool, k: int):
    def pick(store, text: str) -> list[str]:
        pool = judged[text] if refill else judged[text][:k]
        return [entry_id for entry_id, cosine in pool if cosine >= floor][:k]

    return pick


def sweep() -> str:
    from bench.relevance_common import _row
    from memtui_core.text import semantic

    if semantic.status() != "ok":
        return f"the semantic floor needs the embedder: {semantic.status()}"
    results = _runs()
    lines = [f"{'run, setting':<26} {'hit@4':>6} {'FR':>6} {'others':>6} {'lex':>6} | "
             + " ".join(f"{s + ' hit/FR':>8}" for s in SETS)]
    for run in ("keywords", "texts"):
        lines.append(_row(f"{run}, floor off", [results[(s, run, None, None)] for s in SETS]))
        for fill in (True, False):
            for floor in FLOORS:
                label = f"{run}, {floor:.2f} {'refill' if fill else 'empty'}"
                lines.append(_row(label, [results[(s, run, floor, fill)] for s in SETS]))
    return "\n".join(lines)


def cost(rounds: int = 5) -> str:
    """What the floor costs per turn, on set A's store (36 memories with keywords): `memtui inject`
    in a new process (the hook's case: numpy, the model, the query and the candidates' passages),
    and `retrieve_block` in a warm process (one query embedding; passages cached)."""
    import os
    import statistics
    import subprocess
    import sys
    import time

    from bench.relevance import build, load
    from memtui_core import Limits, MemoryStore
    from memtui_core.text import semantic

    if semantic.status() != "ok":
        return f"the semantic floor needs the embedder: {semantic.status()}"
    memories, messages = load("A")
    queries = [m["text"] for m in messages[:: max(1, len(messages) // rounds)]][:rounds]
    lines = [f"set A store, {len(memories)} memories; medians over {len(queries)} messages"]
    with tempfile.TemporaryDirectory() as tmp:
        store, _ids = build(Path(tmp) / "a", memories, True, Limits())
        env = {**os.environ, "MEMTUI_DIR": str(store.dir)}
        for profile in ("default", "semantic"):
            seconds = []
            for query in queries:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "memtui", "--profile", profile, "inject", query], env=env,
                               capture_output=True, check=True)
                seconds.append(time.perf_counter() - start)
            lines.append(f"new process, memtui --profile {profile} inject: {statistics.median(seconds) * 1000:.0f} ms")
        for profile, limits in (("default", Limits(injection_log=0)), ("semantic", Limits.semantic(injection_log=0))):
            warm = MemoryStore(store.dir, limits)
            for message in messages:  # warm: every passage the messages meet is cached, the model loaded
                warm.retrieve_block(message["text"])
            seconds = []
            for message in messages:
                text = message["text"] + " (again)"  # a query not seen yet: its embedding is paid
                start = time.perf_counter()
                warm.retrieve_block(text)
                seconds.append(time.perf_counter() - start)
            lines.append(f"warm process, retrieve_block ({profile}): {statistics.median(seconds) * 1000:.2f} ms "
                         f"median, {max(seconds) * 1000:.1f} ms max over {len(seconds)} messages")
    return "\n".join(lines)
