"""Import and export: memtui JSON/JSONL, the original 4-field memory.json, Hermes Agent's
MEMORY.md / USER.md, and a readable Markdown export.

Formats (see docs/memory-over-time.md):
- `json`: the memory.json format itself, `{"entries": [...]}`; lossless (ids, flags, sources,
  timestamps and unknown fields). The original 4-field entries (kind, text, source, ts) are read
  by the same parser.
- `jsonl`: one entry object per line; lossless.
- `hermes`: entries separated by a line holding only the section sign (U+00A7), possibly multi-line. A file named
  USER.md holds preferences; any other holds facts and lessons: an entry is a lesson when it reads
  as advice for next time (`LESSON_WORDS`), a fact otherwise. `--kind` overrides the rule.
- `markdown`: grouped by kind, for people to read (export only).

An import is one locked transaction through the normal write rules: secrets redacted, text cut to
`max_text`, the threat scan (hostile text is imported blocked), dedupe against the store and the
file itself (a duplicate refreshes the entry it matches), eviction refused unless confirmed. Every
entry written gets one `import` audit event naming the file. A plan is computed first and is exactly
what `--dry-run` prints; a bad file is refused whole, with one line, before anything is written.
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
from ..store.records import Corrupt, Document, Record, _check, approval_flag, dumps, new_id, parse_document
from ..safety.threat_model_semantic import batch as semantic_batch
from ..safety.threats import redact, redact_secrets, scan_text, strip_controls, threat_flags

__all__ = ["EXPORT_FORMATS", "IMPORT_FORMATS", "ImportPlan", "ImportRefused", "detect_format", "export_bytes",
           "import_file", "parse_import", "plan_import", "write_export"]

EXPORT_FORMATS = ("json", "jsonl", "hermes", "markdown")
IMPORT_FORMATS = ("json", "jsonl", "hermes")
HERMES_SEPARATOR = "\n\u00a7\n"
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

    __slots__ = ("line", "kind", "text", "source", "ts", "id", "flags", "extra")

    def __init__(self, line: int, kind: Kind, text: str, source: str = "", ts: int | None = None,
                 id: str | None = None, flags: list[str] | None = None, extra: dict | None = None) -> None:
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
    """USER.md holds preferences; MEMORY.md (or any other) lessons when they read as advice, else facts."""
    if os.path.basename(file_name).lower() == "user.md":
        return Kind.PREFERENCE
    return Kind.LESSON if LESSON_WORDS.search(text) else Kind.FACT


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
                items.append(Item(line, kind or hermes_kind(body, name), body, source=f"import:{where}"))
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
        items.append(Item(number, kind or fields["kind"], fields["text"], fields["source"], fields["ts"],
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
    for item in items:
        # The same cleaning as every other write: control characters out, secrets redacted in the
        # text, the source and the keywords, the text cut to max_text.
        clean, secrets_found, cut_from = store._clean_text(item.text)
        truncated = cut_from is not None
        if not clean:
            raise ImportRefused(f"{file} entry at line {item.line} is empty once control characters are removed; "
                                "nothing was imported")
        source = redact_secrets(strip_controls(item.source)) if item.source else ""
        extra = _cleaned_keywords(item.extra, limits)
        try:
            clean.encode("utf-8")
        except UnicodeEncodeError:
            raise ImportRefused(f"{file} entry at line {item.line} is not valid Unicode; nothing was imported") from None
        row = {"line": item.line, "kind": item.kind.value, "text": clean, "truncated": truncated,
               "redacted": bool(secrets_found), "blocked": False, "id": None, "action": "add", "duplicate_of": None}
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
        events.append({"op": "import", "id": entry_id, "before": None, "after": record.view(), "note": note, "file": file})
        plan.rows.append(row)
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
    without `allow_evict`."""
    path = Path(path)
    file = path.name
    parsed_kind = Kind.require(kind) if kind is not None else None
    try:
        with open(path, "rb") as fh:
            data = fh.read(store.limits.import_max_bytes + 1)
    except OSError as exc:
        raise ImportRefused(f"cannot read {path}: {exc.strerror or exc}") from None
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
    if want is None and fmt == "hermes":
        user = os.path.basename(file_name).lower() == "user.md"
        records = [r for r in records if (r.kind is Kind.PREFERENCE) == user]
    elif want is not None:
        records = [r for r in records if r.kind is want]
    views = []
    for record in records:
        view = record.to_json()
        view["text"] = redact(record.text)[0]
        views.append(view)
    if fmt == "json":
        return dumps({"entries": views}, indent=True) + b"\n"
    if fmt == "jsonl":
        return b"".join(dumps(view) + b"\n" for view in views)
    if fmt == "hermes":
        return (HERMES_SEPARATOR.join(view["text"] for view in views) + "\n").encode("utf-8") if views else b""
    return _markdown(views).encode("utf-8")


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
