"""Import and export: memtui JSON/JSONL, the original 4-field memory.json, Hermes Agent's
MEMORY.md / USER.md, and a readable Markdown export.

Formats (see docs/memory-over-time.md):
- `json`: the memory.json format itself, `{"entries": [...]}`; lossless (ids, flags, sources,
  timestamps and unknown fields). The original 4-field entries (kind, text, source, ts) are read
  by the same parser.
- `jsonl`: one entry object per line; lossless.
- `hermes`: Hermes Agent's folder of two files, entries separated by a line holding only the section
  sign (U+00A7), possibly multi-line. USER.md is the user's profile: the preferences. MEMORY.md is
  what the agent learned: facts, lessons and corrections, a lesson marked `Lesson: ` and a
  correction `Correction: ` (`经验：`, `纠正：` for a Chinese text) so that each comes back as what it
  was. Read back, a USER.md entry is a preference; a MEMORY.md entry is what its mark says (the mark
  is taken off), else a lesson when it reads as advice for next time (`LESSON_WORDS`), else a fact.
  `--kind` overrides the rule. An export writes both files into a folder; an import reads a
  folder's two files, or one of them.
- `markdown`: grouped by kind, for people to read (export only).

An import is one locked transaction through the normal write rules: secrets redacted, text cut to
`max_text`, the threat scan (hostile text is imported blocked), dedupe against the store and the
file itself (a duplicate refreshes the entry it matches), eviction refused unless confirmed. Every
entry written gets one `import` audit event naming the file. A plan is computed first and is exactly
what `--dry-run` prints; a bad file is refused whole, with one line, before anything is written.
An entry without a time (no `ts`, or one of 0 or less) is dated by the import, and the plan says so.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import orjson

from ..errors import InvalidInput, MemtuiError
from ..ranking.keywords import clean_keywords
from ..kinds import Kind
from ..store.writing import clean_source
from ..store.records import Corrupt, Document, Record, _check, approval_flag, dumps, new_id, parse_document
from ..safety.threat_model_semantic import batch as semantic_batch
from ..safety.redaction import redact_entry
from ..safety.threats import scan_text, threat_flags

__all__ = ["EXPORT_FORMATS", "HERMES_FILES", "IMPORT_FORMATS", "HermesExport", "ImportPlan", "ImportRefused",
           "detect_format", "export_bytes", "hermes_target", "import_file", "parse_import", "plan_import",
           "write_export", "write_hermes"]

EXPORT_FORMATS = ("json", "jsonl", "hermes", "markdown")
IMPORT_FORMATS = ("json", "jsonl", "hermes")
HERMES_SEPARATOR = "\n\u00a7\n"
# Hermes Agent's two files, and the kinds each holds: USER.md the user's profile, MEMORY.md the rest.
HERMES_FILES = {"MEMORY.md": (Kind.FACT, Kind.LESSON, Kind.CORRECTION), "USER.md": (Kind.PREFERENCE,)}
# Lessons and corrections in MEMORY.md are marked so that an import gives them back their kind (Hermes
# files have no kinds; a fact is unmarked). The marks an import reads, and the ones an export writes:
_MARK = re.compile(r"\A(lessons?|corrections?|经验|教训|纠正)[ \t]*[:：][ \t]*", re.IGNORECASE)
_MARKED = {"lesson": Kind.LESSON, "lessons": Kind.LESSON, "经验": Kind.LESSON, "教训": Kind.LESSON,
           "correction": Kind.CORRECTION, "corrections": Kind.CORRECTION, "纠正": Kind.CORRECTION}
_MARKS = {Kind.LESSON: ("Lesson: ", "经验："), Kind.CORRECTION: ("Correction: ", "纠正：")}
# An import holds at most this many times max_entries: more would mostly evict itself, and
# deduping every entry against all before it grows with the square of the count (2,000: ~1.6 s).
MAX_IMPORT_FACTOR = 4
_HERMES_SPLIT = re.compile(r"\n[ \t]*\u00a7[ \t]*(?:\n|\Z)|\A[ \t]*\u00a7[ \t]*\n")
# A MEMORY.md entry that reads as advice for next time is a lesson; anything else is a fact.
LESSON_WORDS = re.compile(
    r"\b(lessons?|learn(ed|t)|always|never|don'?t|do not|avoid|should|must|make sure|remember to|next time|"
    r"instead of|prefer to|be careful|watch out|turned out|mistake)\b"
    r"|教训|下次|不要|别再|避免|应该|必须|务必|记得|注意|以后|踩坑|切记",
    re.IGNORECASE,
)


class ImportRefused(MemtuiError):
    """The file cannot be imported as asked (bad format, too big, would evict): nothing was written."""


class Item:
    """One entry read from an import file, before the write rules."""

    __slots__ = ("line", "kind", "text", "source", "ts", "id", "flags", "extra", "file")

    def __init__(self, line: int, kind: Kind, text: str, source: str = "", ts: int | None = None,
                 id: str | None = None, flags: list[str] | None = None, extra: dict | None = None,
                 file: str | None = None) -> None:
        self.file = file  # the file of a folder it came from (a Hermes folder's MEMORY.md or USER.md)
        self.line = line
        self.kind = kind
        self.text = text
        self.source = source
        self.ts = ts
        self.id = id
        self.flags = flags or []
        self.extra = extra or {}


# ---------------------------------------------------------------------------- reading a file


def detect_format(data: bytes, name: str = "") -> str:
    """The format of an import file, from its content (and, for Hermes files, its name)."""
    text = data.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"{"):
        first = text.split(b"\n", 1)[0].strip()
        try:
            value = orjson.loads(first)
        except orjson.JSONDecodeError:
            return "json"
        return "json" if isinstance(value, dict) and "entries" in value else "jsonl"
    if text.startswith(b"["):
        return "json"
    base = os.path.basename(name).lower()
    if base in ("memory.md", "user.md") or re.search(rb"\n[ \t]*\xc2\xa7[ \t]*\r?\n", data):
        return "hermes"
    if base.endswith(".md"):
        return "hermes"  # a Markdown file without separators: one Hermes entry
    raise ImportRefused(f"cannot tell the format of {name or 'the file'}: pass --format json, jsonl or hermes")


def _is_json(data: bytes) -> bool:
    try:
        orjson.loads(data.lstrip(b"\xef\xbb\xbf"))
    except orjson.JSONDecodeError:
        return all(_is_json(line) for line in data.splitlines() if line.strip()) if b"\n" in data.strip() else False
    return True


def hermes_kind(text: str, file_name: str) -> Kind:
    """USER.md holds preferences; MEMORY.md (or any other) what an entry's mark says, else lessons
    when they read as advice, else facts."""
    if os.path.basename(file_name).lower() == "user.md":
        return Kind.PREFERENCE
    mark = _MARK.match(text)
    if mark is not None:
        return _MARKED[mark.group(1).lower()]
    return Kind.LESSON if LESSON_WORDS.search(text) else Kind.FACT


def _hermes_entry(record_text: str, kind: Kind) -> str:
    """An entry as MEMORY.md / USER.md hold it: a lesson or a correction marked in its own language."""
    if kind not in _MARKS:
        return record_text
    from ..lang import detect_lang

    english, chinese = _MARKS[kind]
    return (chinese if detect_lang(record_text) == "zh" else english) + record_text


def parse_import(data: bytes, fmt: str | None, name: str = "", kind: Kind | None = None,
                 max_bytes: int = 5_000_000) -> tuple[str, list[Item]]:
    """The entries of an import file; `ImportRefused` (one line) when it is not what it claims."""
    where = os.path.basename(name) or "the file"
    if len(data) > max_bytes:
        raise ImportRefused(f"{where} is {len(data):,} bytes, over the import limit of {max_bytes:,}")
    fmt = fmt or detect_format(data, name)
    if fmt not in IMPORT_FORMATS:
        raise ImportRefused(f"cannot import the {fmt} format (import takes {', '.join(IMPORT_FORMATS)})")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportRefused(f"{where} is not UTF-8 text (byte {exc.start})") from None
    if fmt == "hermes":
        if text.lstrip().startswith(("{", "[")) and _is_json(data):
            raise ImportRefused(f"{where} is JSON, not a Hermes Markdown file")
        body_text = text.replace("\r\n", "\n")
        items = []
        start = 0
        for match in [*_HERMES_SPLIT.finditer(body_text), None]:
            end = match.start() if match else len(body_text)
            part = body_text[start:end]
            body = part.strip()
            if body:
                line = body_text.count("\n", 0, start + part.index(body[0])) + 1
                found = kind or hermes_kind(body, name)
                if kind is None and found is not Kind.PREFERENCE:
                    body = _MARK.sub("", body, count=1).strip() or body  # the kind carries what the mark said
                items.append(Item(line, found, body, source=f"import:{where}"))
            start = match.end() if match else end
        return fmt, items
    raws: list[tuple[int, object]] = []
    if fmt == "json":
        try:
            top = orjson.loads(data.lstrip(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError as exc:
            raise ImportRefused(f"{where} is not JSON: {str(exc).splitlines()[0]}") from None
        if isinstance(top, list):
            top = {"entries": top}
        if not isinstance(top, dict) or not isinstance(top.get("entries"), list):
            raise ImportRefused(f"{where} is not a memory file: no entries list")
        raws = list(enumerate(top["entries"], 1))
    else:
        for number, raw_line in enumerate(data.splitlines(), 1):
            if not raw_line.strip():
                continue
            try:
                raws.append((number, orjson.loads(raw_line)))
            except orjson.JSONDecodeError as exc:
                raise ImportRefused(f"{where} line {number} is not JSON: {str(exc).splitlines()[0]}") from None
    items = []
    for number, raw in raws:
        fields, error = _check(raw)
        if fields is None:
            what = "entry" if fmt == "json" else "line"
            raise ImportRefused(f"{where} {what} {number}: {error}; nothing was imported")
        # no time, or none a memory can have (0 is 1970): the import dates it (plan_import)
        ts = fields["ts"] if isinstance(raw, dict) and "ts" in raw and fields["ts"] > 0 else None
        items.append(Item(number, kind or fields["kind"], fields["text"], fields["source"], ts,
                          fields["id"], fields["flags"], fields["extra"]))
    return fmt, items


# ---------------------------------------------------------------------------- the plan


class ImportPlan:
    """What an import does, row by row: the exact content of `--dry-run`."""

    __slots__ = ("file", "format", "rows", "evicted")

    def __init__(self, file: str, fmt: str) -> None:
        self.file = file
        self.format = fmt
        self.rows: list[dict] = []
        self.evicted: list[dict] = []

    def count(self, action: str) -> int:
        return sum(1 for row in self.rows if row["action"] == action)

    @property
    def summary(self) -> str:
        parts = [f"{self.count('add')} added", f"{self.count('refresh')} refreshed"]
        for flag, label in (("truncated", "truncated"), ("blocked", "blocked"), ("redacted", "redacted")):
            n = sum(1 for row in self.rows if row[flag])
            if n:
                parts.append(f"{n} {label}")
        if self.evicted:
            parts.append(f"{len(self.evicted)} evicted")
        return f"{self.file} ({self.format}): " + ", ".join(parts)

    def as_dict(self) -> dict:
        return {"file": self.file, "format": self.format, "rows": self.rows, "evicted": self.evicted,
                "added": self.count("add"), "refreshed": self.count("refresh"),
                "truncated": sum(1 for r in self.rows if r["truncated"]),
                "blocked": sum(1 for r in self.rows if r["blocked"]),
                "redacted": sum(1 for r in self.rows if r["redacted"])}


def _cleaned_keywords(extra: dict, limits) -> dict:
    """The file's unknown fields, with `keywords` kept only as the keywords a write would store:
    a keyword holding a secret or an instruction, too long or past the cap is dropped."""
    if "keywords" not in extra:
        return extra
    extra = dict(extra)
    raw = extra.pop("keywords")
    try:
        kept, _dropped = clean_keywords(raw, limits, strict=False)
    except InvalidInput:  # not a list at all: the entry comes in without keywords
        kept = []
    if kept:
        extra["keywords"] = kept
    return extra


def plan_import(store, doc: Document, items: list[Item], file: str, fmt: str) -> tuple[ImportPlan, list[dict]]:
    """Apply `items` to `doc` by the write rules; returns the plan and the audit events."""
    from ..memory import _eviction_order, normalize

    limits = store.limits
    plan = ImportPlan(file, fmt)
    events: list[dict] = []
    now = int(time.time())
    taken = doc.ids()
    folder = file
    for item in items:
        file = f"{folder}/{item.file}" if item.file else folder  # a folder's MEMORY.md or USER.md
        # The same cleaning as every other write: control characters out, secrets redacted in the
        # text, the source and the keywords, the text cut to max_text.
        # A value found secret in one field is redacted in all of them, and a keyword holding part of
        # a secret is dropped, as a write drops it (core/safety/redaction.py).
        extra = _cleaned_keywords(item.extra, limits)
        # the source is shown to people and models too: one the scan flags is dropped, a long one cut
        raw_source, source_note = clean_source(item.source or "", limits, strict=False)
        clean, source, redacted, cut_from = store._clean_entry(item.text, raw_source, extra.get("keywords", ()))
        secrets_found = redacted.changed
        if redacted.fragments:
            kept = [k for i, k in enumerate(extra["keywords"]) if i not in redacted.fragments]
            extra = {**extra, "keywords": kept} if kept else {k: v for k, v in extra.items() if k != "keywords"}
        truncated = cut_from is not None
        if not clean:
            raise ImportRefused(f"{file} entry at line {item.line} is empty once control and invisible characters "
                                "are removed; nothing was imported")
        try:
            clean.encode("utf-8")
        except UnicodeEncodeError:
            raise ImportRefused(f"{file} entry at line {item.line} is not valid Unicode; nothing was imported") from None
        row = {"line": item.line, "kind": item.kind.value, "text": clean, "truncated": truncated,
               "redacted": bool(secrets_found), "blocked": False, "id": None, "action": "add", "duplicate_of": None,
               "undated": item.ts is None and fmt in ("json", "jsonl"), "file": item.file}
        match = store._find_duplicate(doc.records, normalize(clean))
        if match is not None:
            before = match.view()
            match.ts = max(match.ts, item.ts if item.ts is not None else now)
            if source:
                match.source = source
            row.update(action="refresh", id=match.id, kind=match.kind.value, duplicate_of=match.text, blocked=match.blocked)
            events.append({"op": "import", "id": match.id, "before": before, "after": match.view(),
                           "note": f"refreshed from {file}", "file": file})
            plan.rows.append(row)
            continue
        # flags the file carried, without an approval: a person approves again, in this store
        flags = [f for f in item.flags if f != "blocked" and not f.startswith(("approved:", "threat:"))]
        if secrets_found and "secret-redacted" not in flags:
            flags.append("secret-redacted")
        flags += threat_flags(scan_text(clean, second_opinion=True))
        entry_id = item.id if item.id and item.id not in taken else new_id(taken)
        record = Record(entry_id, item.kind, clean, source or f"import:{file}", item.ts if item.ts is not None else now,
                        flags, extra)
        taken[entry_id] = record
        doc.items.append(record)
        row.update(id=entry_id, blocked=record.blocked)
        note = f"from {file}" + (f" (cut to {limits.max_text} characters)" if truncated else "")
        if source_note:
            note += f"; {source_note}"
        events.append({"op": "import", "id": entry_id, "before": None, "after": record.view(), "note": note, "file": file})
        plan.rows.append(row)
    file = folder
    excess = len(doc.records) - limits.max_entries
    if excess > 0:
        evicted = _eviction_order(doc.records)[:excess]
        gone = {id(r) for r in evicted}
        doc.items = [item for item in doc.items if id(item) not in gone]
        for record in evicted:
            plan.evicted.append({"id": record.id, "kind": record.kind.value, "text": record.text})
            events.append({"op": "evict", "id": record.id, "before": record.view(), "after": None,
                           "note": f"store full (import of {file})"})
    return plan, events


def import_file(store, path: str | os.PathLike[str], fmt: str | None = None, *, kind: Kind | str | None = None,
                dry_run: bool = False, allow_evict: bool = False) -> ImportPlan:
    """Import a file into `store` in one locked transaction (or only plan it with `dry_run`).
    Refused whole (`ImportRefused`) when it is not the format, too big, or would evict entries
    without `allow_evict`. `path` may be another store: a postgresql:// URL or a memtui store's
    folder (its memory.json), whose entries come over as a `json` export of it would bring them."""
    parsed_kind = Kind.require(kind) if kind is not None else None
    source = _store_source(path, store.actor)
    if source is not None:
        if fmt not in (None, "json"):
            raise ImportRefused(f"{source.where} is a memtui store: it is imported as json, not {fmt}")
        file, data = source.where, export_bytes(source, "json")
        fmt, items = parse_import(data, "json", file, parsed_kind, store.limits.import_max_bytes)
        if source.location is not None:
            source.storage.close()  # the source database's connections
        path = None
    else:
        path = Path(path)
        file = path.name
    if path is None:
        pass
    elif path.is_dir():
        fmt, items = _read_hermes_folder(path, fmt, parsed_kind, store.limits.import_max_bytes)
    else:
        data = _read_import(path, store.limits.import_max_bytes)
        fmt, items = parse_import(data, fmt, file, parsed_kind, store.limits.import_max_bytes)
    if not items:
        raise ImportRefused(f"{file} holds no entries")
    most = MAX_IMPORT_FACTOR * store.limits.max_entries
    if len(items) > most:
        raise ImportRefused(f"{file} holds {len(items):,} entries, more than {most:,} ({MAX_IMPORT_FACTOR} times the "
                            f"store's limit of {store.limits.max_entries}); nothing was imported: split the file")
    # The threat scan's semantic third opinion embeds the texts together, before the lock is taken,
    # rather than one model call per entry inside it (core/safety/threat_model_semantic.py).
    with semantic_batch(store._clean_text(item.text)[0] for item in items):
        return _import_items(store, items, file, fmt, dry_run, allow_evict)


def _store_source(path: str | os.PathLike[str], actor: str):
    """The store `path` names when an import reads another store rather than a file: a database
    URL, or a folder holding a memtui memory.json (not a Hermes folder). None otherwise."""
    from ..memory import MemoryStore
    from ..store.location import parse_location

    if parse_location(path) is not None:
        return MemoryStore(os.fspath(path), actor=actor)
    folder = Path(path)
    if folder.is_dir() and (folder / "memory.json").is_file() and not any((folder / n).is_file() for n in HERMES_FILES):
        return MemoryStore(folder, actor=actor)
    return None


def _read_import(path: Path, max_bytes: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(max_bytes + 1)
    except OSError as exc:
        raise ImportRefused(f"cannot read {path}: {exc.strerror or exc}") from None


def _read_hermes_folder(folder: Path, fmt: str | None, kind: Kind | None, max_bytes: int) -> tuple[str, list[Item]]:
    """The entries of a Hermes folder's MEMORY.md and USER.md (either may be missing), each with its file."""
    if fmt not in (None, "hermes"):
        raise ImportRefused(f"{folder} is a folder: it is imported as Hermes MEMORY.md and USER.md, not {fmt}")
    items: list[Item] = []
    found = False
    for name in HERMES_FILES:
        path = folder / name
        if not path.is_file():
            continue
        found = True
        _fmt, these = parse_import(_read_import(path, max_bytes), "hermes", name, kind, max_bytes)
        for item in these:
            item.file = name
        items += these
    if not found:
        raise ImportRefused(f"{folder} is a folder without MEMORY.md or USER.md: nothing to import")
    return "hermes", items


