"""The `memtui` command: the terminal app, and a headless front door for people, scripts and agents.

    memtui                          open the terminal app
    memtui inject "部署 dry-run"     print the memory block for a message (nothing when none match)
    memtui search QUERY --json      the hits as JSON
    memtui mcp                      serve memory_save / memory_search / memory_inject over stdio

Exit status: 0 success, 1 a failed operation (one line `memtui: error: ...` on stderr),
2 a usage error. Every read command takes `--json` and then prints one JSON document on stdout.

Only os and sys are imported here; each command imports what it uses, so `memtui inject` (run
before every agent turn) loads the core's retrieval path and nothing else: a well-formed inject
call is even read without argparse.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

TYPE_CHECKING = False  # typing itself costs an import on the agent path
if TYPE_CHECKING:
    import argparse

PROG = "memtui"

EPILOG = """\
store: --dir DIR, else $MEMTUI_DIR, else the platform data directory (memory.json, backups/, audit.jsonl).
exit status: 0 success; 1 a failed operation (one line `memtui: error: ...` on stderr); 2 a usage error.
A QUERY or TEXT of `-` is read from stdin. `memtui COMMAND --help` shows the options of a command."""

# explain builds one row per (entry, distinct query term): bounded so a pasted document cannot
# keep the command busy for minutes.
MAX_EXPLAIN_ROWS = 1_000_000

PROFILE_NAMES = ("default", "nanohermes", "semantic")  # memtui_core.limits.PROFILES, named here so `inject` imports nothing
AUDIT_OPS = ("add", "refresh", "edit", "reclassify", "delete", "evict", "approve", "restore", "quarantine", "import")


class CliError(Exception):
    """A failed operation: printed as one line on stderr, exit status 1."""


# ---------------------------------------------------------------------------- argument parsing


def _bad_value(message: str) -> Exception:
    import argparse

    return argparse.ArgumentTypeError(message)


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise _bad_value(f"not a whole number: {value!r}") from None
    if number < 0:
        raise _bad_value(f"must be 0 or more: {value!r}")
    return number


def _positive(value: str) -> int:
    number = _count(value)
    if number < 1:
        raise _bad_value(f"must be 1 or more: {value!r}")
    return number


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise _bad_value(f"not a number of seconds: {value!r}") from None
    if not number > 0 or number == float("inf"):
        raise _bad_value(f"must be more than 0 seconds: {value!r}")
    return number


def _directory(value: str) -> str:
    if not value.strip():
        raise _bad_value("must not be empty")
    return value


def _help_formatter(prog: str):
    """Help sized to the terminal without importing shutil (argparse builds a formatter for
    every argument it adds, so the default one costs every run, not only --help)."""
    import argparse

    try:
        width = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        try:
            width = os.get_terminal_size(sys.stderr.fileno()).columns
        except (OSError, ValueError, AttributeError):
            width = 80
    return argparse.RawDescriptionHelpFormatter(prog, width=max(width - 2, 40))


def _parser(prog: str, **kwargs) -> argparse.ArgumentParser:
    import argparse

    return argparse.ArgumentParser(prog=prog, formatter_class=_help_formatter, **kwargs)


def _add_store_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("--dir", type=_directory, default=default, metavar="DIR",
                        help="store directory (default: $MEMTUI_DIR, else the platform data dir)")
    parser.add_argument("--lock-timeout", type=_seconds, default=default, metavar="SECONDS",
                        help="how long a write waits for another writer (default 10)")
    parser.add_argument("--profile", choices=PROFILE_NAMES, default=default,
                        help="ranking profile: default (stopwords, gate, keywords: words alone, about a "
                             "millisecond a turn), nanohermes (the original ranking, exactly) or semantic (default "
                             "plus meaning: a hit far in meaning from the message is held back, an entry sharing no "
                             "word but close in meaning is admitted; loading the model costs a new process 0.3-1 s, "
                             "a long-running one about 15-20 ms a turn). The app and `mcp` rank by meaning unless "
                             "given a profile; every other command by words")


LANG_HELP = "language of the block's header and labels: zh, en, or auto by the query (default: $MEMTUI_LANG, else zh)"


def _add_lang_option(parser: argparse.ArgumentParser, help: str = LANG_HELP) -> None:
    parser.add_argument("--lang", choices=("zh", "en", "auto"), default=None, help=help)


INJECT_HELP = ("print the memory block for a query; nothing when no entry matches. A new process each turn ranks "
               "by words (a few tens of milliseconds in all); --profile semantic adds meaning at 0.3-1 s more, "
               "since the model is loaded for one turn")


def _add_inject_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", metavar="QUERY", help="the user's message (`-` reads it from stdin)")
    _add_lang_option(parser)
    parser.set_defaults(handler=cmd_inject, command="inject", demo=False)


def _inject_parser() -> argparse.ArgumentParser:
    """Just `memtui inject`: the per-turn path skips building the parsers of every other command."""
    parser = _parser(f"{PROG} inject", description=INJECT_HELP, epilog=EPILOG)
    _add_store_options(parser, None)
    _add_inject_arguments(parser)
    return parser


_INJECT_OPTIONS = ("--dir", "--lock-timeout", "--lang", "--profile")


def _quick_inject_args(argv: list[str]) -> SimpleNamespace | None:
    """The arguments of `memtui inject` (command word removed) read without building a parser,
    for the common well-formed call; None sends anything else (help, errors) to argparse."""
    values: dict[str, object] = {"dir": None, "lock_timeout": None, "lang": None, "profile": None}
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
                values["dir"] = _directory(value)
            elif name == "--lock-timeout":
                values["lock_timeout"] = _seconds(value)
            elif name == "--profile":
                if value not in PROFILE_NAMES:
                    return None
                values["profile"] = value
            elif value in ("zh", "en", "auto"):
                values["lang"] = value
            else:
                return None
        except Exception:  # an invalid value: argparse will say what is wrong with it
            return None
    if query is None:
        return None
    return SimpleNamespace(query=query, handler=cmd_inject, command="inject", demo=False, **values)


def _command_at(argv: list[str]) -> int | None:
    """Where the command word is, when the options before it are all known global ones."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in ("--dir", "--lock-timeout", "--profile"):
            i += 2
        elif token.startswith(("--dir=", "--lock-timeout=", "--profile=")) or token == "--demo":
            i += 1
        elif token.startswith("-"):
            return None
        else:
            return i
    return None


