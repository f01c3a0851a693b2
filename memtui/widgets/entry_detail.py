"""One entry in full: text, id, source, time, length, flags with their reasons, eviction place, history."""

from __future__ import annotations

import time

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from memtui_core.model import AuditEvent, Entry

from ..messages import StoreHistory, StoreSnapshot
from .fmt import OP_COLOURS, ago, kind_badge, one_line, timestamp
from .palette import P
from .wrap import Wrapped


class EntryDetail(VerticalScroll):
    """The right-hand pane of the browse screen."""

    can_focus = True

    def compose(self):
        yield Static(id="detail-body")

    def show_entry(self, entry: Entry | None, snapshot: StoreSnapshot | None, history: StoreHistory | None) -> None:
        body = self.query_one("#detail-body", Static)
        if entry is None or snapshot is None:
            body.update(Text("Select an entry to see it in full.", style="dim italic"))
            return
        body.update(render_entry(entry, snapshot, history))

    def show_message(self, message: RenderableType) -> None:
        self.query_one("#detail-body", Static).update(message)


def render_entry(entry: Entry, snapshot: StoreSnapshot, history: StoreHistory | None) -> RenderableType:
    now = time.time()
    title = Text(no_wrap=True)
    title.append_text(kind_badge(entry.kind))
    if entry.blocked:
        title.append("  ")
        title.append(" BLOCKED ", style=f"bold {P.on_error}")
    if entry.pinned:
        title.append("  ")
        title.append(" PINNED ", style=f"bold reverse {P.primary}")
    length = len(entry.text)
    meta = Text(no_wrap=False)
    meta.append("id ", style=P.muted)
    meta.append(entry.id, style="bold")
    meta.append(" · ", style=P.muted)
    meta.append(f"{length}/{snapshot.max_text}", style=f"bold {P.warning}" if length >= snapshot.max_text else "bold")
    meta.append(" chars · source ", style=P.muted)
    meta.append(entry.source or "—")
    parts: list[RenderableType] = [title, meta, Text(""), Wrapped(entry.text), Text("")]

    fields = Table.grid(padding=(0, 1))
    fields.add_column(style=f"bold {P.muted}", no_wrap=True)
    fields.add_column()
    fields.add_row("keywords", Text(", ".join(entry.keywords)) if entry.keywords
                   else Text("none (e edits them; K in explain adds a query's missing words)", style=P.muted))
    fields.add_row("saved", Text(f"{timestamp(entry.ts)}  ({ago(entry.ts, now)})" if entry.ts else "unknown"))
    fields.add_row("core", core_text(entry, snapshot))
    fields.add_row("eviction", eviction_text(entry, snapshot))
    fields.add_row("injected", usage_text(entry, snapshot, now))
    parts.append(fields)

    reasons = flag_reasons(entry)
    if reasons:
        parts += [Text(""), Text("Flags", style="bold underline")]
        for flag, reason in reasons:
            line = Text("• ")
            line.append(flag, style=f"bold {P.warning}" if flag.startswith(("blocked", "threat")) else "bold")
            line.append(" — " + reason)
            parts.append(line)

    parts += [Text(""), Text("History", style="bold underline")]
    if history is None:
        parts.append(Text("loading…", style="dim"))
    else:
        events = history.by_id.get(entry.id, [])
        if not events:
            parts.append(Text("no recorded changes (written before the audit log, or by hand)", style="dim"))
        else:
            parts.append(history_table(events, entry.id))
    return Group(*parts)


def usage_text(entry: Entry, snapshot: StoreSnapshot, now: float) -> Text:
    """How often the injection log saw this entry injected, and when last."""
    if not snapshot.usage_logged:
        return Text("unknown: the injection log is off", style=f"{P.muted}")
    count, last = snapshot.usage.get(entry.id, (0, 0.0))
    if not count:
        return Text(f"never in the last {snapshot.usage_days} days", style=f"{P.warning}")
    times = "once" if count == 1 else f"{count} times"
    return Text(f"{times} in the last {snapshot.usage_days} days, last {timestamp(last)} ({ago(last, now)})")


def core_text(entry: Entry, snapshot: StoreSnapshot) -> Text:
    """Whether the entry is in every block (the pinned core), why, and what p would do."""
    core = snapshot.core
    if core is None:
        return Text("—")
    if core.budget <= 0:
        return Text("off: this profile has no pinned core", style=P.muted)
    place = snapshot.core_place(entry.id)
    size = len(core.entries)
    if place is None:
        if entry.blocked and entry.pinned:
            return Text("pinned, but blocked by the threat scan: never injected until approved",
                        style=f"bold {P.warning}")
        return Text("only when a message matches it (p pins it into every block)", style=P.muted)
    how, number = place
    if how == "pinned":
        return Text(f"in every block: pinned by hand, #{number} of {size} (p unpins; c shows the core)",
                    style=f"bold {P.primary}")
    if how == "kind":
        return Text(f"in every block: a {entry.kind.value}, which the core takes newest first, #{number} of {size} "
                    "(p keeps it out)", style=P.primary)
    if how == "left_out":
        return Text(f"left out of the core: over its budget ({core.used}/{core.budget} characters); retrieved only "
                    "when a message matches it (c shows the core)", style=f"bold {P.warning}")
    return Text("kept out of the core by hand (p puts it back)", style=P.muted)