def _import_items(store, items: list[Item], file: str, fmt: str, dry_run: bool, allow_evict: bool) -> ImportPlan:
    if dry_run:
        doc = parse_document(store.storage.load().to_bytes())  # a copy: planning changes it
        plan, _events = plan_import(store, doc, items, file, fmt)
        return plan
    from ..store.storage import Change

    def mutate(doc: Document) -> Change:
        plan, events = plan_import(store, doc, items, file, fmt)
        if plan.evicted and not allow_evict:
            raise ImportRefused(
                f"importing {file} would evict {len(plan.evicted)} entr{'y' if len(plan.evicted) == 1 else 'ies'} "
                f"(store limit {store.limits.max_entries}); nothing was imported: confirm with --yes, or see --dry-run"
            )
        return Change(events, plan)

    return store._write(mutate)  # under the lock; then the vectors the scan's batch computed are kept


# ---------------------------------------------------------------------------- export


def export_bytes(store, fmt: str = "json", kind: Kind | str | None = None, file_name: str = "") -> bytes:
    """The store (valid entries, optionally one kind) in an export format, secrets redacted."""
    if fmt not in EXPORT_FORMATS:
        raise InvalidInput(f"unknown export format {fmt!r} (one of {', '.join(EXPORT_FORMATS)})")
    want = Kind.require(kind) if kind is not None else None
    records = store.storage.load().records
    if fmt == "hermes":  # one of the two files: the kinds it holds (write_hermes writes both)
        name = "USER.md" if os.path.basename(file_name).lower() == "user.md" else "MEMORY.md"
        records = [r for r in records if r.kind in HERMES_FILES[name] and (want is None or r.kind is want)]
    elif want is not None:
        records = [r for r in records if r.kind is want]
    views = []
    for record in records:
        view = record.to_json()
        # every field an export shows, redacted as a write would (an entry another program wrote may hold one)
        redacted = redact_entry(record.text, record.source, record.keywords)
        view["text"], view["source"] = redacted.text, redacted.source
        if record.keywords:
            view["keywords"] = [k for i, k in enumerate(redacted.keywords) if i not in redacted.fragments]
        views.append(view)
    if fmt == "json":
        return dumps({"entries": views}, indent=True) + b"\n"
    if fmt == "jsonl":
        return b"".join(dumps(view) + b"\n" for view in views)
    if fmt == "hermes":
        texts = [_hermes_entry(view["text"], Kind(view["kind"])) for view in views]
        return (HERMES_SEPARATOR.join(texts) + "\n").encode("utf-8") if texts else b""
    return _markdown(views).encode("utf-8")


