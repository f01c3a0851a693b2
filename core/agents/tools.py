"""The memory tools an agent calls: one definition of each, every SDK's format, and the handlers.

`TOOLS` defines each tool once (name, title, description, JSON Schema of its arguments, MCP
hints). `tool_schemas(format=...)` renders that definition for OpenAI Chat Completions
(`"chat"`, also `"openai"`), OpenAI Responses (`"responses"`), Anthropic (`"anthropic"`) and
MCP (`"mcp"`). Every schema is strict-mode compatible: every property is required,
`additionalProperties` is false, and an optional value is nullable (`"type": [..., "null"]`).
`memory_update` and `memory_forget` change or delete what is stored, so they are offered only
with `destructive=True`.

Handlers take the tool arguments (a dict, or the JSON string a model sent) and a store, and
always answer with text for the model in the store's language (docs/injection.md): a result, or
a one-line error (`错误：…` / `Error: …`). They never raise. `call_tool` also says whether the
answer is an error, for protocols that mark errors (MCP's `isError`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import EntryNotFound, InvalidInput
from ..ranking.keywords import clean_keywords
from ..kinds import KIND_NAMES, Kind
from ..lang import DEFAULT_LANG, configured_lang, resolve_lang
from ..limits import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:
    from ..memory import MemoryStore

__all__ = [
    "SAVE_TOOL",
    "SEARCH_TOOL",
    "UPDATE_TOOL",
    "FORGET_TOOL",
    "INJECT_TOOL",
    "TOOL_NAMES",
    "FORMATS",
    "SEARCH_TOP_K_MAX",
    "ToolDef",
    "ToolAnswer",
    "tool_defs",
    "tool_schemas",
    "save_tool",
    "search_tool",
    "update_tool",
    "forget_tool",
    "call_tool",
    "run_tool",
]

SAVE_TOOL = "memory_save"
SEARCH_TOOL = "memory_search"
UPDATE_TOOL = "memory_update"
FORGET_TOOL = "memory_forget"
INJECT_TOOL = "memory_inject"
TOOL_NAMES = (SAVE_TOOL, SEARCH_TOOL, UPDATE_TOOL, FORGET_TOOL)
FORMATS = ("chat", "openai", "responses", "anthropic", "mcp")
SEARCH_TOP_K_MAX = 20

# ---------------------------------------------------------------- what the handlers say

# Every answer, in both languages: (zh, en).
_TEXTS: dict[str, tuple[str, str]] = {
    "saved": ("已记下（{label}），当前记忆共 {total} 条", "Saved ({label}); memories stored: {total}"),
    "duplicate": ("与已有记忆重复，未新增；当前记忆共 {total} 条",
                  "Already remembered, nothing added; memories stored: {total}"),
    "evicted_self": ("；但它随即因容量上限被淘汰，没有保留",
                     "; but it was evicted at once because the store is full, so it was not kept"),
    "evicted_others": ("；因容量上限淘汰了 {n} 条旧记忆", "; {n} older memories were evicted to make room"),
    "blocked": ("；但内容未通过安全检查{why}，已存档待人工批准，批准前不会注入",
                "; but it failed the safety check{why}: stored for a person to approve, never injected until then"),
    "redacted": ("；其中的密钥类内容已替换为 [REDACTED]", "; secrets in it were replaced with [REDACTED]"),
    "truncated": ("；原文 {length} 字超过上限 {limit} 字，已截断为前 {limit} 字",
                  "; the text had {length} characters, over the limit of {limit}, and was cut to its first {limit}"),
    "nothing": ("没有找到相关记忆", "No matching memories"),
    "updated": ("已更新 {id}（{label}）：{text}", "Updated {id} ({label}): {text}"),
    "hidden": ("（内容未通过安全检查，不显示）", "(its text failed the safety check and is not shown)"),
    "unchanged": ("{id} 没有变化", "{id} is unchanged"),
    "forgotten": ("已删除 {id}（{label}）：{text}；备份中仍可恢复",
                  "Forgot {id} ({label}): {text}; a backup still holds it"),
    "missing": ("缺少 {name}", "Error: missing {name}"),
    "bad_keywords": ("错误：keywords 必须是字符串列表", "Error: keywords must be a list of strings"),
    "error": ("错误：{message}", "Error: {message}"),
    "not_utf8": ("参数不是有效的 UTF-8", "the arguments are not valid UTF-8"),
    "not_json": ("参数不是有效的 JSON 对象", "the arguments are not a valid JSON object"),
    "not_object": ("参数必须是 JSON 对象", "the arguments must be a JSON object"),
    "bad_kind": ("未知的 kind{shown}，必须是 {kinds} 之一", "unknown kind{shown}: use one of {kinds}"),
    "no_change": ("没有要修改的内容：请给出 text、kind 或 pinned", "nothing to change: give text, kind or pinned"),
    "pinned": ("；已置顶：它从现在起出现在每一轮对话中", "; pinned: it is in every turn from now on"),
    "pinned_only": ("已置顶 {id}（{label}）：它从现在起出现在每一轮对话中",
                    "Pinned {id} ({label}): it is in every turn from now on"),
    "unpinned": ("；已取消置顶：只在相关时才会注入", "; unpinned: injected only when relevant"),
    "unpinned_only": ("已取消置顶 {id}（{label}）：只在相关时才会注入",
                      "Unpinned {id} ({label}): injected only when relevant"),
    "not_pinned": ("；因此没有置顶", "; so it was not pinned"),
    "core_full": ("；但置顶记忆已超出预算（{used}/{budget} 字），它暂时放不进去",
                  "; but the pinned core is over its budget ({used}/{budget} characters), so it is left out "
                  "until room is made"),
    "no_entry": ("没有 id 为 {id} 的记忆", "no memory with id {id}"),
    "bad_type": ("参数 {name} 必须是{expected}", "argument {name} must be {expected}"),
    "unknown_tool": ("未知的工具 {name}，可用：{names}", "unknown tool {name}; available: {names}"),
    "in_scope": ("；存入{scope}记忆", "; in the {scope} store"),
    "bad_scope": ("scope 必须是 project 或 global", "scope must be project or global"),
    "no_scopes": ("这份记忆只有一个存储，没有 scope；请省略 scope", "this memory is one store without scopes; leave scope out"),
    "moved": ("已将 {id} 移到{scope}记忆", "moved {id} to the {scope} store"),
    "new_id": ("（那里已有此 id，新 id 为 {id}）", " (that store holds its id already: it is {id} there)"),
    "approval_left": ("；人工批准不随之迁移：在那里被拦截，直到有人再次批准",
                      "; a person's approval does not travel with it: it is blocked there until a person "
                      "approves it again"),
}
_SCOPE_WORDS = {"project": "项目", "global": "全局"}
_TYPE_NAMES = {"string": ("字符串", "a string"), "integer": ("整数", "an integer"), "boolean": ("布尔值", "a boolean"),
               "null": ("null", "null")}


def _say(key: str, lang: str, **values: object) -> str:
    zh, en = _TEXTS[key]
    return (en if lang == "en" else zh).format(**values)


def _error(message: str, lang: str) -> str:
    return _say("error", lang, message=" ".join(message.split()))


def type_error(name: str, expected: object, lang: str) -> str:
    """The one-line answer for an argument of the wrong type (`expected`: a JSON Schema type)."""
    types = expected if isinstance(expected, list) else [expected]
    index = 1 if lang == "en" else 0
    words = [_TYPE_NAMES.get(str(t), (str(t), str(t)))[index] for t in types]
    joined = (" or " if lang == "en" else "或").join(words)
    return _error(_say("bad_type", lang, name=name, expected=joined), lang)


# ---------------------------------------------------------------- the one definition


class ToolDef(NamedTuple):
    """One tool, from which every format is rendered."""

    name: str
    title: str
    description: str
    properties: dict[str, dict[str, Any]]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    mcp_only: bool = False

    def input_schema(self) -> dict[str, Any]:
        """The strict JSON Schema of the arguments: all required, no others allowed."""
        return {
            "type": "object",
            "properties": {name: dict(schema) for name, schema in self.properties.items()},
            "required": list(self.properties),
            "additionalProperties": False,
        }


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    nullable = {**schema, "type": [schema["type"], "null"]}
    if "enum" in schema:
        nullable["enum"] = [*schema["enum"], None]
    return nullable


_KINDS_TEXT = (
    "preference = a stable preference of the user (style, language, workflow, output format); "
    "correction = something the user rejected, with the right way they want instead; "
    "lesson = a pitfall to avoid or an approach that proved to work, learned at some cost; "
    "fact = a durable fact about the project or environment (conventions, layout, tools)."
)


def tool_defs(limits: Limits | None = None, destructive: bool = False, mcp: bool = False,
              scopes: bool = False) -> list[ToolDef]:
    """The tools offered: save and search; with `destructive`, update and forget; with `mcp`,
    also `memory_inject`; with `scopes` (a project store beside the global one, core/scopes.py),
    memory_save takes `scope`, and memory_update too (a move to that store). Numbers in the texts come from `limits`, so they agree with the store."""
    max_text = (limits or DEFAULT_LIMITS).max_text
    kind = {"type": "string", "enum": [k.value for k in Kind],
            "description": "preference, correction, lesson or fact (see the tool description)."}
    text = {"type": "string", "description": (
        "One self-contained sentence in the conversation's language, understandable without this "
        f"conversation; at most {max_text} characters (a longer text is cut, and the answer says so).")}
    entry_id = {"type": "string", "description": "The id of the memory, as memory_search shows it."}
    tools = [
        ToolDef(
            SAVE_TOOL, "Save a memory",
            "Save one long-term memory that should still help in future, unrelated sessions. "
            "Choose the kind: " + _KINDS_TEXT + " Do not save task progress, one-off file states, "
            "temporary decisions, what can be read from the code, or any secret. Near-duplicates of an "
            "existing memory are not added twice.",
            {"kind": kind, "text": text, "keywords": _nullable({"type": "array", "items": {"type": "string"}, "description": (
                f"Retrieval keywords, never shown to anyone: up to {(limits or DEFAULT_LIMITS).max_keywords} short "
                "terms a later message might contain when this memory matters, without its own words: synonyms "
                "and the things or situations where it applies, in both English and Chinese; null for none.")})},
            idempotent=True,
        ),
        ToolDef(
            SEARCH_TOOL, "Search memory",
            "Search long-term memory (preferences, corrections, lessons and facts from past sessions) "
            "by keywords. Returns one line per match: <id> [kind] (score) text.",
            {"query": {"type": "string", "description": "Keywords to look for, in any language."},
             # The range is stated, not declared: some strict modes refuse `minimum`/`maximum`,
             # and the handler clamps whatever number it gets.
             "top_k": _nullable({"type": "integer", "description": (
                 f"How many memories to return at most, 1 to {SEARCH_TOP_K_MAX}; null for the store's default.")})},
            read_only=True, idempotent=True,
        ),
    ]
    if scopes:
        save = tools[0]
        tools[0] = save._replace(properties={**save.properties, "scope": _nullable({
            "type": "string", "enum": ["project", "global"], "description": (
                "project: about this project (its code, tools, decisions); global: about the user, wherever "
                "they work. null: preferences go global, everything else to the project when it has a store.")})})
    if destructive:
        tools += [
            ToolDef(
                UPDATE_TOOL, "Update a memory",
                "Correct a stored memory that has become wrong or imprecise: replace its text, change its "
                "kind, or both (null keeps what is there). pinned: true puts it in every turn (the pinned "
                "core), for what always matters whatever the user says; false takes it out. Find its id with "
                "memory_search first. " + _KINDS_TEXT,
                {"id": entry_id, "text": _nullable(text), "kind": _nullable(kind),
                 "pinned": _nullable({"type": "boolean", "description": (
                     "true: in every turn from now on; false: only when relevant; null keeps it as it is.")})},
                destructive=True, idempotent=True,
            ),
            ToolDef(
                FORGET_TOOL, "Forget a memory",
                "Delete a stored memory that is wrong or no longer holds. Find its id with memory_search "
                "first. A person can still restore it from a backup.",
                {"id": entry_id}, destructive=True, idempotent=False,
            ),
        ]
    if scopes and destructive:  # an agent may move an entry between the stores; a person's approval stays behind
        update = next(i for i, tool in enumerate(tools) if tool.name == UPDATE_TOOL)
        tools[update] = tools[update]._replace(properties={**tools[update].properties, "scope": _nullable({
            "type": "string", "enum": ["project", "global"], "description": (
                "Move it to this store: project (about this project) or global (about the user, wherever "
                "they work); null leaves it where it is. It keeps its id and pin; an approval a person gave it "
                "does not travel (it waits for a person again).")})})
    if mcp:
        tools.append(ToolDef(
            INJECT_TOOL, "Memory block for a message",
            "The memories relevant to a message, rendered as the fenced block to put into the system "
            "prompt (empty when nothing matches). Blocked entries are never included.",
            {"query": {"type": "string", "description": "The user's message, or keywords for the task at hand."}},
            read_only=True, idempotent=True, mcp_only=True,
        ))
    return tools


def _render(tool: ToolDef, format: str) -> dict[str, Any]:
    schema = tool.input_schema()
    if format in ("chat", "openai"):
        return {"type": "function", "function": {
            "name": tool.name, "description": tool.description, "parameters": schema, "strict": True}}
    if format == "responses":
        return {"type": "function", "name": tool.name, "description": tool.description,
                "parameters": schema, "strict": True}
    if format == "anthropic":
        return {"name": tool.name, "description": tool.description, "input_schema": schema}
    return {
        "name": tool.name, "title": tool.title, "description": tool.description, "inputSchema": schema,
        "annotations": {"title": tool.title, "readOnlyHint": tool.read_only, "destructiveHint": tool.destructive,
                        "idempotentHint": tool.idempotent, "openWorldHint": False},
    }


def tool_schemas(
    enabled: bool = True,
    *,
    format: str = "chat",
    destructive: bool = False,
    limits: Limits | None = None,
    scopes: bool = False,
) -> list[dict[str, Any]]:
    """The tool definitions in one SDK's format: `chat` (OpenAI Chat Completions, the default;
    `openai` is the same), `responses` (OpenAI Responses), `anthropic` (`input_schema`) or `mcp`.
    `destructive=True` adds `memory_update` and `memory_forget`. `[]` when memory is disabled,
    so a model is never offered tools that would refuse it. Pass the store's `limits` so the
    texts state its numbers. `scopes=True` (the handlers get a `Scoped`, core/scopes.py) lets
    memory_save name the project or the global store."""
    if format not in FORMATS:
        raise ValueError(f"unknown tool format {format!r}: use one of {', '.join(FORMATS)}")
    if not enabled:
        return []
    return [_render(tool, format) for tool in tool_defs(limits, destructive, scopes=scopes)]


# ---------------------------------------------------------------- helpers


def _language(store: object, text: object, lang: str | None) -> str:
    """zh or en for this answer: `lang`, else the store's setting; `auto` decided by `text`."""
    language = getattr(store, "language", None)
    if callable(language):
        try:
            return language(text, lang)
        except Exception:
            pass
    try:
        setting = configured_lang(lang)
    except InvalidInput:
        setting = DEFAULT_LANG
    return resolve_lang(setting, text)


