"""Per-term BM25 breakdown of one entry, and the term-by-term comparison of two."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from memtui_core.model import EntryExplanation, Explanation, Status

from .fmt import bar, kind_badge, status_badge
from .palette import P

BAR_WIDTH = 16
COMPARE_BAR_WIDTH = 8
MIN_BAR_WIDTH = 4  # a pane too narrow for the whole table shortens the bars down to this, never the numbers


def top_score(explanation: Explanation) -> float:
    return max((row.score for row in explanation.entries), default=0.0)


def entry_heading(row: EntryExplanation) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"#{row.rank} " if row.rank else "unranked ", style="bold")
    text.append_text(kind_badge(row.kind, english=False))
    text.append(f"  score {row.score:.3f}  ", style="bold")
    if row.cosine is not None:  # judged by the semantic floor
        text.append(f"cosine {row.cosine:.3f}  ", style="bold")
    text.append_text(status_badge(row.status))
    text.append(f"  {row.id}", style=P.muted)
    return text


def breakdown(row: EntryExplanation, explanation: Explanation, width: int | None = None) -> RenderableType:
    """The terms of the query against this entry, with bars scaled to the top score of the query.
    `width`: the cells there are; the bars get shorter (never the numbers) to fit them."""
    top = top_score(explanation)
    bar_width = BAR_WIDTH
    if width is not None:  # the numbers' columns as wide as their widest cell, each with a cell either side
        columns = [["term", *(term.term for term in row.terms)], ["×q", *(str(term.qtf) for term in row.terms)],
                   ["tf", *(str(term.tf) for term in row.terms)], ["df", *(str(term.df) for term in row.terms)],
                   ["idf", *(f"{term.idf:.3f}" for term in row.terms)],
                   ["contrib", *(f"{term.contribution:.3f}" for term in row.terms)]]
        fixed = sum(max(cell_len(cell) for cell in column) + 2 for column in columns) + 2
        bar_width = max(MIN_BAR_WIDTH, min(BAR_WIDTH, width - fixed))
    # the column is as wide as "not in entry" where there is room, so that note stays on one line
    table = _breakdown_table(row, top, bar_width, max(bar_width, min(12, width - fixed) if width else 12))
    total = Text.assemble(("total ", "bold"), (f"{row.score:.3f}", f"bold {P.primary}"), f"  (doc length {row.doc_len:g})")
    return Group(table, total)


def _breakdown_table(row: EntryExplanation, top: float, bar_width: int, column_width: int) -> Table:
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style=f"bold {P.muted}", expand=False)
    table.add_column("term", no_wrap=True)
    table.add_column("×q", justify="right")
    table.add_column("tf", justify="right")
    table.add_column("df", justify="right")
    table.add_column("idf", justify="right", no_wrap=True)
    table.add_column("contrib", justify="right", no_wrap=True)
    heading = f"of top {top:.2f}" if top else "bar"
    table.add_column(heading if len(heading) <= column_width else "", min_width=column_width)  # a note may wrap
    for term in row.terms:
        missing = term.tf == 0 and not term.keyword_tf
        faint = missing or term.ignored is not None
        style = P.muted if faint else ""
        if term.ignored is not None:
            note = Text("ignored: function word", style=style)
        elif missing:
            note = Text("not in entry", style=style)
        else:
            note = Text.assemble(bar(term.contribution, top, bar_width))  # a note after the bar may wrap
            if term.from_keywords:
                note.append(f" keyword ×{term.keyword_tf}", style=P.pin)
                if not term.tf and not term.contribution:
                    note.append(" (not counted: over the per-entry limit of keyword-only terms)", style=P.muted)
        table.add_row(
            Text(term.term, style="bold" if not faint else style),
            Text(str(term.qtf), style=style),
            Text(str(term.tf), style=style),
            Text(str(term.df), style=style),
            Text(f"{term.idf:.3f}", style=style),
            Text(f"{term.contribution:.3f}", style=f"bold {P.primary}" if not faint else style),
            note,
        )
    return table


def comparison(pinned: EntryExplanation, selected: EntryExplanation, explanation: Explanation,
               width: int | None = None) -> RenderableType:
    """Why is A above B: the contribution of every query term to each, and the difference.
    `width`: the cells there are; the two bars get shorter (never the numbers) to fit them."""
    a, b = pinned, selected
    if a.score < b.score or (a.score == b.score and (b.rank or 10**9) < (a.rank or 10**9)):
        a, b = b, a
    top = top_score(explanation)
    rows_b = {term.term: term for term in b.terms}
    bar_width = COMPARE_BAR_WIDTH
    if width is not None:  # term, A, B and A−B as wide as their widest cell, each with a cell either side
        term_width = max([4, *(cell_len(term.term) for term in a.terms)])
        numbers = max([6, *(len(f"{term.contribution:.3f}") for term in [*a.terms, *b.terms])])
        fixed = term_width + 2 + 3 * (numbers + 2) + 2 * 2 + 2  # and two cells of slack
        bar_width = max(MIN_BAR_WIDTH // 2, min(COMPARE_BAR_WIDTH, (width - fixed) // 2))
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style=f"bold {P.muted}")
    table.add_column("term", no_wrap=True)
    table.add_column(f"A {a.id[:6]}", justify="right")
    table.add_column("", no_wrap=True, min_width=bar_width)
    table.add_column(f"B {b.id[:6]}", justify="right")
    table.add_column("", no_wrap=True, min_width=bar_width)
    table.add_column("A−B", justify="right")
    for term in a.terms:
        other = rows_b.get(term.term)
        cb = other.contribution if other else 0.0
        diff = term.contribution - cb
        table.add_row(
            term.term,
            f"{term.contribution:.3f}",
            bar(term.contribution, top, bar_width, P.success),
            f"{cb:.3f}",
            bar(cb, top, bar_width, P.warning),
            Text(f"{diff:+.3f}", style=P.success if diff > 0 else P.error if diff < 0 else P.muted),
        )
    table.add_row(
        Text("total", style="bold"), Text(f"{a.score:.3f}", style="bold"), "",
        Text(f"{b.score:.3f}", style="bold"), "", Text(f"{a.score - b.score:+.3f}", style="bold"),
    )
    heading_a = Text.assemble(("A ", f"bold {P.success}"), entry_heading(a), no_wrap=True, overflow="ellipsis")
    heading_b = Text.assemble(("B ", f"bold {P.warning}"), entry_heading(b), no_wrap=True, overflow="ellipsis")
    return Group(heading_a, heading_b, Text(""), comparison_sentence(a, b), Text(""), table)


def comparison_sentence(a: EntryExplanation, b: EntryExplanation) -> Text:
    """`A is above B by 0.96: A gains from “dry” (+1.42, not in B); B gains from “测试” (+1.46, not in A).`"""
    if a.id == b.id:
        return Text("A and B are the same entry.", style="dim")
    if a.score == b.score:
        return Text("They score the same; the one earlier in store order ranks first.", style="italic")
    rows_b = {term.term: term for term in b.terms}
    gains_a: list[tuple[float, str]] = []
    gains_b: list[tuple[float, str]] = []
    for term_a in a.terms:
        term_b = rows_b.get(term_a.term)
        if term_b is None:
            continue
        diff = term_a.contribution - term_b.contribution
        if diff > 1e-12:
            gains_a.append((diff, f"“{term_a.term}” (+{diff:.3f}, {_why(term_a.tf, term_b.tf, a.doc_len, b.doc_len, 'B')})"))
        elif diff < -1e-12:
            gains_b.append((-diff, f"“{term_a.term}” (+{-diff:.3f}, {_why(term_b.tf, term_a.tf, b.doc_len, a.doc_len, 'A')})"))
    out = Text(f"A is above B by {a.score - b.score:.3f}", style="bold italic")
    if gains_a:
        out.append(". A gains from ", style="italic")
        out.append(", ".join(text for _, text in sorted(gains_a, reverse=True)), style=f"italic {P.success}")
    if gains_b:
        out.append("; B gains from " if gains_a else ". B gains from ", style="italic")
        out.append(", ".join(text for _, text in sorted(gains_b, reverse=True)), style=f"italic {P.warning}")
        out.append(", but less", style="italic")
    if b.status is Status.BLOCKED:
        out.append(". B is blocked and would not be injected anyway", style="italic")
    out.append(".", style="italic")
    return out


def _why(tf_more: int, tf_less: int, len_more: float, len_less: float, other: str) -> str:
    if tf_less == 0:
        return f"not in {other}"
    if tf_more != tf_less:
        return f"{tf_more}× vs {tf_less}×"
    return "same count, shorter text" if len_more < len_less else "same count"