class HermesExport:
    """What `write_hermes` wrote: each file with the count of each kind in it, and what was left out."""

    def __init__(self, target: Path, total: int) -> None:
        self.target = target  # the folder, or the one file asked for
        self.total = total  # entries in the store
        self.files: list[tuple[Path, dict[Kind, int], int]] = []  # (path, kinds, bytes)
        self.left_out: dict[str, dict[Kind, int]] = {}  # a file not written: the kinds it would hold

    @property
    def size(self) -> int:
        return sum(size for _path, _kinds, size in self.files)

    def lines(self) -> list[str]:
        """What was written where, for a person: the folder, then one line per file."""
        out = [f"exported to {self.target} (hermes, {self.size:,} bytes, from a store of {self.total} entries):"]
        for path, kinds, _size in self.files:
            what = "the user's profile" if path.name == "USER.md" else "what the agent learned"
            out.append(f"  {path.name}: {_counted(kinds)} ({what})")
        for name, kinds in self.left_out.items():
            if kinds:
                out.append(f"  not exported: {_counted(kinds)}, which Hermes keeps in {name}; "
                           "export to a folder to write both files")
        if any(kinds.get(Kind.CORRECTION) or kinds.get(Kind.LESSON) for _path, kinds, _size in self.files):
            out.append("  lessons and corrections are marked \"Lesson: \" and \"Correction: \" in MEMORY.md, "
                       "so an import reads them back as such")
        return out