def _describe(error: BaseException, lang: str) -> str:
    if isinstance(error, EntryNotFound):
        return _error(_say("no_entry", lang, id=error.id), lang)
    try:
        lines = str(error).strip().splitlines()
    except Exception:
        lines = []
    return _error(lines[0] if lines else type(error).__name__, lang)


def _arguments(args: object) -> Mapping[str, Any] | str:
    """The arguments as a mapping, or the key of what is wrong with them."""
    if isinstance(args, (bytes, bytearray)):
        try:
            args = bytes(args).decode("utf-8")
        except UnicodeDecodeError:
            return "not_utf8"
    if isinstance(args, str):
        import orjson  # here, so that importing the tool definitions stays cheap

        try:
            args = orjson.loads(args) if args.strip() else {}
        except orjson.JSONDecodeError:
            return "not_json"
    if not isinstance(args, Mapping):
        return "not_object"
    return args


def _scoped(store: object) -> bool:
    """Whether `store` is a project and global pair (core/scopes.py's Scoped), not one MemoryStore."""
    return hasattr(store, "write_store")


def _holding(store: Any, entry_id: str) -> Any:
    """The one store a call on `entry_id` acts on: for scopes, the one that holds it."""
    return store.locate(entry_id)[1] if _scoped(store) else store