def build_parser() -> argparse.ArgumentParser:
    import argparse

    # --dir and --lock-timeout work before or after the command; SUPPRESS keeps a value given
    # before the command when the command's own parser does not see one.
    store_options = argparse.ArgumentParser(add_help=False)
    _add_store_options(store_options, argparse.SUPPRESS)
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    parser = _parser(
        PROG,
        description="Long-term memory for LLM agents. With no command, memtui opens the terminal app\n"
        "to browse and curate it; the commands below serve scripts, shell hooks and MCP clients.",
        epilog=EPILOG,
    )
    _add_store_options(parser, None)
    parser.add_argument("--demo", action="store_true",
                        help="open the terminal app on a fresh temporary store with sample entries")
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")

    def command(name: str, help: str, *parents: argparse.ArgumentParser) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, parents=[store_options, *parents],
                              formatter_class=_help_formatter, epilog=EPILOG)

    p = command("list", "list the entries, in store order", as_json)
    p.add_argument("--kind", metavar="KIND", help="only this kind: preference, correction, lesson or fact")
    p.set_defaults(handler=cmd_list)

    p = command("add", "remember one entry (a near-duplicate refreshes the existing one)", as_json)
    p.add_argument("kind", metavar="KIND", help="preference, correction, lesson or fact")
    p.add_argument("text", metavar="TEXT", help="the memory (`-` reads it from stdin)")
    p.add_argument("--source", default="cli", help="where it came from (default: cli)")
    p.add_argument("--keyword", action="append", default=None, metavar="K", dest="keywords",
                   help="a retrieval keyword (repeatable): a synonym or the other language's word; never shown "
                        "in the block")
    p.set_defaults(handler=cmd_add)

    p = command("search", "the best-matching entries for a query (blocked entries never appear)", as_json)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--top-k", type=_count, default=None, metavar="N", help="at most N hits (default 4)")
    p.set_defaults(handler=cmd_search)

    p = command("explain", "why each entry is or is not injected for a query", as_json)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--top-k", type=_count, default=None, metavar="N", help="entries injected (default 4)")
    p.add_argument("--budget", type=_count, default=None, metavar="N", help="characters of entry lines (default 2400)")
    p.add_argument("--all", action="store_true", help="also list the entries that contain no query term")
    _add_lang_option(p)
    p.set_defaults(handler=cmd_explain)

    _add_inject_arguments(command("inject", INJECT_HELP))

    p = command("edit", "replace the text or the keywords of an entry", as_json)
    p.add_argument("id", metavar="ID")
    p.add_argument("--text", metavar="TEXT", help="the new text (`-` reads it from stdin)")
    p.add_argument("--keywords", metavar='"A, B"',
                   help='replace the retrieval keywords (comma-separated; "" removes them all)')
    p.set_defaults(handler=cmd_edit)

    p = command("reclassify", "change the kind of an entry", as_json)
    p.add_argument("id", metavar="ID")
    p.add_argument("kind", metavar="KIND", help="preference, correction, lesson or fact")
    p.set_defaults(handler=cmd_reclassify)

    p = command("rm", "delete an entry", as_json)
    p.add_argument("id", metavar="ID")
    p.set_defaults(handler=cmd_rm)

    p = command("approve", "let an entry blocked by the threat scan be injected (this exact text only)", as_json)
    p.add_argument("id", metavar="ID")
    p.set_defaults(handler=cmd_approve)

    p = command("backups", "list the backups, newest first", as_json)
    p.set_defaults(handler=cmd_backups)

    p = command("restore", "replace the store by a backup (the current file is backed up first)", as_json)
    p.add_argument("name", metavar="NAME", help="a backup name, as `memtui backups` lists it")
    p.add_argument("--dry-run", action="store_true", help="only show what would change")
    p.set_defaults(handler=cmd_restore)

    p = command("audit", "the change history, oldest first", as_json)
    p.add_argument("--id", dest="entry_id", metavar="ID", help="only this entry")
    p.add_argument("--op", choices=AUDIT_OPS, metavar="OP", help="only this operation: " + ", ".join(AUDIT_OPS))
    p.add_argument("--last", type=_positive, default=None, metavar="N", help="only the newest N events")
    p.set_defaults(handler=cmd_audit)

    p = command("doctor", "check the store and suggest fixes (exit 0 even with warnings, unless --strict)", as_json)
    p.add_argument("--strict", action="store_true", help="exit 1 when any problem is found")
    p.set_defaults(handler=cmd_doctor)

    p = command("mcp", "run the MCP server on stdio (memory_save, memory_search, memory_inject)")
    p.add_argument("--destructive", action="store_true",
                   help="also serve memory_update and memory_forget (recorded with actor mcp)")
    _add_lang_option(p, "language of the answers and the block: zh, en, or auto by each call's text "
                        "(default: $MEMTUI_LANG, else zh)")
    p.set_defaults(handler=cmd_mcp)

    from memtui.cli_probe import HELP as PROBE_HELP, add_probe_commands

    add_probe_commands(command("probe", PROBE_HELP), [store_options, as_json], _help_formatter, EPILOG)

    from memtui.json_schemas import OUTPUTS, cmd_schema

    p = command("schema", "the JSON Schema of a --json output (docs/schemas/); without NAME, list them")
    p.add_argument("name", nargs="?", choices=[o.name for o in OUTPUTS], metavar="NAME",
                   help=", ".join(o.name for o in OUTPUTS))
    p.set_defaults(handler=cmd_schema)

    from memtui.cli_completion import SHELLS, cmd_completion

    p = command("completion", "print a shell completion script: eval \"$(memtui completion bash)\"")
    p.add_argument("shell", choices=SHELLS, metavar="SHELL", help=", ".join(SHELLS))
    p.set_defaults(handler=cmd_completion)

    from memtui.cli_transfer import register

    register(command, as_json)  # injections, export, import
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
    if at is not None and argv[at] == "inject" and "--demo" not in argv[:at]:
        # A turn's process lives a fraction of a second and makes no garbage in cycles: the
        # collector's passes over every object imported and read are pure cost (about 3 ms).
        import gc

        gc.disable()
        del argv[at]
        args = _quick_inject_args(argv)
        parser = _inject_parser if args is None else None
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
        _stderr(f"usage: {PROG} [--dir DIR] --demo\n{PROG}: error: --demo opens the terminal app and takes no command")
        return 2
    elif args.command == "edit" and args.text is None and args.keywords is None:
        _stderr(f'usage: {PROG} edit ID [--text TEXT] [--keywords "A, B"]\n'
                f"{PROG}: error: edit needs --text, --keywords or both")
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
        _flush_stdout()
        _stderr(f"{PROG}: error: {message}")
        status = 1
    finally:
        store = getattr(args, "store", None)
        if store is not None and args.command not in (None, "doctor", "mcp"):
            for warning in _store_warnings(store):
                _stderr(f"{PROG}: warning: {warning}")
    return status


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


