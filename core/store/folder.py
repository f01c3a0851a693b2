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

__all__ = ["KEY_NAME", "OPTIONAL_FILES", "StoreFolder", "special_message"]

KEY_NAME = "approval.key"  # the store's secret for approvals (0600, made on the first approve)
# Store files a write does not need: the derived index, the injection log (and its older part) and
# the probes. One of them that is not a regular file only turns its own feature off (reported).
OPTIONAL_FILES = (FILE_NAME + ".index", "injections.jsonl", "injections.jsonl.1", "probes.json")


class StoreFolder:
    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.path = directory / FILE_NAME
        self.lock_path = directory / (FILE_NAME + ".lock")
        self.audit_path = directory / AUDIT_NAME
        self.backups_dir = directory / "backups"
        self.key_path = directory / KEY_NAME
        self._key: bytes | None = None
        self._checked: list[tuple[Path, str, bool, bool]] | None = None  # see `odd_files`

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
        return self.odd_files()[0]

    def special_files(self) -> list[tuple[Path, str]]:
        """Store files that are there but are neither regular files nor symbolic links (a FIFO, a
        socket, a device, a folder; a `backups` that is not a folder), each with what it is:
        memtui opens none of them. Essential ones (`essential_paths`) stop every write; the
        others (the derived index, the injection log, the probes) only the feature that uses them."""
        return self.odd_files()[1]

    def odd_files(self) -> tuple[list[Path], list[tuple[Path, str]]]:
        """(`symlinks()`, `special_files()`), from one lstat of each store file (every command
        checks them on its way out, `memtui inject` included: the paths are made once)."""
        import stat

        if self._checked is None:
            # (path, its str, whether a link there is refused here, whether it must be a folder)
            self._checked = [(p, str(p), p.name not in OPTIONAL_FILES and p != self.key_path, p == self.backups_dir)
                             for p in self._regular_paths() + (self.backups_dir,)]
        links: list[Path] = []
        special: list[tuple[Path, str]] = []
        lstat, is_link, is_reg, is_dir = os.lstat, stat.S_ISLNK, stat.S_ISREG, stat.S_ISDIR
        for path, name, link_refused, folder in self._checked:
            try:
                mode = lstat(name).st_mode
            except OSError:
                continue
            if is_link(mode):
                if link_refused:  # a link in place of the others is refused where they are opened
                    links.append(path)
            elif not (is_dir(mode) if folder else is_reg(mode)):
                from .fileio import file_type

                special.append((path, file_type(mode)))
        return links, special

    def _regular_paths(self) -> tuple[Path, ...]:
        """Every file of a store that must be a regular file when it is there, essential ones first."""
        return self.essential_paths() + tuple(self.dir / name for name in OPTIONAL_FILES)

    def essential_paths(self) -> tuple[Path, ...]:
        """The files a write reads or writes: memory.json, the audit log, the lock, the approval key."""
        return (self.path, self.audit_path, self.audit_path.with_name(AUDIT_NAME + ".1"), self.lock_path,
                self.key_path)

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
        links, special = self.odd_files()
        if links:
            raise StoreUnwritable(
                f"refusing to use {links[0]}: it is a symlink, and memtui never writes through one; "
                f"replace it with a real file or folder")
        essential = set(self.essential_paths()) | {self.backups_dir}
        for path, what in special:
            if path in essential:
                raise StoreUnwritable(special_message(path, what))
        self.ensure_dir()
        # Created here, not by the lock library, so a failure says why instead of waiting, and a lock
        # file that is not a regular file (a FIFO, say) is refused before anyone locks it.
        from .fileio import NotRegularFile, open_regular

        try:
            fd = open_regular(self.lock_path, os.O_RDWR | os.O_CREAT)
        except NotRegularFile as exc:
            raise StoreUnwritable(special_message(self.lock_path, exc.what)) from None
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


def special_message(path: Path, what: str) -> str:
    """The one line that refuses a store file that is not a regular file (or a backups/ that is not a folder)."""
    should = "a folder" if path.name == "backups" else "a regular file"
    return (f"refusing to use {path}: it is {what}, not {should}, and memtui never opens one "
            f"(it could block forever); remove it or move it away")


def _listing(directory: Path) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return []


def _begins_like_a_memory_file(data: bytes) -> bool:
    """An object whose first key is an `entries` list: memtui's file, even when cut short or damaged."""
    return _MEMORY_FILE_START.match(data[:4096]) is not None


_MEMORY_FILE_START = lazy_pattern(rb'(?:\xef\xbb\xbf)?\s*\{\s*"entries"\s*:\s*\[')
