"""memtui core: long-term memory for LLM agents, without any UI.

    from memtui_core import MemoryStore, set_block
    store = MemoryStore()                      # $MEMTUI_DIR or the platform data dir
    system = set_block(system, store.retrieve_block(user_text))

Names are imported on first use, so `import memtui_core` costs almost nothing and the per-turn path
(`retrieve_block`) never loads pydantic.
"""

from __future__ import annotations

import importlib
TYPE_CHECKING = False  # typing itself is not imported: `import memtui_core` stays cheap

__version__ = "0.1.0"

_EXPORTS = {
    # model and limits
    "Kind": "kinds",
    "KIND_NAMES": "kinds",
    "Limits": "limits",
    "Entry": "model",
    "InvalidEntry": "model",
    "RememberResult": "model",
    "Hit": "model",
    "Status": "model",
    "TermRow": "model",
    "EntryExplanation": "model",
    "Explanation": "model",
    "AuditEvent": "model",
    "AuditOp": "model",
    "Backup": "model",
    "RestoreResult": "model",
    "Health": "model",
    "Quarantine": "model",
    "TextCheck": "model",
    # the store
    "MemoryStore": "memory",
    "default_dir": "memory",
    "normalize": "memory",
    # retrieval and injection
    "tokenize": "text.tokenize",
    "render_block": "ranking.inject",
    "set_block": "ranking.inject",
    "BLOCK_START": "ranking.inject",
    "BLOCK_END": "ranking.inject",
    # distillation
    "worth_distilling": "agents.distill",
    "excerpt_from": "agents.distill",
    "parse_distill": "agents.distill",
    "DISTILL_SYSTEM": "agents.distill",
    "distill_memories": "agents.distill",
    "DistillResult": "agents.distill",
    "Dropped": "agents.distill",
    "parse_reply": "agents.distill",
    # agent tools
    "tool_schemas": "agents.tools",
    "save_tool": "agents.tools",
    "search_tool": "agents.tools",
    "run_tool": "agents.tools",
    "call_tool": "agents.tools",
    "update_tool": "agents.tools",
    "forget_tool": "agents.tools",
    "ToolAnswer": "agents.tools",
    # language
    "LANGS": "lang",
    # threat scan
    "scan_text": "safety.threats",
    "Finding": "safety.threats",
    "redact_secrets": "safety.threats",
    # errors
    "MemtuiError": "errors",
    "EntryNotFound": "errors",
    "ConflictError": "errors",
    "InvalidInput": "errors",
    "InvalidKind": "errors",
    "LockTimeout": "errors",
    "StoreUnavailable": "errors",
    "StoreUnwritable": "errors",
    "BackupNotFound": "errors",
}

__all__ = sorted(_EXPORTS)

# `tokenize` is both a submodule and a function: bind the function now (stdlib only, cheap), or
# importing anything that imports memtui_core.text.tokenize first would make `from memtui_core import tokenize`
# give the module.
from .text.tokenize import tokenize  # noqa: E402


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memtui_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:
    from .agents.distill import (DISTILL_SYSTEM, DistillResult, Dropped, distill_memories, excerpt_from, parse_distill,
                          parse_reply, worth_distilling)
    from .errors import (BackupNotFound, ConflictError, EntryNotFound, InvalidInput, InvalidKind, LockTimeout,
                         MemtuiError, StoreUnavailable, StoreUnwritable)
    from .ranking.inject import BLOCK_END, BLOCK_START, render_block, set_block
    from .kinds import KIND_NAMES, Kind
    from .limits import Limits
    from .model import (AuditEvent, AuditOp, Backup, Entry, EntryExplanation, Explanation, Health, Hit,
                        InvalidEntry, Quarantine, RememberResult, RestoreResult, Status, TermRow, TextCheck)
    from .memory import MemoryStore, default_dir, normalize
    from .safety.threats import Finding, redact_secrets, scan_text
    from .text.tokenize import tokenize
    from .lang import LANGS
    from .agents.tools import (ToolAnswer, call_tool, forget_tool, run_tool, save_tool, search_tool, tool_schemas,
                        update_tool)
