"""`memtui mcp`: serve the store to an MCP client over stdio (the server is
`memtui_core.agents.mcp_server`; it is imported only by this command).

    memtui mcp [--destructive] [--lang auto]
"""

from __future__ import annotations

from memtui.cli.common import PROG, add_lang_option, open_scoped, stderr, store_warnings

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    p = commands.add("mcp", "run the MCP server on stdio (memory_save, memory_search, memory_inject)")
    p.add_argument("--destructive", action="store_true",
                   help="also serve memory_update and memory_forget (recorded with actor mcp)")
    add_lang_option(p, "language of the answers and the block: zh, en, or auto by each call's text "
                       "(default: $MEMTUI_LANG, else auto)")
    p.set_defaults(handler=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from memtui_core.agents.mcp_server import run_stdio

    store = open_scoped(args, actor="mcp", long_running=True)
    for warning in store_warnings(store):
        stderr(f"{PROG}: warning: {warning}")
    run_stdio(store, destructive=args.destructive)
    return 0
