"""`memtui hook claude-code` and `memtui setup claude-code|hermes`: memtui inside an agent's host.

    memtui setup claude-code [--project DIR | --user] [--dry-run]   the hooks and the MCP server
    memtui hook claude-code [--timeout SECONDS]                      what those hooks run, per prompt
    memtui setup hermes [--hermes-home DIR] [--write-config] [--dry-run]

`hook` is per-turn, so the front door reads a well-formed call with `quick_hook_args` (no
argparse) and it never holds up a prompt: whatever goes wrong, it exits 0 with one stderr line
(Claude Code would erase the prompt for exit status 2, so a usage error exits 1 here, not 2).
The adapters are `memtui_core.agents.hosts`; docs/agents.md is the user's page.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from memtui.cli.common import (EPILOG, PROG, CliError, add_lang_option, add_store_options, echo, new_parser,
                               positive_seconds, stderr, store_directory)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands

HOOK_HELP = "answer an agent host's hook: reads the event's JSON on stdin (see `memtui setup`)"
SETUP_HELP = "install memtui into an agent host: its hooks, provider or MCP server (docs/agents.md)"
HOOK_HOSTS = ("claude-code",)
DEFAULT_TIMEOUT = 5.0
_HOOK_OPTIONS = ("--dir", "--lang", "--timeout")


def register(commands: Commands) -> None:
    parser = commands.add("hook", HOOK_HELP)
    hosts = commands.under(parser.add_subparsers(dest="host", metavar="HOST", title="hosts", required=True))
    _add_hook_arguments(hosts.add("claude-code", "Claude Code's UserPromptSubmit and SessionStart hooks: the "
                                                 "memories for the prompt, the pinned core at session start"))

    parser = commands.add("setup", SETUP_HELP)
    hosts = commands.under(parser.add_subparsers(dest="host", metavar="HOST", title="hosts", required=True))
    p = hosts.add("claude-code", "add the two hooks to Claude Code's settings and the MCP server to .mcp.json, "
                                 "keeping what is there (a second run changes nothing)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", type=store_directory,
                       help="the project: DIR/.claude/settings.json and DIR/.mcp.json (default: this folder)")
    where.add_argument("--user", action="store_true",
                       help="every project: the user settings ($CLAUDE_CONFIG_DIR/settings.json, else "
                            "~/.claude/settings.json)")
    p.add_argument("--dry-run", action="store_true", help="only show the change")
    p.set_defaults(handler=cmd_setup_claude_code)

    p = hosts.add("hermes", "install the memtui memory provider where Hermes Agent finds it "
                            "($HERMES_HOME/plugins/memtui/)")
    p.add_argument("--hermes-home", metavar="DIR", type=store_directory,
                   help="the Hermes home (default: $HERMES_HOME, else ~/.hermes)")
    p.add_argument("--write-config", action="store_true",
                   help="also set memory.provider: memtui in its config.yaml (else the line is printed)")
    p.add_argument("--dry-run", action="store_true", help="only show the change")
    p.set_defaults(handler=cmd_setup_hermes)


def _add_hook_arguments(parser: argparse.ArgumentParser) -> None:
    add_lang_option(parser)
    parser.add_argument("--timeout", type=positive_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"give up (no output, exit 0) after this long (default {DEFAULT_TIMEOUT:g})")
    parser.set_defaults(handler=cmd_hook_claude_code, command="hook", demo=False)


def hook_parser() -> argparse.ArgumentParser:
    """Just `memtui hook`, for help and errors (the well-formed call needs no parser)."""
    parser = new_parser(f"{PROG} hook", description=HOOK_HELP, epilog=EPILOG)
    add_store_options(parser, None)
    hosts = parser.add_subparsers(dest="host", metavar="HOST", title="hosts", required=True)
    p = hosts.add_parser("claude-code", help="Claude Code's hooks")
    add_store_options(p, None)
    _add_hook_arguments(p)
    return parser


def quick_hook_args(argv: list[str]) -> SimpleNamespace | None:
    """`memtui hook` (command word removed) read without a parser: `claude-code` and its
    options, and --dir before it; None sends anything else to argparse."""
    values: dict[str, object] = {"dir": None, "lang": None, "timeout": DEFAULT_TIMEOUT}
    host = None
    i = 0
    while i < len(argv):
        token = argv[i]
        name, equals, value = token.partition("=")
        if name in _HOOK_OPTIONS and equals:
            i += 1
        elif token in _HOOK_OPTIONS and i + 1 < len(argv):
            name, value = token, argv[i + 1]
            i += 2
        elif token in HOOK_HOSTS and host is None:
            host, i = token, i + 1
            continue
        else:
            return None
        try:
            if name == "--dir":
                values["dir"] = store_directory(value)
            elif name == "--timeout":
                values["timeout"] = positive_seconds(value)
            elif value in ("zh", "en", "auto"):
                values["lang"] = value
            else:
                return None
        except Exception:
            return None
    if host is None:
        return None
    return SimpleNamespace(host=host, handler=cmd_hook_claude_code, command="hook", demo=False, lock_timeout=None,
                           profile=None, **values)


def run_hook(argv: list[str]) -> int:
    """The front door of `memtui hook` (argv without the command word). A usage error is exit
    status 1, never argparse's 2, which Claude Code reads as "erase the prompt"."""
    import gc

    gc.disable()  # a short-lived process with no garbage in cycles (as for `memtui inject`)
    args = quick_hook_args(argv)
    if args is None:
        try:
            args = hook_parser().parse_args(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
            return 1 if code == 2 else code
    try:
        return args.handler(args)
    except BaseException as error:  # the prompt goes on whatever happens here
        if isinstance(error, SystemExit):
            return 0
        stderr(f"{PROG}: warning: no memories this turn: {' '.join(str(error).split()) or type(error).__name__}")
        return 0


# ---------------------------------------------------------------------------- the hook


def cmd_hook_claude_code(args: argparse.Namespace) -> int:
    """One Claude Code event from stdin; the hookSpecificOutput JSON on stdout, or nothing."""
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        stderr(f"{PROG}: error: `memtui hook claude-code` reads a Claude Code hook event on stdin; "
               f"`memtui setup claude-code` installs it")
        return 1
    _give_up_after(args.timeout)
    from memtui_core.agents.hosts.claude_code import answer

    limits = None
    if args.lock_timeout is not None or args.profile not in (None, "default"):
        from memtui_core.limits import Limits

        limits = Limits.profile(args.profile or "default")
        if args.lock_timeout is not None:
            limits = limits.replace(lock_timeout=args.lock_timeout)
    result = answer(stdin.buffer.read(), dir=args.dir, lang=args.lang, limits=limits)
    if result.output:
        out = sys.stdout.buffer
        out.write(result.output)
        out.flush()
    if result.warning:
        stderr(f"{PROG}: warning: {result.warning}")
    return 0


def _give_up_after(seconds: float) -> None:
    """Past `seconds`, say so on stderr and end the process with status 0 and no output: the
    prompt goes on without memories. Files are replaced atomically, so nothing is left half written."""
    import signal

    if not hasattr(signal, "setitimer"):
        return

    def expire(signum, frame) -> None:
        try:
            os.write(2, f"{PROG}: warning: no memories this turn: gave up after {seconds:g} s\n".encode())
        finally:
            os._exit(0)

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)


