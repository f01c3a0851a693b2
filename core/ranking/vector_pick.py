"""`pick.pick` over numpy arrays: a long-running agent's query on a big store, judged in bulk.

A query of terms never asked before meets their postings for the first time, and the relevance
gate (`gate.Gate`) judges a hundred or so of the best hits before four pass. Term by term and
hit by hit in Python, that costs about a millisecond at 10,000 entries. Here the same work is a
few array operations per query, whatever the number of terms or hits:

- the postings of all the query's terms are read from the index's ids array in one go; a term's
  runs of one id are its term frequencies, so document frequencies, weights and scores come
  from the same arithmetic as `Index._term`, in the same order (`np.bincount` adds in the order
  of its input: term by term, as the Python sums do), hence the very same floats;
- hits are ordered best first, ties in store order, only as far as the gate needs them;
- whether a hit is blocked is read from an array of what is known already (`state` of the
  `excluded` container: 0 not known, 1 open, 2 blocked); only entries never judged are asked;
- coverage, the settled bar and the relative floor are judged for all candidates at once, from
  the gate's held mass per document, added up as `Gate._held_array` adds it.

Every decision is the one `Gate.reason` makes; where the arrays cannot tell (a query of nothing
but weak terms, a hit holding no counted term), `Gate` itself is asked. tests/core/ranking/test_vector_pick.py
checks that the picks equal the pure-Python path's and explain's, on random stores and queries.
"""

from __future__ import annotations

import numpy as np

from .arrays import QueryArrays, recent_query
from .gate import Gate, _gated

__all__ = ["pick_arrays"]


def pick_arrays(index, terms: dict[str, int], k: int, excluded, min_coverage: float, relative_floor: float,
                general=()) -> list[tuple[int, float]]:
    """`ranking.pick` for an index without keywords whose query is scored with arrays."""
    query = recent_query(index, terms)
    if not query.hits.size:
        return []
    ranking = _Ranking(query.hits, query.values, excluded)
    size = max(8 * k, 32)
    gate = None  # made once: the best open hit, hence the gate, is the same in every round
    while True:
        ids, values = ranking.first_open(size)
        if gate is None and len(ids):
            gate = Gate(index, terms, min_coverage, relative_floor, float(values[0]), None, general)
        picked, certain = _gated_arrays(query, gate, ids, values, k, len(ids) < size, general)
        if certain:
            return picked
        size *= 4


class _Ranking:
    """Hits best first (ties in store order), sorted only as far as asked, and which are open."""

    __slots__ = ("hits", "values", "excluded", "state", "ids", "scores", "open")

    def __init__(self, hits, values, excluded) -> None:
        self.hits, self.values, self.excluded = hits, values, excluded
        state = getattr(excluded, "state", None)
        self.state = None if state is None else np.frombuffer(state, dtype=np.uint8)
        self.ids = self.scores = self.open = None

    def _sort(self, want: int) -> None:
        hits, values = self.hits, self.values
        if want < len(hits):  # every hit scoring at least the want-th best score (ties included)
            ordered = values.copy()
            ordered.partition(len(hits) - want)
            chosen = (values >= ordered[len(hits) - want]).nonzero()[0]
            hits, values = hits[chosen], values[chosen]
        order = np.lexsort((hits, -values))
        self.ids, self.scores = hits[order], values[order]

    def first_open(self, size: int):
        """The first `size` hits in rank order that are not excluded (fewer if there are not)."""
        want = size + 16
        while True:
            if self.ids is None or (len(self.ids) < want and len(self.ids) < len(self.hits)):
                self._sort(want)
            is_open = self._open(size)
            chosen = is_open.nonzero()[0][:size]
            if len(chosen) == size or len(self.ids) == len(self.hits):
                return self.ids[chosen], self.scores[chosen]
            want *= 4

    def _open(self, size: int):
        ids, excluded, state = self.ids, self.excluded, self.state
        if state is None:  # any container: asked about each candidate
            return np.fromiter((doc_id not in excluded for doc_id in ids.tolist()), dtype=bool, count=len(ids))
        known = state[ids]
        unknown = (known == 0).nonzero()[0]
        if unknown.size:
            # ask, in rank order, about the entries never judged, until `size` open ones come before
            opened_before = np.cumsum(known == 1)
            asked = 0
            for position, doc_id in zip(unknown.tolist(), ids[unknown].tolist()):
                if opened_before[position] + asked >= size:
                    break
                if doc_id not in excluded:  # judges it, and notes the verdict in `state`
                    asked += 1
            known = state[ids]
        return known == 1


def _gated_arrays(query: QueryArrays, gate: Gate | None, ids, values, k: int, exhaustive: bool,
                  general) -> tuple[list[tuple[int, float]], bool]:
    """`ranking._gated` over arrays: the same picks and the same certainty."""
    if gate is None or not len(ids):
        return [], True
    min_coverage, relative_floor, best = gate.min_coverage, gate.relative_floor, gate.best
    gate.required = min_coverage  # as a new gate has it: a round settles the bar afresh
    if min_coverage > 0.0 and gate.all_weak:  # every hit is asked which terms it lacks: rare, in Python
        return _gated(gate.index, query.terms, list(zip(ids.tolist(), values.tolist())), k, min_coverage,
                      relative_floor, {}, exhaustive, general)
    floor = relative_floor * best
    complete = exhaustive or float(values[-1]) < floor
    coverage = None
    if min_coverage > 0.0:
        coverage = query.held(gate)[ids] / gate.mass if gate.mass else np.zeros(len(ids))
        # Gate.settle: the best coverage among the hits reaching the floor (a prefix: best first)
        reaching = int(np.count_nonzero(values >= floor))
        if reaching and not (coverage[:reaching] >= min_coverage).any():
            top = float(coverage[:reaching].max())
            if top > 0.0:
                gate.required = min(min_coverage, top)
            if not complete:
                return [], False
        elif not reaching and not complete:
            return [], False
    fails = np.zeros(len(ids), dtype=bool)
    if coverage is not None:
        fails |= coverage < gate.required - 1e-12
    if relative_floor > 0.0:
        fails |= values < floor
    picked = []
    for position in (~fails).nonzero()[0].tolist():
        doc_id, score = int(ids[position]), float(values[position])
        # a hit holding no counted term: its reason may name the weak terms it shares
        if coverage is not None and coverage[position] == 0.0 and gate.reason(doc_id, score) is not None:
            continue
        picked.append((doc_id, score))
        if len(picked) == k:
            return picked, True
    return picked, complete