def _count(store: MemoryStore) -> int:
    """Valid entries in the store; `len(store)` avoids building every entry model."""
    try:
        return len(store)  # type: ignore[arg-type]
    except TypeError:
        return len(store.entries())


def _text_arg(parsed: Mapping[str, Any], name: str) -> str | None:
    value = parsed.get(name)
    return value if isinstance(value, str) and value.strip() else None


def _kind_error(raw_kind: object, lang: str) -> str:
    shown = f" {raw_kind!r}" if isinstance(raw_kind, str) else ""
    return _error(_say("bad_kind", lang, shown=shown, kinds=KIND_NAMES), lang)


def _cut_note(store: MemoryStore, original_length: int | None, lang: str) -> str:
    if original_length is None:
        return ""
    limit = getattr(getattr(store, "limits", None), "max_text", DEFAULT_LIMITS.max_text)
    return _say("truncated", lang, length=original_length, limit=limit)


def _blocked_note(flags: list[str], lang: str) -> str:
    categories = [flag.split(":", 1)[1] for flag in flags if flag.startswith("threat:")]
    why = (f" ({', '.join(categories)})" if lang == "en" else f"（{', '.join(categories)}）") if categories else ""
    return _say("blocked", lang, why=why)


def _entry_id(parsed: Mapping[str, Any]) -> str | None:
    value = _text_arg(parsed, "id")
    return value.strip().lstrip("#") if value else None


