"""Claude Code: the hook that gives each prompt its memories, and the settings that install it.

Claude Code runs a command hook as a new process for every event, with the event as JSON on stdin
(`session_id`, `transcript_path`, `cwd`, `hook_event_name`, and `prompt` for UserPromptSubmit). A
hook may answer `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`; the
context then reaches the model with that turn.

- `answer(raw)`: UserPromptSubmit gets the memories relevant to its `prompt`, SessionStart the
  pinned core. Nothing relevant: no output at all. It never raises and never blocks a prompt: bad
  input or a store it cannot read gives no output and one line for stderr.
- `plan_setup(...)`: the changes to `.claude/settings.json` (the two hooks) and `.mcp.json` (the
  MCP server) that install memtui, merged into what is there (`files.write_change` writes them).

Only the standard library, orjson and the store are imported: this is the per-turn path.
"""

from __future__ import annotations

import os

from . import core_block, host_lang, open_stores, turn_block
from .files import FileChange, SetupError, read_existing

TYPE_CHECKING = False  # typing itself is an import the turn does not need
if TYPE_CHECKING:
    from typing import Any

    from ...limits import Limits

__all__ = ["EVENTS", "ACTOR", "HookAnswer", "answer", "plan_setup", "user_settings_path", "is_memtui_hook"]

EVENTS = ("UserPromptSubmit", "SessionStart")
ACTOR = "claude-code"
HOOK_WORDS = ("hook", "claude-code")
SERVER = "memtui"
HOOK_TIMEOUT = 15  # seconds Claude Code waits for the hook; the hook itself gives up sooner (--timeout)


class HookAnswer(tuple):
    """What the hook prints: `output` on stdout (empty: nothing), `warning` as one stderr line."""

    __slots__ = ()

    def __new__(cls, output: bytes, warning: str | None) -> HookAnswer:
        return tuple.__new__(cls, (output, warning))

    @property
    def output(self) -> bytes:
        return self[0]

    @property
    def warning(self) -> str | None:
        return self[1]


def answer(raw: bytes, dir: str | None = None, lang: str | None = None, limits: Limits | None = None) -> HookAnswer:
    """The hook's answer to one event read from stdin. Never raises."""
    import orjson

    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return HookAnswer(b"", "the hook input on stdin is not JSON")
    if not isinstance(payload, dict):
        return HookAnswer(b"", "the hook input on stdin is not a JSON object")
    event = payload.get("hook_event_name")
    if event not in EVENTS:
        shown = repr(event) if isinstance(event, str) else "no hook_event_name"
        return HookAnswer(b"", f"memtui answers UserPromptSubmit and SessionStart, not {shown}")
    cwd = payload.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not os.path.isdir(cwd)):
        return HookAnswer(b"", f"the hook's cwd {cwd!r} is not a folder")
    prompt = payload.get("prompt")
    if event == "UserPromptSubmit" and not isinstance(prompt, str):
        return HookAnswer(b"", "the UserPromptSubmit input has no prompt")
    try:
        # the project of `cwd` (a .memtui/ at or above it) beside the global store, read as one
        store = open_stores(dir, cwd=cwd, actor=ACTOR, lang=host_lang(lang), limits=limits)
        block = turn_block(store, prompt) if event == "UserPromptSubmit" else core_block(store)
        warning = _store_warning(store)
    except Exception as error:  # the block never costs the user their prompt
        return HookAnswer(b"", _one_line(f"no memories this turn: {error or type(error).__name__}"))
    if not block:
        return HookAnswer(b"", warning)
    output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": block}}
    return HookAnswer(orjson.dumps(output) + b"\n", warning)


def _store_warning(store) -> str | None:
    """What the store has to say after this turn (a corrupt file set aside, an unreadable one, a
    log it could not write), as one line; None when all is well."""
    from ...store.health import recent_warnings

    said = []
    for _scope, one in getattr(store, "stores", None) or [(None, store)]:  # each store of the scopes
        said += [w.text for w in recent_warnings(one.storage)]
        log = one._injection_log
        if log is not None:
            log.flush()  # written now, so a failure is told while the hook can still say it
            failure = log.take_error()
            if failure:
                said.append(failure)
    return _one_line("; ".join(said)) if said else None


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------- setup


