"""Why each entry is or is not injected for a query: one pass from tokens to statuses."""

from __future__ import annotations

from ..limits import DEFAULT_LIMITS, Limits
from ..model import EntryExplanation, Explanation, Status, TermRow
from ..text.tokenize import tokenize
from .gate import Gate
from .index import Index, general_after_folding, query_terms, split_query
from .inject import line_for, render_lines
from .pinned import Core

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from ..kinds import Kind

    class _Explained(Protocol):
        """What explain reads of an entry (the store's records have it): ranking does not know the store."""

        id: str
        kind: Kind
        text: str

        @property
        def blocked(self) -> bool: ...
        @property
        def threats(self) -> list[str]: ...
        @property
        def effective_flags(self) -> list[str]: ...

ALL_ROWS_MAX = 64
STOPWORD_REASON = ("ignored: a function word (or a bigram made only of function words' characters), "
                   "common to nearly every message (the profile's stopwords)")
BIGRAM_REASON = ("ignored: a CJK bigram that begins or ends with a function character, so it spans two words "
                 "(是通 in 什么是通货膨胀)")


def ignored_reason(kind: str | None) -> str:
    """Why an ignored query term is not scored, by `split_query`'s kind of it."""
    if kind == "bigram":
        return BIGRAM_REASON
    if kind and kind != "stopword":
        return f"ignored: a function word of {kind}, and the message reads as {kind}"
    return STOPWORD_REASON