# ---------------------------------------------------------------- handlers


def _handle(
    body: Callable[[Mapping[str, Any], MemoryStore, str], ToolAnswer],
    args: object,
    store: MemoryStore,
    lang: str | None,
    said: Callable[[Mapping[str, Any]], object],
) -> ToolAnswer:
    """What every handler shares: read the arguments, choose the language of the answer by what
    `said(arguments)` returns (for `auto`), run `body`, and turn any failure into one line."""
    language = _language(store, None, lang)
    try:
        parsed = _arguments(args)
        if isinstance(parsed, str):
            return ToolAnswer(_error(_say(parsed, language), language), True)
        language = _language(store, said(parsed), lang)
        return body(parsed, store, language)
    except Exception as error:
        return ToolAnswer(_describe(error, language), True)


def save_tool(args: object, store: MemoryStore, source: str = "tool", lang: str | None = None) -> str:
    """Handle `memory_save(kind, text)`; the entry is written with `source` ("tool" by default).

    Answers `已记下（<中文类别>），当前记忆共 N 条` or `与已有记忆重复，未新增；当前记忆共 N 条`
    (in English with lang `en`), followed by a note when the text was cut to `max_text`, when
    the new entry was evicted at once, when older entries were evicted to make room, when a secret
    was redacted, or when the threat scan blocked it (stored, but never injected until a person
    approves it). An unknown kind answers an error naming the four kinds; missing text answers
    `缺少 text`; a store failure answers `错误：…`.
    """
    return _save(args, store, source, lang).text


