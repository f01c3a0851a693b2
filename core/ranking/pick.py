"""`pick`: the hits a turn injects, the best `k` that are not excluded and pass the gate.

One function over both ways of scoring: pure Python on the default store, numpy arrays
(vector_pick.py) on a big store past its first query.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Sequence

from .gate import _gated
from .index import Index, general_after_folding, query_terms, split_query

__all__ = ["pick"]


def pick(
    index: Index,
    tokens: Sequence[str],
    k: int,
    excluded: Container[int],
    stopwords: Collection[str],
    min_coverage: float = 0.0,
    relative_floor: float = 0.0,
    fold: bool = False,
    general: Collection[str] = (),
    languages: bool = False,
) -> list[tuple[int, float]]:
    """The hits to inject: the best `k` not excluded whose match passes the gate."""
    folded: dict[str, str] = {}
    kept, _ignored = split_query(tokens, stopwords, index.vocabulary if fold else None, folded, languages, general)
    general = general_after_folding(general, folded)
    if not (min_coverage > 0.0 or relative_floor > 0.0):
        return index.top(kept, k, excluded)
    if k <= 0:
        return []
    terms = query_terms(kept)
    if index.has_keywords:  # python scoring, stores within max_entries: rank every hit
        scores, via_keywords = index.term_scores(terms)
        ranked = sorted(((d, s) for d, s in scores.items() if s > 0.0 and d not in excluded),
                        key=lambda pair: (-pair[1], pair[0]))
        return _gated(index, terms, ranked, k, min_coverage, relative_floor, via_keywords, True, general)[0]
    if index._arrays(kept):  # a big store past its first query: judged over arrays, in bulk
        from .vector_pick import pick_arrays

        return pick_arrays(index, terms, k, excluded, min_coverage, relative_floor, general)
    # Without keywords, look at the best few hits first (cheap on a big store), and more only if
    # the gate needs them.
    size = max(8 * k, 32)
    shared: dict = {}
    while True:
        ranked = index.top(kept, size, excluded)
        picked, certain = _gated(index, terms, ranked, k, min_coverage, relative_floor, {}, len(ranked) < size,
                                 general, shared)
        if certain:
            return picked
        size *= 4
