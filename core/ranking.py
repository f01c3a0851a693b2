"""BM25 over the store: an inverted index built once per file state, queried many times.

Scoring (SPEC §7): idf = ln(1 + (n - df + 0.5) / (df + 0.5)); each query token occurrence adds
idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / max(avg_len, 1))). A warm query only touches the
postings of its own terms.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from .tokenize import tokenize

__all__ = ["Index", "query_terms", "document_tokens"]


def document_tokens(text: str, label: str, kind_value: str) -> list[str]:
    """The tokens an entry is indexed under: its text, its kind's label and its kind's name."""
    tokens = tokenize(text)
    tokens += tokenize(label)
    tokens.append(kind_value)
    return tokens


def query_terms(tokens: Sequence[str]) -> dict[str, int]:
    """Unique query terms in first-seen order, each with how many times it occurs in the query."""
    return dict(Counter(tokens))


class Index:
    """Postings and lengths for a list of documents (each a list of tokens)."""

    __slots__ = ("n", "avg_len", "doc_lens", "postings", "k1", "b", "_norm")

    def __init__(self, docs: Iterable[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        postings: dict[str, list[tuple[int, int]]] = {}
        doc_lens: list[int] = []
        for doc_id, tokens in enumerate(docs):
            doc_lens.append(len(tokens))
            for term, tf in Counter(tokens).items():
                bucket = postings.get(term)
                if bucket is None:
                    postings[term] = [(doc_id, tf)]
                else:
                    bucket.append((doc_id, tf))
        self.n = len(doc_lens)
        self.avg_len = sum(doc_lens) / self.n if self.n else 0.0
        self.doc_lens = doc_lens
        self.postings = postings
        self.k1 = k1
        self.b = b
        denom = max(self.avg_len, 1.0)
        # The length-dependent part of each document's BM25 denominator, computed once.
        self._norm = [k1 * (1.0 - b + b * length / denom) for length in doc_lens]

    def df(self, term: str) -> int:
        bucket = self.postings.get(term)
        return len(bucket) if bucket else 0

    def idf(self, term: str) -> float:
        df = self.df(term)
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def contribution(self, idf: float, tf: int, doc_id: int) -> float:
        """One occurrence of a query term in document `doc_id` holding it `tf` times."""
        if not tf:
            return 0.0
        return idf * tf * (self.k1 + 1.0) / (tf + self._norm[doc_id])

    def scores(self, tokens: Sequence[str]) -> dict[int, float]:
        """Score of every document holding at least one query term (others score 0)."""
        scores: dict[int, float] = {}
        k1p1 = self.k1 + 1.0
        norm = self._norm
        get = scores.get
        for term, qtf in query_terms(tokens).items():
            bucket = self.postings.get(term)
            if not bucket:
                continue
            weight = qtf * math.log(1.0 + (self.n - len(bucket) + 0.5) / (len(bucket) + 0.5))
            for doc_id, tf in bucket:
                scores[doc_id] = get(doc_id, 0.0) + weight * tf * k1p1 / (tf + norm[doc_id])
        return scores

    def ranked(self, tokens: Sequence[str]) -> list[tuple[int, float]]:
        """(doc_id, score) for every document scoring above 0: best first, ties in store order."""
        return sorted(
            ((doc_id, score) for doc_id, score in self.scores(tokens).items() if score > 0.0),
            key=lambda pair: (-pair[1], pair[0]),
        )

    def tf(self, term: str, doc_id: int) -> int:
        for posted_id, tf in self.postings.get(term, ()):
            if posted_id == doc_id:
                return tf
        return 0