def _save(args: object, store: MemoryStore, source: str, lang: str | None) -> ToolAnswer:
    def body(parsed: Mapping[str, Any], store: MemoryStore, language: str) -> ToolAnswer:
        text = parsed.get("text")
        raw_kind = parsed.get("kind")
        kind = Kind.parse(raw_kind)
        if kind is None:
            return ToolAnswer(_kind_error(raw_kind, language), True)
        if not isinstance(text, str) or not text.strip():
            return ToolAnswer(_say("missing", language, name="text"), True)

        keywords = _keywords(parsed.get("keywords"), store, language)
        if isinstance(keywords, ToolAnswer):
            return keywords
        extra = {"keywords": keywords} if keywords else {}
        scope = parsed.get("scope")
        where = None
        if _scoped(store):
            if scope is not None and scope not in ("project", "global"):
                return ToolAnswer(_error(_say("bad_scope", language), language), True)
            pair = store
            where, store = pair.write_store(kind, scope)  # type: ignore[attr-defined]
            if not pair.scoped:  # one store read: no scope to name
                where = None
        elif scope is not None:  # one store, no scopes: a scope names no store here
            return ToolAnswer(_error(_say("no_scopes", language), language), True)
        result = store.remember(kind, text, source=source, **extra)
        entry = result.entry
        message = _say("saved" if result.added else "duplicate", language, label=entry.kind.label_for(language),
                       total=_count(store))
        if where is not None:
            message += _say("in_scope", language, scope=where if language == "en" else _SCOPE_WORDS[where])
        message += _cut_note(store, getattr(result, "original_length", None), language)
        evicted_ids = [old.id for old in result.evicted]
        if entry.id in evicted_ids:
            message += _say("evicted_self", language)
        others = sum(1 for old_id in evicted_ids if old_id != entry.id)
        if others:
            message += _say("evicted_others", language, n=others)
        flags = list(getattr(entry, "flags", None) or ())
        if entry.id not in evicted_ids and "blocked" in flags:
            message += _blocked_note(flags, language)
        elif result.added and "secret-redacted" in flags:
            message += _say("redacted", language)
        return ToolAnswer(message, False)

    return _handle(body, args, store, lang, lambda parsed: parsed.get("text"))


