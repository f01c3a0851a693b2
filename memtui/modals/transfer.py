"""Export and import from the command palette: a path, a preview of what an import would do, a confirmation."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ..node import AppNode
from ..widgets.palette import P
from ..writes import Import

if TYPE_CHECKING:
    from memtui_core.agents.transfer import ImportPlan


def export_format(path: str) -> str:
    """The export format a path asks for: .jsonl, .json, a folder (ending in `/`, or one that exists)
    or MEMORY.md / USER.md (Hermes), else Markdown."""
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        return "hermes"
    name = os.path.basename(path).lower()
    if name.endswith(".jsonl"):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name in ("memory.md", "user.md"):
        return "hermes"
    return "markdown"


class TransferModal(AppNode, ModalScreen[str | None]):
    """`export`: a path, written on enter. `import`: a path, enter previews, `y` imports."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="transfer.cancel")]

    def __init__(self, mode: str) -> None:
        super().__init__(classes="modal")
        self.mode = mode
        self.plan: ImportPlan | None = None  # the previewed import plan
        self.previewed_path: str | None = None

    def compose(self) -> ComposeResult:
        title = "Export memories" if self.mode == "export" else "Import memories"
        hint = ("Path to write: .json, .jsonl, a folder ending in / for Hermes (USER.md: the preferences, "
                "MEMORY.md: the rest), or any other name for Markdown"
                if self.mode == "export" else "Path of a memtui JSON/JSONL file, a Hermes MEMORY.md / USER.md, or a "
                "folder holding them; enter shows what the import would do")
        with Vertical(classes="dialog", id="transfer-dialog"):
            yield Static(title, classes="dialog-title")
            yield Static(hint, id="transfer-hint")
            yield Input(placeholder="path", id="transfer-path")
            with VerticalScroll(classes="dialog-body"):
                yield Static(id="transfer-body")
            with Horizontal(classes="dialog-buttons"):
                if self.mode == "import":
                    yield Button("Import (y)", id="transfer-go", variant="primary", disabled=True)
                yield Button("Cancel (esc)", id="transfer-cancel")

    def on_mount(self) -> None:
        self.query_one("#transfer-path", Input).focus()

    def _body(self, text: Text | str) -> None:
        self.query_one("#transfer-body", Static).update(text)

    @on(Input.Submitted, "#transfer-path")
    def _submitted(self, event: Input.Submitted) -> None:
        path = os.path.expanduser(event.value.strip())
        if not path:
            self._body(Text("Type a path first.", style=f"{P.warning}"))
            return
        if self.mode == "export":
            self._export(path)
        else:
            self._preview(path)

    def _export(self, path: str) -> None:
        from memtui_core.errors import MemtuiError
        from memtui_core.agents.transfer import export_bytes, write_export, write_hermes

        store = self.app.store
        fmt = export_format(path)
        try:
            if fmt == "hermes":  # two files: say what went where (and what a single file left out)
                lines = write_hermes(store, path.rstrip("/" + os.sep) or path).lines()
                self.dismiss("\n".join([lines[0].replace("exported", "Exported", 1), *lines[1:]]))
                return
            data = export_bytes(store, fmt, file_name=path)
            written = write_export(store, data, path)
        except (MemtuiError, OSError) as exc:
            self._body(Text(str(exc), style=f"{P.error}"))
            return
        self.dismiss(f"Exported to {written} ({fmt}, {len(data):,} bytes)")

    def _preview(self, path: str) -> None:
        from ..screens.base import writable_or_say

        if not writable_or_say(self, "Importing"):
            return
        from memtui_core.errors import MemtuiError
        from memtui_core.agents.transfer import import_file

        from memtui.render import plan_lines

        store = self.app.store
        button = self.query_one("#transfer-go", Button)
        try:
            self.plan = import_file(store, path, dry_run=True)
        except MemtuiError as exc:
            self.plan = None
            button.disabled = True
            self._body(Text(str(exc), style=f"{P.error}"))
            return
        self.previewed_path = path
        lines = plan_lines(self.plan, dry_run=True)
        body = Text("\n".join(lines[:-1]))
        scoped = getattr(self.app, "scoped", None)
        if scoped is not None and scoped.scoped:  # inside a project: say which store takes them
            body.append(f"\n\nInto the global store ({store.where}); `memtui import --scope project` "
                        "puts them in the project's.", style=f"{P.muted}")
        if self.plan.evicted:
            body.append(f"\n\nImporting evicts {len(self.plan.evicted)} entries (listed above): y confirms it.",
                        style=f"bold {P.error}")
        else:
            body.append("\n\nNothing is written until you press y.", style=f"{P.muted}")
        self._body(body)
        button.disabled = False
        button.focus()

    def key_y(self) -> None:
        if self.mode == "import" and self.plan is not None:
            self._import()

    @on(Button.Pressed, "#transfer-go")
    def _import(self) -> None:
        if self.previewed_path is None:
            return
        # the person saw the preview, evictions included, and confirmed it: the app writes it in its
        # write worker and says how it went, like every other change
        self.app.submit(Import(self.previewed_path))
        self.dismiss(None)

    @on(Button.Pressed, "#transfer-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
