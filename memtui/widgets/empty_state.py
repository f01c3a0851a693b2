"""What Browse shows instead of the table while the store has no entries: how to add the first."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from .palette import P

__all__ = ["EmptyState"]


class EmptyState(Static):
    """`n` here, or the `add` command in a shell, and where agents' memories will appear."""

    def show(self, command: str) -> None:
        """`command`: how this store is reached from a shell (with the --dir the app was opened with)."""
        message = Text(justify="center")
        message.append("No memories yet\n\n", style="bold")
        message.append("Press ", style="")
        message.append(" n ", style="bold reverse")
        message.append(" to add the first one here, or from a shell:\n\n")
        message.append(f'{command} add preference "回答尽量简短，先给结论"', style=f"bold {P.success}")
        message.append("\n\nAgents add memories with memory_save; they show up here within a second.", style=P.muted)
        self.update(message)
