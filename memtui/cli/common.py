"""What every `memtui` command shares: the error it raises, how it reads its arguments, opens the
store and prints (a line, a table cell, one JSON document), and how its parser is built.

The bottom of the command package: it imports nothing of `memtui.cli` and only os and sys at load
time, because `memtui inject` (run before every agent turn) loads it. Each command module imports
from here; nothing here imports a command module.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself costs an import on the agent path
if TYPE_CHECKING:
    import argparse

PROG = "memtui"

EPILOG = """\
store: --dir DIR, else $MEMTUI_DIR, else the platform data directory (memory.json, backups/, audit.jsonl).
exit status: 0 success; 1 a failed operation (one line `memtui: error: ...` on stderr); 2 a usage error.
A QUERY or TEXT of `-` is read from stdin. `memtui COMMAND --help` shows the options of a command."""

SCOPE_NAMES = ("project", "global")  # memtui_core.scopes.SCOPES
PROFILE_NAMES = ("default", "nanohermes", "semantic")  # memtui_core.limits.PROFILES, named here so `inject` imports nothing

LANG_HELP = ("language of the block's header and labels: zh, en, or auto by the query "
             "(default: $MEMTUI_LANG, else auto)")


# "A handful": a write from the command line that would evict more entries than this asks first
# (`--yes` allows it; without a terminal to ask on, it is refused).
EVICT_WITHOUT_ASKING = 5


def confirm(question: str) -> bool | None:
    """Ask `question` on the terminal (y/N); None when there is no terminal to ask on."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    try:
        sys.stderr.write(f"{question} [y/N] ")
        sys.stderr.flush()
        answer = sys.stdin.readline()
    except (OSError, ValueError):
        return None
    return answer.strip().lower() in ("y", "yes")


class CliError(Exception):
    """A failed operation: printed as one line on stderr, exit status 1."""


# ---------------------------------------------------------------------------- argument types


def _bad_value(message: str) -> Exception:
    import argparse

    return argparse.ArgumentTypeError(message)


def nonnegative_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise _bad_value(f"not a whole number: {value!r}") from None
    if number < 0:
        raise _bad_value(f"must be 0 or more: {value!r}")
    return number


def positive_int(value: str) -> int:
    number = nonnegative_int(value)
    if number < 1:
        raise _bad_value(f"must be 1 or more: {value!r}")
    return number


def positive_seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise _bad_value(f"not a number of seconds: {value!r}") from None
    if not number > 0 or number == float("inf"):
        raise _bad_value(f"must be more than 0 seconds: {value!r}")
    return number


def store_directory(value: str) -> str:
    if not value.strip():
        raise _bad_value("must not be empty")
    return value


# ---------------------------------------------------------------------------- building parsers


def help_formatter(prog: str):
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


def new_parser(prog: str, **kwargs) -> argparse.ArgumentParser:
    import argparse

    return argparse.ArgumentParser(prog=prog, formatter_class=help_formatter, **kwargs)


def add_store_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("--dir", type=store_directory, default=default, metavar="DIR",
                        help="store directory (default: $MEMTUI_DIR, else the platform data dir)")
    parser.add_argument("--lock-timeout", type=positive_seconds, default=default, metavar="SECONDS",
                        help="how long a write waits for another writer (default 10)")
    parser.add_argument("--scope", choices=SCOPE_NAMES, default=default,
                        help="the project store (.memtui/ in the project) or the global one; reads take both "
                             "when run inside a project, writes follow docs/scopes.md (not with --dir)")
    parser.add_argument("--profile", choices=PROFILE_NAMES, default=default,
                        help="ranking profile: default (stopwords, gate, keywords: words alone, about a "
                             "millisecond a turn), nanohermes (the original ranking, exactly) or semantic (default "
                             "plus meaning: a hit far in meaning from the message is held back, an entry sharing no "
                             "word but close in meaning is admitted; loading the model costs a new process 0.3-1 s, "
                             "a long-running one about 15-20 ms a turn). The app and `mcp` rank by meaning unless "
                             "given a profile; every other command by words")


def add_lang_option(parser: argparse.ArgumentParser, help: str = LANG_HELP) -> None:
    parser.add_argument("--lang", choices=("zh", "en", "auto"), default=None, help=help)


