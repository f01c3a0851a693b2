"""Hermes Agent: memtui as a memory provider (hermes-agent's `agent.memory_provider.MemoryProvider`).

    memtui setup hermes            # installs $HERMES_HOME/plugins/memtui/, which imports this class
    hermes config set memory.provider memtui

What Hermes asks of a provider, and what memtui answers:

- `system_prompt_block()`: the pinned core (the memories always in context), once per session.
- `prefetch(query)`: before each turn, the memories relevant to the message ("" when none).
- `get_tool_schemas()` / `handle_tool_call()`: `memory_save` and `memory_search` (with
  `destructive: true` in the config also `memory_update` and `memory_forget`); every answer is a
  JSON string, `{"result": ...}` or `{"error": ...}`.
- `on_memory_write(...)`: what Hermes's built-in memory tool adds, replaces or removes is mirrored
  into the profile's store (the user profile as preferences, the agent's notes as facts), so a
  person curates one store. The built-in memory is the profile's, not a project's: so is its mirror.
- Scopes: run inside a project (a `.memtui/` at or above Hermes's folder), a turn reads that
  project's store beside the profile's (which is the global one), and `memory_save` takes `scope`;
  inside a git repository with no project store yet it takes `scope` too (a project write makes
  `.memtui/` at the git root, as the CLI's does).
- `sync_turn(...)`: nothing. memtui keeps what the agent or the built-in memory chose to keep; it
  does not file every turn, and nothing slow runs after a turn.

The store: `plugins.memtui.dir` in `$HERMES_HOME/config.yaml` when set, else
`<hermes_home>/memtui/<agent_identity>`, so each Hermes profile has its own. Writes are skipped in
contexts other than the primary agent (subagents, cron), as Hermes asks.

hermes-agent is imported only here, and only if installed; without it the class is a plain object
with the same methods, usable by any host that calls them.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from . import core_block, host_lang, open_store, open_stores, turn_block

try:  # the real base class when hermes-agent is installed, so its loader and manager accept the provider
    from agent.memory_provider import MemoryProvider
except ImportError:
    MemoryProvider = object  # type: ignore[assignment,misc]

__all__ = ["NAME", "ACTOR", "MemtuiMemoryProvider", "store_dir", "plugin_files", "PLUGIN_INIT", "hermes_home",
           "plan_plugin", "plan_config", "with_memory_provider", "selected_provider"]

NAME = "memtui"
ACTOR = "hermes"
SOURCE = "hermes"
# Hermes's built-in memory writes to two targets: the user profile (USER.md) and the agent's notes
TARGET_KINDS = {"user": "preference", "memory": "fact"}
_SAFE_NAME = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"


def store_dir(hermes_home: str | os.PathLike[str], agent_identity: str | None = None) -> Path:
    """Where a Hermes profile keeps its memtui store by default: `<hermes_home>/memtui/<identity>`."""
    identity = (agent_identity or "default").strip() or "default"
    if identity in (".", "..") or any(ch not in _SAFE_NAME for ch in identity):
        import hashlib

        identity = "id-" + hashlib.sha256(identity.encode("utf-8", "replace")).hexdigest()[:16]
    return Path(hermes_home).expanduser() / NAME / identity


def _hermes_home(kwargs: dict[str, Any]) -> str:
    return str(kwargs.get("hermes_home") or hermes_home())


def hermes_home(given: str | os.PathLike[str] | None = None) -> Path:
    """The Hermes home: `given`, else `$HERMES_HOME`, else `~/.hermes` (as hermes-agent decides it)."""
    return Path(given or os.environ.get("HERMES_HOME") or "~/.hermes").expanduser()


def _cwd() -> str | None:
    """The folder Hermes was started in: the project its turns are about."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _config(hermes_home: str) -> dict[str, Any]:
    """`plugins.memtui` of `$HERMES_HOME/config.yaml` ({} when absent or unreadable)."""
    path = Path(hermes_home) / "config.yaml"
    try:
        import yaml  # hermes-agent depends on PyYAML

        with open(path, encoding="utf-8-sig") as file:
            data = yaml.safe_load(file) or {}
    except Exception:
        return {}
    section = data.get("plugins", {}) if isinstance(data, dict) else {}
    section = section.get(NAME, {}) if isinstance(section, dict) else {}
    return section if isinstance(section, dict) else {}