def user_settings_path(environ: dict[str, str] | None = None) -> str:
    """Claude Code's user settings: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`."""
    environ = os.environ if environ is None else environ
    base = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(base, "settings.json")


def is_memtui_hook(command: object) -> bool:
    """Whether a hook command is memtui's (whatever path or options it was written with)."""
    if not isinstance(command, str):
        return False
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for i in range(len(words) - 1):
        if (words[i], words[i + 1]) == HOOK_WORDS:
            head = words[:i]
            return any(os.path.basename(word) in ("memtui", "memtui.exe") or word == "memtui" for word in head)
    return False


def plan_setup(launcher: list[str], project: str | None, settings_path: str | None = None,
               extra_args: list[str] | None = None) -> list[FileChange]:
    """The files to write so Claude Code runs memtui: the two hooks in `settings_path` (by default
    `<project>/.claude/settings.json`), and with a `project` the MCP server in `<project>/.mcp.json`.

    `launcher` is how to run memtui (`["memtui"]`, a full path, or `[python, "-m", "memtui"]`);
    `extra_args` go after the command (`--dir DIR`). What is there is kept: other keys, other
    hooks and servers. A memtui hook or server already there is updated in place, so a second
    run changes nothing. Raises SetupError for a file it will not touch."""
    import shlex

    extra = list(extra_args or [])
    if settings_path is None:
        if project is None:
            raise ValueError("plan_setup needs a project or a settings path")
        settings_path = os.path.join(project, ".claude", "settings.json")
    hook_command = shlex.join([*launcher, *HOOK_WORDS, *extra])
    changes = [_change(settings_path, lambda data: _with_hooks(data, settings_path, hook_command))]
    if project is not None:
        mcp_path = os.path.join(project, ".mcp.json")
        server = {"type": "stdio", "command": launcher[0], "args": [*launcher[1:], "mcp", *extra]}
        changes.append(_change(mcp_path, lambda data: _with_server(data, mcp_path, server)))
    return changes


def _change(path: str, merge) -> FileChange:
    before = read_existing(path)
    if before is None:
        data: dict[str, Any] = {}
    else:
        import json

        try:
            data = json.loads(before.decode("utf-8"))
        except UnicodeDecodeError:
            raise SetupError(f"{path} is not UTF-8 text; fix it or move it aside (nothing was written)") from None
        except json.JSONDecodeError as error:
            raise SetupError(f"{path} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
                             f"fix it or move it aside (nothing was written)") from None
        if not isinstance(data, dict):
            raise SetupError(f"{path} holds a JSON {type(data).__name__}, not an object; fix it or move it aside "
                             f"(nothing was written)")
    merged = merge(_copy(data))
    if before is not None and merged == data:
        return FileChange(path, before, before)  # the same settings: the file stays byte for byte
    return FileChange(path, before, _dump(merged))


def _copy(data: Any) -> Any:
    import json

    return json.loads(json.dumps(data))


def _dump(data: dict) -> bytes:
    import json

    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _with_hooks(data: dict, path: str, command: str) -> dict:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SetupError(f"{path}: \"hooks\" is not an object; fix it or move the file aside (nothing was written)")
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SetupError(f"{path}: hooks.{event} is not a list; fix it or move the file aside "
                             f"(nothing was written)")
        ours = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
        found = False
        for group in groups:
            for i, hook in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
                if isinstance(hook, dict) and is_memtui_hook(hook.get("command")):
                    if not found:
                        group["hooks"][i] = {**hook, **ours}
                    found = True
        if not found:
            # no matcher: SessionStart fires on startup, resume, clear and compaction alike, and each
            # of them starts a context that needs the pinned core
            groups.append({"hooks": [ours]})
    return data


def _with_server(data: dict, path: str, server: dict) -> dict:
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise SetupError(f"{path}: \"mcpServers\" is not an object; fix it or move the file aside "
                         f"(nothing was written)")
    current = servers.get(SERVER)
    servers[SERVER] = {**current, **server} if isinstance(current, dict) else server
    return data
