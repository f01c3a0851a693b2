"""Curating from the explain screen: teach the store the entry a query missed, or keep the query as a probe.

`K` adds the query's terms the expected entry lacks to its keywords (through the keywords dialog,
then the app's write path); `s`/`S` keep the query as a probe that expects the selected entry, or
nothing, to be injected, and say at once whether it passes.
"""

from __future__ import annotations

from functools import partial

from memtui_core.model import EntryExplanation, Explanation

from ..widgets.fmt import one_line, status_words
from ..writes import Edit
from .base import ModeScreen

__all__ = ["add_keywords", "missing_terms", "save_probe"]


def missing_terms(row: EntryExplanation, explanation: Explanation | None) -> list[str]:
    """The query's scored terms that the entry holds neither in its text nor in its keywords."""
    terms = [term.term for term in row.terms
             if not term.tf and not getattr(term, "keyword_tf", 0) and not getattr(term, "ignored", None)]
    if not terms and explanation is not None and row.score <= 0:
        ignored = set(getattr(explanation, "ignored", []) or [])
        terms = [token for token in dict.fromkeys(explanation.tokens) if token not in ignored]
    return terms


def add_keywords(screen: ModeScreen, row: EntryExplanation | None, explanation: Explanation | None) -> None:
    """Open the keywords dialog on the entry of `row`, filled with the terms it misses; save what is chosen."""
    from ..modals.keywords import KeywordsModal

    if not screen.can_write("Adding keywords"):
        return
    snapshot = screen.app.snapshot
    entry = snapshot.by_id(row.id) if row is not None and snapshot is not None else None
    if row is None or entry is None or explanation is None:
        screen.notify("Select the entry you expected, then press K.", title="Nothing selected")
        return

    def chosen(keywords: list[str] | None) -> None:
        if keywords is None or keywords == list(entry.keywords):
            return
        screen.app.submit(Edit(entry.id, entry, keywords=keywords))

    screen.app.push_screen(KeywordsModal(entry, missing_terms(row, explanation), explanation.query), chosen)


def save_probe(screen: ModeScreen, row: EntryExplanation | None, explanation: Explanation | None,
               nothing: bool = False) -> None:
    """Keep the query as a probe expecting `row` (or, `nothing`, no entry) to be injected."""
    if explanation is None or not explanation.query.strip():
        screen.notify("Type a query first; the probe keeps it.", title="No query")
        return
    if not screen.can_write("Keeping a probe"):
        return
    if not nothing and row is None:
        screen.notify("Select the entry this query must inject (S keeps it as expecting nothing).",
                      title="Nothing selected")
        return
    expect = None if nothing or row is None else [row.id]
    screen.run_worker(partial(_keep_probe, screen, explanation.query, expect),
                      thread=True, group="probe-save", exit_on_error=False)


def _keep_probe(screen: ModeScreen, query: str, expect: list[str] | None) -> None:
    """In a worker thread: add the probe, run it once, and say how it went."""
    from memtui_core.agents.probes import add_probe, evaluate

    app = screen.app
    store = app.store
    try:
        probe, outcome = add_probe(store, query, expect, scoped=app.scoped)  # inside a project: either store's entry
        result = evaluate(probe, (app.scoped or store).explain(probe.query))
    except Exception as exc:
        app.call_from_thread(screen.notify, one_line(str(exc)) or type(exc).__name__,
                             title="Probe not kept", severity="error", timeout=8, markup=False)
        return
    what = "nothing" if probe.expects_nothing else ", ".join(probe.expect)
    verb = {"added": "Kept", "updated": "Updated", "unchanged": "Already kept"}[outcome]
    state = "it passes now" if result.passed else f"it fails now: {status_words(result.misses[0].status)}"
    app.call_from_thread(screen.notify, f"{probe.id}: “{one_line(probe.query)[:40]}” must inject {what}; {state}",
                         title=f"{verb} probe", timeout=6, markup=False)
