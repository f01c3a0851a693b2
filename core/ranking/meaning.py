"""Meaning beside the words, in a process that lives long (docs/ranking.md, "Meaning in a long-running process").

The words choose first (BM25, the gate). Then the message is embedded once (multilingual-e5-small,
core/text/semantic.py) and compared with every entry's vector, which the store keeps beside
memory.json (core/store/vectors.py), so a turn costs one embedding and one matrix product:

- a hit the words chose is kept only if its meaning is not far from the message: its cosine reaches
  the keep bar (`Limits.semantic_floor`); otherwise it is held back and its slot goes to the next;
- an entry that shares no scored word with the message is admitted when its cosine reaches the
  stricter admit bar (`Limits.semantic_admit`), into a slot the words left free, at most
  `ADMIT_MAX` a turn.

Each judged entry gets its rule in words for `explain`. An entry with no vector yet (written by a
process without the model, and not embedded since) is judged by its words alone.

numpy comes with the embedder and is imported here only when a judgement is made; the per-turn
hook (`memtui inject`, a new process) never comes here unless asked (`--profile semantic`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Container, Sequence

__all__ = ["ADMIT_MAX", "Choice", "combine", "cosines_of", "query_vector", "unavailable"]

# How many entries meaning alone may add to a turn (measured: docs/ranking.md).
ADMIT_MAX = 1
# Which entries may be admitted: "wordless" (no scored word shared with the message) or "unpicked"
# (any the words did not pick, the gate's held-back ones included). Measured: docs/ranking.md.
ADMIT_POOL = "wordless"

KEPT, HELD, ADMITTED, WORDS_ONLY = "kept", "held", "admitted", "words"

QUERY_CACHE = 64  # explain and the block of one turn ask for the same message
_lock = threading.Lock()
_queries: OrderedDict[str, object] = OrderedDict()


def _bar(value: float) -> str:
    return f"{value:.2f}" if round(value, 2) == value else f"{value:.3f}"


def rule_words(rule: str, cosine: float | None, keep: float, admit: float) -> str:
    """The rule that decided an entry, in words (explain)."""
    if rule == WORDS_ONLY or cosine is None:
        return "judged by its words alone: no vector of its text yet (it is embedded in the background)"
    if rule == KEPT:
        if not keep:
            return f"kept by its words; cosine {cosine:.3f} with the message (no keep bar)"
        return f"kept: its words match and its meaning is near the message (cosine {cosine:.3f} ≥ {_bar(keep)})"
    if rule == HELD:
        return f"held back: its words match but its meaning is far from the message (cosine {cosine:.3f} < {_bar(keep)})"
    return (f"admitted by meaning: it shares no word with the message, and its cosine {cosine:.3f} reaches the "
            f"admit bar {_bar(admit)}")


def not_admitted(cosine: float, admit: float) -> str:
    """Why an entry the words did not pick was not admitted either (explain)."""
    if not admit:
        return f"not judged: the words did not pick it (cosine {cosine:.3f}; no admit bar)"
    return f"not admitted: the words did not pick it, and its cosine {cosine:.3f} is below the admit bar {_bar(admit)}"


def shares_words(cosine: float) -> str:
    """Why an entry sharing a word that the gate held back is not admitted by meaning (explain)."""
    return (f"not admitted: it shares a word with the message, so its words decide (cosine {cosine:.3f}); "
            "meaning admits only entries sharing none")


def unavailable(status: str) -> str:
    return f"meaning not used: embeddings unavailable ({status}); ranked by words alone"


class Choice:
    """What meaning decided for one message: the picked entries (doc_id, score) best first, each
    judged entry's cosine and rule (KEPT, HELD, ADMITTED, WORDS_ONLY)."""

    __slots__ = ("picked", "cosines", "rules", "all_cosines", "known")

    def __init__(self, picked: list[tuple[int, float]], cosines: dict[int, float], rules: dict[int, str],
                 all_cosines=None, known=None) -> None:
        self.picked = picked
        self.cosines = cosines
        self.rules = rules
        self.all_cosines = all_cosines  # every entry's cosine (by position), for explain
        self.known = known  # which entries have a vector


def combine(lexical: Sequence[tuple[int, float]], cosines, known, k: int, keep: float, admit: float,
            excluded: Container[int] = (), scored: Container[int] = (), admit_max: int | None = None,
            pool: str | None = None) -> Choice:
    """The entries to inject. `lexical`: the hits the gate passed, best first; `cosines`: each
    entry's cosine with the message (a numpy array, by position); `known`: which entries have a
    vector (a boolean array); `excluded`: blocked entries; `scored`: the entries sharing a scored
    term with the message (for the "wordless" pool)."""
    admit_max = ADMIT_MAX if admit_max is None else admit_max
    pool = ADMIT_POOL if pool is None else pool
    picked: list[tuple[int, float]] = []
    judged: dict[int, float] = {}
    rules: dict[int, str] = {}
    if k <= 0:
        return Choice([], {}, {})
    for doc_id, score in lexical:
        if len(picked) == k:
            break
        if not known[doc_id]:
            rules[doc_id] = WORDS_ONLY
            picked.append((doc_id, score))
            continue
        cosine = round(float(cosines[doc_id]), 4)
        judged[doc_id] = cosine
        if keep and cosine < keep:
            rules[doc_id] = HELD
        else:
            rules[doc_id] = KEPT
            picked.append((doc_id, score))
    if admit and admit_max > 0 and len(picked) < k:
        import numpy as np

        chosen = {doc_id for doc_id, _ in lexical}
        above = np.flatnonzero(known & (cosines >= admit))
        order = above[np.argsort(-cosines[above], kind="stable")].tolist()
        added = 0
        for doc_id in order:
            if doc_id in chosen or (pool == "wordless" and doc_id in scored):
                continue
            if doc_id in excluded:
                continue
            judged[doc_id] = round(float(cosines[doc_id]), 4)
            rules[doc_id] = ADMITTED
            picked.append((doc_id, 0.0))
            added += 1
            if added == admit_max or len(picked) == k:
                break
    return Choice(picked, judged, rules, cosines, known)


# Rows per matrix-vector product: BLAS splits a bigger one over threads, and on a machine whose cores
# are busy that costs 4-20 ms at 10,000 entries against 0.5 ms in blocks of this size (measured).
BLOCK = 1024


def cosines_of(matrix, vector):
    """Each row's dot product with `vector` (the rows and the vector are unit length: the cosines)."""
    import numpy as np

    if len(matrix) <= BLOCK:
        return matrix @ vector
    out = np.empty(len(matrix), dtype=np.result_type(matrix, vector))
    for start in range(0, len(matrix), BLOCK):
        np.dot(matrix[start:start + BLOCK], vector, out=out[start:start + BLOCK])
    return out


def query_vector(text: str):
    """The message's vector (the model's query side), or None without the model; the last
    messages' vectors are kept, since explain and the block of a turn ask for the same one."""
    with _lock:
        vector = _queries.get(text)
        if vector is not None:
            _queries.move_to_end(text)
            return vector
    from ..text import semantic

    try:
        rows = semantic.queries([text])
    except (RuntimeError, ValueError, OSError, MemoryError):
        return None
    if rows is None:
        return None
    with _lock:
        _queries[text] = rows[0]
        while len(_queries) > QUERY_CACHE:
            _queries.popitem(last=False)
    return rows[0]


def _reset_for_tests() -> None:
    with _lock:
        _queries.clear()
