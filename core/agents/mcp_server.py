"""The MCP server over one store, on stdio (docs/agents.md).

    memtui mcp --dir ~/.local/share/memtui          # what an MCP client runs

Tools: `memory_save`, `memory_search`, `memory_inject`, and with `destructive=True`
`memory_update` and `memory_forget`. Their names, titles, descriptions, input schemas and hints
come from the one definition in `memtui_core.agents.tools`, and they answer exactly what the agent tools
answer; a failure (unknown kind, missing or mistyped argument, a store that cannot be written)
comes back as a one-line tool error (`isError`), never as a crash of the server.

Resources: `memtui://entries`, the injectable entries as JSON, and `memtui://core`, the pinned core
as its own block (docs/injection.md#the-pinned-core). Prompts: `memory_context`
(the block for a message) and `explain_memory` (why each entry is or is not injected for a query).

The MCP SDK is imported inside the functions, so `import memtui_core` stays light.
"""

# No `from __future__ import annotations` here: the SDK reads the tool functions' annotations
# at registration, and they must be real objects, not strings naming locals.

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from ..model import Explanation
    from ..memory import MemoryStore

__all__ = ["INJECT_TOOL", "SERVER_NAME", "ENTRIES_URI", "CORE_URI", "build_server", "run_stdio", "explanation_text"]

SERVER_NAME = "memtui"
ENTRIES_URI = "memtui://entries"
CORE_URI = "memtui://core"

from .tools import INJECT_TOOL  # noqa: E402  (re-exported: the name MCP clients call)

INSTRUCTIONS = (
    "Long-term memory from past sessions with this user: preferences, corrections, lessons and "
    "project facts. Call memory_inject with the user's message at the start of a task and follow "
    "what it returns (the user's current instructions take precedence). Call memory_save when the "
    "user states a durable preference, corrects you, or when you learn a lesson or fact that will "
    "still matter in unrelated future sessions. memory_search looks things up by keywords."
)
_DESTRUCTIVE_INSTRUCTIONS = (
    " memory_update and memory_forget correct or delete a memory by the id memory_search shows."
)


def explanation_text(explanation: "Explanation", lang: str) -> str:
    """Why each matching entry is or is not injected, as plain lines for a model or a person.
    Entry texts are left out (the ids lead to them), so a blocked entry's text never appears."""
    en = lang == "en"
    lines = [
        (f"Why memories are or are not injected for: {explanation.query}" if en
         else f"对于查询「{explanation.query}」，各条记忆是否注入及原因："),
        ("query terms: " if en else "查询词：") + (" ".join(explanation.tokens) or "-"),
    ]
    shown = [row for row in explanation.entries if row.status.value != "zero_score"]
    for row in shown:
        rank = f"#{row.rank}" if row.rank is not None else "-"
        terms = ", ".join(f"{t.term} {t.contribution:.2f}" for t in row.terms if t.contribution > 0)
        lines.append(f"{rank} {row.id} [{row.kind.label_for(lang)}] {row.status.value} "
                     f"{row.score:.2f}" + (f" ({terms})" if terms else "") + f": {row.reason}")
        if row.meaning and row.meaning != row.reason:  # the rule of meaning, when the profile ranks by it
            lines.append(f"   meaning: {row.meaning}")
    if explanation.semantic_note:
        lines.append(explanation.semantic_note)
    if not shown:
        lines.append("no entry contains a query term" if en else "没有任何记忆包含查询词")
    if explanation.core_budget:
        lines.append(f"pinned core: {len(explanation.core)} entries, {explanation.core_used}/{explanation.core_budget}"
                     if en else f"置顶：{len(explanation.core)} 条，{explanation.core_used}/{explanation.core_budget} 字")
    lines.append(f"block: {explanation.used_chars}/{explanation.budget}" if en
                 else f"注入块：{explanation.used_chars}/{explanation.budget} 字")
    if explanation.block:
        lines += ["", explanation.block]
    return "\n".join(lines)


