"""The app's own settings (today: the theme), in one small JSON file under the platform config dir.

`$MEMTUI_CONFIG_DIR/settings.json` when that is set, else `<user config dir>/memtui/settings.json`.
Written atomically (temp file, fsync, rename, fsync of the directory) with 0600 permissions; a
symlink in its place is refused; an unreadable file is moved aside (`settings.json.corrupt`) and
reported, never silently replaced. The memory store never depends on it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Settings", "default_path"]


def default_path() -> Path:
    configured = os.environ.get("MEMTUI_CONFIG_DIR")
    if configured:
        return Path(configured).expanduser() / "settings.json"
    import platformdirs

    return Path(platformdirs.user_config_dir("memtui")) / "settings.json"


@dataclass
class Settings:
    """What the app remembers between runs. `save()` does nothing when `writable` is false (--demo)."""

    path: Path
    writable: bool = True
    values: dict = field(default_factory=dict)
    problem: str | None = None  # one line for the person when the file could not be read

    @classmethod
    def load(cls, path: Path, writable: bool = True) -> Settings:
        settings = cls(path, writable)
        from memtui_core.store.fileio import NotRegularFile, SymlinkRefused, read_file

        try:
            raw = read_file(path)  # never through a symlink, never blocked on a FIFO
        except FileNotFoundError:
            return settings
        except SymlinkRefused:
            settings.problem = f"{path} is a symlink; settings are not read or written through it"
            settings.writable = False
            return settings
        except NotRegularFile as exc:
            settings.problem = f"{path} is {exc.what}, not a regular file; settings are not read or written there"
            settings.writable = False
            return settings
        except OSError as exc:
            settings.problem = f"cannot read {path}: {exc.strerror or exc}"
            return settings
        try:
            values = json.loads(raw)
            if not isinstance(values, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            aside = path.with_name(path.name + ".corrupt")
            try:
                os.replace(path, aside)
                settings.problem = f"{path} was unreadable ({exc}); kept it as {aside.name} and started afresh"
            except OSError:
                settings.problem = f"{path} is unreadable ({exc}); it is left as it is"
                settings.writable = False
            return settings
        settings.values = values
        return settings

    @property
    def theme(self) -> str | None:
        value = self.values.get("theme")
        return value if isinstance(value, str) else None

    def set(self, key: str, value: object) -> None:
        if self.values.get(key) == value:
            return
        self.values[key] = value
        self.save()

    def save(self) -> None:
        if not self.writable:
            return
        data = (json.dumps(self.values, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
        _write_atomic(self.path, data)


def _write_atomic(target: Path, data: bytes) -> None:
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if target.is_symlink():
        raise OSError(f"{target} is a symlink; not writing through it")
    from memtui_core.store.fileio import atomic_write

    atomic_write(target, data)