def _keywords(value: object, store: MemoryStore, language: str) -> list[str] | None | ToolAnswer:
    """The keywords of a save, cleaned tolerantly (a model's bad keyword is dropped, the memory is
    kept); a comma-separated string is read as a list; anything else answers an error line."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [part for part in value.replace("，", ",").split(",")]
    if not isinstance(value, list):
        return ToolAnswer(_say("bad_keywords", language), True)
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


def search_tool(args: object, store: MemoryStore, lang: str | None = None) -> str:
    """Handle `memory_search(query, top_k)`: one line per hit, `<id> [<类别>] (<score>) <text>`
    with the score to 2 decimals, or `没有找到相关记忆`. Blocked entries never appear
    (the store leaves them out), and each text is shown as the injected block would show it:
    secrets redacted (also in entries another program wrote), one line, no invisible characters,
    fence markers defused. Missing query answers `缺少 query`."""
    return _search(args, store, lang).text


def _search(args: object, store: MemoryStore, lang: str | None) -> ToolAnswer:
    from ..ranking.inject import clean_for_block

    def body(parsed: Mapping[str, Any], store: MemoryStore, language: str) -> ToolAnswer:
        query = _text_arg(parsed, "query")
        if query is None:
            return ToolAnswer(_say("missing", language, name="query"), True)
        found = store.search(query, top_k=_top_k(parsed.get("top_k")))
        if not found:
            return ToolAnswer(_say("nothing", language), False)
        if _scoped(store):  # (scope, hit): the label names the store when there are two
            labels = store.scoped  # type: ignore[attr-defined]
            found = [(f"{scope if language == 'en' else _SCOPE_WORDS[scope]} · " if labels and scope else "", hit)
                     for scope, hit in found]
        else:
            found = [("", hit) for hit in found]
        return ToolAnswer("\n".join(
            f"{hit.entry.id} [{where}{hit.entry.kind.label_for(language)}] ({hit.score:.2f}) "
            f"{clean_for_block(hit.entry.text)}"
            for where, hit in found
        ), False)

    return _handle(body, args, store, lang, lambda parsed: _text_arg(parsed, "query"))


def _stored_text(store: MemoryStore, parsed: Mapping[str, Any]) -> str | None:
    """The text of the entry a call names, to choose the answer's language by."""
    entry_id = _entry_id(parsed)
    try:
        return _holding(store, entry_id).get(entry_id).text if entry_id else None
    except Exception:
        return None


