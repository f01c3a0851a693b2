"""BM25 over the store: an inverted index built once per file state, queried many times.

Scoring (docs/ranking.md): idf = ln(1 + (n - df + 0.5) / (df + 0.5)); each query token occurrence adds
idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / max(avg_len, 1))).

The length-normalised term frequency of every posting is computed once per term, so a warm query
only multiplies and adds over the postings of its own terms. Big stores (VECTOR_MIN_DOCS and up)
do that with numpy when it is installed (the `fast` extra), imported only then.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from itertools import accumulate, chain, groupby

from .tokenize import tokenize

__all__ = ["Index", "VECTOR_MIN_DOCS", "document_tokens", "query_terms"]

VECTOR_MIN_DOCS = 2000


def document_tokens(text: str, label: str, kind_value: str) -> list[str]:
    """The tokens an entry is indexed under: its text, its kind's label and its kind's name."""
    tokens = tokenize(text)
    tokens += tokenize(label)
    tokens.append(kind_value)
    return tokens


def query_terms(tokens: Sequence[str]) -> dict[str, int]:
    """Unique query terms in first-seen order, each with how many times it occurs in the query."""
    return dict(Counter(tokens))


def build_parts(docs: Iterable[Sequence[str]]) -> tuple[list[str], array, array, list[int]]:
    """The full inverted index of `docs` in one pass, as compact arrays: the terms in first-seen
    order; for each term, where its run starts in `ids`; `ids`, each term's documents in store
    order with a document repeated once per extra occurrence (most terms occur once in a document,
    so 4 bytes per token carry both the postings and the term frequencies); and document lengths.
    A query with terms never asked before then costs its own postings, not a scan of the store,
    and no per-document dictionary is kept."""
    occurrences: dict[str, list[int]] = {}
    get = occurrences.get
    doc_lens: list[int] = []
    for doc_id, tokens in enumerate(docs):
        doc_lens.append(len(tokens))
        for term in tokens:
            bucket = get(term)
            if bucket is None:
                occurrences[term] = [doc_id]
            else:
                bucket.append(doc_id)
    starts = array("i", [0])
    starts.extend(accumulate(map(len, occurrences.values())))
    ids = array("i", chain.from_iterable(occurrences.values()))
    return list(occurrences), starts, ids, doc_lens


class DocCounts:
    """How often each term occurs in one document, as a read-only mapping looked up term by term."""

    __slots__ = ("_index", "_doc_id")

    def __init__(self, index: Index, doc_id: int) -> None:
        self._index = index
        self._doc_id = doc_id

    def get(self, term: str, default: int = 0) -> int:
        return self._index.tf(term, self._doc_id) or default

    def __getitem__(self, term: str) -> int:
        return self._index.tf(term, self._doc_id)

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self._index.tf(term, self._doc_id) > 0


class Index:
    """Postings and lengths for a list of documents (each a list of tokens)."""

    __slots__ = (
        "n", "avg_len", "doc_lens", "k1", "b", "_want_vectors", "_vectorized", "_served",
        "_slot", "_starts", "_ids", "_postings", "_norm", "_tfn", "_vectors",
    )

    def __init__(
        self,
        docs: Iterable[Sequence[str]] = (),
        k1: float = 1.2,
        b: float = 0.75,
        vectorized: bool | None = None,
        parts: tuple[list[str], array, array, Sequence[int]] | None = None,
    ) -> None:
        terms, starts, ids, lengths = build_parts(docs) if parts is None else parts
        # The full inverted index (see `build_parts`): a term's slot, where its ids start in `_ids`.
        self._slot: dict[str, int] = dict(zip(terms, range(len(terms))))
        self._starts = starts
        self._ids = ids
        doc_lens = list(lengths)
        self.n = len(doc_lens)
        self.avg_len = sum(doc_lens) / self.n if self.n else 0.0
        self.doc_lens = doc_lens
        self.k1 = k1
        self.b = b
        denom = max(self.avg_len, 1.0)
        # The length-dependent part of each document's BM25 denominator.
        self._norm = [k1 * (1.0 - b + b * length / denom) for length in doc_lens]
        self._tfn: dict[str, tuple[list[int], list[float]]] = {}
        self._vectors: dict[str, tuple[object, object]] = {}
        self._postings: dict[str, list[tuple[int, int]]] = {}  # (doc_id, tf) lists, made on first use
        # numpy is the optional `fast` extra, imported only when first used. It pays for itself over
        # many queries of a big store, not for one: left to itself (`vectorized=None`) the index
        # answers its first query in pure Python, so a one-shot `memtui inject` never imports it.
        self._want_vectors = self.n >= VECTOR_MIN_DOCS if vectorized is None else vectorized
        self._vectorized: bool | None = None
        self._served = 1 if vectorized else 0

    @property
    def vectorized(self) -> bool:
        """Whether queries after the first are scored with numpy arrays (imports numpy if so)."""
        if self._vectorized is None:
            self._vectorized = False
            if self._want_vectors:
                try:
                    import numpy  # noqa: F401
                except ImportError:  # score in pure Python
                    pass
                else:
                    self._vectorized = True
        return self._vectorized

    def _arrays(self) -> bool:
        """Whether this query is scored with numpy (see `vectorized`)."""
        served = self._served
        self._served = served + 1
        return served > 0 and self._want_vectors and self.vectorized

    def posting(self, term: str) -> list[tuple[int, int]]:
        """(doc_id, tf) for every document holding `term`, in store order."""
        bucket = self._postings.get(term)
        if bucket is None:
            slot = self._slot.get(term)
            if slot is None:
                bucket = []
            else:
                ids = self._ids[self._starts[slot] : self._starts[slot + 1]]
                bucket = [(doc_id, len(list(run))) for doc_id, run in groupby(ids)]
            self._postings[term] = bucket
        return bucket

    def counts(self, doc_id: int) -> DocCounts:
        """Term frequencies of one document, read from the postings of the terms asked about."""
        return DocCounts(self, doc_id)

    # ------------------------------------------------------------------ statistics

    def df(self, term: str) -> int:
        return len(self.posting(term))

    def idf(self, term: str) -> float:
        df = self.df(term)
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def contribution(self, idf: float, tf: int, doc_id: int) -> float:
        """One occurrence of a query term in document `doc_id` holding it `tf` times."""
        if not tf:
            return 0.0
        return idf * (tf * (self.k1 + 1.0) / (tf + self._norm[doc_id]))

    def tf(self, term: str, doc_id: int) -> int:
        slot = self._slot.get(term)
        if slot is None:
            return 0
        lo, hi = self._starts[slot], self._starts[slot + 1]
        return bisect_right(self._ids, doc_id, lo, hi) - bisect_left(self._ids, doc_id, lo, hi)

    @property
    def vocabulary(self):
        """Every term of the store."""
        return self._slot.keys()

    # ------------------------------------------------------------------ scoring

    def _term(self, term: str) -> tuple[list[int], list[float]]:
        """Doc ids holding `term` and their saturated, length-normalised term frequencies."""
        cached = self._tfn.get(term)
        if cached is None:
            k1p1 = self.k1 + 1.0
            norm = self._norm
            bucket = self.posting(term)
            cached = ([d for d, _ in bucket], [tf * k1p1 / (tf + norm[d]) for d, tf in bucket])
            self._tfn[term] = cached
        return cached

    def _term_vector(self, term: str):
        """Doc ids holding `term` and idf * saturated tf for each, as numpy arrays."""
        cached = self._vectors.get(term)
        if cached is None:
            import numpy as np

            ids, weights = self._term(term)
            cached = (np.asarray(ids, dtype=np.int64), self.idf(term) * np.asarray(weights, dtype=np.float64))
            self._vectors[term] = cached
        return cached

    def scores(self, tokens: Sequence[str]) -> dict[int, float]:
        """Score of every document holding at least one query term (others score 0)."""
        if self._arrays():
            array = self._score_array(tokens)
            import numpy as np

            hits = np.flatnonzero(array)
            return dict(zip(hits.tolist(), array[hits].tolist()))
        return self._python_scores(tokens)

    def _python_scores(self, tokens: Sequence[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        get = scores.get
        for term, qtf in query_terms(tokens).items():
            if not self.posting(term):
                continue
            idf = self.idf(term)
            ids, weights = self._term(term)
            for doc_id, weight in zip(ids, weights):
                scores[doc_id] = get(doc_id, 0.0) + qtf * (idf * weight)
        return scores

    def _score_array(self, tokens: Sequence[str]):
        import numpy as np

        array = np.zeros(self.n, dtype=np.float64)
        for term, qtf in query_terms(tokens).items():
            ids, weighted = self._term_vector(term)
            if ids.size:
                array[ids] += weighted if qtf == 1 else qtf * weighted
        return array

    def ranked(self, tokens: Sequence[str]) -> list[tuple[int, float]]:
        """(doc_id, score) for every document scoring above 0: best first, ties in store order."""
        return _best_first(self.scores(tokens))

    def top(self, tokens: Sequence[str], k: int, excluded: Collection[int] = ()) -> list[tuple[int, float]]:
        """The best `k` hits that are not in `excluded`, as `ranked` would order them."""
        if k <= 0:
            return []
        if not self._arrays():
            picked = []
            for doc_id, score in _best_first(self._python_scores(tokens)):
                if doc_id not in excluded:
                    picked.append((doc_id, score))
                    if len(picked) == k:
                        break
            return picked
        import numpy as np

        array = self._score_array(tokens)
        if excluded:
            array[np.fromiter(excluded, dtype=np.int64)] = 0.0
        if self.n > k:
            # The k-th best score; every hit at or above it is kept so store order can break ties.
            kth = np.partition(array, self.n - k)[self.n - k]
            hits = np.flatnonzero(array >= kth) if kth > 0.0 else np.flatnonzero(array > 0.0)
        else:
            hits = np.flatnonzero(array > 0.0)
        order = sorted(zip(hits.tolist(), array[hits].tolist()), key=lambda pair: (-pair[1], pair[0]))
        return order[:k]


def _best_first(scores: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(((doc_id, score) for doc_id, score in scores.items() if score > 0.0), key=lambda pair: (-pair[1], pair[0]))
