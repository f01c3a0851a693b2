"""The files setup commands write into a host's own configuration: planned first (shown as a
diff, or only shown with --dry-run), then written atomically through the store's file IO, each
replaced file kept beside it as `<name>.memtui-backup`."""

from __future__ import annotations

import os

__all__ = ["SetupError", "FileChange", "read_existing", "write_change", "check_writable", "diff_text",
           "BACKUP_SUFFIX"]

BACKUP_SUFFIX = ".memtui-backup"


class SetupError(Exception):
    """A settings file memtui will not change (malformed, a symlink, unreadable): one line, nothing written."""


class FileChange:
    """One file setup would write: its bytes before (None: no file yet) and after."""

    __slots__ = ("path", "before", "after")

    def __init__(self, path: str, before: bytes | None, after: bytes) -> None:
        self.path, self.before, self.after = path, before, after

    def __repr__(self) -> str:
        return f"FileChange({self.path!r}, changed={self.changed})"

    @property
    def changed(self) -> bool:
        return self.before != self.after


def read_existing(path: str) -> bytes | None:
    """The bytes of a file setup would change; None when there is none. A symlink or an unreadable
    file raises SetupError: memtui does not guess what lies behind it."""
    from pathlib import Path

    from ...store.fileio import SymlinkRefused, read_file

    try:
        return read_file(Path(path))
    except FileNotFoundError:
        return None
    except SymlinkRefused:
        raise SetupError(f"{path} is a symlink: memtui does not write through one; add memtui to the file it "
                         f"points to by hand (see docs/agents.md)") from None
    except OSError as error:
        raise SetupError(f"cannot read {path}: {error.strerror or error}") from None


def write_change(change: FileChange) -> str | None:
    """Write one planned file atomically, keeping the file it replaces as `<name>.memtui-backup`
    beside it (returned). The folder is made when missing; an existing file keeps its mode."""
    from pathlib import Path

    from ...store.fileio import atomic_write

    target = Path(change.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    mode = None
    if change.before is not None:
        try:
            mode = os.stat(target, follow_symlinks=False).st_mode & 0o777
        except OSError:
            mode = None
        backup = str(target) + BACKUP_SUFFIX
        atomic_write(Path(backup), change.before)
    atomic_write(target, change.after)
    if mode is not None:
        os.chmod(target, mode)
    return backup


def check_writable(changes: list[FileChange]) -> None:
    """Raise SetupError unless every file that would change can be written, so a failure leaves
    nothing half done. Tried for real (a file made and removed in the folder that would get the
    new file, or in the nearest folder that exists): permission bits do not tell a read-only
    mount, nor anything for root."""
    import tempfile

    for change in changes:
        if not change.changed:
            continue
        folder = os.path.dirname(os.path.abspath(change.path))
        while not os.path.isdir(folder):
            if os.path.lexists(folder):
                raise SetupError(f"cannot write {change.path}: {folder} is not a folder (nothing was written)")
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        try:
            fd, probe = tempfile.mkstemp(prefix=".memtui-probe-", dir=folder)
        except OSError as error:
            raise SetupError(f"cannot write {change.path}: {error.strerror or error} in {folder} "
                             f"(nothing was written)") from None
        os.close(fd)
        os.unlink(probe)


def diff_text(change: FileChange) -> str:
    """The change as a unified diff (a new file: every line added)."""
    import difflib

    def lines(data: bytes | None) -> list[str]:
        return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)

    before_name = change.path if change.before is not None else "/dev/null"
    out = "".join(difflib.unified_diff(lines(change.before), lines(change.after), before_name, change.path))
    return out if out.endswith("\n") or not out else out + "\n"