# ---------------------------------------------------------------------------- setup


def launcher() -> list[str]:
    """How the host should start memtui: `memtui` when that is this program on PATH, else its
    full path, or this Python with `-m memtui` when run that way."""
    import shutil

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if not argv0 or os.path.basename(argv0) in ("__main__.py", "-c") or argv0 == "-m":
        return [sys.executable, "-m", "memtui"]
    here = os.path.abspath(argv0) if os.sep in argv0 else shutil.which(argv0)
    on_path = shutil.which(PROG)
    if here and on_path and os.path.realpath(on_path) == os.path.realpath(here):
        return [PROG]
    return [here or os.path.abspath(argv0)]


def _store_args(args: argparse.Namespace) -> list[str]:
    """`--dir DIR` (absolute) for the commands a host runs, when this command was given one; a
    database URL as it is, but never one holding a password (settings files are not for secrets)."""
    if args.dir is None:
        return []
    from memtui_core.store.location import parse_location

    found = parse_location(args.dir)
    if found is None:
        return ["--dir", os.path.abspath(os.path.expanduser(args.dir))]
    if found.password:
        raise CliError(f"a password is never written into a host's settings: give {found.display} without it and "
                       f"keep the password in ~/.pgpass or $PGPASSWORD")
    return ["--dir", args.dir]


