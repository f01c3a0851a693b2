"""The `memtui` command: the terminal app, and a headless front door for people, scripts and agents.

    memtui                          open the terminal app
    memtui inject "部署 dry-run"     print the memory block for a message (nothing when none match)
    memtui search QUERY --json      the hits as JSON
    memtui mcp                      serve memory_save / memory_search / memory_inject over stdio

Exit status: 0 success, 1 a failed operation (one line `memtui: error: ...` on stderr),
2 a usage error. Every read command takes `--json` and then prints one JSON document on stdout.

This is the front door: `main` reads the command line, runs one command and turns its failures
into one line. The commands live one group to a module beside it (`build_parser` lists them in the
order of `memtui --help`), each with a `register(commands)` that adds its parsers; what they share
is `memtui.cli.common`. Nothing in the package imports this module back.

Only os, sys and `memtui.cli.common` (which imports no more) are loaded with this module; each
command imports what it uses, so `memtui inject` (run before every agent turn) loads the core's
retrieval path and nothing else: a well-formed inject call is even read without argparse.
"""

from __future__ import annotations

import os
import sys

from memtui.cli.common import (EPILOG, PROG, CliError, add_store_options, command_prefix, flush_stdout,
                               new_parser, open_store, stderr, store_warnings)

TYPE_CHECKING = False  # typing itself costs an import on the agent path
if TYPE_CHECKING:
    import argparse


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from memtui.cli import (completion, curate, doctor, entries, history, hosts, inject, limits, pins, probe,
                            schema, scopes, search, serve, transfer)
    from memtui.cli.common import Commands

    # The command modules, in the order `memtui --help` lists their commands.
    groups = (entries, search, inject, curate, pins, scopes, history, doctor, limits, serve, hosts, probe, schema,
              completion, transfer)

    # --dir and --lock-timeout work before or after the command; SUPPRESS keeps a value given
    # before the command when the command's own parser does not see one.
    store_options = argparse.ArgumentParser(add_help=False)
    add_store_options(store_options, argparse.SUPPRESS)
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    parser = new_parser(
        PROG,
        description="Long-term memory for LLM agents. With no command, memtui opens the terminal app\n"
        "to browse and curate it; the commands below serve scripts, shell hooks and MCP clients.",
        epilog=EPILOG,
    )
    add_store_options(parser, None)
    parser.add_argument("--demo", action="store_true",
                        help="open the terminal app on a fresh temporary store with sample entries")
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    commands = Commands(parser, sub, store_options, as_json)
    for group in groups:
        group.register(commands)
    return parser


def _version() -> str:
    from memtui import __version__

    return __version__


# ---------------------------------------------------------------------------- the front door


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    at = _command_at(argv)
    args = None
    if at is not None and argv[at] == "hook" and "--demo" not in argv[:at]:
        from memtui.cli.hosts import run_hook  # per prompt, and never in the way of one

        del argv[at]
        return run_hook(argv)
    if at is not None and argv[at] == "inject" and "--demo" not in argv[:at]:
        # A turn's process lives a fraction of a second and makes no garbage in cycles: the
        # collector's passes over every object imported and read are pure cost (about 3 ms).
        import gc

        from memtui.cli.inject import inject_parser, quick_inject_args

        gc.disable()
        del argv[at]
        args = quick_inject_args(argv)
        parser = inject_parser if args is None else None
    else:
        parser = build_parser
    if args is None:
        try:
            args = parser().parse_args(argv)
        except SystemExit as exit_:  # --help, --version and usage errors
            return exit_.code if isinstance(exit_.code, int) else 2
    if args.command is None:
        handler = cmd_app
    elif args.demo:
        stderr(f"usage: {PROG} [--dir DIR] --demo\n{PROG}: error: --demo opens the terminal app and takes no command")
        return 2
    else:
        handler = args.handler

    status = 1
    try:
        status = handler(args)
    except KeyboardInterrupt:
        status = 130
    except BrokenPipeError:
        _silence_stdout()
        status = 0
    except Exception as error:
        message = _failure(error)
        if message is None:
            raise
        flush_stdout()
        stderr(f"{PROG}: error: {message}")
        status = 1
    finally:
        store = getattr(args, "store", None)
        if store is not None and args.command not in (None, "doctor", "mcp"):
            for warning in store_warnings(store):
                stderr(f"{PROG}: warning: {warning}")
    return status


def _command_at(argv: list[str]) -> int | None:
    """Where the command word is, when the options before it are all known global ones."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ("--dir", "--lock-timeout", "--profile", "--scope"):
            i += 2
        elif token.startswith(("--dir=", "--lock-timeout=", "--profile=", "--scope=")) or token == "--demo":
            i += 1
        elif token.startswith("-"):
            return None
        else:
            return i
    return None


def _failure(error: Exception) -> str | None:
    """The one-line message for an expected failure, or None for a bug (shown as a traceback)."""
    from memtui_core.errors import MemtuiError

    if isinstance(error, (CliError, MemtuiError)):
        return _one_line(str(error))
    if isinstance(error, OSError):
        where = f": {error.filename}" if error.filename else ""
        return _one_line(f"{error.strerror or error}{where}")
    if isinstance(error, ValueError):
        return _one_line(str(error))
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "failed"


def _silence_stdout() -> None:
    """After the reader of our stdout went away: point stdout at /dev/null so the
    interpreter's final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------------- no command: the app


def cmd_app(args: argparse.Namespace) -> int:
    """No command: the terminal app (or the demo)."""
    import importlib.util

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("the terminal app needs a terminal; see `memtui --help` for the headless commands")
    if importlib.util.find_spec("memtui.app") is None:
        raise CliError("the terminal app is not part of this installation (memtui.app is missing)")
    try:
        from memtui.app import run_app
    except ImportError as error:
        raise CliError(f"cannot start the terminal app: {error}") from None
    if args.demo:
        if importlib.util.find_spec("memtui.demo") is None:
            raise CliError("the demo store is not part of this installation (memtui.demo is missing)")
        from memtui.demo import create_demo_store

        import shutil

        from memtui.cli.common import _limits

        store = create_demo_store()
        limits = _limits(args, long_running=True)  # the demo ranks as the app does: by meaning unless told
        if limits is not None:
            store.limits = limits
        try:
            run_app(store, demo=True)
        finally:
            shutil.rmtree(store.dir, ignore_errors=True)  # the demo store is temporary
        return 0
    if args.dir is None and getattr(args, "scope", None) is None:  # inside a project: both stores
        from memtui.cli.common import open_scoped

        scoped = open_scoped(args, actor="tui", long_running=True)
        run_app(scoped.main, command=command_prefix(args), scoped=scoped)
        return 0
    run_app(open_store(args, actor="tui", long_running=True), command=command_prefix(args))
    return 0


__all__ = ["CliError", "build_parser", "main"]