def _expand(value: str, hermes_home: str) -> str:
    for name in ("${HERMES_HOME}", "$HERMES_HOME"):
        value = value.replace(name, hermes_home)
    return os.path.expanduser(value)


def _opened_at(store, directory) -> bool:
    """Whether `store` is the one at `directory` (a folder's Path, or a database URL)."""
    if store is None:
        return False
    if isinstance(directory, str):
        from ...store.location import parse_location

        found = parse_location(directory)
        return store.location is not None and found is not None and (
            (found.conninfo, found.store) == (store.location.conninfo, store.location.store))
    return store.location is None and Path(store.dir) == directory


class MemtuiMemoryProvider(MemoryProvider):  # type: ignore[misc,valid-type]
    """memtui behind Hermes Agent's memory-provider interface. `dir`, `lang` and `destructive`
    override the config; Hermes itself builds it with no arguments."""

    name = NAME  # a plain attribute satisfies the abstract property

    def __init__(self, dir: str | os.PathLike[str] | None = None, lang: str | None = None,
                 destructive: bool | None = None) -> None:
        self._dir = dir
        self._lang = lang
        self._destructive = destructive
        self._store = None
        self._scoped = None  # the project store (when Hermes runs inside one) and the profile's, read as one
        self._writes = True
        self._session_id = ""
        self._lock = threading.RLock()  # Hermes calls from its turn, a prefetch thread and a sync worker

    # ------------------------------------------------------------------ lifecycle

    def is_available(self) -> bool:
        return True  # a local folder: nothing to connect to

    def initialize(self, session_id: str = "", **kwargs: Any) -> None:
        """Open the store for this session. Called again (a new session, a second agent in the
        same process), it keeps the store already open when the folder is the same."""
        hermes_home = _hermes_home(kwargs)
        config = _config(hermes_home)
        configured = self._dir if self._dir is not None else config.get("dir")
        from ...store.location import is_database

        if isinstance(configured, str) and is_database(configured.strip()):
            directory = configured.strip()  # a database store: the URL as it is (no Path: it would fold `//`)
        elif isinstance(configured, str) and configured.strip():
            directory = Path(_expand(configured, hermes_home))
        elif isinstance(configured, os.PathLike):
            directory = Path(configured)
        else:
            directory = store_dir(hermes_home, kwargs.get("agent_identity"))
        lang = self._lang if self._lang is not None else config.get("lang")
        lang = host_lang(lang if lang in ("zh", "en", "auto") else None)
        if self._destructive is None:
            self._destructive = config.get("destructive") is True
        with self._lock:
            if not _opened_at(self._store, directory):
                self._store = open_store(directory, actor=ACTOR, lang=lang)
            # the project Hermes works in (a .memtui/ at or above its folder) beside the profile's
            # store; found again on each initialise, the stores already open kept
            self._scoped = self._stores_for(_cwd(), lang)
            self._session_id = session_id
            self._writes = kwargs.get("agent_context", "primary") in ("primary", None, "")

    def _stores_for(self, cwd: str | None, lang: str | None):
        """The Scoped pair for `cwd`: the project store there (the one open already when it is the
        same folder) and the profile's store as the global one. A cwd that is gone: the profile's alone."""
        from ...scopes import ScopeError, Scoped

        try:
            found = open_stores(None, cwd=cwd, actor=ACTOR, lang=lang, global_store=self._store)
        except ScopeError:
            return Scoped([("global", self._store)], None)
        old = self._scoped
        if old is not None and old.project is not None and found.project is not None and Path(
                old.project.dir) == Path(found.project.dir):
            found.stores[0] = ("project", old.project)
        return found

    @property
    def scoped(self):
        """The stores a turn reads (the project's, then the profile's), initialising when needed."""
        if self._scoped is None:
            self.initialize("")
        return self._scoped

    @property
    def store(self):
        """The store this provider opened (initialising with the defaults when Hermes has not)."""
        if self._store is None:
            self.initialize("")
        return self._store

    def shutdown(self) -> None:
        stores = [store for _scope, store in self._scoped.stores] if self._scoped is not None else [self._store]
        for store in stores:
            log = getattr(store, "_injection_log", None)
            if log is not None:
                try:
                    log.flush()
                except Exception:
                    pass

    # ------------------------------------------------------------------ context

    def system_prompt_block(self) -> str:
        with self._lock:
            return core_block(self.scoped)

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        if not isinstance(query, str) or not query.strip():
            return ""
        with self._lock:
            return turn_block(self.scoped, query)

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        return None  # a prefetch costs milliseconds: nothing to warm up

    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "",
                  messages: list[dict[str, Any]] | None = None) -> None:
        return None  # nothing slow after a turn: what is kept was chosen by a tool or the built-in memory

    # ------------------------------------------------------------------ tools

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        from ..tools import tool_defs

        if self._store is None:
            self.initialize("")
        from ...scopes import offers_scopes

        # `scope` where there is a project store, or where a project write would make one (a git repository)
        tools = tool_defs(self.store.limits, destructive=bool(self._destructive) and self._writes,
                          scopes=offers_scopes(self.scoped))
        if not self._writes:
            tools = [tool for tool in tools if tool.read_only]
        return [{"name": tool.name, "description": tool.description, "parameters": tool.input_schema()}
                for tool in tools]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """A JSON string: `{"result": text}`, or `{"error": text}` for a failure."""
        from ..tools import SEARCH_TOOL, call_tool

        if not self._writes and tool_name != SEARCH_TOOL:
            return json.dumps({"error": f"{tool_name} is not offered in this context (memory is read-only here)"},
                              ensure_ascii=False)
        with self._lock:
            result = call_tool(tool_name, args, self.scoped, destructive=bool(self._destructive), source=SOURCE)
        return json.dumps({"error" if result.is_error else "result": result.text}, ensure_ascii=False)

    # ------------------------------------------------------------------ the built-in memory

    def on_memory_write(self, action: str, target: str, content: str,
                        metadata: dict[str, Any] | None = None) -> None:
        """Mirror a write of Hermes's built-in memory tool: `add` remembers the text; `replace`
        changes the one mirrored entry holding `old_text` (or remembers the new text when none
        or several do); `remove` deletes that one entry, and nothing when it is not found."""
        if not self._writes:
            return
        kind = TARGET_KINDS.get(target, "fact")
        old_text = (metadata or {}).get("old_text")
        with self._lock:
            store = self.store
            if action == "add" and isinstance(content, str) and content.strip():
                store.remember(kind, content, source=SOURCE)
            elif action in ("replace", "remove"):
                entry = _mirrored(store, old_text)
                if action == "remove":
                    if entry is not None:
                        store.delete(entry.id)
                elif isinstance(content, str) and content.strip():
                    if entry is not None:
                        store.update(entry.id, text=content)
                    else:
                        store.remember(kind, content, source=SOURCE)

    # ------------------------------------------------------------------ Hermes's setup and backups

    def get_config_schema(self) -> list[dict[str, Any]]:
        return [
            {"key": "dir", "description": "memtui store folder (default: $HERMES_HOME/memtui/<profile>)",
             "required": False},
            {"key": "lang", "description": "language of the memory block: zh, en or auto", "required": False,
             "choices": ["zh", "en", "auto"], "default": "auto"},
            {"key": "destructive", "description": "also offer memory_update and memory_forget", "required": False,
             "default": False},
        ]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Write `values` under `plugins.memtui` in `<hermes_home>/config.yaml`, keeping the rest."""
        import yaml

        from ...store.fileio import atomic_write

        path = Path(hermes_home) / "config.yaml"
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8-sig")) or {}
        except FileNotFoundError:
            data = {}
        if not isinstance(data, dict):
            raise ValueError(f"{path} does not hold a mapping")
        plugins = data.setdefault("plugins", {})
        if not isinstance(plugins, dict):
            raise ValueError(f"{path}: plugins is not a mapping")
        section = plugins.setdefault(NAME, {})
        if not isinstance(section, dict):
            raise ValueError(f"{path}: plugins.{NAME} is not a mapping")
        section.update({key: value for key, value in values.items() if key in ("dir", "lang", "destructive")})
        atomic_write(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode("utf-8"))

    def backup_paths(self) -> list[str]:
        """The store, when it lives outside HERMES_HOME (`hermes backup` copies HERMES_HOME itself)."""
        hermes_home = Path(_hermes_home({})).resolve()
        if self._store is not None and self._store.location is not None:
            return []  # a database store: backed up with the database, not by `hermes backup`
        directory = Path(self._store.dir) if self._store is not None else None
        if directory is None:
            configured = self._dir if self._dir is not None else _config(str(hermes_home)).get("dir")
            if not isinstance(configured, (str, os.PathLike)) or not str(configured).strip():
                return []
            directory = Path(_expand(str(configured), str(hermes_home)))
        try:
            directory.resolve().relative_to(hermes_home)
            return []
        except ValueError:
            return [str(directory)]


def _mirrored(store, old_text: object):
    """The one entry mirrored from the built-in memory whose text holds `old_text`; None when no
    entry or more than one does (a guess could change the wrong memory)."""
    if not isinstance(old_text, str) or not old_text.strip():
        return None
    needle = " ".join(old_text.split())
    found = [entry for entry in store.entries()
             if entry.source == SOURCE and needle in " ".join(entry.text.split())]
    return found[0] if len(found) == 1 else None


# ---------------------------------------------------------------------------- the plugin folder

PLUGIN_INIT = '''\
"""memtui's memory provider for Hermes Agent, installed by `memtui setup hermes`.

