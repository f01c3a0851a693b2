"""The memory tools an agent calls: their schemas and their handlers.

Handlers take the tool arguments (a dict, or the JSON string a model sent) and a store,
and always answer with text for the model: a result, or a one-line `错误：…`. They never raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from .keywords import clean_keywords
from .kinds import KIND_NAMES, Kind
from .limits import DEFAULT_LIMITS

if TYPE_CHECKING:
    from .store import MemoryStore

__all__ = [
    "SAVE_TOOL",
    "SEARCH_TOOL",
    "TOOL_NAMES",
    "SEARCH_TOP_K_MAX",
    "tool_schemas",
    "save_tool",
    "search_tool",
    "run_tool",
]

SAVE_TOOL = "memory_save"
SEARCH_TOOL = "memory_search"
TOOL_NAMES = (SAVE_TOOL, SEARCH_TOOL)
SEARCH_TOP_K_MAX = 20

NOTHING_FOUND = "没有找到相关记忆"
MISSING_TEXT = "缺少 text"
MISSING_QUERY = "缺少 query"

_SAVE_DESCRIPTION = (
    "Save one long-term memory that should still help in future, unrelated sessions. "
    "Choose the kind: "
    "preference = a stable preference of the user (style, language, workflow, output format); "
    "correction = something the user rejected, with the right way they want instead; "
    "lesson = a pitfall to avoid or an approach that proved to work, learned at some cost; "
    "fact = a durable fact about the project or environment (conventions, layout, tools). "
    "Do not save task progress, one-off file states, temporary decisions, what can be read "
    "from the code, or any secret. Near-duplicates of an existing memory are not added twice."
)
_SEARCH_DESCRIPTION = (
    "Search long-term memory (preferences, corrections, lessons and facts from past sessions) "
    "by keywords. Returns one line per match: [kind] (score) text."
)


def tool_schemas(enabled: bool = True) -> list[dict[str, Any]]:
    """OpenAI-style function definitions for `memory_save` and `memory_search`;
    `[]` when memory is disabled, so a model is never offered tools that would refuse it."""
    if not enabled:
        return []
    return [
        {
            "type": "function",
            "function": {
                "name": SAVE_TOOL,
                "description": _SAVE_DESCRIPTION,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "kind": {
                            "type": "string",
                            "enum": [kind.value for kind in Kind],
                            "description": "preference, correction, lesson or fact (see the tool description).",
                        },
                        "text": {
                            "type": "string",
                            "description": (
                                "One self-contained sentence in the conversation's language, "
                                "understandable without this conversation; at most 200 characters."
                            ),
                        },
                        "keywords": {
                            "type": "array",
                            "items": {"type": "string", "maxLength": DEFAULT_LIMITS.max_keyword_chars},
                            "maxItems": DEFAULT_LIMITS.max_keywords,
                            "description": (
                                "Optional retrieval keywords, never shown: synonyms a user might say instead, "
                                "and the same words in the other language (English or Chinese)."
                            ),
                        },
                    },
                    "required": ["kind", "text"],
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": SEARCH_TOOL,
                "description": _SEARCH_DESCRIPTION,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {
                            "type": "string",
                            "description": "Keywords to look for, in any language.",
                        },
                        "top_k": {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": SEARCH_TOP_K_MAX,
                            "description": "How many memories to return at most (default: the store's top_k).",
                        },
                    },
                    "required": ["query"],
                    "additionalProperties": False,
                },
            },
        },
    ]


# ---------------------------------------------------------------- helpers


def _error(message: str) -> str:
    return "错误：" + " ".join(message.split())


def _describe(error: BaseException) -> str:
    try:
        lines = str(error).strip().splitlines()
    except Exception:
        lines = []
    return _error(lines[0] if lines else type(error).__name__)


def _arguments(args: object) -> Mapping[str, Any] | str:
    """The arguments as a mapping, or an error line."""
    if isinstance(args, (bytes, bytearray)):
        try:
            args = bytes(args).decode("utf-8")
        except UnicodeDecodeError:
            return _error("参数不是有效的 UTF-8")
    if isinstance(args, str):
        try:
            args = orjson.loads(args) if args.strip() else {}
        except orjson.JSONDecodeError:
            return _error("参数不是有效的 JSON 对象")
    if not isinstance(args, Mapping):
        return _error("参数必须是 JSON 对象")
    return args


def _count(store: MemoryStore) -> int:
    """Valid entries in the store; `len(store)` avoids building every entry model."""
    try:
        return len(store)  # type: ignore[arg-type]
    except TypeError:
        return len(store.entries())


# ---------------------------------------------------------------- handlers


def save_tool(args: object, store: MemoryStore, source: str = "tool") -> str:
    """Handle `memory_save(kind, text)`; the entry is written with `source` ("tool" by default).

    Answers `已记下（<中文类别>），当前记忆共 N 条` or `与已有记忆重复，未新增；当前记忆共 N 条`,
    followed by a note when the new entry was evicted at once, when older entries were evicted
    to make room, when a secret was redacted, or when the threat scan blocked it (stored, but
    never injected until a person approves it). An unknown kind answers an error naming the four
    kinds; missing text answers `缺少 text`; a store failure answers `错误：…`.
    """
    try:
        parsed = _arguments(args)
        if isinstance(parsed, str):
            return parsed
        raw_kind = parsed.get("kind")
        kind = Kind.parse(raw_kind)
        if kind is None:
            shown = f" {raw_kind!r}" if isinstance(raw_kind, str) else ""
            return _error(f"未知的 kind{shown}，必须是 {KIND_NAMES} 之一")
        text = parsed.get("text")
        if not isinstance(text, str) or not text.strip():
            return MISSING_TEXT

        keywords = _keywords(parsed.get("keywords"), store)
        if isinstance(keywords, str):
            return keywords
        extra = {"keywords": keywords} if keywords else {}
        result = store.remember(kind, text, source=source, **extra)
        total = _count(store)
        entry = result.entry
        if result.added:
            message = f"已记下（{entry.kind.label}），当前记忆共 {total} 条"
        else:
            message = f"与已有记忆重复，未新增；当前记忆共 {total} 条"

        evicted_ids = [old.id for old in result.evicted]
        if entry.id in evicted_ids:
            message += "；但它随即因容量上限被淘汰，没有保留"
        others = sum(1 for old_id in evicted_ids if old_id != entry.id)
        if others:
            message += f"；因容量上限淘汰了 {others} 条旧记忆"
        flags = list(getattr(entry, "flags", None) or ())
        if entry.id not in evicted_ids and "blocked" in flags:
            categories = [flag.split(":", 1)[1] for flag in flags if flag.startswith("threat:")]
            why = f"（{', '.join(categories)}）" if categories else ""
            message += f"；但内容未通过安全检查{why}，已存档待人工批准，批准前不会注入"
        elif result.added and "secret-redacted" in flags:
            message += "；其中的密钥类内容已替换为 [REDACTED]"
        return message
    except Exception as error:
        return _describe(error)


def _keywords(value: object, store: MemoryStore) -> list[str] | None | str:
    """The keywords of a save, cleaned tolerantly (a model's bad keyword is dropped, the memory is
    kept); a comma-separated string is read as a list; anything else answers an error line."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [part for part in value.replace("，", ",").split(",")]
    if not isinstance(value, list):
        return _error("keywords 必须是字符串列表")
    return clean_keywords(value, store.limits, strict=False)[0]


