"""The MCP server: `memory_save`, `memory_search` and `memory_inject` over one store, on stdio.

    memtui mcp --dir ~/.local/share/memtui          # what an MCP client runs

The tools answer exactly what the agent tools answer (`memtui_core.tools`); a failure (unknown kind,
missing text, a store that cannot be written) comes back as a tool error, never as a crash of
the server. The MCP SDK is imported inside the functions, so `import memtui_core` stays light.
"""

# No `from __future__ import annotations` here: the SDK reads the tool functions' annotations
# at registration, and they must be real objects, not strings naming locals.

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from .store import MemoryStore

__all__ = ["INJECT_TOOL", "SERVER_NAME", "build_server", "run_stdio"]

SERVER_NAME = "memtui"
INJECT_TOOL = "memory_inject"
ERROR_PREFIX = "错误："  # how memtui_core.tools handlers begin an error answer

INSTRUCTIONS = (
    "Long-term memory from past sessions with this user: preferences, corrections, lessons and "
    "project facts. Call memory_inject with the user's message at the start of a task and follow "
    "what it returns (the user's current instructions take precedence). Call memory_save when the "
    "user states a durable preference, corrects you, or when you learn a lesson or fact that will "
    "still matter in unrelated future sessions. memory_search looks things up by keywords."
)
_INJECT_DESCRIPTION = (
    "The memories relevant to a message, rendered as the fenced block to put into the system "
    "prompt (empty when nothing matches). Blocked entries are never included."
)


def _schema_of(name: str) -> tuple[str, dict[str, Any]]:
    from .tools import tool_schemas

    for schema in tool_schemas():
        function = schema["function"]
        if function["name"] == name:
            return function["description"], function["parameters"]["properties"]
    raise KeyError(name)


def build_server(store: "MemoryStore") -> "MCPServer":
    """An MCP server whose tools act on `store` (construct it with actor="mcp" for the audit log)."""
    from typing import Annotated

    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations
    from pydantic import Field

    from . import __version__
    from .tools import MISSING_QUERY, MISSING_TEXT, SAVE_TOOL, SEARCH_TOOL, SEARCH_TOP_K_MAX, save_tool, search_tool

    # Tool calls run in worker threads; one at a time keeps the store's caches simple.
    lock = threading.Lock()

    def answer(text: str) -> str:
        """The handler's answer, or a tool error (`isError`) when the answer is an error line."""
        if text.startswith(ERROR_PREFIX) or text in (MISSING_TEXT, MISSING_QUERY):
            raise ToolError(text.removeprefix(ERROR_PREFIX))
        return text

    save_description, save_params = _schema_of(SAVE_TOOL)
    search_description, search_params = _schema_of(SEARCH_TOOL)

    def memory_save(
        kind: Annotated[str, Field(description=save_params["kind"]["description"],
                                   json_schema_extra={"enum": save_params["kind"]["enum"]})],
        text: Annotated[str, Field(description=save_params["text"]["description"])],
        keywords: Annotated[list[str] | None, Field(description=save_params["keywords"]["description"])] = None,
    ) -> str:
        with lock:
            return answer(save_tool({"kind": kind, "text": text, "keywords": keywords}, store, source="mcp"))

    def memory_search(
        query: Annotated[str, Field(description=search_params["query"]["description"])],
        top_k: Annotated[int | None, Field(description=search_params["top_k"]["description"],
                                           ge=1, le=SEARCH_TOP_K_MAX)] = None,
    ) -> str:
        with lock:
            return answer(search_tool({"query": query, "top_k": top_k}, store))

    def memory_inject(
        query: Annotated[str, Field(description="The user's message, or keywords for the task at hand.")],
    ) -> str:
        with lock:
            return store.retrieve_block(query)

    server = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    server.add_tool(memory_save, name=SAVE_TOOL, description=save_description, structured_output=False,
                    annotations=ToolAnnotations(title="Save a memory", read_only_hint=False,
                                                destructive_hint=False, idempotent_hint=True,
                                                open_world_hint=False))
    server.add_tool(memory_search, name=SEARCH_TOOL, description=search_description, structured_output=False,
                    annotations=ToolAnnotations(title="Search memory", read_only_hint=True, open_world_hint=False))
    server.add_tool(memory_inject, name=INJECT_TOOL, description=_INJECT_DESCRIPTION, structured_output=False,
                    annotations=ToolAnnotations(title="Memory block for a message", read_only_hint=True,
                                                open_world_hint=False))
    return server


def run_stdio(store: "MemoryStore") -> None:
    """Serve `store` on stdin/stdout until the client closes the connection."""
    build_server(store).run("stdio")