The provider is memtui_core.agents.hosts.hermes.MemtuiMemoryProvider (a MemoryProvider); memtui must
be installed in the Python that runs Hermes.
"""

from memtui_core.agents.hosts.hermes import MemtuiMemoryProvider


def register(ctx):
    ctx.register_memory_provider(MemtuiMemoryProvider())
'''

PLUGIN_YAML = '''\
name: memtui
version: 1
description: "memtui: long-term memory a person can look after (preferences, corrections, lessons, facts)"
'''


def plugin_files() -> dict[str, bytes]:
    """The files of `$HERMES_HOME/plugins/memtui/`, by name."""
    return {"__init__.py": PLUGIN_INIT.encode("utf-8"), "plugin.yaml": PLUGIN_YAML.encode("utf-8")}


def plan_plugin(home: str | os.PathLike[str]):
    """The plugin folder's files as changes: `<home>/plugins/memtui/__init__.py` and `plugin.yaml`,
    where hermes-agent's loader looks for a user memory provider named memtui."""
    from .files import FileChange, read_existing

    folder = Path(home) / "plugins" / NAME
    return [FileChange(str(folder / name), read_existing(str(folder / name)), data)
            for name, data in plugin_files().items()]


def plan_config(home: str | os.PathLike[str]):
    """`<home>/config.yaml` with `memory.provider: memtui`, the rest of the file as it was."""
    from .files import FileChange, SetupError, read_existing

    path = str(Path(home) / "config.yaml")
    before = read_existing(path)
    try:
        text = "" if before is None else before.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SetupError(f"{path} is not UTF-8 text; fix it or move it aside (nothing was written)") from None
    after = with_memory_provider(text, path)
    return FileChange(path, before, before if before is not None and after == text else after.encode("utf-8"))