def _counted(kinds: dict[Kind, int]) -> str:
    total = sum(kinds.values())
    parts = [f"{n} {kind.value}{'s' if n != 1 else ''}" for kind, n in kinds.items() if n]
    return f"{total} entr{'y' if total == 1 else 'ies'}" + (f": {', '.join(parts)}" if parts else "")


def hermes_target(target: str | os.PathLike[str]) -> tuple[Path, str | None]:
    """Where a Hermes export goes: (folder, None), or (folder, "MEMORY.md"/"USER.md") when the path
    names one of the two files. Any other file name is an InvalidInput: Hermes keeps two files."""
    path = Path(target).expanduser()
    for name in HERMES_FILES:
        if path.name.lower() == name.lower() and not path.is_dir():
            return path.parent if str(path.parent) else Path("."), path.name
    if path.is_symlink():
        raise InvalidInput(f"{path} is a symbolic link: not written through it")
    if path.exists() and not path.is_dir():
        raise InvalidInput(f"{path} is a file; the hermes format writes a folder holding MEMORY.md and USER.md")
    if not path.exists() and path.suffix.lower() == ".md":
        raise InvalidInput(f"the hermes format writes a folder holding MEMORY.md and USER.md, not one file "
                           f"{path.name}: give -o a folder (created if missing)")
    return path, None