class Commands:
    """The `memtui COMMAND` parsers being built. Each command module's `register(commands)` adds
    its own commands through `add`; the front door (`memtui.cli.build_parser`) calls them in the
    order `memtui --help` lists the commands."""

    def __init__(self, root: argparse.ArgumentParser, subparsers, store_options: argparse.ArgumentParser,
                 as_json: argparse.ArgumentParser) -> None:
        self.root = root  # the whole `memtui` parser (completion scripts are generated from it)
        self.subparsers = subparsers
        self.store_options = store_options  # --dir, --lock-timeout, --profile after the command word
        self.as_json = as_json  # --json

    def add(self, name: str, help: str, *, json: bool = False) -> argparse.ArgumentParser:
        """A command `name`, with the store options, and --json when it has a JSON output."""
        parents = [self.store_options, self.as_json] if json else [self.store_options]
        return self.subparsers.add_parser(name, help=help, description=help, parents=parents,
                                          formatter_class=help_formatter, epilog=EPILOG)

    def under(self, subparsers) -> Commands:
        """The same, for the actions of a command with its own subcommands (`memtui probe add`)."""
        return Commands(self.root, subparsers, self.store_options, self.as_json)


# ---------------------------------------------------------------------------- reading arguments


def _limits(args: argparse.Namespace, long_running: bool = False):
    """The limits the options ask for. A `long_running` process (the app, the MCP server) ranks by
    meaning unless given a profile: it loads the model once and pays one embedding a turn
    (docs/ranking.md)."""
    limits = None
    profile = getattr(args, "profile", None)
    if profile is None and long_running:
        profile = "semantic"
    if args.lock_timeout is not None or profile not in (None, "default"):
        from memtui_core.limits import Limits

        limits = Limits.profile(profile or "default")
        if args.lock_timeout is not None:
            limits = limits.replace(lock_timeout=args.lock_timeout)
    return limits


def _check_folder(store) -> None:
    if os.path.exists(store.dir) and not os.path.isdir(store.dir):
        raise CliError(f"store path {store.dir} is not a directory (check --dir or $MEMTUI_DIR)")


def open_scoped(args: argparse.Namespace, actor: str = "cli", narrow: bool = True, long_running: bool = False):
    """The stores the command reads (memtui_core.scopes.Scoped): the project store and the global
    one inside a project, else the global one; `--dir` is that one store; `--scope` that scope's
    store alone (unless not `narrow`: a write picks its store itself). Remembered on `args` for
    the warnings after it."""
    from memtui_core.scopes import Scoped

    scope = getattr(args, "scope", None)
    if scope is not None and args.dir is not None:
        raise CliError("--dir names one store, which has no scopes: leave out --scope or --dir")
    scoped = Scoped.open(args.dir, actor=actor, lang=getattr(args, "lang", None), limits=_limits(args, long_running))
    if scope is not None and narrow:
        scoped = Scoped([(scope, scoped.store(scope))], scoped.cwd)
    for _scope, store in scoped.stores:
        _check_folder(store)
    args.store = scoped
    return scoped


def open_store(args: argparse.Namespace, actor: str = "cli", long_running: bool = False):
    """The one store the command works on: --dir, else the store of --scope, else the global store
    (remembered on `args` for the warnings after it); `long_running` as for `_limits`."""
    from memtui_core.memory import MemoryStore

    if getattr(args, "scope", None) is not None:
        return open_scoped(args, actor, long_running=long_running).main
    store = MemoryStore(args.dir, limits=_limits(args, long_running), actor=actor, lang=getattr(args, "lang", None))
    _check_folder(store)
    args.store = store
    return store


def open_holding(args: argparse.Namespace, entry_id: str, actor: str = "cli"):
    """The store holding `entry_id`: with --dir or --scope that store, else whichever of the
    project and global stores holds it (the global one when neither does, to say so)."""
    if args.dir is not None or getattr(args, "scope", None) is not None:
        return open_store(args, actor)
    from memtui_core.errors import EntryNotFound

    scoped = open_scoped(args, actor)
    try:
        return scoped.locate(entry_id)[1]
    except EntryNotFound:
        return scoped.main