def eviction_text(entry: Entry, snapshot: StoreSnapshot) -> Text:
    """One plain sentence: will this entry be evicted, and when."""
    position = snapshot.eviction.get(entry.id)
    count = len(snapshot.entries)
    if position is None:
        return Text("—")
    cap = snapshot.max_entries
    over = count - cap
    place = "next" if position == 1 else f"{_ordinal(position)} in line"
    if count < cap:
        text = Text(f"Nothing is evicted until the store is full ({count}/{cap}); then this entry goes {place}.")
    elif over <= 0:
        text = Text(f"The store is full ({count}/{cap}): adding a memory evicts one entry, and this one goes {place}.",
                    style=f"bold {P.warning}" if position == 1 else "")
    elif position <= over + 1:
        text = Text(f"The store is over its limit ({count}/{cap}): the next add evicts {over + 1} entries, "
                    "this one included.", style=f"bold {P.warning}")
    else:
        text = Text(f"The store is over its limit ({count}/{cap}): the next add evicts {over + 1} entries; "
                    f"this one is {_ordinal(position)} in line.", style=P.warning)
    text.append("\nOrder: facts first, then lessons, corrections, preferences; oldest first.", style=P.muted)
    return text


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def flag_reasons(entry: Entry) -> list[tuple[str, str]]:
    """Each flag with a sentence; threat reasons come from the core's scan of the text."""
    if not entry.flags:
        return []
    from memtui_core.safety.threats import scan_text

    findings = [f for f in scan_text(entry.text) if getattr(f, "category", "") != "secret"]
    by_category: dict[str, list] = {}
    for finding in findings:
        by_category.setdefault(finding.category, []).append(finding)
    out: list[tuple[str, str]] = []
    for flag in entry.flags:
        if flag == "blocked":
            out.append((flag, "held back from injection until a person approves it (press A)"))
        elif flag.startswith("threat:"):
            category = flag[7:]
            found = by_category.get(category, [])
            if found:
                first = found[0]
                reason = getattr(first, "reason", "") or getattr(first, "rule", category)
                excerpt = getattr(first, "excerpt", "")
                out.append((flag, one_line(reason) + (f": “{one_line(excerpt)}”" if excerpt else "")))
            else:
                out.append((flag, "flagged when it was written"))
        elif flag == "secret-redacted":
            out.append((flag, "a secret was replaced by [REDACTED:…] before storing; still injected"))
        elif flag.startswith("approved:"):
            out.append(("approved", "a person approved this exact text; editing it withdraws the approval"))
        else:
            out.append((flag, "set by another program"))
    return out


def history_table(events: list[AuditEvent], entry_id: str) -> Table:
    """Newest first: when, what, who, and the change itself (old → new text for edits)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True, style=P.muted)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, style=P.muted)
    table.add_column(ratio=1, overflow="fold")
    for event in reversed(events):
        op = str(event.op)
        table.add_row(
            short_time(event.at),
            Text(op, style=f"bold {OP_COLOURS.get(op, '')}"),
            event.actor,
            change_summary(event, entry_id),
        )
    return table


def short_time(at: float) -> str:
    """`11-29 21:23`, or with the year when it is not this year."""
    from datetime import datetime

    moment = datetime.fromtimestamp(at)
    if moment.year != datetime.now().year:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.strftime("%m-%d %H:%M")


def change_summary(event: AuditEvent, entry_id: str | None = None) -> Text:
    """What an audit event did, in one line: `old → new` for edits, the kind change, the note."""
    op = str(event.op)
    before, after = event.before or {}, event.after or {}
    out = Text(end="")
    if op == "edit" and before.get("text") != after.get("text"):
        out.append(one_line(str(before.get("text", ""))), style=f"{P.error} strike")
        out.append(" → ")
        out.append(one_line(str(after.get("text", ""))), style=P.success)
    elif op == "reclassify" or (before.get("kind") and after.get("kind") and before.get("kind") != after.get("kind")):
        out.append(f"{before.get('kind')} → {after.get('kind')}", style="bold")
    elif op == "add":
        out.append(one_line(str(after.get("text", ""))))
    elif op in ("delete", "evict"):
        out.append(one_line(str(before.get("text", ""))), style=P.error)
    elif op == "refresh":
        out.append(f"seen again (source {after.get('source') or '—'})", style="dim")
    elif op == "approve":
        out.append("approved for injection", style=P.success)
    elif op == "restore":
        if entry_id is not None:
            for ids, word in ((event.added, "brought back"), (event.removed, "removed"), (event.changed, "changed")):
                if entry_id in (ids or []):
                    out.append(f"{word} by restoring a backup", style="bold")
            if out:
                return out
    if event.note:
        out.append(("  " if out else "") + one_line(event.note), style=f"italic {P.muted}")
    return out