def write_hermes(store, target: str | os.PathLike[str], kind: Kind | str | None = None) -> HermesExport:
    """Export to a Hermes folder: USER.md the preferences, MEMORY.md the rest (`hermes_target` says
    where). A path naming one of the two files writes only that one, and the result says what
    the other would hold. `kind`: only that kind (and only the file it belongs in)."""
    folder, given = hermes_target(target)
    only = next((name for name in HERMES_FILES if given and name.lower() == given.lower()), None)
    want = Kind.require(kind) if kind is not None else None
    records = store.storage.load().records
    if not folder.exists():
        parent = folder.parent if str(folder.parent) else Path(".")
        if not parent.is_dir():
            raise InvalidInput(f"cannot write {folder}: no directory {parent}")
        try:
            os.mkdir(folder, 0o700)
        except OSError as exc:
            raise InvalidInput(f"cannot create {folder}: {exc.strerror or exc}") from None
    result = HermesExport(folder / given if given else folder, len(records))
    for name, kinds in HERMES_FILES.items():
        wanted = [k for k in kinds if want is None or k is want]
        counts = {k: sum(1 for r in records if r.kind is k) for k in wanted}
        if not wanted:
            continue
        if only is not None and name != only:
            result.left_out[name] = counts
            continue
        data = export_bytes(store, "hermes", want, file_name=name)
        path = write_export(store, data, folder / (given or name))
        result.files.append((path, counts, len(data)))
    return result


