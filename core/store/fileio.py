"""Atomic file IO: every file the store writes goes through here.

A write is temp file (0600, created exclusively, never through a symlink) + fsync + os.replace +
fsync of the directory, so a reader sees the old bytes or the new ones, never half of each.
"""

from __future__ import annotations

import errno
import os
from _thread import get_ident  # threading itself is an import a turn does not need
from datetime import datetime, timezone
from pathlib import Path

from ..lazy_re import lazy_pattern

__all__ = [
    "NotRegularFile", "TEMP_RE", "atomic_write", "digest", "free_name", "fsync_dir", "now", "open_regular",
    "read_file", "refuse_special", "remove_stale_temps", "stamp_time", "utc_stamp", "write_all",
]

TEMP_RE = lazy_pattern(r"\..+\.\d+\.\d+\.[0-9a-f]{8}\.tmp\Z")
STAMP_FORMAT = "%Y%m%dT%H%M%S.%fZ"


def now() -> float:
    """The clock every stamp and retention decision reads (one place to fake it in tests)."""
    import time

    return time.time()


def utc_stamp(at: float | None = None) -> str:
    return datetime.fromtimestamp(now() if at is None else at, tz=timezone.utc).strftime(STAMP_FORMAT)


def stamp_time(stamp: str) -> float:
    return datetime.strptime(stamp, STAMP_FORMAT).replace(tzinfo=timezone.utc).timestamp()


def digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()[:16]


class SymlinkRefused(OSError):
    """A store file is a symbolic link: memtui never reads, writes or prunes through one."""


class NotRegularFile(OSError):
    """A store file is a FIFO, a socket, a device or a folder: memtui opens none of them (a FIFO
    would block the open, or the read, until another process wrote to it; forever, usually)."""

    what = "not a regular file"  # what it is instead: "a FIFO (named pipe)", "a socket", ...


# O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer (the file
# type is then checked and the descriptor closed). It changes nothing for a regular file.
# O_NOCTTY: a terminal device named like a store file never becomes our controlling terminal.
_SAFE_FLAGS = (os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0))


def file_type(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    import stat

    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def not_regular(path: Path | str, mode: int) -> NotRegularFile:
    what = file_type(mode)
    error = NotRegularFile(errno.EINVAL, f"it is {what}, not a regular file; memtui never opens one", str(path))
    error.what = what
    return error


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o600) -> int:
    """A descriptor of `path`, which must be a regular file: opened without blocking (a FIFO),
    without following a symbolic link (SymlinkRefused) and without taking a terminal; anything
    else is refused with NotRegularFile before a byte is read or written."""
    try:
        fd = os.open(path, flags | _SAFE_FLAGS, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkRefused(errno.ELOOP, f"refusing to follow a symlink: {path}", str(path)) from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):  # a FIFO without a reader opened for writing; a folder
            try:
                st = os.lstat(path)
            except OSError:
                raise exc from None
            raise not_regular(path, st.st_mode) from None
        raise
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    import stat

    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise not_regular(path, st.st_mode)
    return fd


def refuse_special(path: Path | str) -> None:
    """NotRegularFile if `path` exists and is neither a regular file nor a symbolic link (links are
    refused on their own, with their own message); checked without opening it."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        raise not_regular(path, st.st_mode)


def read_file(path: Path) -> bytes:
    """The bytes of `path`, a regular file (`open_regular`: never a symbolic link or a FIFO)."""
    fd = open_regular(path)
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def read_fd(fd: int) -> bytes:
    """Everything left to read from `fd`. A regular file comes in one read of its size (joining
    chunks would hold the file twice at the peak: 90 MiB more for a store of 100,000 entries)."""
    try:
        size = os.fstat(fd).st_size
    except OSError:
        size = 0
    chunks = []
    while True:
        chunk = os.read(fd, max(size + 1, 1 << 16) if not chunks else 1 << 20)
        if not chunk:
            return b"".join(chunks)  # one chunk: the same bytes object, not a copy
        chunks.append(chunk)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte. A write that makes no progress is an error, not a reason to spin."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "the write made no progress (0 bytes written)")
        view = view[written:]


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NONBLOCK)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def free_name(directory: Path, name: str) -> Path:
    """`name`, or `name-1`, `name-2`, ... : never an existing file (a rename would replace it)."""
    candidate, n = directory / name, 0
    while os.path.lexists(candidate):
        n += 1
        candidate = directory / f"{name}-{n}"
    return candidate


def atomic_write(target: Path, data: bytes, sync_dir: bool = True) -> None:
    """Replace `target` by `data` atomically, with mode 0600."""
    import secrets

    # unique per call: threads of one process and dead writers' leftovers never collide
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{get_ident()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _SAFE_FLAGS, 0o600)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if sync_dir:
        fsync_dir(target.parent)


def remove_stale_temps(*directories: Path) -> None:
    """Called under the lock: any temporary file now present belongs to a writer that died."""
    for directory in directories:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if TEMP_RE.match(name):
                try:
                    os.unlink(directory / name)
                except OSError:
                    pass
