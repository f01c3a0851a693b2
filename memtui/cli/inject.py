"""`memtui inject QUERY`: the memory block for a message, printed before every agent turn.

The per-turn path, so the leanest command: the front door reads a well-formed call with
`quick_inject_args` (no argparse at all) and builds `inject_parser` only for help and errors.
Only what `memtui.cli.common` imports is loaded at import time.
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

from memtui.cli.common import (EPILOG, PROFILE_NAMES, PROG, add_lang_option, add_store_options, new_parser,
                               SCOPE_NAMES, open_scoped, positive_seconds, query_arg, store_directory)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands

INJECT_HELP = ("print the memory block for a query; nothing when no entry matches. A new process each turn ranks "
               "by words (a few tens of milliseconds in all); --profile semantic adds meaning at 0.3-1 s more, "
               "since the model is loaded for one turn")

_INJECT_OPTIONS = ("--dir", "--lock-timeout", "--lang", "--profile", "--scope")


def register(commands: Commands) -> None:
    _add_inject_arguments(commands.add("inject", INJECT_HELP))


def _add_inject_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", metavar="QUERY", help="the user's message (`-` reads it from stdin)")
    add_lang_option(parser)
    parser.set_defaults(handler=cmd_inject, command="inject", demo=False)


def inject_parser() -> argparse.ArgumentParser:
    """Just `memtui inject`: the per-turn path skips building the parsers of every other command."""
    parser = new_parser(f"{PROG} inject", description=INJECT_HELP, epilog=EPILOG)
    add_store_options(parser, None)
    _add_inject_arguments(parser)
    return parser


def quick_inject_args(argv: list[str]) -> SimpleNamespace | None:
    """The arguments of `memtui inject` (command word removed) read without building a parser,
    for the common well-formed call; None sends anything else (help, errors) to argparse."""
    values: dict[str, object] = {"dir": None, "lock_timeout": None, "lang": None, "profile": None, "scope": None}
    query = None
    i = 0
    while i < len(argv):
        token = argv[i]
        name, _, value = token.partition("=")
        if name in _INJECT_OPTIONS and (value or "=" in token):
            i += 1
        elif token in _INJECT_OPTIONS and i + 1 < len(argv):
            name, value = token, argv[i + 1]
            i += 2
        elif token == "--" and query is None and len(argv) == i + 2:
            query, i = argv[i + 1], i + 2
            continue
        elif (token.startswith("-") and token != "-") or query is not None:
            return None
        else:
            query, i = token, i + 1
            continue
        try:
            if name == "--dir":
                values["dir"] = store_directory(value)
            elif name == "--lock-timeout":
                values["lock_timeout"] = positive_seconds(value)
            elif name == "--profile":
                if value not in PROFILE_NAMES:
                    return None
                values["profile"] = value
            elif name == "--scope":
                if value not in SCOPE_NAMES:
                    return None
                values["scope"] = value
            elif value in ("zh", "en", "auto"):
                values["lang"] = value
            else:
                return None
        except Exception:  # an invalid value: argparse will say what is wrong with it
            return None
    if query is None:
        return None
    return SimpleNamespace(query=query, handler=cmd_inject, command="inject", demo=False, **values)


def cmd_inject(args: argparse.Namespace) -> int:
    """The per-turn agent path: the block or nothing, as fast as the store allows. Inside a project
    the block is made of the project store and the global one (memtui_core.scopes)."""
    store = open_scoped(args)
    block = store.retrieve_block(query_arg(args.query))
    if block:
        out = sys.stdout.buffer
        out.write(block.encode("utf-8", "replace") + b"\n")
        out.flush()
    return 0
