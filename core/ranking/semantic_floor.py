"""The semantic floor (docs/ranking.md, "The semantic floor (before meaning)"): the veto on the words' picks.

The engine's semantic profile now judges by meaning (ranking/meaning.py, with each entry's vector
kept beside memory.json), whose keep bar is this floor; what stays here is the floor as it was
measured, embedding candidates on demand, for the replays of bench/relevance_semantic.py and
bench/relevance_recall.py, and `pool_size`, how many of the gate's hits meaning judges.

The words choose the hits (BM25, the gate); then a hit whose meaning is far from the message is
held back: the cosine between the message (the model's query side) and the entry's text with its
keywords (passage side) must reach `Limits.semantic_floor`. The remaining false recalls of the
words share one ordinary word with an entry ("What's a report card" and the memory about client
reports); the embedding tells those apart from a relevant match on one word.

A vetoed hit's slot is refilled by the next hit that passed the gate (docs/ranking.md has the
measurement that chose this). Embeddings cost 0.3-1 s in a new process (numpy, the model, the engine's first run,
one query), so the floor is off unless the profile asks for it (`Limits.semantic()`), and this
module imports `semantic` (and through it numpy) only when a floor is set. Passage vectors are
kept in a bounded in-process cache keyed by the exact text embedded, so a long-running agent pays
one query embedding per turn.

When the embedder is unavailable (`semantic.status()` is not "ok"), nothing is vetoed and the
explanation says so in one line.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

__all__ = ["Verdict", "judge", "judge_records", "passage_text", "reason"]

# Whether a vetoed hit's slot goes to the next hit that passed the gate (measured: docs/ranking.md),
# and how many of those hits, per slot of top_k, the floor may look at.
REFILL = True
DEPTH = 3
PASSAGE_CACHE = 4096  # vectors of 384 float32: about 6 MB at most, eight full stores
QUERY_CACHE = 64  # explain and the block of one turn ask for the same message

_lock = threading.Lock()
_passages: OrderedDict[str, object] = OrderedDict()
_queries: OrderedDict[str, object] = OrderedDict()


def pool_size(k: int, refill: bool | None = None) -> int:
    """How many of the gate's hits the floor may judge for `k` slots (more than k only when vetoed
    slots are refilled)."""
    return DEPTH * k if (REFILL if refill is None else refill) else k


def passage_text(text: str, keywords: Sequence[str], with_keywords: bool) -> str:
    """What an entry is embedded as: its text, then its keywords (when the profile uses them)."""
    if with_keywords and keywords:
        return f"{text} {', '.join(keywords)}"
    return text


def reason(cosine: float, floor: float) -> str:
    shown = f"{floor:.2f}" if round(floor, 2) == floor else f"{floor:.3f}"
    return f"its meaning is far from the message: cosine {cosine:.3f} < {shown} (the semantic floor)"


def unavailable(floor: float) -> str | None:
    """One line when the floor is asked for but cannot be applied in this process, else None."""
    from ..text import semantic

    status = semantic.status()
    if status == "ok":
        return None
    return f"semantic floor {floor:.2f} not applied: embeddings unavailable ({status}); ranked by words alone"


class Verdict:
    """What the floor decided for one message: the kept hits (best first, at most k), each judged
    candidate's cosine, the vetoed ones, and `note` (None, or why the floor was not applied)."""

    __slots__ = ("kept", "cosines", "vetoed", "note")

    def __init__(self, kept: list[int], cosines: dict[int, float], vetoed: list[int], note: str | None) -> None:
        self.kept = kept
        self.cosines = cosines
        self.vetoed = vetoed
        self.note = note


def judge(query: str, candidates: Sequence[int], passage: Callable[[int], str], k: int, floor: float,
          refill: bool | None = None) -> Verdict:
    """Walk `candidates` (positions, best first) and keep the first `k` whose cosine with `query`
    reaches `floor`. With `refill`, a vetoed candidate's slot goes to the next one; without it, only
    the first `k` candidates are judged. Candidates are embedded in batches of the slots still open."""
    if refill is None:
        refill = REFILL
    if k <= 0 or not candidates:
        return Verdict([], {}, [], None)
    note = unavailable(floor)
    if note is not None:
        return Verdict(list(candidates[:k]), {}, [], note)
    query_vector = _query(query)
    if query_vector is None:  # the model failed after loading: rank by words
        return Verdict(list(candidates[:k]), {}, [], unavailable(floor))
    pool = list(candidates[: pool_size(k, refill)])
    kept: list[int] = []
    cosines: dict[int, float] = {}
    vetoed: list[int] = []
    start = 0
    while start < len(pool) and len(kept) < k:
        batch = pool[start: start + k - len(kept)]
        start += len(batch)
        vectors = _passage_vectors([passage(doc_id) for doc_id in batch])
        if vectors is None:
            return Verdict(list(candidates[:k]), {}, [], unavailable(floor))
        for doc_id, vector in zip(batch, vectors):
            cosine = round(float(query_vector @ vector), 4)
            cosines[doc_id] = cosine
            (kept if cosine >= floor else vetoed).append(doc_id)
    return Verdict(kept, cosines, vetoed, None)


def judge_records(query: str, records: Sequence, candidates: Sequence[int], k: int, limits) -> Verdict:
    """`judge` on the store's records at those positions, with the profile's floor: an entry is its
    text, then its keywords when the profile uses keywords."""
    with_keywords = limits.keyword_weight > 0.0
    return judge(query, candidates, lambda doc_id: passage_text(records[doc_id].text, records[doc_id].keywords,
                                                                with_keywords), k, limits.semantic_floor)


def _query(text: str):
    with _lock:
        vector = _queries.get(text)
        if vector is not None:
            _queries.move_to_end(text)
            return vector
    from ..text import semantic

    rows = semantic.queries([text])
    if rows is None:
        return None
    with _lock:
        _remember(_queries, text, rows[0], QUERY_CACHE)
    return rows[0]


def _passage_vectors(texts: list[str]) -> list | None:
    """One vector per text: the cached ones, and the rest embedded in one call."""
    found: dict[str, object] = {}
    with _lock:
        for text in texts:
            vector = _passages.get(text)
            if vector is not None:
                _passages.move_to_end(text)
                found[text] = vector
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    if missing:
        from ..text import semantic

        rows = semantic.passages(missing)
        if rows is None:
            return None
        with _lock:
            for text, row in zip(missing, rows):
                found[text] = row
                _remember(_passages, text, row, PASSAGE_CACHE)
    return [found[text] for text in texts]


def _remember(cache: OrderedDict, key: str, value: object, bound: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > bound:
        cache.popitem(last=False)


def cached() -> tuple[int, int]:
    """How many passage and query vectors the process keeps (for tests and the docs)."""
    with _lock:
        return len(_passages), len(_queries)


def _reset_for_tests() -> None:
    with _lock:
        _passages.clear()
        _queries.clear()
