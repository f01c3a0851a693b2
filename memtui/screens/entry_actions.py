"""Browse's writes that ask first: reclassify, delete and approve, on the selected entry or on every marked one.

Each asks in a dialog that shows what it acts on, then hands the write to the app (`screen.app.submit`),
which runs it in a worker and reloads. `done` runs after a batch write is submitted (Browse clears its marks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Group
from rich.text import Text

from memtui_core.kinds import Kind
from memtui_core.model import Entry

from ..modals.confirm import ConfirmModal
from ..modals.reclassify import ReclassifyModal
from ..widgets.entry_detail import flag_reasons
from ..widgets.fmt import clip, kind_badge
from ..widgets.palette import P
from ..writes import Approve, BatchApprove, BatchDelete, BatchReclassify, Delete, Pin, Reclassify, Unpin, Write
from .base import ModeScreen

__all__ = ["approve", "approve_all", "delete", "delete_all", "marked_list", "reclassify", "reclassify_all",
           "toggle_pin"]

MAX_LISTED = 40  # marked entries listed one a line; the rest are counted


def marked_list(entries: list[Entry], what: str) -> Group:
    """The entries one a line (kind, id, the start of the text), then `what` will happen to them."""
    lines: list[Text] = []
    for entry in entries[:MAX_LISTED]:
        line = Text.assemble(kind_badge(entry.kind, english=False), (f"  {entry.id}  ", P.muted))
        line.append_text(clip(entry.text, 60))
        lines.append(line)
    if len(entries) > MAX_LISTED:
        lines.append(Text(f"… and {len(entries) - MAX_LISTED} more", style=P.muted))
    return Group(*lines, Text(""), Text(what, style=P.muted))


def _confirm(screen: ModeScreen, title: str, body: Group, yes: str, write: Write,
             done: Callable[[], None] | None = None) -> None:
    """Ask `title` over `body`; on yes, hand `write` to the app, then run `done`."""
    def answered(confirmed: bool | None) -> None:
        if confirmed:
            screen.app.submit(write)
            if done is not None:
                done()

    screen.app.push_screen(ConfirmModal(title, body, yes=yes, danger=True), answered)


def _entry_body(entry: Entry, *notes: Text) -> Group:
    return Group(Text.assemble(kind_badge(entry.kind), ("  " + entry.id, P.muted)), Text(""), Text(entry.text),
                 Text(""), *notes)


def reclassify(screen: ModeScreen, entry: Entry) -> None:
    def chosen(kind: Kind | None) -> None:
        if kind is not None and kind is not entry.kind:
            screen.app.submit(Reclassify(entry.id, entry, kind))

    screen.app.push_screen(ReclassifyModal(entry), chosen)


def reclassify_all(screen: ModeScreen, marked: list[Entry], done: Callable[[], None]) -> None:
    def chosen(kind: Kind | None) -> None:
        if kind is not None:
            screen.app.submit(BatchReclassify(tuple(marked), kind))
            done()

    screen.app.push_screen(ReclassifyModal(marked[0], others=len(marked) - 1), chosen)


def delete(screen: ModeScreen, entry: Entry) -> None:
    body = _entry_body(
        entry, Text("The file is backed up first, so this can be undone from the backups screen (b).", style=P.muted)
    )
    _confirm(screen, "Delete this memory?", body, "Delete", Delete(entry.id, entry))


def delete_all(screen: ModeScreen, marked: list[Entry], done: Callable[[], None]) -> None:
    body = marked_list(marked, "One backup is taken before they go: restoring it (b) brings all of "
                               "them back. Each gets its own event in the audit log.")
    _confirm(screen, f"Delete {len(marked)} memories?", body, "Delete all", BatchDelete(tuple(marked)), done)


def approve(screen: ModeScreen, entry: Entry) -> None:
    if not entry.blocked:
        screen.notify(
            "Not blocked, so nothing to approve. The threat scan is a filter, not a guarantee: "
            "read the text before you rely on it.",
            title="Approve",
        )
        return
    reasons = [Text.assemble(("• " + flag, f"bold {P.warning}"), " — " + why) for flag, why in flag_reasons(entry)]
    body = _entry_body(
        entry,
        *reasons,
        Text(""),
        Text(
            "Approving lets agents receive this text in their prompt. The approval holds for this exact text only.",
            style=P.warning,
        ),
    )
    _confirm(screen, "Approve a blocked memory?", body, "Approve", Approve(entry.id, entry))


def approve_all(screen: ModeScreen, blocked: list[Entry], done: Callable[[], None]) -> None:
    body = marked_list(blocked, "Approving lets agents receive these texts in their prompt; each "
                                "approval holds for its exact text only.")
    _confirm(screen, f"Approve {len(blocked)} blocked memories?", body, "Approve all", BatchApprove(tuple(blocked)),
             done)


def toggle_pin(screen: Any, entry: Entry, approve_key: str = "A") -> None:
    """Pin an entry into every block, or take it out of the pinned core (no dialog: p again undoes it).
    `approve_key`: how this screen's person approves a blocked entry (the core's list has no A)."""
    snapshot = screen.app.snapshot
    place = snapshot.core_place(entry.id) if snapshot is not None else None
    if place is not None and place[0] in ("pinned", "kind") or entry.pinned:
        screen.app.submit(Unpin(entry.id, entry))
    elif entry.blocked:
        screen.notify(f"A blocked entry cannot be pinned: approve it first ({approve_key}) if you trust it.",
                      title="Pin", severity="warning")
    else:
        screen.app.submit(Pin(entry.id, entry))


def next_scope(screen: Any) -> None:
    """Show both stores, only the project's, or only the global one (with a project store open)."""
    snapshot = screen.app.snapshot
    if snapshot is None or not snapshot.scopes:
        screen.notify("This store has no scopes: no project store is open beside it.", title="Scope")
        return
    label = screen.listing.next_scope()
    screen.fill()
    screen.notify(label, title="Scope")


def move(screen: Any, entry: Entry) -> None:
    """Move the entry to the other store: added there, then deleted here (both audited)."""
    snapshot = screen.app.snapshot
    scope = snapshot.scopes.get(entry.id) if snapshot is not None else None
    if not scope:
        screen.notify("This store has no scopes: no project store is open beside it.", title="Move")
        return
    if screen.can_write("Moving"):
        from ..writes import Move

        screen.app.submit(Move(entry.id, "global" if scope == "project" else "project"))