def update_tool(args: object, store: MemoryStore, lang: str | None = None) -> str:
    """Handle `memory_update(id, text, kind, pinned)` (null keeps each): the store's audited
    `update`, then `pin` or `unpin` (the pinned core: in every turn), recorded with the store's
    actor. Answers `已更新 <id>（<类别>）：<text>` with the same notes as a save (cut, blocked) and
    whether it is pinned now (and whether the core has room for it), `<id> 没有变化`, or an error
    (unknown id, bad kind, a blocked entry to pin, nothing to change)."""
    return _update(args, store, lang).text


def _update(args: object, store: MemoryStore, lang: str | None) -> ToolAnswer:
    from ..ranking.inject import clean_for_block

    def body(parsed: Mapping[str, Any], store: MemoryStore, language: str) -> ToolAnswer:
        entry_id = _entry_id(parsed)
        if entry_id is None:
            return ToolAnswer(_say("missing", language, name="id"), True)
        text = _text_arg(parsed, "text")
        raw_kind = parsed.get("kind")
        kind = None if raw_kind is None else Kind.parse(raw_kind)
        if raw_kind is not None and kind is None:
            return ToolAnswer(_kind_error(raw_kind, language), True)
        pinned = parsed.get("pinned")
        if pinned is not None and not isinstance(pinned, bool):
            return ToolAnswer(type_error("pinned", ["boolean", "null"], language), True)
        scope = parsed.get("scope")
        if scope is not None:
            if not _scoped(store) or store.scopes[0] is None:  # type: ignore[attr-defined]
                return ToolAnswer(_error(_say("no_scopes", language), language), True)
            if scope not in ("project", "global"):
                return ToolAnswer(_error(_say("bad_scope", language), language), True)
        if text is None and kind is None and pinned is None and scope is None:
            return ToolAnswer(_error(_say("no_change", language), language), True)
        pair = store
        if scope is not None and pair.locate(entry_id)[0] != scope:  # type: ignore[attr-defined]
            edited = _update_in_place(body, parsed, pair, entry_id, language) \
                if text is not None or kind is not None or pinned is not None else None
            if edited is not None and edited.is_error:
                return edited
            return _moved(pair, entry_id, scope, edited, language)
        store = _holding(store, entry_id)
        before = store.get(entry_id)
        if pinned and before.blocked:  # refused before anything is written, text included
            store.pin(entry_id)
        cut_from = None
        entry = before
        if text is not None or kind is not None:
            if text is not None:
                check = store.check_text(text, exclude_id=entry_id)
                cut_from = check.original_length if check.cut else None
            entry = store.update(entry_id, text=text, kind=kind)
        edited = entry.text != before.text or entry.kind is not before.kind
        not_pinned = bool(pinned) and entry.blocked  # the new text is blocked: never pinned
        repinned = _set_pin(store, entry_id, None if not_pinned else pinned)
        if not edited and not repinned:
            return ToolAnswer(_say("unchanged", language, id=entry.id), False)
        room = _core_room(store, entry_id, language) if pinned and repinned else ""
        if not edited:
            key = "pinned_only" if pinned else "unpinned_only"
            return ToolAnswer(_say(key, language, id=entry.id, label=entry.kind.label_for(language)) + room, False)
        message = _say("updated", language, id=entry.id, label=entry.kind.label_for(language),
                       text=clean_for_block(entry.text))
        message += _cut_note(store, cut_from, language)
        if "blocked" in entry.flags:
            message += _blocked_note(list(entry.flags), language)
        if repinned:
            message += _say("pinned" if pinned else "unpinned", language) + room
        elif not_pinned:
            message += _say("not_pinned", language)
        return ToolAnswer(message, False)

    return _handle(body, args, store, lang, lambda parsed: _text_arg(parsed, "text") or _stored_text(store, parsed))


def _update_in_place(body: Any, parsed: Mapping[str, Any], pair: Any, entry_id: str, language: str) -> ToolAnswer:
    """The text, kind and pin changes of a memory_update that also moves the entry, made where it is first."""
    return body({**parsed, "scope": None}, pair, language)


