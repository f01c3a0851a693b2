"""The injection log: one line in `<dir>/injections.jsonl` for every block handed to an agent.

It answers "why was this memory in my prompt on Tuesday?" and "which memories are ever used?".

Writing is on the per-turn path, so it is lean and it never fails the injection:
- the call only keeps the injection in memory; it is formatted and written within a second (by
  the next call, a background flusher in long-lived processes, a read, or at exit);
- no lock: the line is written with one `write()` on an `O_APPEND` descriptor (opened with
  `O_NOFOLLOW`, created 0600), so lines of concurrent writers never interleave;
- the query is redacted with the threat scan's secret redaction before it is written, cut to
  `injection_query_chars`, or replaced by its hash alone when `injection_queries` is 0;
- the entries are logged by id, rank, score, characters used and a hash of the text as it was
  injected. The text itself is not copied: "what was injected then" is looked up in today's
  store, the audit log and the backups by that hash (see `explain_line`);
- any error (read-only directory, full disk, a symlink in place of the log) is kept in `error`
  and reported once; the block is returned all the same.

Retention: the log rotates to `injections.jsonl.1` (replacing the previous one) when it passes half
of `injection_max_bytes`, or when its first line is older than half of `injection_days`; readers
skip lines older than `injection_days`. So the two files together stay under the size cap and, as
long as injections keep coming, hold about `injection_days` of history.

Turned off with `Limits(injection_log=0)` or `MEMTUI_INJECTION_LOG=off`; `MEMTUI_INJECTION_LOG=hash`
keeps only the queries' hashes.
"""

from __future__ import annotations

import os
import time
from _thread import allocate_lock  # the lock alone: `threading` is imported once a flusher starts

import orjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["LOG_NAME", "InjectionLog", "Replay", "explain_line", "log_for", "replay", "text_hash", "usage"]

LOG_NAME = "injections.jsonl"
# health warning codes (memtui_core.health_codes holds the store's own)
LOG_UNWRITTEN = "injection-log-unwritten"  # the last injection could not be logged
LOG_CORRUPT = "injection-log-corrupt"  # lines of the log were skipped
ROTATED_NAME = LOG_NAME + ".1"
DAY = 86400.0
_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT  # opened with fileio.open_regular: no link, no FIFO
FLUSH_AFTER = 1.0  # seconds an injection may wait in memory before it is written
_FIRST_AT = b'{"at":'  # every line starts with its time, so a rotation check reads 32 bytes


# Logs holding unwritten injections, flushed at exit and, once a process has injected more than
# once (a long-lived caller), every FLUSH_AFTER seconds by one daemon thread. Only logs with
# something pending are referenced, so stores made and dropped per turn are not kept alive.
_pending: set[InjectionLog] = set()
_pending_lock = allocate_lock()
_process = {"injections": 0, "atexit": False, "flusher": False}


def _pending_add(log: InjectionLog) -> None:
    with _pending_lock:
        _pending.add(log)
        _process["injections"] += 1
        register = not _process["atexit"]
        start = _process["injections"] >= 2 and not _process["flusher"]
        _process["atexit"] = True
        _process["flusher"] = _process["flusher"] or start
    if register:
        import atexit

        atexit.register(flush_pending)
    if start:
        import threading

        threading.Thread(target=_flusher, name="memtui-injection-log", daemon=True).start()


def flush_pending() -> None:
    """Write every buffered injection of this process."""
    with _pending_lock:
        logs = list(_pending)
        _pending.clear()
    # oldest first, so that stores sharing one log write their lines in the order they injected
    logs.sort(key=_oldest)
    for log in logs:
        log.flush()


def _after_fork_in_child() -> None:
    """A forked child starts clean: the parent writes what it had buffered, and the child gets
    its own lock and, when it injects more than once, its own flusher thread."""
    global _pending_lock
    _pending_lock = allocate_lock()
    for log in _pending:
        log._buffer = []
        log._lock = allocate_lock()
    _pending.clear()
    _process.update(injections=0, flusher=False)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _oldest(log: InjectionLog) -> float:
    buffer = log._buffer  # another thread may empty it meanwhile: read it once
    try:
        return buffer[0][0]
    except IndexError:
        return 0.0