def explain(
    records: list[_Explained], index: Index | None, query: str, top_k: int, budget: int, lang: str = "zh",
    limits: Limits = DEFAULT_LIMITS, core: Core | None = None, judge=None,
) -> Explanation:
    """Why each entry is or is not in the block for `query`. `core`: the pinned core of these
    records (ranking/pinned.py); its entries have status `pinned`, are ranked and gated like the
    others (they can hold a weak hit back), and leave their top-k slots to the rest. `judge(hits, k)`:
    meaning's judgement of the gate's hits (the store's own, ranking/meaning.py), given when the
    profile ranks by meaning; it never admits a core entry."""
    in_core = core.picked if core is not None else []
    tokens = tokenize(query)
    folded: dict[str, str] = {}
    why: dict[str, str] = {}
    kept, ignored = split_query(tokens, limits.stopwords, index.vocabulary if index and limits.fold_inflections else None,
                                folded, bool(limits.language_stopwords), limits.general_words, why)
    general = general_after_folding(limits.general_words, folded)
    # Every term gets a row, in the order of the query; the ignored ones say so.
    shown = [token if token in ignored else kept_token for token, kept_token in _aligned(tokens, ignored, kept)]
    terms = query_terms(shown)
    scored_terms = query_terms(kept)
    n = index.n if index else 0
    avg_len = index.avg_len if index else 0.0
    via_keywords: dict[int, dict[str, tuple[int, int, float, float]]] = {}
    if index and index.has_keywords:
        scores, via_keywords = index.term_scores(scored_terms)
    else:
        scores = index.scores(kept) if index else {}

    ranked = sorted((i for i, s in scores.items() if s > 0.0), key=lambda i: (-scores[i], i))
    eligible = [i for i in ranked if not records[i].blocked]
    held: dict[int, str] = {}
    if index and eligible:
        gate = Gate(index, scored_terms, limits.min_coverage, limits.relative_floor, scores[eligible[0]], via_keywords,
                    general)
        if gate.active:
            gate.settle((doc_id, scores[doc_id]) for doc_id in eligible)
            for doc_id in eligible:
                reason = gate.reason(doc_id, scores[doc_id])
                if reason is not None:
                    held[doc_id] = reason
    passed = [i for i in eligible if i not in held and i not in in_core]
    picked = passed[:top_k]
    cosines: dict[int, float] = {}
    rules: dict[int, str] = {}
    admitted: list[int] = []
    unjudged: set[int] = set()
    semantic_note = None
    if judge is not None and top_k > 0:
        from .semantic_floor import pool_size

        # as many as a turn judges: the first hits of the core's entries and the rest, less the core's
        pool = [i for i in [i for i in eligible if i not in held][: pool_size(top_k + len(in_core))] if i not in in_core]
        chosen, choice, semantic_note = judge([(doc_id, scores[doc_id]) for doc_id in pool], top_k)
        if choice is not None:
            cosines, rules, admitted = _meaning(choice, held, limits)
            # hits past those meaning looks at are never injected (the store does not look at them either)
            unjudged = {doc_id for doc_id in passed if doc_id not in rules}
            passed = [i for i in passed if i not in held]
        picked = [doc_id for doc_id, _ in chosen]
    rendered = render_lines([records[i] for i in picked], budget, lang, core.lines if core is not None else ())
    fitted = set(picked[: rendered.fitted])
    # Ranks count the hits that can be injected: blocked and gated hits have none and take no slot.
    rank_of = {doc_id: position for position, doc_id in enumerate(passed, start=1)}
    for doc_id in admitted:  # after the words' hits: meaning fills the slots they left
        rank_of[doc_id] = picked.index(doc_id) + 1
    lowest_injected = scores.get(picked[rendered.fitted - 1], 0.0) if rendered.fitted else None

    # Every entry gets a row per query term, so a reader sees which terms it lacks; a pasted
    # document as a query would make that quadratic, so past ALL_ROWS_MAX terms only matches are listed.
    all_rows = len(terms) <= ALL_ROWS_MAX
    term_stats = {}
    if index:
        for term in terms:
            term_stats[term] = (index.df(term), index.idf(term))

    # Rows of a term an entry lacks are the same for every such entry: build them once.
    absent = {
        term: TermRow.model_construct(term=term, qtf=qtf, tf=0, df=term_stats[term][0], idf=term_stats[term][1],
                                      contribution=0.0, keyword_tf=0, from_keywords=False,
                                      ignored=ignored_reason(why.get(term)) if term not in scored_terms else None)
        for term, qtf in terms.items()
    } if index else {}
    no_match_rows = list(absent.values()) if all_rows else []

    order = ranked + admitted + [i for i in range(len(records))
                                 if (i not in scores or scores[i] <= 0.0) and i not in rules]
    rows: list[EntryExplanation] = []
    for doc_id in order:
        record = records[doc_id]
        score = scores.get(doc_id, 0.0)
        if score <= 0.0:
            term_rows = no_match_rows
        else:
            term_rows = []
            counts = index.counts(doc_id)  # type: ignore[union-attr]
            matched = via_keywords.get(doc_id, {})
            for term, qtf in terms.items():
                tf = counts.get(term, 0)
                keyword_tf = 0
                if term in matched:
                    tf, keyword_tf, contribution, _share = matched[term]
                elif tf:
                    contribution = qtf * index.contribution(term_stats[term][1], tf, doc_id)  # type: ignore[union-attr]
                else:
                    if all_rows:
                        term_rows.append(absent[term])
                    continue
                df, idf = term_stats[term]
                is_ignored = term not in scored_terms
                term_rows.append(
                    TermRow.model_construct(
                        term=term, qtf=qtf, tf=tf, df=df, idf=idf,
                        contribution=0.0 if is_ignored else contribution,
                        keyword_tf=keyword_tf, from_keywords=keyword_tf > 0,
                        ignored=ignored_reason(why.get(term)) if is_ignored else None,
                    )
                )
        rank = rank_of.get(doc_id)
        if doc_id in in_core:
            status, reason = Status.PINNED, _core_reason(record, in_core.index(doc_id), core)  # type: ignore[arg-type]
        elif doc_id in held:
            status, reason = Status.BELOW_THRESHOLD, held[doc_id]
        elif doc_id in admitted:
            status, reason = ((Status.INJECTED, _meaning_words(rules[doc_id], cosines.get(doc_id), limits))
                              if doc_id in fitted else _status(record, doc_id, 1.0, rank, term_rows, top_k, budget, fitted,
                                                               rendered.used_chars, lowest_injected, lang, True, terms,
                                                               ignored))
        elif doc_id in unjudged:
            status, reason = Status.CUT_TOP_K, (f"ranked #{rank}, past the {len(picked)} entries meaning kept "
                                                f"of the first it looked at (at most {len(rules)})")
        else:
            status, reason = _status(record, doc_id, score, rank, term_rows, top_k, budget, fitted,
                                     rendered.used_chars, lowest_injected, lang, bool(kept), terms, ignored)
        rows.append(
            EntryExplanation.model_construct(
                id=record.id, kind=record.kind, text=record.text, rank=rank, score=score,
                status=status, doc_len=index.doc_lens[doc_id] if index else 0, terms=term_rows,
                reason=reason, flags=record.effective_flags, cosine=cosines.get(doc_id),
                meaning=_meaning_row(doc_id, record, score, rules, cosines, limits, in_core),
            )
        )
    return Explanation.model_construct(
        query=query, tokens=tokens, n=n, avg_len=avg_len, top_k=top_k, budget=budget,
        block=rendered.block, used_chars=rendered.used_chars, entries=rows, ignored=ignored,
        profile=limits.profile_name, semantic_floor=limits.semantic_floor, semantic_note=semantic_note,
        semantic_admit=limits.semantic_admit, core=[records[i].id for i in in_core], core_used=core.used if core is not None else 0,
        core_budget=limits.core_budget, core_left_out=[records[i].id for i in core.left_out] if core else [],
    )