def _moved(pair: Any, entry_id: str, scope: str, edited: ToolAnswer | None, language: str) -> ToolAnswer:
    """memory_update's move (Scoped.move, an agent's: an approval does not travel), and what it did."""
    received = pair.move(entry_id, scope)
    entry = received.entry
    said = _say("moved", language, id=entry_id, scope=scope if language == "en" else _SCOPE_WORDS[scope])
    if entry.id != entry_id:
        said += _say("new_id", language, id=entry.id)
    if received.approved is False:
        said += _say("approval_left", language)
    if edited is None:
        return ToolAnswer(said[:1].upper() + said[1:], False)
    return ToolAnswer(edited.text + ("; " if language == "en" else "；") + said, False)


def _set_pin(store: MemoryStore, entry_id: str, pinned: bool | None) -> bool:
    """Pin or unpin the entry as asked (None: neither); whether anything was written."""
    if pinned is None:
        return False
    state = store.state()
    if pinned:
        store.pin(entry_id)
    else:
        store.unpin(entry_id)
    return store.state() != state


def _core_room(store: MemoryStore, entry_id: str, language: str) -> str:
    """A note when the entry just pinned does not fit the pinned core's budget (never silent)."""
    try:
        core = store.core()
    except Exception:
        return ""
    if any(member.entry.id == entry_id for member in core.pinned_left_out):
        return _say("core_full", language, used=core.used, budget=core.budget)
    return ""


def forget_tool(args: object, store: MemoryStore, lang: str | None = None) -> str:
    """Handle `memory_forget(id)`: the store's audited `delete`, recorded with the store's actor.
    Answers `已删除 <id>（<类别>）：<text>；备份中仍可恢复`, or an error for an unknown id."""
    return _forget(args, store, lang).text


def _forget(args: object, store: MemoryStore, lang: str | None) -> ToolAnswer:
    from ..ranking.inject import clean_for_block

    def body(parsed: Mapping[str, Any], store: MemoryStore, language: str) -> ToolAnswer:
        entry_id = _entry_id(parsed)
        if entry_id is None:
            return ToolAnswer(_say("missing", language, name="id"), True)
        entry = _holding(store, entry_id).delete(entry_id)
        text = _say("hidden", language) if "blocked" in entry.flags else clean_for_block(entry.text)
        return ToolAnswer(_say("forgotten", language, id=entry.id, label=entry.kind.label_for(language),
                               text=text), False)

    return _handle(body, args, store, lang, lambda parsed: _stored_text(store, parsed))


class ToolAnswer(NamedTuple):
    """What a tool call answers, and whether that answer reports a failure."""

    text: str
    is_error: bool


def call_tool(
    name: object,
    args: object,
    store: MemoryStore,
    *,
    destructive: bool = False,
    lang: str | None = None,
    source: str = "tool",
) -> ToolAnswer:
    """Run a tool call by name; never raises. `memory_update` and `memory_forget` run only with
    `destructive=True` (offer them with `tool_schemas(destructive=True)`); otherwise, like any
    unknown name, they answer an error. `lang` overrides the store's language setting; `source`
    is what a save records as the entry's source."""
    if name == SAVE_TOOL:
        return _save(args, store, source, lang)
    if name == SEARCH_TOOL:
        return _search(args, store, lang)
    if destructive and name == UPDATE_TOOL:
        return _update(args, store, lang)
    if destructive and name == FORGET_TOOL:
        return _forget(args, store, lang)
    language = _language(store, None, lang)
    names = TOOL_NAMES if destructive else TOOL_NAMES[:2]
    return ToolAnswer(_error(_say("unknown_tool", language, name=repr(name), names=", ".join(names)),
                             language), True)


def run_tool(
    name: object, args: object, store: MemoryStore, *, destructive: bool = False, lang: str | None = None
) -> str:
    """Dispatch a tool call by name and answer its text (see `call_tool`); an unknown name, or a
    destructive tool without `destructive=True`, answers an error line."""
    return call_tool(name, args, store, destructive=destructive, lang=lang).text