def _top_k(value: object) -> int | None:
    """An int or numeric string, clamped to 1..20; None (the store's default) otherwise."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return min(max(int(number), 1), SEARCH_TOP_K_MAX)


def search_tool(args: object, store: MemoryStore) -> str:
    """Handle `memory_search(query, top_k?)`: one line per hit, `[<类别>] (<score>) <text>`
    with the score to 2 decimals, or `没有找到相关记忆`. Blocked entries never appear
    (the store leaves them out), and each text is shown as the injected block would show it:
    secrets redacted (also in entries another program wrote), one line, no invisible characters,
    fence markers defused. Missing query answers `缺少 query`."""
    from .inject import clean_for_block

    try:
        parsed = _arguments(args)
        if isinstance(parsed, str):
            return parsed
        query = parsed.get("query")
        if not isinstance(query, str) or not query.strip():
            return MISSING_QUERY
        hits = store.search(query, top_k=_top_k(parsed.get("top_k")))
        if not hits:
            return NOTHING_FOUND
        return "\n".join(
            f"[{hit.entry.kind.label}] ({hit.score:.2f}) {clean_for_block(hit.entry.text)}" for hit in hits
        )
    except Exception as error:
        return _describe(error)


def run_tool(name: object, args: object, store: MemoryStore) -> str:
    """Dispatch a tool call by name; an unknown name answers an error line."""
    if name == SAVE_TOOL:
        return save_tool(args, store)
    if name == SEARCH_TOOL:
        return search_tool(args, store)
    return _error(f"未知的工具 {name!r}，可用：{', '.join(TOOL_NAMES)}")