def _stderr(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """After the reader of our stdout went away: point stdout at /dev/null so the
    interpreter's final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# ---------------------------------------------------------------------------- helpers


def _open(args: argparse.Namespace, actor: str = "cli", long_running: bool = False):
    """The store the command works on (remembered on `args` for the warnings after it). A
    `long_running` process (the app, the MCP server) ranks by meaning unless given a profile: it
    loads the model once and pays one embedding a turn (docs/ranking.md)."""
    from memtui_core.memory import MemoryStore

    limits = None
    profile = getattr(args, "profile", None)
    if profile is None and long_running:
        profile = "semantic"
    if args.lock_timeout is not None or profile not in (None, "default"):
        from memtui_core.limits import Limits

        limits = Limits.profile(profile or "default")
        if args.lock_timeout is not None:
            limits = limits.replace(lock_timeout=args.lock_timeout)
    store = MemoryStore(args.dir, limits=limits, actor=actor, lang=getattr(args, "lang", None))
    if os.path.exists(store.dir) and not os.path.isdir(store.dir):
        raise CliError(f"store path {store.dir} is not a directory (check --dir or $MEMTUI_DIR)")
    args.store = store
    return store


def _store_warnings(store) -> list[str]:
    """What the store has to say after a command (see `memtui_core.store.health.recent_warnings`)."""
    from memtui_core.store.health import recent_warnings

    warnings = [f"{w.text}; run `{w.fix}`" if w.fix else w.text for w in recent_warnings(store.storage)]
    if store._injection_log is not None:  # written now, so a failure is told before the process ends
        store._injection_log.flush()
        failure = store._injection_log.take_error()
        if failure:
            warnings.append(failure)
    return warnings


def _text(value: str, what: str, strict: bool = False) -> str:
    """An argument as real text. Bytes that are not UTF-8 reach us as lone surrogates:
    a text to store is refused, anything else gets U+FFFD in their place."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        pass
    if strict:
        raise CliError(f"{what} is not valid UTF-8 (check the terminal's encoding)")
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _query(value: str) -> str:
    """A QUERY argument; `-` reads it from stdin."""
    if value == "-":
        return sys.stdin.buffer.read().decode("utf-8", "replace")
    return _text(value, "QUERY")


def _input_text(value: str, what: str) -> str:
    """A TEXT to store; `-` reads it from stdin, which must then be UTF-8."""
    if value != "-":
        return _text(value, what, strict=True)
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{what} from stdin is not valid UTF-8") from None


def _emit_json(data: object) -> int:
    import orjson

    option = orjson.OPT_NON_STR_KEYS
    if sys.stdout.isatty():
        option |= orjson.OPT_INDENT_2
    try:
        payload = orjson.dumps(data, option=option)
    except orjson.JSONEncodeError:  # a path given as bytes that are not UTF-8
        payload = orjson.dumps(_repaired(data), option=option)
    _flush_stdout()
    sys.stdout.buffer.write(payload + b"\n")
    sys.stdout.buffer.flush()
    return 0


def _repaired(data: object) -> object:
    """`data` with every string made valid UTF-8 (undecodable bytes become U+FFFD)."""
    if isinstance(data, str):
        return _text(data, "")
    if isinstance(data, dict):
        return {_repaired(key): _repaired(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_repaired(item) for item in data]
    return data


def _dump(model) -> dict:
    return model.model_dump(mode="json")


def _echo(*lines: str) -> None:
    out = sys.stdout
    if (out.encoding or "").lower().replace("-", "") != "utf8":
        try:
            out.reconfigure(errors="replace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError):
            pass
    for line in lines:
        out.write(line + "\n")


def _prefix(args: argparse.Namespace) -> str:
    """`memtui` plus the --dir the user gave, for commands we suggest."""
    if args.dir is None:
        return PROG
    import shlex

    return f"{PROG} --dir {shlex.quote(args.dir)}"


def _kind_cell(kind) -> str:
    return f"{kind.value}"


def _text_cell(entry, style):
    """The TEXT cell of an entry: blocked ones say so, in red; redacted ones are marked."""
    from memtui.render import clean

    notes = []
    if "blocked" in entry.flags:
        categories = [f.split(":", 1)[1] for f in entry.flags if f.startswith("threat:")]
        notes.append("[blocked" + (": " + ", ".join(categories) if categories else "") + "]")
    if "secret-redacted" in entry.flags:
        notes.append("[redacted]")
    text = " ".join(notes + [clean(entry.text)])
    if "blocked" in entry.flags:
        return (text, style.red)
    return (text, style.yellow) if notes else text


# ---------------------------------------------------------------------------- commands


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

        store = create_demo_store()
        try:
            run_app(store, demo=True)
        finally:
            shutil.rmtree(store.dir, ignore_errors=True)  # the demo store is temporary
        return 0
    run_app(_open(args, actor="tui", long_running=True), command=_prefix(args))
    return 0


def cmd_inject(args: argparse.Namespace) -> int:
    """The per-turn agent path: the block or nothing, as fast as the store allows."""
    store = _open(args)
    block = store.retrieve_block(_query(args.query))
    if block:
        out = sys.stdout.buffer
        out.write(block.encode("utf-8", "replace") + b"\n")
        out.flush()
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    store = _open(args)
    hits = store.search(_query(args.query), top_k=args.top_k)
    if args.json:
        return _emit_json([_dump(hit) for hit in hits])
    from memtui.render import Style, table, terminal_width

    style = Style()
    if not hits:
        _echo(style.dim("no entry matches"))
        return 0
    rows = [[str(i), f"{hit.score:.2f}", hit.entry.id, _kind_cell(hit.entry.kind), _text_cell(hit.entry, style)]
            for i, hit in enumerate(hits, start=1)]
    _echo(*table(["#", "SCORE", "ID", "KIND", "TEXT"], rows, align="><<<<", width=terminal_width(), style=style,
                 styles=[None, style.bold, style.dim, style.cyan, None]))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    store = _open(args)
    entries = store.entries()
    if args.kind is not None:
        from memtui_core.kinds import Kind

        kind = Kind.require(_text(args.kind, "KIND"))
        entries = [entry for entry in entries if entry.kind is kind]
    if args.json:
        return _emit_json([_dump(entry) for entry in entries])
    from memtui.render import Style, age, clean, table, terminal_width

    style = Style()
    rows = [[entry.id, _kind_cell(entry.kind), age(entry.ts), clean(entry.source) or "-", _text_cell(entry, style)]
            for entry in entries]
    if rows:
        _echo(*table(["ID", "KIND", "AGE", "SOURCE", "TEXT"], rows, width=terminal_width(), style=style,
                     styles=[style.dim, style.cyan, None, style.dim, None]))
    total = len(store)
    shown = f"{len(entries)} of {total}" if args.kind is not None else f"{total}"
    _echo(style.dim(f"{shown} entries ({total}/{store.limits.max_entries})"))
    invalid = len(store.invalid())
    if invalid:
        items = "1 invalid item in the file is" if invalid == 1 else f"{invalid} invalid items in the file are"
        _echo(style.yellow(f"{items} kept but not listed; see `{_prefix(args)} doctor`"))
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from memtui_core.kinds import Kind

    kind = Kind.require(_text(args.kind, "KIND"))
    text = _input_text(args.text, "TEXT")
    source = _text(args.source, "--source", strict=True)
    keywords = [_text(k, "--keyword", strict=True) for k in args.keywords] if args.keywords is not None else None
    store = _open(args)
    result = store.remember(kind, text, source=source, keywords=keywords)
    if result.truncated:
        _warn_cut(store, result.original_length)
    if args.json:
        return _emit_json(_dump(result))
    from memtui.render import Style, clean, truncate

    style = Style()
    entry = result.entry
    evicted_ids = [old.id for old in result.evicted]
    if result.added:
        _echo(f"added {style.bold(entry.id)} ({entry.kind.value}) {truncate(clean(entry.text), 60)}")
    else:
        _echo(f"already remembered as {style.bold(entry.id)} ({entry.kind.value}): refreshed its time; "
              f"text and kind kept")
        if entry.kind is not kind:
            _echo(style.yellow(f"  you said {kind.value}; it stays {entry.kind.value} "
                               f"(`{_prefix(args)} reclassify {entry.id} {kind.value}` to change it)"))
    if entry.id in evicted_ids:
        _echo(style.yellow(f"  the store is full ({store.limits.max_entries}) of entries that are kept longer: "
                           f"it was evicted at once"))
    others = [old for old in result.evicted if old.id != entry.id]
    for old in others:
        _echo(style.yellow(f"  evicted {old.id} ({old.kind.value}) to stay within {store.limits.max_entries}: "
                           f"{truncate(clean(old.text), 50)}"))
    if entry.id not in evicted_ids and "blocked" in entry.flags:
        categories = [f.split(":", 1)[1] for f in entry.flags if f.startswith("threat:")]
        _echo(style.red(f"  blocked by the threat scan ({', '.join(categories) or 'flagged'}): stored, but never "
                        f"injected until approved (`{_prefix(args)} approve {entry.id}`)"))
    elif result.added and "secret-redacted" in entry.flags:
        _echo(style.yellow("  a secret in the text was replaced by [REDACTED:...]"))
    return 0


def _warn_cut(store, original_length: int | None) -> None:
    """A text cut to the limit is never silent: one warning on stderr, whatever the output format."""
    _stderr(f"{PROG}: warning: the text had {original_length} characters and was cut to "
            f"{store.limits.max_text} (the max_text limit)")


def cmd_edit(args: argparse.Namespace) -> int:
    text = _input_text(args.text, "--text") if args.text is not None else None
    keywords = _keyword_list(_text(args.keywords, "--keywords", strict=True)) if args.keywords is not None else None
    store = _open(args)
    entry_id = _text(args.id, "ID")
    before = store.get(entry_id)
    check = store.check_text(text, exclude_id=entry_id) if text is not None else None
    entry = store.update(entry_id, text=text, keywords=keywords)
    if check is not None and check.cut and entry.text != before.text:
        _warn_cut(store, check.original_length)
    if args.json:
        return _emit_json(_dump(entry))
    from memtui.render import Style, clean, truncate

    style = Style()
    if entry.text == before.text and entry.keywords == before.keywords:
        _echo(f"{entry.id}: no change")
        return 0
    if entry.text != before.text:
        _echo(f"edited {style.bold(entry.id)} ({entry.kind.value}) {truncate(clean(entry.text), 60)}")
    if entry.keywords != before.keywords:
        _echo(f"keywords of {style.bold(entry.id)}: {', '.join(entry.keywords) or '(none)'}")
        dropped = len(keywords or []) - len(entry.keywords)
        if dropped > 0:
            _echo(style.dim(f"  {dropped} duplicate or function-word keyword(s) dropped"))
    if "blocked" in entry.flags:
        _echo(style.red(f"  blocked by the threat scan: never injected until approved "
                        f"(`{_prefix(args)} approve {entry.id}`)"))
    return 0


def _keyword_list(value: str) -> list[str]:
    """`--keywords "a, b"`: comma-separated (a full-width comma too); empty removes them all."""
    return [part.strip() for part in value.replace("，", ",").replace("、", ",").split(",") if part.strip()]


def cmd_reclassify(args: argparse.Namespace) -> int:
    from memtui_core.kinds import Kind

    kind = Kind.require(_text(args.kind, "KIND"))
    store = _open(args)
    entry_id = _text(args.id, "ID")
    before = store.get(entry_id)
    entry = store.update(entry_id, kind=kind)
    if args.json:
        return _emit_json(_dump(entry))
    if before.kind is entry.kind:
        _echo(f"{entry.id}: already {entry.kind.value}")
    else:
        _echo(f"reclassified {entry.id}: {before.kind.value} -> {entry.kind.value}")
    return 0


def cmd_rm(args: argparse.Namespace) -> int:
    store = _open(args)
    entry = store.delete(_text(args.id, "ID"))
    if args.json:
        return _emit_json(_dump(entry))
    from memtui.render import clean, truncate

    _echo(f"deleted {entry.id} ({entry.kind.value}) {truncate(clean(entry.text), 60)}")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    store = _open(args)
    entry_id = _text(args.id, "ID")
    was_blocked = store.get(entry_id).blocked
    entry = store.approve(entry_id)
    if args.json:
        return _emit_json(_dump(entry))
    if was_blocked:
        _echo(f"approved {entry.id}: it can be injected now (an edit of its text withdraws the approval)")
    else:
        _echo(f"{entry.id} is not blocked, so there is nothing to approve. The threat scan is a filter: "
              "it found nothing it recognises, which does not make the text safe; read it before you rely on it")
    return 0


def cmd_backups(args: argparse.Namespace) -> int:
    store = _open(args)
    backups = store.backups()
    if args.json:
        return _emit_json([_dump(backup) for backup in backups])
    from memtui.render import Style, age, local_time, size, table

    style = Style()
    if not backups:
        _echo(style.dim(f"no backups yet in {store.storage.backups_dir} (one is made before every change)"))
        return 0
    rows = [[b.name, local_time(b.at), age(b.at), "-" if b.entries is None else str(b.entries), size(b.size),
             ("" if b.valid else "unreadable", style.red)] for b in backups]
    _echo(*table(["NAME", "TIME", "AGE", "ENTRIES", "SIZE", ""], rows, align="<<>>><", style=style,
                 styles=[style.bold, None, style.dim, None, style.dim, None]))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    store = _open(args)
    name = os.path.basename(_text(args.name, "NAME").rstrip("/"))
    result = store.preview_restore(name) if args.dry_run else store.restore(name)
    if args.json:
        return _emit_json(_dump(result))
    if args.dry_run:
        head = f"restoring {result.name} would add {len(result.added)}, remove {len(result.removed)} " \
               f"and change {len(result.changed)} entries"
    else:
        head = f"restored {result.name}: {len(result.added)} added, {len(result.removed)} removed, " \
               f"{len(result.changed)} changed"
    lines = [head]
    for label, ids in (("added", result.added), ("removed", result.removed), ("changed", result.changed)):
        if ids:
            lines.append(f"  {label}: {' '.join(ids)}")
    if not args.dry_run and result.backup_of_current:
        lines.append(f"  the file before this restore was backed up as {result.backup_of_current}")
    elif args.dry_run:
        lines.append(f"  nothing was written; `{_prefix(args)} restore {result.name}` does it")
    _echo(*lines)
    return 0


def _audit_detail(event) -> str:
    from memtui.render import clean

    before = event.before or {}
    after = event.after or {}
    op = event.op.value
    note = f" ({event.note})" if event.note else ""
    if op == "edit" and before and after:
        if before.get("text") != after.get("text"):
            return clean(f"{before.get('text', '')} -> {after.get('text', '')}{note}")
        return clean(f"{before.get('kind')} -> {after.get('kind')}{note}")
    if op == "reclassify":
        return clean(f"{before.get('kind')} -> {after.get('kind')}{note}")
    if op == "restore":
        if event.note:
            return clean(event.note)
        groups = (("added", event.added), ("removed", event.removed), ("changed", event.changed))
        return ", ".join(f"{len(ids)} {word}" for word, ids in groups if ids is not None)
    entry = after or before
    text = entry.get("text") if isinstance(entry, dict) else None
    if text:
        return clean(f"[{entry.get('kind')}] {text}{note}")
    return clean(event.note or "")


def cmd_audit(args: argparse.Namespace) -> int:
    store = _open(args)
    entry_id = _text(args.entry_id, "ID") if args.entry_id is not None else None
    events = store.audit(id=entry_id, op=args.op)
    if args.last is not None:
        events = events[-args.last:]
    if args.json:
        return _emit_json([_dump(event) for event in events])
    from memtui.render import Style, clean, local_time, table, terminal_width

    style = Style()
    if not events:
        _echo(style.dim("no audit events" + (" match" if entry_id or args.op else " yet")))
        return 0
    op_style = {"delete": style.red, "evict": style.red, "quarantine": style.red, "add": style.green,
                "approve": style.yellow, "restore": style.magenta}
    rows = [[local_time(event.at), clean(event.actor), (event.op.value, op_style.get(event.op.value)),
             event.id or "-", _audit_detail(event)] for event in events]
    _echo(*table(["TIME", "ACTOR", "OP", "ID", "DETAIL"], rows, width=terminal_width(), style=style,
                 styles=[style.dim, None, None, style.dim, None]))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from memtui.doctor import diagnose

    store = _open(args)
    report = diagnose(store, _prefix(args))
    if args.json:
        _emit_json(report.as_dict())
    else:
        from memtui.render import Style

        _echo(*report.lines(Style()))
    return 1 if args.strict and report.problems else 0


def cmd_explain(args: argparse.Namespace) -> int:
    from memtui_core.text.tokenize import tokenize

    store = _open(args)
    query = _query(args.query)
    terms, entries = len(set(tokenize(query))), len(store)
    if terms * entries > MAX_EXPLAIN_ROWS:
        raise CliError(f"the query has {terms} distinct terms; explaining them for {entries} entries is too much "
                       f"(at most {MAX_EXPLAIN_ROWS:,} term rows): shorten it (search and inject take any size)")
    explanation = store.explain(query, top_k=args.top_k, budget=args.budget)
    if args.json:
        return _emit_json(_dump(explanation))
    from memtui.render import Style, explanation_lines, terminal_width

    _echo(*explanation_lines(explanation, Style(), terminal_width(), show_all=args.all))
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from memtui_core.agents.mcp_server import run_stdio

    store = _open(args, actor="mcp", long_running=True)
    for warning in _store_warnings(store):
        _stderr(f"{PROG}: warning: {warning}")
    run_stdio(store, destructive=args.destructive)
    return 0