def _show_and_write(changes: list, dry_run: bool) -> int:
    from memtui_core.agents.hosts.files import SetupError, check_writable, diff_text, write_change

    changed = [change for change in changes if change.changed]
    for change in changes:
        if not change.changed:
            echo(f"{change.path}: already set up, nothing to change")
    for change in changed:
        echo(diff_text(change).rstrip("\n"))
    if not changed:
        return 0
    if dry_run:
        echo("nothing was written (--dry-run)")
        return 0
    try:
        check_writable(changed)
    except SetupError as error:
        raise CliError(str(error)) from None
    for change in changed:
        try:
            backup = write_change(change)
        except OSError as error:
            raise CliError(f"cannot write {change.path}: {error.strerror or error}") from None
        echo(f"wrote {change.path}" + (f" (the file it replaced is kept as {backup})" if backup else ""))
    return 0


def cmd_setup_claude_code(args: argparse.Namespace) -> int:
    import shlex

    from memtui_core.agents.hosts.claude_code import plan_setup, user_settings_path
    from memtui_core.agents.hosts.files import SetupError

    run = launcher()
    extra = _store_args(args)
    project = None
    if args.user:
        settings = user_settings_path()
    else:
        project = os.path.abspath(os.path.expanduser(args.project or "."))
        if not os.path.isdir(project):
            raise CliError(f"--project {args.project or '.'}: {project} is not a folder")
        settings = None
    try:
        changes = plan_setup(run, project, settings, extra)
    except SetupError as error:
        raise CliError(str(error)) from None
    status = _show_and_write(changes, args.dry_run)
    if args.user:
        echo("for the MCP server in every project, run: claude mcp add --scope user memtui -- "
             + shlex.join([*run, "mcp", *extra]))
    return status


def cmd_setup_hermes(args: argparse.Namespace) -> int:
    from memtui_core.agents.hosts.files import SetupError, read_existing
    from memtui_core.agents.hosts.hermes import hermes_home, plan_config, plan_plugin, selected_provider

    home = hermes_home(args.hermes_home)
    config_path = home / "config.yaml"
    try:
        changes = plan_plugin(home)
        if args.write_config:
            changes.append(plan_config(home))
            current = None
        else:
            current = selected_provider((read_existing(str(config_path)) or b"").decode("utf-8", "replace"))
    except SetupError as error:
        raise CliError(str(error)) from None
    status = _show_and_write(changes, args.dry_run)
    if not args.write_config and current != "memtui":
        echo(f"to use it, set memory.provider in {config_path}: `hermes config set memory.provider memtui`, "
             f"or run this again with --write-config")
    if args.dir is not None:
        folder = _store_args(args)[1]
        echo(f"to keep Hermes's memories in {folder}, add to {config_path}:\n"
             f"plugins:\n  memtui:\n    dir: {folder}")
    _check_hermes_python()
    return status


def _check_hermes_python() -> None:
    """Whether the Python that runs `hermes` can import the provider; a warning line when not."""
    import shutil
    import subprocess

    hermes = shutil.which("hermes")
    if hermes is None:
        stderr(f"{PROG}: warning: hermes is not on PATH; memtui must be installed in the Python that runs it "
               f"(docs/agents.md#hermes-agent)")
        return
    try:
        with open(hermes, "rb") as file:
            first = file.readline(4096)
    except OSError:
        return
    if not first.startswith(b"#!"):
        return
    python = first[2:].decode("utf-8", "replace").strip().split()
    if not python:
        return
    try:
        done = subprocess.run([*python, "-c", "import memtui_core.agents.hosts.hermes"], capture_output=True,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return
    if done.returncode == 0:
        echo(f"hermes's Python ({python[-1]}) imports memtui: ready")
    else:
        stderr(f"{PROG}: warning: hermes's Python ({python[-1]}) cannot import memtui; install it there "
               f"(docs/agents.md#hermes-agent)")
