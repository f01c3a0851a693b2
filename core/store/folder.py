"""The store folder and its boundaries: what counts as a memtui store, which files must not be
symbolic links, creating the folder (0700), the lock file, and the store's approval key.

Every check here runs before anything is created, so a folder that is not a store, or that holds
a symlink where a store file should be, is never changed. docs/storage.md states the rules.
"""

from __future__ import annotations

import os
from pathlib import Path

from .audit_log import AUDIT_NAME
from ..errors import NotAStore, StoreUnwritable
from .fileio import fsync_dir, read_file, write_all
from ..lazy_re import lazy_pattern
from .records import Corrupt, parse_document
from .recovery import BROKEN_PREFIX, FILE_NAME

__all__ = ["KEY_NAME", "StoreFolder"]

KEY_NAME = "approval.key"  # the store's secret for approvals (0600, made on the first approve)


class StoreFolder:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.path = directory / FILE_NAME
        self.lock_path = directory / (FILE_NAME + ".lock")
        self.audit_path = directory / AUDIT_NAME
        self.backups_dir = directory / "backups"
        self.key_path = directory / KEY_NAME
        self._key: bytes | None = None

    def _traces(self) -> list[Path]:
        """What only a memtui store holds besides memory.json: its audit log, backups, lock file,
        or a memory file it set aside."""
        found = [p for p in (self.audit_path, self.backups_dir, self.lock_path) if os.path.lexists(p)]
        if not found and any(name.startswith(BROKEN_PREFIX) for name in _listing(self.dir)):
            found.append(self.dir)
        return found

    def foreign_reason(self, data: bytes | None = None, error: str | None = None) -> str | None:
        """Why the folder is not a memtui store, or None if it is one (or holds no memory.json yet).

        A folder is a memtui store when it has no memory.json (a new store), when it holds a memtui
        audit log, backups folder, lock file or quarantined memory file (every write leaves some),
        or when its memory.json has memtui's shape: an object with an `entries` list -- or, if it
        does not parse, one that begins as such an object (a memtui file cut short). Any other
        memory.json belongs to another program: memtui reads nothing from it and never creates,
        renames or changes anything in that folder."""
        if self._traces():
            return None
        if data is None:
            try:
                data = read_file(self.path)
            except FileNotFoundError:
                return None
            except OSError:
                return None  # unreadable (or a symlink): reported on its own, not as a foreign file
        if error is None:
            try:
                parse_document(data)
            except Corrupt as exc:
                error = str(exc)
            else:
                return None
        if _begins_like_a_memory_file(data):
            return None
        return (f"{self.dir} is not a memtui store: its memory.json is not a memtui memory file ({error}) and "
                f"there is no audit log or backups folder; nothing was read or changed there")

    def symlinks(self) -> list[Path]:
        """Store files that are symbolic links: memtui refuses to read, write or prune through them."""
        paths = (self.path, self.audit_path, self.audit_path.with_name(AUDIT_NAME + ".1"), self.backups_dir,
                 self.lock_path)
        return [p for p in paths if os.path.islink(p)]

    def ensure_dir(self) -> None:
        """Create the store directory and any missing parent with mode 0700 whatever the umask,
        and take group and other permissions away from an existing store directory we own."""
        missing = []
        directory = self.dir
        while not os.path.lexists(directory) and directory.parent != directory:
            missing.append(directory)
            directory = directory.parent
        try:
            for path in reversed(missing):
                os.mkdir(path, 0o700)
                os.chmod(path, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise StoreUnwritable(f"cannot create store directory {self.dir}: {exc.strerror or exc}") from None
        if not self.dir.is_dir():
            raise StoreUnwritable(f"store path {self.dir} is not a directory")
        if not os.access(self.dir, os.W_OK | os.X_OK):
            raise StoreUnwritable(f"store directory {self.dir} is not writable")
        try:
            st = os.stat(self.dir)
            if st.st_mode & 0o077 and st.st_uid == os.geteuid():
                os.chmod(self.dir, 0o700)
        except OSError:
            pass  # a store we cannot tighten still works; health reports its permissions

    def prepare_write(self) -> None:
        """Refuse, before anything is created, a folder that is not a store or holds a symlink."""
        reason = self.foreign_reason()
        if reason is not None:
            raise NotAStore(reason.replace("nothing was read or changed there", "nothing was written"))
        links = self.symlinks()
        if links:
            raise StoreUnwritable(
                f"refusing to use {links[0]}: it is a symlink, and memtui never writes through one; "
                f"replace it with a real file or folder")
        self.ensure_dir()
        try:  # created here, not by the lock library, so a failure says why instead of waiting
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as exc:
            raise StoreUnwritable(f"cannot create the lock file {self.lock_path}: {exc.strerror or exc}") from None
        os.close(fd)

    def approval_key(self, create: bool = False) -> bytes | None:
        """The store's approval key; with `create` (under the lock, by the approve path only), made
        on first use: 32 random bytes, mode 0600, never through a symlink."""
        if self._key is not None:
            return self._key
        try:
            self._key = read_file(self.key_path) or None
        except OSError:
            self._key = None
        if self._key is None and create:
            import secrets

            fd = os.open(self.key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                write_all(fd, secrets.token_bytes(32))
                os.fsync(fd)
            finally:
                os.close(fd)
            fsync_dir(self.dir)
            return self.approval_key()
        return self._key


def _listing(directory: Path) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def _begins_like_a_memory_file(data: bytes) -> bool:
    """An object whose first key is an `entries` list: memtui's file, even when cut short or damaged."""
    return _MEMORY_FILE_START.match(data[:4096]) is not None


_MEMORY_FILE_START = lazy_pattern(rb'(?:\xef\xbb\xbf)?\s*\{\s*"entries"\s*:\s*\[')