def build_server(store: "MemoryStore", destructive: bool = False) -> "MCPServer":
    """An MCP server whose tools act on `store` (construct it with actor="mcp" for the audit log).
    `destructive=True` also serves `memory_update` and `memory_forget`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import ValidationError

    from .. import __version__
    from ..ranking.inject import clean_for_block, shown_source
    from .tools import call_tool, tool_defs, type_error

    # Tool calls run in worker threads; one at a time keeps the store's caches simple.
    lock = threading.Lock()

    def error(text: str) -> CallToolResult:
        """A tool error (`isError`) whose text is exactly the handler's one line."""
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)

    def answer(name: str, arguments: dict[str, Any]) -> Any:
        with lock:
            result = call_tool(name, arguments, store, destructive=True, source="mcp")
        return error(result.text) if result.is_error else result.text

    class MemoryTool(Tool):
        """A tool whose bad arguments answer one clean line, not the validator's report."""

        async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
            try:
                return await super().run(arguments, context, convert_result)
            except ToolError as failure:
                cause = failure.__cause__
                if not isinstance(cause, ValidationError):
                    raise
                problem = cause.errors()[0] if cause.errors() else {}
                field = str(problem.get("loc", ("?",))[0])
                expected = self.parameters.get("properties", {}).get(field, {}).get("type", "string")
                said = " ".join(str(value) for value in arguments.values() if value is not None)
                text = type_error(field, expected, store.language(said))
                return error(text) if convert_result else text

    # Each function takes every argument as optional so that a missing one reaches the handler,
    # which answers the same line as `run_tool` ("缺少 text"); `str` arguments are not re-parsed
    # as JSON by the SDK. The advertised schema is the strict one from the shared definition.
    def memory_save(kind: str = None, text: str = None, keywords: Any = None,  # type: ignore[assignment]
                    scope: str | None = None) -> Any:
        return answer("memory_save", {"kind": kind, "text": text, "keywords": keywords, "scope": scope})

    def memory_search(query: str = None, top_k: Any = None) -> Any:  # type: ignore[assignment]
        return answer("memory_search", {"query": query, "top_k": top_k})

    def memory_update(id: str = None, text: str | None = None, kind: str | None = None,  # type: ignore[assignment]
                      pinned: Any = None, scope: str | None = None) -> Any:
        return answer("memory_update", {"id": id, "text": text, "kind": kind, "pinned": pinned, "scope": scope})

    def memory_forget(id: str = None) -> Any:  # type: ignore[assignment]
        return answer("memory_forget", {"id": id})

    def memory_inject(query: str = None) -> str:  # type: ignore[assignment]
        with lock:
            return store.retrieve_block(query if isinstance(query, str) else "")

    functions = {fn.__name__: fn for fn in (memory_save, memory_search, memory_update, memory_forget, memory_inject)}
    tools = []
    # a project store beside the global one (core/scopes.py); `--dir` is one store, without scopes
    scoped = hasattr(store, "write_store")
    scopes = scoped and store.scopes[0] is not None  # type: ignore[attr-defined]
    for spec in tool_defs(store.limits, destructive=destructive, mcp=True, scopes=scopes):
        tool = MemoryTool.from_function(
            functions[spec.name], name=spec.name, title=spec.title, description=spec.description,
            structured_output=False,
            annotations=ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                        destructive_hint=spec.destructive, idempotent_hint=spec.idempotent,
                                        open_world_hint=False),
        )
        tools.append(tool.model_copy(update={"parameters": spec.input_schema()}))

    instructions = INSTRUCTIONS + (_DESTRUCTIVE_INSTRUCTIONS if destructive else "")
    server = MCPServer(SERVER_NAME, version=__version__, instructions=instructions, log_level="WARNING", tools=tools)

    @server.resource(ENTRIES_URI, name="entries", title="Memories",
                     description="Every memory that can be injected (blocked ones are left out), as JSON: "
                                 "id, kind, text (as the block shows it), source (likewise; one the threat scan flags as \"\"), ts.",
                     mime_type="application/json")
    def entries() -> str:
        import orjson

        with lock:
            listed = store.entries() if scoped else [(None, e) for e in store.entries()]
            rows = [{"id": e.id, "kind": e.kind.value, "text": clean_for_block(e.text), "source": shown_source(e.source),
                     "ts": e.ts, **({"scope": where} if where else {})}
                    for where, e in listed if "blocked" not in e.flags]
        return orjson.dumps({"entries": rows}, option=orjson.OPT_INDENT_2).decode()

    @server.resource(CORE_URI, name="core", title="The pinned core",
                     description="What is in every turn whatever the message (entries pinned by hand, and the "
                                 "newest preferences and corrections within the core's budget), as the fenced "
                                 "block to put in the system prompt once per session; empty when the core is.",
                     mime_type="text/plain")
    def core() -> str:
        with lock:
            return store.core_block()

    @server.prompt(name="memory_context", title="Memories for a message",
                   description="The memory block for a message, to put in front of the conversation.")
    def memory_context(message: str) -> str:
        with lock:
            block = store.retrieve_block(message)
        if block:
            return block
        return ("No memory matches this message." if store.language(message) == "en"
                else "没有与这条消息相关的记忆。")

    @server.prompt(name="explain_memory", title="Why a memory is (not) injected",
                   description="For a query: which memories would be injected, which were cut and why, "
                               "with each query term's contribution, and the block itself.")
    def explain_memory(query: str) -> str:
        with lock:
            explanation = store.explain(query)
        return explanation_text(explanation, store.language(query))

    return server


def run_stdio(store: "MemoryStore", destructive: bool = False) -> None:
    """Serve `store` on stdin/stdout until the client closes the connection; every line gets an
    answer, a malformed one a JSON-RPC error (see `mcp_stdio`)."""
    from .mcp_stdio import run_guarded_stdio

    run_guarded_stdio(build_server(store, destructive=destructive))
