"""`ranking.pick` over numpy arrays: a long-running agent's query on a big store, judged in bulk.

A query of terms never asked before meets their postings for the first time, and the relevance
gate (`ranking.Gate`) judges a hundred or so of the best hits before four pass. Term by term and
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
but weak terms, a hit holding no counted term), `Gate` itself is asked. tests/core/test_vector_pick.py
checks that the picks equal the pure-Python path's and explain's, on random stores and queries.
"""

from __future__ import annotations

from itertools import accumulate

import numpy as np

from .index import Gate, _gated

__all__ = ["QueryArrays", "pick_arrays", "recent_query"]


class QueryArrays:
    """One query's postings over a vectorized index: each term's documents and weights, the
    score of every document, and (for the gate) the held mass of every document."""

    __slots__ = ("n", "terms", "docs", "weights", "term_of", "scores", "hits", "values", "_held")

    def __init__(self, index, terms: dict[str, int], dense: bool = True) -> None:
        """`dense`: keep every document's score (`scores`); the hits and their scores are kept
        either way (`hits`, `values`)."""
        self.n = index.n  # not the index itself: the index keeps its last queries (no cycle to collect)
        self.terms = terms
        slot_of, starts = index._slot, index._starts
        all_ids, norm = index._numpy_parts()
        pieces, lengths = [], []
        many = getattr(slot_of, "slots", None)  # a saved index's term table: all looked up at once
        for slot in many(terms) if many is not None else map(slot_of.get, terms):
            if slot is None:
                lengths.append(0)
                continue
            lo, hi = starts[slot], starts[slot + 1]
            pieces.append(all_ids[lo:hi])
            lengths.append(hi - lo)
        n = index.n
        if not pieces:
            self.docs = np.zeros(0, dtype=np.int64)
            self.weights = np.zeros(0, dtype=np.float64)
            self.term_of = np.zeros(0, dtype=np.intp)
            self.scores = np.zeros(n, dtype=np.float64) if dense else None
            self.hits = np.zeros(0, dtype=np.intp)
            self.values = np.zeros(0, dtype=np.float64)
            self._held = None
            for term in terms:
                index._df[term] = 0
            return
        ids = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
        # a run is one (term, document): a new run starts where the document or the term changes.
        # (ndarray methods and operators rather than the np.* functions that wrap them: a query
        # makes a few dozen of these calls, and the wrappers' Python cost was a fifth of it)
        first = np.empty(len(ids) + 1, dtype=bool)
        np.not_equal(ids[1:], ids[:-1], out=first[1:-1])
        bounds = list(accumulate(lengths, initial=0))  # where each term's ids start (and the end)
        first[bounds] = True
        firsts = first.nonzero()[0]  # the runs' starts, and the end
        tf = firsts[1:] - firsts[:-1]
        firsts = firsts[:-1]
        docs = ids[firsts]
        run_bounds = firsts.searchsorted(bounds).tolist()  # where each term's runs start
        df = [hi - lo for lo, hi in zip(run_bounds, run_bounds[1:])]
        index._df.update(zip(terms, df))
        if index._keyword_postings:  # never on the vector path (keywords score in pure Python)
            factors = [index.idf(term) if count else 0.0 for term, count in zip(terms, df)]
        else:  # df is the postings' count
            idf_of = index.idf_of
            factors = [idf_of(count) if count else 0.0 for count in df]
        term_of = np.arange(len(df)).repeat(df)
        # `Index._term`: tf * (k1 + 1) / (tf + norm); then `_python_scores`: qtf * (idf * weight)
        weights = tf * (index.k1 + 1.0) / (tf + norm[docs])
        weights = np.array(factors)[term_of] * weights
        if any(qtf != 1 for qtf in terms.values()):
            weights = np.array(list(terms.values()), dtype=np.float64)[term_of] * weights
        self.docs = docs
        self.weights = weights
        self.term_of = term_of
        scores = np.bincount(docs, weights=weights, minlength=n)
        self.hits = (scores > 0.0).nonzero()[0]
        self.values = scores[self.hits]
        self.scores = scores if dense else None
        self._held = None

    def held(self, gate: Gate):
        """Per document, the mass of the gate's counted terms its text holds (`Gate._held_array`)."""
        masses = [qtf * gate.idf[term] if term in gate.idf else 0.0 for term, qtf in self.terms.items()]
        if self._held is None or self._held[0] != masses:  # kept for a repeated query judged alike
            mass = np.asarray(masses)
            counted = mass[self.term_of] != 0.0
            held = np.bincount(self.docs[counted], weights=mass[self.term_of[counted]], minlength=self.n)
            self._held = (masses, held)
        return self._held[1]


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


_RECENT = 8  # queries whose arrays an index keeps: an agent repeating itself pays for its terms once


def recent_query(index, terms: dict[str, int]) -> QueryArrays:
    """The query's arrays, kept for the index's last few queries (hits, not every document's score)."""
    key = tuple(terms.items())
    recent = index._recent
    query = recent.pop(key, None)
    if query is None:
        query = QueryArrays(index, terms, dense=False)
    recent[key] = query  # the newest last
    while len(recent) > _RECENT:
        try:  # the oldest out (another thread asking the same index may have taken it already)
            del recent[next(iter(recent))]
        except (KeyError, RuntimeError, StopIteration):
            break
    return query


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
