"""Regular expressions compiled on first use.

The threat scan's modules hold dozens of patterns; compiling them at import cost every
`memtui inject` about 7 ms although a turn with a saved index uses almost none of them (it
imports the modules for secret redaction and rendering). A `LazyPattern` stands in for the
compiled pattern and compiles it the first time any of its methods is used.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing is not imported at run time: the per-turn path stays cheap
if TYPE_CHECKING:
    from typing import Any

__all__ = ["LazyPattern", "lazy_pattern"]


class LazyPattern:
    """`re.compile(pattern, flags)`, done when first used; behaves as the compiled pattern."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(*self._args)
        return compiled

    def __getattr__(self, name: str) -> Any:  # finditer, search, sub, pattern …
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._args[0]!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> Any:
    """A pattern compiled on first use (typed as Any: it stands for an `re.Pattern`)."""
    return LazyPattern(pattern, flags)
