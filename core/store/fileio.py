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
    "TEMP_RE", "atomic_write", "digest", "free_name", "fsync_dir", "now", "remove_stale_temps",
    "stamp_time", "utc_stamp", "write_all",
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


def read_file(path: Path) -> bytes:
    """The bytes of `path`, refusing a symbolic link (O_NOFOLLOW)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkRefused(errno.ELOOP, f"refusing to follow a symlink: {path}", str(path)) from None
        raise
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
        fd = os.open(directory, os.O_RDONLY)
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
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
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