def _markdown(views: list[dict]) -> str:
    from datetime import datetime, timezone

    out = ["# Memories", ""]
    for kind in Kind:
        group = [v for v in views if v["kind"] == kind.value]
        if not group:
            continue
        out += [f"## {kind.value.capitalize()} ({len(group)})", ""]
        for view in group:
            day = datetime.fromtimestamp(view["ts"], tz=timezone.utc).strftime("%Y-%m-%d") if view["ts"] else "undated"
            text = view["text"].replace("\n", "\n  ")
            flags = f", {', '.join(view['flags'])}" if view.get("flags") else ""
            out.append(f"- {text}  \n  <small>{view['id']} · {day}{flags}</small>")
        out.append("")
    return "\n".join(out)


def write_export(store, data: bytes, target: str | os.PathLike[str]) -> Path:
    """Write an export atomically, 0600, never through a symlink."""
    path = Path(target).expanduser()
    if path.is_symlink():
        raise InvalidInput(f"{path} is a symbolic link: not written through it")
    if path.is_dir():
        raise InvalidInput(f"{path} is a directory")
    if path.exists() and not path.is_file():  # a device, a pipe: replacing it would be a disaster
        raise InvalidInput(f"{path} is not a regular file: not written")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidInput(f"cannot write {path}: no directory {parent}")
    try:
        from ..store.fileio import atomic_write

        atomic_write(path, data)
    except OSError as exc:
        raise InvalidInput(f"cannot write {path}: {exc.strerror or exc}") from None
    return path