def _flusher() -> None:
    while True:
        time.sleep(FLUSH_AFTER)
        try:
            flush_pending()
        except Exception:  # flush() keeps its own errors; nothing may end this thread
            pass


def _sha256(data: bytes) -> str:
    try:  # the built-in SHA-256: `hashlib` would load OpenSSL first, milliseconds of every turn
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # Python 3.12 and later name it _sha2; or an interpreter without it
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return _sha256(text.encode("utf-8", "surrogatepass"))[:12]


def entry_lines(block: str) -> list[str]:
    """The entry lines of a rendered block, in order: the pinned core's, then the retrieved ones in
    rank order (start, header, a blank line, the entries -- with the core, each section under its
    label, a blank line between them -- a blank line, end). An entry's line is one line that
    starts `- [`; a label or the header never does."""
    if not block:
        return []
    return [line for line in block.split("\n")[2:-2] if line.startswith("- [")]


def query_hash(query: str) -> str:
    return _sha256(query.encode("utf-8", "surrogatepass"))[:16]


def mode_from_env(limits) -> tuple[bool, bool]:
    """(log at all, keep the query text): the limits, narrowed by MEMTUI_INJECTION_LOG."""
    enabled, keep_queries = bool(limits.injection_log), bool(limits.injection_queries)
    env = os.environ.get("MEMTUI_INJECTION_LOG", "").strip().lower()
    if env in ("off", "0", "no", "false"):
        enabled = False
    elif env == "hash":
        keep_queries = False
    return enabled, keep_queries


def log_for(storage, limits, actor: str = "api") -> InjectionLog:
    """The injection log of the store `storage` reads: a folder's `injections.jsonl`, or the one a
    storage of another kind keeps (a database's table: PgStorage.injection_log)."""
    own = getattr(storage, "injection_log", None)
    return own(limits, actor) if own is not None else InjectionLog(storage.dir, limits, actor)