def store_warnings(store) -> list[str]:
    """What the store has to say after a command (see `memtui_core.store.health.recent_warnings`)."""
    from memtui_core.store.health import recent_warnings

    stores = getattr(store, "stores", None)
    if stores is not None:  # both scopes: each store's own
        return [warning for _scope, one in stores for warning in store_warnings(one)]
    warnings = [f"{w.text}; run `{w.fix}`" if w.fix else w.text for w in recent_warnings(store.storage)]
    if store._injection_log is not None:  # written now, so a failure is told before the process ends
        store._injection_log.flush()
        failure = store._injection_log.take_error()
        if failure:
            warnings.append(failure)
    return warnings


def text_arg(value: str, what: str, strict: bool = False) -> str:
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


def query_arg(value: str) -> str:
    """A QUERY argument; `-` reads it from stdin."""
    if value == "-":
        return sys.stdin.buffer.read().decode("utf-8", "replace")
    return text_arg(value, "QUERY")


def input_text(value: str, what: str) -> str:
    """A TEXT to store; `-` reads it from stdin, which must then be UTF-8."""
    if value != "-":
        return text_arg(value, what, strict=True)
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{what} from stdin is not valid UTF-8") from None


def command_prefix(args: argparse.Namespace) -> str:
    """`memtui` plus the --dir the user gave, for commands we suggest (a database URL without its
    password: the app shows these)."""
    if args.dir is None:
        return PROG
    import shlex

    from memtui_core.store.location import parse_location

    found = parse_location(args.dir)
    return f"{PROG} --dir {shlex.quote(found.display if found is not None else args.dir)}"


# ---------------------------------------------------------------------------- output


def emit_json(data: object) -> int:
    import orjson

    option = orjson.OPT_NON_STR_KEYS
    if sys.stdout.isatty():
        option |= orjson.OPT_INDENT_2
    try:
        payload = orjson.dumps(data, option=option)
    except orjson.JSONEncodeError:  # a path given as bytes that are not UTF-8; an integer past 64 bits
        data = _repaired(data)
        try:
            payload = orjson.dumps(data, option=option)
        except orjson.JSONEncodeError:  # a field another program wrote holds 10**29: valid JSON, kept as it is
            import json

            payload = json.dumps(data, ensure_ascii=False, indent=2 if sys.stdout.isatty() else None,
                                 separators=None if sys.stdout.isatty() else (",", ":")).encode("utf-8")
    flush_stdout()
    sys.stdout.buffer.write(payload + b"\n")
    sys.stdout.buffer.flush()
    return 0


def emit_models(models: list, model_type) -> int:
    """A JSON array of pydantic models, as `emit_json([dump(m) for m in models])` prints it, written
    by pydantic in one pass: no dictionary per model (at 100,000 entries, 0.6 s and 100 MiB less)."""
    from pydantic import TypeAdapter

    try:
        payload = TypeAdapter(list[model_type]).dump_json(models, indent=2 if sys.stdout.isatty() else None)
    except Exception:  # whatever pydantic cannot write, the general path can
        return emit_json([dump(model) for model in models])
    flush_stdout()
    sys.stdout.buffer.write(payload + b"\n")
    sys.stdout.buffer.flush()
    return 0


def _repaired(data: object) -> object:
    """`data` with every string made valid UTF-8 (undecodable bytes become U+FFFD)."""
    if isinstance(data, str):
        return text_arg(data, "")
    if isinstance(data, dict):
        return {_repaired(key): _repaired(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [_repaired(item) for item in data]
    return data


def dump(model) -> dict:
    return model.model_dump(mode="json")


def echo(*lines: str) -> None:
    out = sys.stdout
    if (out.encoding or "").lower().replace("-", "") != "utf8":
        try:
            out.reconfigure(errors="replace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError):
            pass
    for line in lines:
        out.write(line + "\n")


def stderr(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def warn_cut(store, original_length: int | None) -> None:
    """A text cut to the limit is never silent: one warning on stderr, whatever the output format."""
    stderr(f"{PROG}: warning: the text had {original_length} characters and was cut to "
           f"{store.limits.max_text} (the max_text limit)")


def kind_cell(kind) -> str:
    return f"{kind.value}"


def text_cell(entry, style):
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