def _core_reason(record, place: int, core: Core) -> str:
    """Why an entry is in the pinned core, in words."""
    how = ("pinned by hand" if getattr(record, "pin", None) is True
           else f"a {record.kind.value}, which the core takes newest first")
    return (f"in the pinned core: {how}; #{place + 1} of {len(core.picked)}, in every block whatever the message "
            f"({core.used}/{core.budget} characters of the core)")


def _meaning(choice, held: dict[int, str], limits: Limits) -> tuple[dict[int, float], dict[int, str], list[int]]:
    """What meaning decided, for the rows: every entry's cosine (those with a vector), each judged
    entry's rule, and the entries it admitted; the hits it held back go into `held`."""
    from .meaning import ADMITTED, HELD

    cosines, rules = dict(choice.cosines), choice.rules
    every, known = choice.all_cosines, choice.known
    if every is not None:  # every entry with a vector shows its cosine
        for position in known.nonzero()[0].tolist():
            cosines.setdefault(position, round(float(every[position]), 4))
    for doc_id, rule in rules.items():
        if rule == HELD:
            held[doc_id] = _meaning_words(rule, cosines.get(doc_id), limits)
    return cosines, rules, [doc_id for doc_id, rule in rules.items() if rule == ADMITTED]


def _meaning_row(doc_id, record, score, rules, cosines, limits, in_core) -> str | None:
    """An entry's rule of meaning in words (None when meaning did not see it, or it is blocked or in the core)."""
    from .meaning import not_admitted, shares_words

    if doc_id in rules:
        return _meaning_words(rules[doc_id], cosines.get(doc_id), limits)
    if doc_id not in cosines or record.blocked or doc_id in in_core:
        return None
    return shares_words(cosines[doc_id]) if score > 0 else not_admitted(cosines[doc_id], limits.semantic_admit)


def _meaning_words(rule: str, cosine: float | None, limits: Limits) -> str:
    from .meaning import rule_words

    return rule_words(rule, cosine, limits.semantic_floor, limits.semantic_admit)


def _aligned(tokens: list[str], ignored: list[str], kept: list[str]):
    """Each query token beside its scored form (itself when ignored)."""
    scored = iter(kept)
    for token in tokens:
        yield token, (token if token in ignored else next(scored))


def _status(record, doc_id, score, rank, term_rows, top_k, budget, fitted, used, lowest, lang, has_tokens, terms,
            ignored):
    if record.blocked:
        categories = ", ".join(record.threats) or "flagged by hand"
        return Status.BLOCKED, f"blocked by the threat scan ({categories}); approve it to allow injection"
    if score <= 0.0:
        if not has_tokens:
            if ignored:
                return Status.ZERO_SCORE, "the query holds only function words, which are ignored: " + ", ".join(
                    ignored[:12])
            return Status.ZERO_SCORE, "the query has no searchable terms (words of 2+ letters or CJK characters)"
        missing = [row.term for row in term_rows if row.tf == 0 and not row.keyword_tf and row.ignored is None] or [
            term for term in terms if term not in ignored]
        shown = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
        return Status.ZERO_SCORE, "no query term appears in it; missing: " + shown + _inside_bigrams(record, missing)
    if rank is not None and rank > top_k:
        detail = f" (lowest injected score {lowest:.2f})" if lowest is not None else ""
        return Status.CUT_TOP_K, f"ranked #{rank}, but only the top {top_k} are injected{detail}"
    if doc_id in fitted:
        return Status.INJECTED, f"ranked #{rank} of the top {top_k}, and its line fits the budget ({used}/{budget})"
    line = len(line_for(record.kind, record.text, lang))
    return Status.CUT_BUDGET, (
        f"ranked #{rank} within the top {top_k}, but the block is full: its line is {line} chars, "
        f"{used} of {budget} were used, and lines stop at the first one that does not fit"
    )


def _inside_bigrams(record, missing: list[str]) -> str:
    """A single CJK character is its own term, but the entry's CJK text is indexed as overlapping
    bigrams: say so when the character is there, only inside bigrams (the score is unchanged)."""
    singles = [term for term in missing if len(term) == 1 and term >= "\x80"]
    if not singles:
        return ""
    bigrams = [token for token in dict.fromkeys(tokenize(record.text)) if len(token) == 2 and token >= "\x80"]
    notes = []
    for char in singles[:3]:
        holding = [token for token in bigrams if char in token]
        if holding:
            notes.append(f"{char} is in its text, but its CJK terms are bigrams ({', '.join(holding[:4])}) "
                         "and a one-character term matches only a lone character")
    if not notes:
        return ""
    return " — " + "; ".join(notes) + f". Query two characters, e.g. {bigrams_for(singles[0], bigrams)}"


def bigrams_for(char: str, bigrams: list[str]) -> str:
    return next((token for token in bigrams if char in token), char)