class InjectionLog:
    """Appends and reads `<dir>/injections.jsonl`. One per store; cheap to create."""

    def __init__(self, directory, limits, actor: str = "api") -> None:
        self.path = os.path.join(os.fspath(directory), LOG_NAME)
        self.rotated = os.path.join(os.fspath(directory), ROTATED_NAME)
        self.limits = limits
        self.actor = actor
        self.enabled, self.keep_queries = mode_from_env(limits)
        self.error: str | None = None  # why the last append failed (None after a success)
        self.reported = False  # whether `error` was already told to the person (once per process)
        self._first_at: tuple[int, float] | None = None  # (inode, time of its first line)
        self._cache: tuple[tuple, list[dict], list[str]] | None = None
        self._buffer: list[tuple] = []  # injections not yet written
        self._lock = allocate_lock()

    # ------------------------------------------------------------------ writing (the per-turn path)

    def record(self, query: object, hits: list, block: str, lang: str = "zh", profile: str | None = None,
               core: Sequence = ()) -> None:
        """Log one injection: `hits` are (record, score) in rank order, `block` what was returned,
        `core` the records of the pinned core the block carries (logged under `core`).
        Never raises. The line is formatted and written off the caller's path: kept in memory and
        written within a second (by the next call, a background flusher, `flush()`, a read, or
        at exit), so a warm `retrieve_block` pays for a tuple, not for a disk write."""
        if not self.enabled:
            return
        try:
            item = (time.time(), query, lang, profile, [(r.id, score, r.text) for r, score in hits], block,
                    [(r.id, r.text) for r in core])
            with self._lock:
                self._buffer.append(item)
                first = self._buffer[0][0]
            _pending_add(self)
            if item[0] - first >= FLUSH_AFTER:
                self.flush()
        except Exception as exc:  # a bug here must still not cost the agent its memories
            self.error = f"injection log {self.path} not written: {type(exc).__name__}: {exc}"

    def flush(self) -> None:
        """Write what is buffered, at once (`_write`). Never raises; a failure is kept in `error`."""
        with self._lock:
            items, self._buffer = self._buffer, []
        if items:
            self._write(items)

    def _write(self, items: list) -> None:
        """The buffered injections, as one append to the file."""
        try:
            self._append(b"".join(self._line(*item) for item in items))
        except OSError as exc:
            if exc.errno == 2 and not os.path.isdir(os.path.dirname(self.path)):
                return  # no store directory yet: nothing was stored, so nothing is logged
            self.error = f"injection log {self.path} not written: {exc.strerror or exc}"
            from .fileio import NotRegularFile

            if isinstance(exc, NotRegularFile):
                self.reported = True  # health says so on every command (special-file)
        except Exception as exc:
            self.error = f"injection log {self.path} not written: {type(exc).__name__}: {exc}"
        else:
            self.error = None

    def _line(self, at: float, query: object, lang: str, profile: str, hits: list, block: str,
              core: list = ()) -> bytes:
        from ..safety.threats import redact

        text = query if isinstance(query, str) else ""
        text, _found = redact(text)
        cap = self.limits.injection_query_chars
        if profile is None:  # the ranking profile of the store's limits, named when written, not per turn
            profile = getattr(self.limits, "profile_name", "default")
        out: dict = {"at": round(at, 6), "actor": self.actor, "profile": profile, "lang": lang}
        if self.keep_queries:
            out["q"] = text[:cap]
            if len(text) > cap:
                out["cut"] = True
                out["qh"] = query_hash(text)
        else:
            out["qh"] = query_hash(text)
        lines = entry_lines(block)
        if core:  # each entry of the pinned core as [id, characters of its line, hash of the text]
            out["core"] = [[entry_id, len(line) + 1, text_hash(text)] for (entry_id, text), line in zip(core, lines)]
            lines = lines[len(core):]
        # each hit as [id, rank, score, characters of its line, hash of the text injected]
        out["hits"] = [
            [entry_id, rank, round(score, 4), len(lines[rank - 1]) + 1, text_hash(text)]
            for rank, (entry_id, score, text) in enumerate(hits[: len(lines)], 1)
        ]
        return orjson.dumps(out) + b"\n"

    def _append(self, line: bytes) -> None:
        from .fileio import open_regular

        fd = open_regular(self.path, _OPEN_FLAGS)
        try:
            st = os.fstat(fd)
            if st.st_size and self._due(fd, st):
                os.close(fd)
                fd = -1
                self._rotate(st.st_ino)
                fd = open_regular(self.path, _OPEN_FLAGS)
            os.write(fd, line)  # one write on O_APPEND: never interleaved with another writer's line
        finally:
            if fd >= 0:
                os.close(fd)

    def _due(self, fd: int, st: os.stat_result) -> bool:
        if st.st_size > self.limits.injection_max_bytes // 2:
            return True
        first = self._first_at
        if first is None or first[0] != st.st_ino:
            head = os.pread(fd, 32, 0)
            at = 0.0
            if head.startswith(_FIRST_AT):
                try:
                    at = float(head[len(_FIRST_AT):].split(b",", 1)[0])
                except ValueError:
                    at = 0.0
            first = self._first_at = (st.st_ino, at)
        return first[1] < time.time() - self.limits.injection_days * DAY / 2

    def _rotate(self, inode: int) -> None:
        try:
            if os.stat(self.path, follow_symlinks=False).st_ino == inode:  # not already rotated by another
                os.replace(self.path, self.rotated)
        except FileNotFoundError:
            pass
        self._first_at = None

    def take_error(self) -> str | None:
        """The append error, the first time it is asked for in this process; then None."""
        if self.error and not self.reported:
            self.reported = True
            return self.error
        return None

    # ------------------------------------------------------------------ reading

    def read(self, since: float | None = None) -> tuple[list[dict], list[str]]:
        """The logged injections within the retention window (and after `since`), oldest first,
        each with `n`, its number in the log; and a note per corrupt line skipped."""
        self.flush()
        key = []
        for path in (self.rotated, self.path):
            try:
                st = os.stat(path, follow_symlinks=False)
                key.append((st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                key.append(None)
        cached = self._cache
        if cached is None or cached[0] != tuple(key):
            lines, skipped = self._read_files()
            self._cache = cached = (tuple(key), lines, skipped)
        oldest = time.time() - self.limits.injection_days * DAY
        if since is not None:
            oldest = max(oldest, since)
        return [line for line in cached[1] if line["at"] >= oldest], list(cached[2])

    def _read_files(self) -> tuple[list[dict], list[str]]:
        lines: list[dict] = []
        skipped: list[str] = []
        from .fileio import open_regular

        for path in (self.rotated, self.path):
            try:
                fd = open_regular(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                skipped.append(f"{os.path.basename(path)}: cannot read ({exc.strerror or exc})")
                continue
            try:
                with os.fdopen(fd, "rb") as fh:
                    data = fh.read()
            except OSError as exc:
                skipped.append(f"{os.path.basename(path)}: cannot read ({exc.strerror or exc})")
                continue
            for number, raw in enumerate(data.splitlines(), 1):
                if not raw.strip():
                    continue
                try:
                    line = _normalise(orjson.loads(raw))
                except (orjson.JSONDecodeError, ValueError) as exc:
                    skipped.append(f"{os.path.basename(path)} line {number}: {str(exc).splitlines()[0]}")
                    continue
                lines.append(line)
        lines.sort(key=lambda line: line["at"])
        for n, line in enumerate(lines, 1):
            line["n"] = n
        return lines, skipped


_HIT_FIELDS = ("id", "rank", "score", "chars", "th")


def _normalise(line: object) -> dict:
    """A log line as readers use it (hits as dicts, `qh` always present); ValueError if corrupt."""
    if not isinstance(line, dict):
        raise ValueError("not an object")
    at = line.get("at")
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        raise ValueError("no time")
    for key in ("actor", "profile", "q", "qh", "lang"):
        if key in line and not isinstance(line[key], str):
            raise ValueError(f"{key} is not a string")
    hits = line.get("hits")
    if not isinstance(hits, list):
        raise ValueError("hits is not a list")
    out = []
    for hit in hits:
        if not (isinstance(hit, list) and len(hit) == 5 and isinstance(hit[0], str)
                and isinstance(hit[1], int) and isinstance(hit[2], (int, float)) and isinstance(hit[3], int)):
            raise ValueError("a hit is not [id, rank, score, chars, text hash]")
        out.append(dict(zip(_HIT_FIELDS, hit)))
    line["hits"] = out
    core = line.get("core", [])
    if not (isinstance(core, list) and all(isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                                           and isinstance(item[1], int) for item in core)):
        raise ValueError("core is not a list of [id, chars, text hash]")
    line["core"] = [dict(zip(("id", "chars", "th"), item)) for item in core]
    if "qh" not in line:
        line["qh"] = query_hash(line.get("q", ""))
    line.setdefault("actor", "unknown")
    line.setdefault("profile", "default")
    return line


def usage(lines: list[dict]) -> dict[str, tuple[int, float]]:
    """Per entry id: (how many logged injections included it, when it was last injected)."""
    out: dict[str, tuple[int, float]] = {}
    for line in lines:
        for hit in (*line.get("core", ()), *line["hits"]):  # an entry of the pinned core was in the prompt too
            count, _last = out.get(hit["id"], (0, 0.0))
            out[hit["id"]] = (count + 1, line["at"])
    return out


# ---------------------------------------------------------------------------- explain as it was


def explain_line(store, line: dict) -> list[dict]:
    """What one logged injection put into the prompt: per hit its rank, score, characters, and
    the text as it was, found by its hash in today's store, the audit log or the backups.
    `status`: unchanged, changed (the entry's text is different today) or deleted; `text` is None
    when the text is no longer anywhere (its id and hash are all that is left)."""
    current = {record.id: record for record in store.storage.load().records}
    wanted = {(hit["id"], hit.get("th")) for hit in line["hits"]}
    found: dict[tuple[str, str | None], dict] = {}
    for record in current.values():
        key = (record.id, text_hash(record.text))
        if key in wanted:
            found[key] = {"kind": record.kind.value, "text": record.text}
    missing = wanted - set(found)
    if missing:
        _look_in_audit(store, missing, found)
        missing = wanted - set(found)
    if missing:
        _look_in_backups(store, missing, found)
    rows = []
    for hit in line["hits"]:
        key = (hit["id"], hit.get("th"))
        then = found.get(key)
        record = current.get(hit["id"])
        if record is None:
            status = "deleted"
        elif text_hash(record.text) == hit.get("th"):
            status = "unchanged"
        else:
            status = "changed"
        rows.append({
            "id": hit["id"], "rank": hit["rank"], "score": hit.get("score"), "chars": hit.get("chars"),
            "kind": then["kind"] if then else (record.kind.value if record else None),
            "text": then["text"] if then else None, "status": status,
            "today": record.text if record is not None and status == "changed" else None,
        })
    return rows


def _look_in_audit(store, missing: set, found: dict) -> None:
    ids = {entry_id for entry_id, _h in missing}
    for event in reversed(store.storage.audit_lines()):
        for side in ("after", "before"):
            view = event.get(side)
            if not isinstance(view, dict) or view.get("id") not in ids or not isinstance(view.get("text"), str):
                continue
            key = (view["id"], text_hash(view["text"]))
            if key in missing and key not in found:
                found[key] = {"kind": str(view.get("kind")), "text": view["text"]}


def _look_in_backups(store, missing: set, found: dict) -> None:
    from .records import Corrupt, parse_document

    storage = store.storage
    for name in storage.backup_names():
        if not (missing - set(found)):
            return
        try:
            doc = parse_document(storage.backups.read(name))
        except (OSError, Corrupt):
            continue
        for record in doc.records:
            key = (record.id, text_hash(record.text))
            if key in missing and key not in found:
                found[key] = {"kind": record.kind.value, "text": record.text}


class Replay:
    """A logged query run against today's store: what it injected then and would inject now."""

    __slots__ = ("line", "then", "now", "kept", "dropped", "added", "note")

    def __init__(self, line: dict, then: list[dict], now: list[dict], note: str | None) -> None:
        self.line = line
        self.then = then
        self.now = now
        then_ids = [row["id"] for row in then]
        now_ids = [row["id"] for row in now]
        self.kept = [i for i in then_ids if i in now_ids]
        self.dropped = [i for i in then_ids if i not in now_ids]
        self.added = [i for i in now_ids if i not in then_ids]
        self.note = note

    @property
    def same(self) -> bool:
        return [row["id"] for row in self.then] == [row["id"] for row in self.now]

    def as_dict(self) -> dict:
        return {"n": self.line.get("n"), "at": self.line["at"], "query": self.line.get("q"),
                "then": self.then, "now": self.now, "kept": self.kept, "dropped": self.dropped,
                "added": self.added, "same": self.same, "note": self.note}


def replay(store, line: dict) -> Replay:
    """Run the logged query against today's store, without logging it again. A query kept only as
    its hash cannot be replayed (`InvalidInput`); a query cut in the log is replayed as cut."""
    from ..errors import InvalidInput
    from ..ranking.inject import render_lines

    query = line.get("q")
    if not isinstance(query, str):
        raise InvalidInput("this injection was logged without its query (hash only): it cannot be replayed")
    hits = store._top(query, None)
    rendered = render_lines([record for record, _ in hits], store.limits.char_budget, line.get("lang") or "zh")
    lines = entry_lines(rendered.block)
    now = [
        {"id": record.id, "rank": rank, "score": round(score, 4), "chars": len(lines[rank - 1]) + 1,
         "kind": record.kind.value, "text": record.text}
        for rank, (record, score) in enumerate(hits[: len(lines)], 1)
    ]
    note = "the query was cut in the log; replayed as logged" if line.get("cut") else None
    return Replay(line, explain_line(store, line), now, note)
