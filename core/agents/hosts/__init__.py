"""Where agents live: the adapters that plug memtui into an agent host's own memory hooks.

    claude_code      the Claude Code hook (`memtui hook claude-code`) and the settings that install it
    hermes           a Hermes Agent memory provider (`memtui setup hermes` installs its plugin folder)
    langgraph_store  a LangGraph `BaseStore` over a memtui store

A module that needs a host's package imports it inside itself, never from here or from memtui_core's
top level, so the per-turn path (`memtui hook claude-code`) loads only the store.

Every adapter gets its stores from `open_stores` (or the one store writes go to from `open_store`)
and its blocks from `turn_block` and `core_block`: one place decides which stores a host's turn
reads. Inside a project (a `.memtui/` folder at or above the host's `cwd`) that is the project
store beside the global one, read as one candidate set (core/scopes.py).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os

    from ...limits import Limits
    from ...memory import MemoryStore
    from ...scopes import Scoped

__all__ = ["open_store", "open_stores", "turn_block", "core_block", "host_lang"]


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
    actor: str = "api",
    lang: str | None = None,
    limits: Limits | None = None,
) -> MemoryStore:
    """The one global store: `dir`, else `$MEMTUI_DIR`, else the platform data dir (a host's own
    store, which `open_stores` puts beside the project's)."""
    from ...memory import MemoryStore

    return MemoryStore(dir, limits=limits, actor=actor, lang=lang)


def open_stores(
    dir: str | os.PathLike[str] | None = None,
    *,
    cwd: str | None = None,
    actor: str = "api",
    lang: str | None = None,
    limits: Limits | None = None,
    global_store: MemoryStore | None = None,
) -> Scoped:
    """The stores a host's turn reads: with `dir`, exactly that store; else the project store of
    `cwd` (the nearest `.memtui/` at or above it), if any, beside the global store (`global_store`,
    else `$MEMTUI_DIR`, else the platform data dir). ScopeError for a `cwd` that is not a folder."""
    from ...scopes import Scoped

    return Scoped.open(dir, cwd=cwd, actor=actor, lang=lang, limits=limits, global_store=global_store)


def turn_block(store: MemoryStore | Scoped, text: str, lang: str | None = None) -> str:
    """The memories relevant to this message only ("" when none): what a host adds to the turn,
    while the pinned core comes once, from `core_block`. Never raises."""
    try:
        return store.retrieve_block(text, lang=lang, core=False)
    except Exception:
        return ""


def core_block(store: MemoryStore | Scoped, lang: str | None = None) -> str:
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
