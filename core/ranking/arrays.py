"""One query's postings as numpy arrays: the scores of a big store's documents in a few array
operations, and the index's last few queries kept (vector_pick.py judges them; `Index` scores with them).

The same arithmetic as `Index._term`, in the same order, hence the very same floats (vector_pick.py
says how). numpy is imported only by the stores that use it (the `fast` extra).
"""

from __future__ import annotations

from itertools import accumulate

import numpy as np

__all__ = ["QueryArrays", "recent_query"]


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

    def held(self, gate):
        """Per document, the mass of the gate's counted terms its text holds (`Gate._held_array`)."""
        masses = [qtf * gate.idf[term] if term in gate.idf else 0.0 for term, qtf in self.terms.items()]
        if self._held is None or self._held[0] != masses:  # kept for a repeated query judged alike
            mass = np.asarray(masses)
            counted = mass[self.term_of] != 0.0
            held = np.bincount(self.docs[counted], weights=mass[self.term_of[counted]], minlength=self.n)
            self._held = (masses, held)
        return self._held[1]


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
