"""BM25 over the store: an inverted index built once per file state, queried many times.

Scoring (SPEC §7): idf = ln(1 + (n - df + 0.5) / (df + 0.5)); each query token occurrence adds
idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / max(avg_len, 1))).

Keywords (docs/ranking.md) are a second field, BM25F-style: a keyword token counts `keyword_weight`
of a text token in both the term frequency and the document length, so an entry stuffed with
keywords pays for them in length and no keyword outweighs what the text says. And of the query
terms an entry holds only in its keywords, just the best `keyword_only_terms` count: keywords
bridge a synonym or the other language, they cannot make one entry match every topic.

The length-normalised term frequency of every posting is computed once per term, so a warm query
only multiplies and adds over the postings of its own terms. Big stores (VECTOR_MIN_DOCS and up)
do that with numpy, imported only then, so the per-turn path on a normal store stays light.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from .tokenize import tokenize

__all__ = ["Index", "VECTOR_MIN_DOCS", "document_tokens", "query_terms", "split_query"]

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


def split_query(tokens: Sequence[str], stopwords: Collection[str]) -> tuple[list[str], list[str]]:
    """The query tokens that are scored, and the distinct ones ignored as function words."""
    if not stopwords:
        return list(tokens), []
    kept = [token for token in tokens if token not in stopwords]
    ignored = list(dict.fromkeys(token for token in tokens if token in stopwords))
    return kept, ignored


class Index:
    """Postings and lengths for a list of documents (each a list of tokens)."""

    __slots__ = (
        "n", "avg_len", "doc_lens", "k1", "b", "vectorized", "keyword_weight", "keyword_only_terms",
        "_counts", "_keyword_counts", "_keyword_only", "_postings", "_norm", "_tfn", "_vectors",
    )

    def __init__(
        self,
        docs: Iterable[Sequence[str]],
        k1: float = 1.2,
        b: float = 0.75,
        vectorized: bool | None = None,
        keywords: Iterable[Sequence[str]] | None = None,
        keyword_weight: float = 0.0,
        keyword_only_terms: int = 1,
    ) -> None:
        counts: list[Counter[str]] = []
        doc_lens: list[float] = []
        for tokens in docs:
            counts.append(Counter(tokens))
            doc_lens.append(len(tokens))
        self.keyword_weight = keyword_weight
        self.keyword_only_terms = keyword_only_terms
        self._keyword_only: dict[str, list[bool]] = {}
        # Per document, the keyword tokens it holds (None when keywords are ignored).
        self._keyword_counts: list[Counter[str]] | None = None
        if keywords is not None and keyword_weight > 0.0:
            self._keyword_counts = []
            for doc_id, tokens in enumerate(keywords):
                extra = Counter(tokens)
                self._keyword_counts.append(extra)
                if extra:
                    merged = Counter({term: float(tf) for term, tf in counts[doc_id].items()})
                    for term, tf in extra.items():
                        merged[term] += keyword_weight * tf
                    counts[doc_id] = merged
                    doc_lens[doc_id] += keyword_weight * len(tokens)
        self._counts = counts
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
        # A term's postings are found by scanning the per-document counts the first time a query
        # asks for it, then cached: far cheaper than inverting every term of the store up front.
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self.vectorized = self.n >= VECTOR_MIN_DOCS if vectorized is None else vectorized
        if self._keyword_counts is not None:
            self.vectorized = False  # the keyword-only cap is per document; stores that big are past max_entries
        if self.vectorized:
            try:
                import numpy  # noqa: F401
            except ImportError:  # pragma: no cover - numpy ships with the default install
                self.vectorized = False

    def posting(self, term: str) -> list[tuple[int, int]]:
        """(doc_id, tf) for every document holding `term`, in store order."""
        bucket = self._postings.get(term)
        if bucket is None:
            bucket = [(doc_id, counts[term]) for doc_id, counts in enumerate(self._counts) if term in counts]
            self._postings[term] = bucket
        return bucket

    def counts(self, doc_id: int) -> Counter[str]:
        """Term frequencies of a document: text and kind tokens, plus weighted keyword tokens."""
        return self._counts[doc_id]

    def keyword_tf(self, term: str, doc_id: int) -> int:
        """How often `term` occurs in the document's keywords (0 when keywords are ignored)."""
        if self._keyword_counts is None:
            return 0
        return self._keyword_counts[doc_id].get(term, 0)

    # ------------------------------------------------------------------ statistics

    def df(self, term: str) -> int:
        return len(self.posting(term))

    def idf(self, term: str) -> float:
        df = self.df(term)
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def contribution(self, idf: float, tf: float, doc_id: int) -> float:
        """One occurrence of a query term in document `doc_id` holding it `tf` times."""
        if not tf:
            return 0.0
        return idf * (tf * (self.k1 + 1.0) / (tf + self._norm[doc_id]))

    def tf(self, term: str, doc_id: int) -> float:
        return self._counts[doc_id].get(term, 0)

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
        if self.vectorized:
            array = self._score_array(tokens)
            import numpy as np

            hits = np.flatnonzero(array)
            return dict(zip(hits.tolist(), array[hits].tolist()))
        scores: dict[int, float] = {}
        get = scores.get
        keyword_only: dict[int, list[float]] | None = {} if self._keyword_counts is not None else None
        for term, qtf in query_terms(tokens).items():
            if not self.posting(term):
                continue
            idf = self.idf(term)
            ids, weights = self._term(term)
            if keyword_only is None:
                for doc_id, weight in zip(ids, weights):
                    scores[doc_id] = get(doc_id, 0.0) + qtf * (idf * weight)
                continue
            for doc_id, weight, only in zip(ids, weights, self.keyword_only(term)):
                if only:
                    keyword_only.setdefault(doc_id, []).append(qtf * (idf * weight))
                else:
                    scores[doc_id] = get(doc_id, 0.0) + qtf * (idf * weight)
        if keyword_only:
            cap = self.keyword_only_terms
            for doc_id, parts in keyword_only.items():
                if len(parts) > cap:
                    parts = sorted(parts, reverse=True)[:cap]
                scores[doc_id] = get(doc_id, 0.0) + sum(parts)
        return scores

    def keyword_only(self, term: str) -> list[bool]:
        """For each posting of `term`: whether the document holds it only in its keywords."""
        cached = self._keyword_only.get(term)
        if cached is None:
            keyword_counts = self._keyword_counts
            if keyword_counts is None:
                cached = [False] * len(self.posting(term))
            else:
                cached = [abs(tf - self.keyword_weight * keyword_counts[d].get(term, 0)) < 1e-9
                          for d, tf in self.posting(term)]
            self._keyword_only[term] = cached
        return cached

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
        return sorted(
            ((doc_id, score) for doc_id, score in self.scores(tokens).items() if score > 0.0),
            key=lambda pair: (-pair[1], pair[0]),
        )

    def top(self, tokens: Sequence[str], k: int, excluded: Collection[int] = ()) -> list[tuple[int, float]]:
        """The best `k` hits that are not in `excluded`, as `ranked` would order them."""
        if k <= 0:
            return []
        if not self.vectorized:
            picked = []
            for doc_id, score in self.ranked(tokens):
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


