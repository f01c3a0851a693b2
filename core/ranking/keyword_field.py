"""The keywords as a second BM25 field (BM25F): what Index scores through an entry's keywords.

A keyword occurrence counts `keyword_weight` of a text occurrence inside the same saturation; a
keyword of several words counts only when the query holds most of them (or, when
`keyword_part_weight` is above 0, opt-in, in part on each of its non-weak words the query holds);
of the terms an entry holds only in its keywords, the best `keyword_only_terms` count
(docs/ranking.md, "Keywords").
`Index` (ranking.py) is a `KeywordField`: this class holds no state of its own.
"""

from __future__ import annotations

from collections.abc import Collection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import Counter
    from typing import Any

__all__ = ["KeywordField"]


class KeywordField:
    """Keyword matching and the two-field scores of an Index."""

    __slots__ = ()

    # What bench/relevance_keywords.py varies when it replays part matches; the engine keeps these.
    part_rarest_only = False  # a part match only on the keyword's rarest word
    part_cjk_only = False  # a part match only on a CJK token (a bigram of a Chinese compound)
    # How a part match counts in the gate's coverage: "full" (as a whole match does), "scaled" (its
    # share of a whole match: keyword_part_weight / the keyword's distinct tokens) or "none".
    part_covers = "full"

    if TYPE_CHECKING:
        keyword_weight: float
        keyword_only_terms: int
        keyword_part_weight: float
        _keywords: list[list[tuple[frozenset[str], Counter[str]]]] | None
        _keyword_postings: dict[str, list[int]]
        _keyword_matches: dict[str, list[tuple[int, int, list[tuple[frozenset[str], int]]]]]

        def posting(self, term: str) -> Any: ...
        def idf(self, term: str) -> float: ...
        def tf(self, term: str, doc_id: int) -> int: ...
        def contribution(self, idf: float, tf: float, doc_id: int) -> float: ...
        def _term(self, term: str) -> tuple[list[int], list[float]]: ...
        def _part_weak(self, term: str) -> bool: ...

    def keyword_tf(self, term: str, doc_id: int, query: Collection[str]) -> int:
        """How often `term` occurs in the document's keywords that the query holds whole: a keyword
        of several words ("reverse proxy") counts only when the query has all of them, so one common
        word of it ("reverse") does not make the entry match."""
        if self._keywords is None:
            return 0
        for candidate, single, longer in self._keyword_match_list(term):
            if candidate == doc_id:
                return single + sum(count for words, count in longer if 2 * len(words.intersection(query)) > len(words))
        return 0

    def _keyword_match_list(self, term: str) -> list[tuple[int, int, list[tuple[frozenset[str], int]]]]:
        """Per document whose keywords hold `term`: its occurrences in one-word keywords (which
        always match) and the longer keywords holding it (which match when most words are asked)."""
        cached = self._keyword_matches.get(term)
        if cached is None:
            cached = []
            for doc_id in self._keyword_postings.get(term, ()):
                single, longer = 0, []
                for distinct, counter in self._keywords[doc_id]:  # type: ignore[index]
                    if term in distinct:
                        if len(distinct) == 1:
                            single += counter[term]
                        else:
                            longer.append((distinct, counter[term]))
                cached.append((doc_id, single, longer))
            self._keyword_matches[term] = cached
        return cached

    def _part(self, term: str, words: frozenset[str]) -> bool:
        """Whether a keyword of several words (`words`) that the query does not hold mostly still
        matches on `term` (one of its words): part matches are on, the term is not weak (a general
        word, a number, a kind's name...) and, under `part_rarest_only`, no word of the keyword is
        held by fewer entries."""
        if self.part_cjk_only and term[0] < "\u3000":
            return False
        if self.part_rarest_only:
            df = self.df(term)  # type: ignore[attr-defined]
            if any(self.df(word) < df for word in words if word != term):  # type: ignore[attr-defined]
                return False
        return not self._part_weak(term)

    def term_scores(
        self, terms: dict[str, int]
    ) -> tuple[dict[int, float], dict[int, dict[str, tuple[int, int, float, float]]]]:
        """Scores with keywords as a second field, and per document the (tf, keyword tf,
        contribution, share of a whole match: 1.0, or less for a keyword matched only in part) of each term it matches through its keywords. Of the
        terms a document holds only in its keywords, the best `keyword_only_terms` count; the
        others contribute 0. A keyword of several words matches whole when the query holds more
        than half of its distinct tokens; otherwise, with `keyword_part_weight` > 0, it matches in
        part on each query term of it that `_part` allows, an occurrence counting
        `keyword_part_weight` / (its distinct tokens) of a whole one."""
        scores: dict[int, float] = {}
        get = scores.get
        via_keywords: dict[int, dict[str, tuple[int, int, float, float]]] = {}
        keyword_only: dict[int, list[tuple[float, str]]] = {}
        query = terms.keys()
        weight = self.keyword_weight
        part_weight = self.keyword_part_weight
        for term, qtf in terms.items():
            extra = self._keyword_postings.get(term, ())
            if not self.posting(term) and not extra:
                continue
            idf = self.idf(term)
            matched: dict[int, tuple[int, float, float]] = {}
            allowed: dict[frozenset[str], bool] = {}
            for doc_id, single, longer in self._keyword_match_list(term) if extra else ():
                keyword_tf, effective, covers = single, float(single), 1.0 if single else 0.0
                for words, count in longer:
                    if 2 * len(words.intersection(query)) > len(words):
                        keyword_tf += count
                        effective += count
                        covers = 1.0
                    elif part_weight:
                        ok = allowed.get(words)
                        if ok is None:
                            ok = allowed[words] = self._part(term, words)
                        if ok:
                            keyword_tf += count
                            effective += part_weight * count / len(words)
                            covers = max(covers, part_weight / len(words))
                if keyword_tf:
                    matched[doc_id] = (keyword_tf, effective, covers)
            ids, weights = self._term(term)
            for doc_id, text_weight in zip(ids, weights):
                scores[doc_id] = get(doc_id, 0.0) + qtf * (idf * text_weight)
            for doc_id, (keyword_tf, effective, covers) in matched.items():
                tf = self.tf(term, doc_id)
                part = qtf * self.contribution(idf, tf + weight * effective, doc_id)
                via_keywords.setdefault(doc_id, {})[term] = (tf, keyword_tf, part, covers)
                if tf:  # replace the text-only contribution added above by the combined one
                    scores[doc_id] += part - qtf * self.contribution(idf, tf, doc_id)
                else:
                    keyword_only.setdefault(doc_id, []).append((part, term))
        cap = self.keyword_only_terms
        for doc_id, parts in keyword_only.items():
            parts.sort(key=lambda pair: -pair[0])
            for part, term in parts[cap:]:
                tf, keyword_tf, _, covers = via_keywords[doc_id][term]
                via_keywords[doc_id][term] = (tf, keyword_tf, 0.0, covers)
            scores[doc_id] = get(doc_id, 0.0) + sum(part for part, _ in parts[:cap])
        return scores, via_keywords
