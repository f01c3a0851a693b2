"""The gate (docs/ranking.md, "The gate"): which of the ranked hits are relevant enough to inject.

BM25 orders every entry that shares a term with the message; the gate then asks of each hit how
much of the message's specific vocabulary it holds (coverage) and how close it comes to the best
hit (the relative floor). `Gate.reason` says in words why a hit is held back, for explain.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable

from .index import Index, _weak

__all__ = ["Gate"]


class Gate:
    """Which ranked hits are relevant enough to inject (docs/ranking.md, "The gate").

    Coverage: the share of the query's idf mass that the terms an entry holds carry; only terms
    the store knows (df > 0) count, since a word no memory holds says nothing about which one is
    relevant. Weak terms are left out of that mass unless the query holds nothing else: numbers
    (`15`, `8080`: versions, counts, ports or dates of anything), the kinds' names (`fact`,
    `偏好`: every entry of a kind holds them) and general words (`name`, `way`, `work`, `year`,
    `关于`: `Limits.general_words`, and the store's forms that folding turned them into). So "a fun fact about octopuses" does not inject facts and
    "a good name for a cat" does not inject the memory about `__name__`, while a query of just
    `偏好` still lists preferences. A message of nothing but weak terms ("what's 15% of 80")
    passes only an entry that holds every one of them: one shared number is a coincidence.
    Relative floor: a hit scoring below this share of the best hit's score.
    """

    __slots__ = ("index", "terms", "idf", "mass", "best", "min_coverage", "relative_floor", "via_keywords",
                 "required", "all_weak", "weak", "_coverage", "_shared")

    def __init__(self, index: Index, terms: dict[str, int], min_coverage: float, relative_floor: float,
                 best: float, via_keywords: dict[int, dict[str, tuple[int, int, float, float]]] | None = None,
                 general: Collection[str] = (), shared: dict | None = None) -> None:
        self.index = index
        self.via_keywords = via_keywords or {}
        self.terms = terms
        self.idf = {term: index.idf(term) for term in terms if index.df(term)}
        self.weak = {term for term in terms if _weak(term, general)}
        self.all_weak = bool(terms) and len(self.weak) == len(terms)
        if not self.all_weak:
            self.idf = {term: idf for term, idf in self.idf.items() if term not in self.weak}
        self.mass = sum(qtf * self.idf[term] for term, qtf in terms.items() if term in self.idf)
        self.best = best
        self.min_coverage = min_coverage
        self.relative_floor = relative_floor
        self.required = min_coverage
        self._coverage: dict[int, float] = {}
        # what judging hits needs that depends only on the query (shared by the gates of one `pick`)
        self._shared = shared if shared is not None else {}

    def settle(self, ranked: Iterable[tuple[int, float]]) -> bool:
        """Lower the coverage required to the best any hit reaching the relative floor has, when
        none reaches `min_coverage`: when a long message spreads over several memories, the ones
        covering the most are still relevant, and only weaker ones are held back. `ranked` is
        (doc_id, score) best first; returns True once a hit reaching `min_coverage` was seen
        (nothing further can change the bar)."""
        if self.min_coverage <= 0.0 or self.all_weak:
            return True
        floor = self.relative_floor * self.best
        best = 0.0
        for doc_id, score in ranked:
            if score < floor:
                break
            best = max(best, self.coverage(doc_id))
            if best >= self.min_coverage:
                return True
        if best > 0.0:  # when no hit holds a real term of the message, none passes
            self.required = min(self.min_coverage, best)
        return False

    @property
    def active(self) -> bool:
        return self.min_coverage > 0.0 or self.relative_floor > 0.0

    def coverage(self, doc_id: int) -> float:
        cached = self._coverage.get(doc_id)
        if cached is not None:
            return cached
        if not self.mass:
            return 0.0
        if not self.via_keywords and self.index._vectorized:
            held = float(self._held_array()[doc_id])
        else:
            # A term counts if the text holds it or a keyword the query holds (the keyword-only cap
            # bounds the score, not what the entry is about).
            held = 0.0
            for term, qtf in self.terms.items():
                if term in self.idf:
                    held += qtf * self.idf[term] * self._share(doc_id, term)
        self._coverage[doc_id] = held / self.mass
        return self._coverage[doc_id]

    def _holds(self, doc_id: int, term: str) -> bool:
        return self._share(doc_id, term) > 0.0

    def _share(self, doc_id: int, term: str) -> float:
        """How much of `term` the entry holds for coverage: 1 in its text or a keyword matched
        whole; a keyword matched only in part counts as `KeywordField.part_covers` says."""
        if doc_id in self._holders(term):
            return 1.0
        matched = self.via_keywords.get(doc_id, {}).get(term)
        if matched is None:
            return 0.0
        share = matched[3]
        if share >= 1.0 or self.index.part_covers == "full":
            return 1.0
        return share if self.index.part_covers == "scaled" else 0.0

    def _holders(self, term: str) -> frozenset[int]:
        """The documents whose text holds `term`: made once per query term (and shared by the
        gates of one `pick`) from the postings the scoring read already, so judging a hit costs a
        set lookup per term, not a search of the postings (a long query judges hundreds of hits)."""
        holders = self._shared.get(term)
        if holders is None:
            holders = self._shared[term] = frozenset(self.index.holders(term))
        return holders

    def _held_array(self):
        """Per document, the mass of the counted terms its text holds, as a numpy array made from
        the postings of the query's terms (a vectorized index): added term by term in the query's
        order, so each sum is the very one `coverage` adds up in pure Python."""
        held = self._shared.get(None)
        if held is None:
            import numpy as np

            held = np.zeros(self.index.n, dtype=np.float64)
            for term, qtf in self.terms.items():
                if term in self.idf:
                    held[self.index._term_vector(term)[0]] += qtf * self.idf[term]
            self._shared[None] = held
        return held

    def reason(self, doc_id: int, score: float) -> str | None:
        """Why this hit is held back, in plain words; None if it passes."""
        if self.min_coverage > 0.0 and self.all_weak:
            missing = [term for term in self.terms if term not in self.idf or not self._holds(doc_id, term)]
            if missing:
                return (f"the message holds only numbers, kinds' names or general words, and this entry lacks "
                        f"{', '.join(missing)}: sharing one of those is a coincidence, not a match")
            return None
        if self.min_coverage > 0.0:
            share = self.coverage(doc_id)
            if share == 0.0:
                shared = [term for term in self.terms if term in self.weak and self._holds(doc_id, term)]
                if shared:
                    return (f"it shares only {', '.join(shared)} with the message: numbers, kinds' names and "
                            f"general words alone are a coincidence, not a match")
            if share < self.required - 1e-12:
                held, bar = _shares(share, self.required)
                needed = (f"at least {bar} is needed" if self.required >= self.min_coverage else
                          f"no entry reaches {self.min_coverage:.0%} and the best hold {bar}")
                return (f"the query terms it holds carry {held} of the query's weight (idf); "
                        f"{needed}, so it is too weak a match to inject")
        if self.relative_floor > 0.0 and score < self.relative_floor * self.best:
            return (f"its score {score:.2f} is below {self.relative_floor:.0%} of the best hit's {self.best:.2f}, "
                    f"so it is a weak tail beside a much better match")
        return None


def _shares(share: float, bar: float) -> tuple[str, str]:
    """`share` and `bar` as percentages, rounded down, with as many decimals as it takes for a
    share below the bar to read below it: 29.96% against a 30% bar is "29%", never "30%", and
    18.01% against a best of 18.05% is "18.01%" against "18.05%"."""
    for digits in range(4):
        scale = 10 ** digits
        low = math.floor(share * 100 * scale + 1e-9) / scale
        high = math.floor(bar * 100 * scale + 1e-9) / scale
        if low < high or share >= bar or digits == 3:
            return f"{low:.{digits}f}%", f"{high:.{digits}f}%"
    raise AssertionError("unreachable")


def _gated(
    index: Index,
    terms: dict[str, int],
    ranked: list[tuple[int, float]],
    k: int,
    min_coverage: float,
    relative_floor: float,
    via_keywords: dict[int, dict[str, tuple[int, int, float, float]]],
    exhaustive: bool,
    general: Collection[str] = (),
    shared: dict | None = None,
) -> tuple[list[tuple[int, float]], bool]:
    """The first `k` of `ranked` (best first) that pass the gate, and whether that is certain:
    `ranked` held every hit that matters (it is `exhaustive`, or reaches below the floor) or
    already gave `k` hits under a settled bar."""
    if not ranked:
        return [], True
    gate = Gate(index, terms, min_coverage, relative_floor, ranked[0][1], via_keywords, general, shared)
    complete = exhaustive or ranked[-1][1] < relative_floor * gate.best
    if not gate.settle(ranked) and not complete:
        return [], False
    picked = []
    for doc_id, score in ranked:
        if gate.reason(doc_id, score) is None:
            picked.append((doc_id, score))
            if len(picked) == k:
                return picked, True
    return picked, complete