# ---------------------------------------------------------------------- the relevance gate


class Gate:
    """Which ranked hits are relevant enough to inject (docs/ranking.md, "The gate").

    Coverage: the share of the query's idf mass that the terms an entry holds carry; only terms
    the store knows (df > 0) count, since a word no memory holds says nothing about which one is
    relevant. Relative floor: a hit scoring below this share of the best hit's score.
    """

    __slots__ = ("index", "terms", "idf", "mass", "best", "min_coverage", "relative_floor")

    def __init__(self, index: Index, terms: dict[str, int], min_coverage: float, relative_floor: float,
                 best: float) -> None:
        self.index = index
        self.terms = terms
        self.idf = {term: index.idf(term) for term in terms if index.posting(term)}
        self.mass = sum(qtf * self.idf[term] for term, qtf in terms.items() if term in self.idf)
        self.best = best
        self.min_coverage = min_coverage
        self.relative_floor = relative_floor

    @property
    def active(self) -> bool:
        return self.min_coverage > 0.0 or self.relative_floor > 0.0

    def coverage(self, doc_id: int) -> float:
        if not self.mass:
            return 0.0
        counts = self.index.counts(doc_id)
        held = sum(qtf * self.idf[term] for term, qtf in self.terms.items() if term in self.idf and term in counts)
        return held / self.mass

    def reason(self, doc_id: int, score: float) -> str | None:
        """Why this hit is held back, in plain words; None if it passes."""
        if self.min_coverage > 0.0:
            share = self.coverage(doc_id)
            if share < self.min_coverage:
                return (f"the query terms it holds carry {share:.0%} of the query's weight (idf); "
                        f"at least {self.min_coverage:.0%} is needed, so it is too weak a match to inject")
        if self.relative_floor > 0.0 and score < self.relative_floor * self.best:
            return (f"its score {score:.2f} is below {self.relative_floor:.0%} of the best hit's {self.best:.2f}, "
                    f"so it is a weak tail beside a much better match")
        return None


def pick(
    index: Index,
    tokens: Sequence[str],
    k: int,
    excluded: Collection[int],
    stopwords: Collection[str],
    min_coverage: float = 0.0,
    relative_floor: float = 0.0,
) -> list[tuple[int, float]]:
    """The hits to inject: the best `k` not excluded whose match passes the gate."""
    kept, _ignored = split_query(tokens, stopwords)
    if not (min_coverage > 0.0 or relative_floor > 0.0):
        return index.top(kept, k, excluded)
    if k <= 0:
        return []
    ranked = [pair for pair in index.ranked(kept) if pair[0] not in excluded]
    if not ranked:
        return []
    gate = Gate(index, query_terms(kept), min_coverage, relative_floor, ranked[0][1])
    picked = []
    for doc_id, score in ranked:
        if gate.reason(doc_id, score) is None:
            picked.append((doc_id, score))
            if len(picked) == k:
                break
    return picked