_TOP_MEMORY = re.compile(r"""^(["']?)memory\1[ \t]*:(.*)$""")
_CHILD_PROVIDER = re.compile(r"""^(["']?)provider\1[ \t]*:(.*)$""")


def selected_provider(text: str) -> str | None:
    """The `memory.provider` a config.yaml's text selects, read with the same rules as the edit."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _TOP_MEMORY.match(line):
            for child in lines[i + 1:]:
                if child.strip() and not child.lstrip().startswith("#"):
                    if not child.startswith((" ", "\t")):
                        break
                    found = _CHILD_PROVIDER.match(child.strip())
                    if found:
                        return found.group(2).split("#", 1)[0].strip().strip("'\"") or None
    return None


def with_memory_provider(text: str, path: str = "config.yaml") -> str:
    """`text` (a config.yaml) with `memory.provider: memtui`, edited line by line so comments and
    the order of everything else stay. A layout it cannot edit safely (tabs, flow style, several
    documents, a quoted or inline `memory`) raises SetupError naming the command that can."""
    from .files import SetupError

    def refuse(why: str) -> SetupError:
        return SetupError(f"{path}: {why}; set it with `hermes config set memory.provider memtui` "
                          f"(nothing was written)")

    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if body[:len(body) - len(body.lstrip(" \t"))].count("\t"):
            raise refuse("it is indented with tabs")
        if body.strip() == "---" and any(l.strip() and not l.lstrip().startswith("#") for l in lines[:number]):
            raise refuse("it holds more than one YAML document")
    for i, line in enumerate(lines):
        top = _TOP_MEMORY.match(line.rstrip("\r\n"))
        if not top:
            continue
        if top.group(1):
            raise refuse("its memory key is quoted")
        if top.group(2).split("#", 1)[0].strip():
            raise refuse("its memory section is written on one line")
        indent = None
        provider_at = None
        j = i + 1
        while j < len(lines):
            body = lines[j].rstrip("\r\n")
            if body.strip() and not body.lstrip().startswith("#"):
                depth = len(body) - len(body.lstrip(" "))
                if depth == 0:
                    break
                indent = depth if indent is None else indent
                if depth == indent and _CHILD_PROVIDER.match(body.strip()):
                    if provider_at is not None:
                        raise refuse("memory.provider is there twice")
                    provider_at = j
                    value = _CHILD_PROVIDER.match(body.strip()).group(2).split("#", 1)[0].strip()
                    if not value or value[0] in "{[|>&*!":
                        raise refuse("memory.provider is not a plain value")
            j += 1
        newline = "\r\n" if line.endswith("\r\n") else "\n"
        if provider_at is not None:
            lines[provider_at] = " " * (indent or 2) + "provider: " + NAME + newline
        else:
            if not line.endswith(("\n", "\r")):
                lines[i] = line + newline
            lines.insert(i + 1, " " * (indent or 2) + "provider: " + NAME + newline)
        return _checked("".join(lines), text, refuse)
    prefix = text if not text or text.endswith("\n") else text + "\n"
    return _checked(prefix + "memory:\n  provider: " + NAME + "\n", text, refuse)


def _checked(after: str, before: str, refuse) -> str:
    """When PyYAML is at hand, prove the edit: the new file reads as the old one with
    memory.provider set, and nothing else changed."""
    try:
        import yaml
    except ImportError:
        return after
    try:
        old = yaml.safe_load(before) if before.strip() else {}
        new = yaml.safe_load(after)
    except yaml.YAMLError as error:
        raise refuse(f"it is not valid YAML ({' '.join(str(error).split())[:120]})") from None
    if old is None:
        old = {}
    if not isinstance(old, dict):
        raise refuse("it does not hold a mapping")
    memory = old.get("memory")
    expected = {**old, "memory": {**(memory if isinstance(memory, dict) else {}), "provider": NAME}}
    if new != expected:
        raise refuse("an edit by lines would change more than memory.provider")
    return after
