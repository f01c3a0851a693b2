"""Where agents live: the adapters that plug memtui into an agent host's own memory hooks.

    claude_code      the Claude Code hook (`memtui hook claude-code`) and the settings that install it
    hermes           a Hermes Agent memory provider (`memtui setup hermes` installs its plugin folder)
    langgraph_store  a LangGraph `BaseStore` over a memtui store

A module that needs a host's package imports it inside itself, never from here or from memtui_core's
top level, so the per-turn path (`memtui hook claude-code`) loads only the store.

Every adapter gets its store from `open_store` and its blocks from `turn_block` and `core_block`:
one place decides which store a host's turn reads, so project stores can be added there.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os

    from ...limits import Limits
    from ...memory import MemoryStore

__all__ = ["open_store", "turn_block", "core_block", "host_lang"]


def host_lang(lang: str | None) -> str | None:
    """The language a host's block is in: `lang`, else $MEMTUI_LANG (None lets the store read it),
    else `auto`: a host's user may write in any language, so the labels follow the message."""
    if lang is not None:
        return lang
    import os

    return None if os.environ.get("MEMTUI_LANG") else "auto"


def open_store(
    dir: str | os.PathLike[str] | None = None,
    *,
    cwd: str | None = None,
    actor: str = "api",
    lang: str | None = None,
    limits: Limits | None = None,
) -> MemoryStore:
    """The store a host reads and writes: `dir`, else `$MEMTUI_DIR`, else the platform data dir.

    `cwd` is the folder the host works in (Claude Code's `cwd`, a Hermes workspace); every adapter
    passes it, so the project a turn belongs to is known here when stores get scopes. Today it
    does not change which store opens."""
    from ...memory import MemoryStore

    return MemoryStore(dir, limits=limits, actor=actor, lang=lang)


def turn_block(store: MemoryStore, text: str, lang: str | None = None) -> str:
    """The memories relevant to this message only ("" when none): what a host adds to the turn,
    while the pinned core comes once, from `core_block`. Never raises."""
    try:
        return store.retrieve_block(text, lang=lang, core=False)
    except Exception:
        return ""


def core_block(store: MemoryStore, lang: str | None = None) -> str:
    """The pinned core, always in context ("" when it is empty): what a host puts in the system
    prompt or at the start of a session, once. With `auto` there is no message to follow yet, so
    the header and labels follow the core's own entries. Never raises."""
    try:
        if lang != "auto" and (lang is not None or store.lang != "auto"):
            return store.core_block(lang=lang)
        block = store.core_block(lang="zh")
        written = _entries_language(block)
        return block if written == "zh" or not block else store.core_block(lang=written)
    except Exception:
        return ""


def _entries_language(block: str) -> str:
    """The language the entries of a rendered block are written in (its labels aside)."""
    from ...lang import detect_lang

    texts = [line.split("] ", 1)[1] for line in block.splitlines() if line.startswith("- [") and "] " in line]
    return detect_lang(" ".join(texts))
