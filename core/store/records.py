"""The file format (docs/format.md#file-format), read and written without pydantic.

A `Document` holds the items of `entries` in file order: each is either a `Record` (a valid entry)
or an `Invalid` (kept verbatim, never searched, never dropped). Top-level keys other than
`entries` and fields of an entry we do not know are carried through a write unchanged.
"""

from __future__ import annotations

import re

import orjson

from ..kinds import _BY_VALUE, Kind
from ..lazy_re import lazy_pattern
from ..safety.threats import scan_text, threat_flags

__all__ = [
    "TS_MAX", "Corrupt", "Document", "Invalid", "Record", "approval_flag", "dumps", "legacy_id", "new_id", "normalize",
    "parse_document", "read_ts", "ts_out_of_range",
]

_ID = lazy_pattern(r"[0-9a-f]{12}\Z")
_TEXT_FLAGS = ("blocked", "secret-redacted")  # flags a text earns, dropped when the text changes
_TEXT_FLAG_PREFIXES = ("threat:", "approved:")
_KNOWN = ("id", "kind", "text", "source", "ts", "flags")
CORE_ORDER = "core_order"  # the top-level list of pinned ids in the core's order (docs/format.md#the-pinned-core)


_PUNCT = "，。！？；：、,.!?;:()（）「」\"'“”【】…—-·*#`>~"
_DROP_PUNCT = str.maketrans("", "", _PUNCT)


def normalize(text: str) -> str:
    """The dedupe key: lowercase, without whitespace or the punctuation people vary freely."""
    return "".join(text.lower().split()).translate(_DROP_PUNCT)


# The times a date can show (datetime's range, so every client can print one), as Unix seconds:
# from 1970 to the last second of the year 9999. A `ts` outside it -- 1e300, 10**29, a negative
# number -- is valid JSON no date or 64-bit integer can hold: the entry reads as written at an
# unknown time (0), health counts it (`ts-out-of-range`) and the file keeps it until a write.
TS_MAX = 253402300799


def read_ts(value: int | float) -> int:
    """An entry's `ts` (a finite number) as the engine keeps it: its whole seconds, or 0 (unknown)
    when it is outside the range a date can show."""
    return int(value) if 0 <= value <= TS_MAX else 0


def ts_out_of_range(raw: object) -> bool:
    """Whether an entry as read holds a `ts` that is a number no date can show (read as 0)."""
    ts = raw.get("ts") if isinstance(raw, dict) else None
    return isinstance(ts, (int, float)) and not isinstance(ts, bool) and ts == ts and not 0 <= ts <= TS_MAX


class Corrupt(Exception):
    """The bytes are not a memory file: not UTF-8, not JSON, or no `entries` list."""


def legacy_id(ts: object, kind: object, text: object) -> str:
    """The stable id of an entry written without one (the original 4-field format)."""
    import hashlib

    return hashlib.sha256(f"{ts}\n{kind}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()[:12]


def new_id(taken: set[str] | dict[str, object]) -> str:
    import secrets

    while True:
        candidate = secrets.token_hex(6)
        if candidate not in taken:
            return candidate


def approval_flag(text: str, key: bytes, entry_id: str) -> str:
    """A person approved this exact text of this entry through memtui: an HMAC under the store's
    own secret key (`approval.key`), so another program cannot forge one, a flag copied to another
    entry or text does not verify, and any edit makes the approval lapse."""
    import hashlib
    import hmac

    message = f"{entry_id}\n{text}".encode("utf-8", "surrogatepass")
    return "approved:" + hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


class Record:
    """A valid entry as the engine sees it. `flags` are the stored flags; `blocked` and
    `threats` are also judged from the text itself, so an entry written by another program
    is held back until approved even if it carries no flags.

    The judgement (a threat scan) is made on first use, not on load: a turn that injects four
    entries out of five hundred scans the few it considers, not the whole store. An approval
    verifies only with the store's key (`key`, handed over by Storage)."""

    __slots__ = ("id", "kind", "text", "source", "ts", "flags", "extra", "_threats", "_blocked", "_norm", "raw", "key", "_scanned", "plain")

    def __init__(
        self,
        id: str,
        kind: Kind,
        text: str,
        source: str = "",
        ts: int = 0,
        flags: list[str] | None = None,
        extra: dict | None = None,
        key: bytes | None = None,
    ) -> None:
        self.id = id
        self.key = key  # the store's approval key; None: no approval verifies
        self.kind = kind
        self.text = text
        self.source = source
        self.ts = ts
        self.flags = list(flags or ())
        self.extra = dict(extra or {})
        self._norm: str | None = None
        self.raw: dict | None = None  # the object as read from the file, if it was (see `id_given`)
        self._threats: list[str] | None = None
        self._blocked = False
        self._scanned: list[str] | None = None
        # Whether the text goes into the block as it is, but for line breaks, control characters and
        # fence markers (no secret to redact, nothing invisible to strip): None until known
        # (inject.clean_text works it out; a derived index of the file may know it already).
        self.plain: bool | None = None

    def judge(self) -> None:
        """Forget the judgement, after the text or the flags changed; it is made again on next use."""
        self._threats = None
        self._scanned = None
        self._norm = None
        self.plain = None

    def _judge(self) -> list[str]:
        """Judge the entry. What the threat scan finds in this exact text may be known already
        (`_scanned`, from a derived index of the file, derived.py): then the scan is skipped."""
        scanned = self._scanned
        if scanned is None:
            findings = [f for f in scan_text(self.text) if f.category != "secret"]
            scanned = [flag[7:] for flag in threat_flags(findings) if flag.startswith("threat:")]
            self._scanned = scanned
        threats = list(scanned)
        self._blocked = "blocked" in self.flags or (bool(threats) and not self.approved)
        for flag in self.flags:
            if flag.startswith("threat:") and flag[7:] not in threats:
                threats.append(flag[7:])
        self._threats = threats
        return threats

    @property
    def scanned(self) -> list[str] | None:
        """What the threat scan finds in the text, if known (None: not scanned yet)."""
        return self._scanned

    @property
    def threats(self) -> list[str]:
        """The threat categories: found in the text now, or recorded in the flags."""
        return self._judge() if self._threats is None else self._threats

    @property
    def blocked(self) -> bool:
        """Held back from injection until a person approves this exact text."""
        if self._threats is None:
            self._judge()
        return self._blocked

    @property
    def approved(self) -> bool:
        """Whether the stored flags hold an approval memtui made for this text of this entry."""
        return self.key is not None and approval_flag(self.text, self.key, self.id) in self.flags

    def use_key(self, key: bytes | None) -> None:
        """Verify approvals with the store's key (read after the entry was parsed)."""
        if key != self.key:
            self.key = key
            self._threats = None  # judged again, with the key, on next use

    def set_text(self, text: str, flags: list[str]) -> None:
        """Replace the text with `text`, whose write-time flags (a redaction, the scan) are `flags`.
        What the old text earned or was judged by -- blocked, threats, a redaction, an approval --
        does not carry over; an approval does only if it was for exactly this text."""
        kept = [f for f in self.flags if f not in _TEXT_FLAGS and not f.startswith(_TEXT_FLAG_PREFIXES)]
        approval = approval_flag(text, self.key, self.id) if self.key is not None else None
        if approval in self.flags and "blocked" in flags:
            flags = [f for f in flags if f != "blocked"] + [approval]
        self.text, self.flags = text, kept + flags
        self.judge()

    def approve(self, key: bytes) -> bool:
        """Let a blocked entry be injected: its threats stay recorded, the approval (signed with the
        store's `key`) holds for this text only. Returns whether anything changed."""
        self.use_key(key)
        if not self.blocked:
            return False
        flags = [f for f in self.flags if f != "blocked" and not f.startswith("approved:")]
        for category in self.threats:
            if "threat:" + category not in flags:
                flags.append("threat:" + category)
        self.flags = flags + [approval_flag(self.text, key, self.id)]
        self._threats = None
        return True

    @property
    def norm(self) -> str:
        """The dedupe key of the text (computed once per text)."""
        if self._norm is None:
            self._norm = normalize(self.text)
        return self._norm

    @property
    def id_given(self) -> bool:
        """Read from the file without its id (or with one another entry already had): the id
        was derived on load, and the next write stores it."""
        return self.raw is not None and self.raw.get("id") != self.id

    @property
    def keywords(self) -> list[str]:
        """The retrieval keywords (the optional `keywords` field); a malformed field reads as none
        and is kept in the file as it was until a write sets new keywords."""
        value = self.extra.get("keywords")
        if not isinstance(value, list):
            return []
        return [keyword for keyword in value if isinstance(keyword, str) and keyword.strip()]

    @keywords.setter
    def keywords(self, value: list[str]) -> None:
        if value:
            self.extra["keywords"] = list(value)
        else:
            self.extra.pop("keywords", None)

    @property
    def pin(self) -> bool | None:
        """The optional `pinned` field: True, pinned into the core by hand; False, kept out of it by
        hand; None (absent, or not a boolean: kept as it is until a pin or unpin), the core's policy
        decides (docs/format.md#the-pinned-core)."""
        value = self.extra.get("pinned")
        return value if isinstance(value, bool) else None

    @pin.setter
    def pin(self, value: bool | None) -> None:
        if value is None:
            self.extra.pop("pinned", None)
        else:
            self.extra["pinned"] = value

    @property
    def pinned(self) -> bool:
        return self.extra.get("pinned") is True

    @property
    def effective_flags(self) -> list[str]:
        """Stored flags plus what the scan found on load."""
        flags = list(self.flags)
        if self.blocked and "blocked" not in flags:
            flags.insert(0, "blocked")
        for category in self.threats:
            flag = "threat:" + category
            if flag not in flags:
                flags.append(flag)
        return flags

    def to_json(self) -> dict:
        out: dict = {"id": self.id, "kind": self.kind.value, "text": self.text, "source": self.source, "ts": self.ts}
        if self.flags:
            out["flags"] = list(self.flags)
        for key, value in self.extra.items():
            if key not in out:
                out[key] = value
        return out

    def view(self) -> dict:
        """The entry as callers see it (effective flags), for comparisons and audit records."""
        out = self.to_json()
        if "keywords" in out and out["keywords"] != self.keywords:
            out["keywords"] = self.keywords  # a malformed field reads as the keywords it holds
            if not out["keywords"]:
                del out["keywords"]
        flags = self.effective_flags
        if flags:
            out["flags"] = flags
        else:
            out.pop("flags", None)
        return out


class Invalid:
    """An item of `entries` that is not a valid entry; written back exactly as read."""

    __slots__ = ("raw", "error")

    def __init__(self, raw: object, error: str) -> None:
        self.raw = raw
        self.error = error


def _check(raw: object) -> tuple[dict | None, str]:
    """The cleaned fields of a valid entry, or (None, why not)."""
    if not isinstance(raw, dict):
        return None, f"entry is a {type(raw).__name__}, not an object"
    kind_raw = raw.get("kind")
    if kind_raw is None:
        return None, "missing kind"
    kind = Kind.parse(kind_raw)
    if kind is None:
        return None, f"unknown kind {kind_raw!r}"
    text = raw.get("text")
    if not isinstance(text, str):
        return None, "missing text" if text is None else "text is not a string"
    if not text.strip():
        return None, "empty text"
    source = raw.get("source", "")
    if source is None:
        source = ""
    if not isinstance(source, str):
        return None, "source is not a string"
    ts = raw.get("ts", 0)
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or ts != ts or ts in (float("inf"), float("-inf")):
        return None, "ts is not a number"
    flags = raw.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        return None, "flags is not a list of strings"
    entry_id = raw.get("id")
    if entry_id is not None and not (isinstance(entry_id, str) and _ID.match(entry_id)):
        return None, "id is not 12 lowercase hex characters"
    return {
        "id": entry_id,
        "kind": kind,
        "kind_raw": kind_raw,
        "text": text,
        "source": source,
        "ts": read_ts(ts),
        "flags": flags,
        "extra": {k: v for k, v in raw.items() if k not in _KNOWN},
    }, ""


class Document:
    """The whole file: top-level object plus its entries, valid or not, in file order."""

    __slots__ = ("top", "items", "duplicate_keys", "key", "derived", "canonical", "data")

    def __init__(self, top: dict | None = None, items: list[Record | Invalid] | None = None) -> None:
        self.key: str | None = None  # derived.content_key of the bytes it was read from
        self.derived = None  # the derived index read for those bytes, if one could be trusted
        self.top = top if top is not None else {"entries": []}
        self.items: list[Record | Invalid] = items if items is not None else []
        self.duplicate_keys = 0  # how many top-level `entries` keys the file had, when more than one
        # Whether the bytes it was read from are in the form memtui writes: every item a valid entry
        # with its own id, a kind by its name, nothing orjson cannot read exactly, one `entries`.
        # A derived index of such bytes says so, and the next parse of them skips the checks.
        self.canonical = False
        self.data: bytes | None = None  # the bytes it was read from, until its derived index is made

    @property
    def records(self) -> list[Record]:
        return [item for item in self.items if isinstance(item, Record)]

    @property
    def invalid(self) -> list[tuple[int, Invalid]]:
        return [(i, item) for i, item in enumerate(self.items) if isinstance(item, Invalid)]

    def ids(self) -> dict[str, Record]:
        return {item.id: item for item in self.items if isinstance(item, Record)}

    @property
    def core_order(self) -> list[str]:
        """The order of the entries pinned by hand, as the optional top-level `core_order` list of
        ids keeps it (what is not a list of strings reads as none, and is kept until a pin writes)."""
        value = self.top.get(CORE_ORDER)
        if not isinstance(value, list):
            return []
        return [item for item in value if isinstance(item, str)]

    @core_order.setter
    def core_order(self, ids: list[str]) -> None:
        if ids:
            self.top[CORE_ORDER] = list(ids)
        else:
            self.top.pop(CORE_ORDER, None)

    def use_key(self, key: bytes | None) -> Document:
        """Verify every entry's approval with the store's key; returns the document."""
        for record in self.records:
            record.use_key(key)
        return self

    def find(self, entry_id: str) -> Record | None:
        for item in self.items:
            if isinstance(item, Record) and item.id == entry_id:
                return item
        return None

    def to_bytes(self) -> bytes:
        entries = [item.to_json() if isinstance(item, Record) else item.raw for item in self.items]
        top = {key: (entries if key == "entries" else value) for key, value in self.top.items()}
        if "entries" not in top:
            top = {"entries": entries, **top}
        return dumps(top, indent=True) + b"\n"


def dumps(value: object, indent: bool = False) -> bytes:
    """`value` as JSON (2-space indented, or on one line), non-ASCII kept as is. What orjson
    refuses but a file read by `_loads_with_json` may hold is written as it was read: integers
    beyond 64 bits as they are, lone surrogates as the escapes they came from."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else None)
    except orjson.JSONEncodeError:
        import json

        try:
            text = json.dumps(value, ensure_ascii=False, **({"indent": 2} if indent else {"separators": (",", ":")}))
        except RecursionError:
            raise ValueError("memory.json holds a value nested too deeply to write back") from None
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def parse_document(
    data: bytes,
    verdicts: list[list[str] | None] | None = None,
    plain: list[bool | None] | None = None,
    canonical: bool = False,
) -> Document:
    """Parse the bytes of a memory file; raise `Corrupt` with a one-line reason if they are not one.
    `verdicts`: what the threat scan found in each valid entry in order (None: not known), from a
    derived index of these exact bytes, so those entries are not scanned again; `plain`: likewise,
    whether each text goes into the block without redaction or stripping (`Record.plain`).
    `canonical`: a derived index of these exact bytes found them canonical (`Document.canonical`),
    so each entry is taken as it is without being checked again."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    error: Exception | None = None
    lenient = _may_hold_a_big_integer(data)  # orjson would read such an integer as a float
    if not lenient:
        try:
            top = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            error, lenient = exc, True
    if lenient:
        top = _loads_with_json(data)
        if top is None:
            raise Corrupt(_describe_json_error(data, error))
    if not isinstance(top, dict):
        raise Corrupt(f"top level is a {_json_type(top)}, not an object with an entries list")
    if "entries" not in top:
        raise Corrupt("no entries list")
    repeated = _top_level_entries(data)
    if len(repeated) > 1:  # a parser keeps the last silently, an empty one included
        kept = _the_one_non_empty(repeated)
        if kept is None:
            raise Corrupt(f"duplicate entries key ({len(repeated)} different lists at the top level): "
                          f"which one is the store is ambiguous")
        top["entries"] = kept
    if not isinstance(top["entries"], list):
        raise Corrupt(f"entries is a {_json_type(top['entries'])}, not a list")
    fast = _canonical_items(top["entries"]) if canonical and not lenient and not repeated else None
    items: list[Record | Invalid] = fast if fast is not None else []
    taken: set[str] = set() if fast is None else {item.id for item in fast}  # type: ignore[union-attr]
    for raw in top["entries"] if fast is None else ():
        fields, error = _check(raw)
        if fields is not None and lenient and _has_lone_surrogate(raw):
            fields, error = None, "holds a lone surrogate escape, which is not valid Unicode text"
        if fields is None:
            items.append(Invalid(raw, error))
            continue
        entry_id = fields["id"] or legacy_id(fields["ts"], fields["kind_raw"], fields["text"])
        salt = 0
        while entry_id in taken:  # a duplicated id (e.g. a hand-copied entry): derive a stable new one
            salt += 1
            entry_id = legacy_id(fields["ts"], fields["kind_raw"], f"{fields['text']}\n#{salt}")
        taken.add(entry_id)
        record = Record(
            entry_id, fields["kind"], fields["text"], fields["source"], fields["ts"], fields["flags"], fields["extra"]
        )
        record.raw = raw
        items.append(record)
    if verdicts is not None and len(verdicts) == len(taken):
        records = (item for item in items if isinstance(item, Record))
        for record, scanned in zip(records, verdicts):
            if scanned is not None:
                record._scanned = list(scanned)  # judged when first needed, without a scan
    if plain is not None and len(plain) == len(taken):
        records = (item for item in items if isinstance(item, Record))
        for record, known in zip(records, plain):
            record.plain = known
    doc = Document(top, items)
    doc.duplicate_keys = len(repeated) if len(repeated) > 1 else 0
    doc.canonical = fast is not None or not lenient and not repeated and all(
        isinstance(item, Record) and item.raw is not None and item.raw.get("id") == item.id
        and item.raw.get("kind") == item.kind.value for item in items
    )
    return doc


def written_canonical(doc: Document, data: bytes) -> bool:
    """Whether `data`, written by `doc.to_bytes()`, is canonical (see `Document.canonical`): every
    item a record (they are written with their ids and kinds' names), and nothing that orjson
    would read otherwise (an integer beyond 64 bits, a lone surrogate's escape)."""
    return all(isinstance(item, Record) for item in doc.items) and not _may_hold_a_big_integer(data) and (
        b"\\u" not in data
    )


def canonical_record(raw: dict) -> Record:
    """The record of an entry known to be canonical (see `_canonical_items`), without its checks.
    Raises KeyError, TypeError or ValueError if it is not even shaped like one."""
    record = Record(raw["id"], _BY_VALUE[raw["kind"]], raw["text"], raw.get("source") or "", read_ts(raw.get("ts", 0)),
                    raw.get("flags"), {k: v for k, v in raw.items() if k not in _KNOWN})
    record.raw = raw
    return record


def entry_spans(data: bytes) -> list[int] | None:
    """Where each item of the top-level `entries` list starts and ends in `data` (byte offsets:
    start, end, start, end, ...), read with the standard library's scanner; None if the bytes are
    not one JSON object holding one `entries` list (or start with a byte-order mark). Meant for
    bytes that are valid UTF-8 (a canonical file's: orjson read them)."""
    import json
    from json.decoder import scanstring

    # Read as Latin-1, one character per byte: JSON's structure is ASCII and no byte of a UTF-8
    # sequence is one of its characters or a control character, so the scanner finds the same
    # items, at character offsets that are byte offsets (the values it builds are thrown away).
    text = data.decode("latin-1")
    if text.startswith("\xef\xbb\xbf"):
        return None
    scan = json.JSONDecoder().scan_once
    skip = re.compile(r"[ \t\n\r]*").match
    found: list[int] | None = None
    try:
        i = skip(text, 0).end()
        if text[i] != "{":
            return None
        i = skip(text, i + 1).end()
        while text[i] == '"':
            name, i = scanstring(text, i + 1)
            i = skip(text, i).end()
            if text[i] != ":":
                return None
            i = skip(text, i + 1).end()
            if name == "entries":
                if found is not None or text[i] != "[":
                    return None
                found = []
                i = skip(text, i + 1).end()
                if text[i] == "]":
                    i += 1
                else:
                    while True:
                        _value, end = scan(text, i)
                        found += (i, end)
                        i = skip(text, end).end()
                        if text[i] == "]":
                            i += 1
                            break
                        if text[i] != ",":
                            return None
                        i = skip(text, i + 1).end()
            else:
                _value, i = scan(text, i)
            i = skip(text, i).end()
            if text[i] == ",":
                i = skip(text, i + 1).end()
            elif text[i] == "}":
                break
            else:
                return None
        else:
            return None
    except (StopIteration, ValueError, IndexError, RecursionError):
        return None
    if found is None or skip(text, i + 1).end() != len(text):
        return None
    return found


def _canonical_items(entries: list) -> list[Record | Invalid] | None:
    """The records of entries a derived index found canonical, without checking each field again;
    None (check them all) if anything is not as it said, e.g. an index of other bytes."""
    items: list[Record | Invalid] = []
    append = items.append
    id_ok = _ID.match
    try:
        for raw in entries:
            if not id_ok(raw["id"]) or raw["text"].isspace() or not raw["text"]:
                return None
            append(canonical_record(raw))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if len({item.id for item in items}) != len(items):  # type: ignore[union-attr]
        return None
    return items


_LONE_SURROGATE = lazy_pattern("[\ud800-\udfff]")
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _may_hold_a_big_integer(data: bytes) -> bool:
    """Whether the bytes hold a run of 19 digits: the shortest integer orjson may not read exactly
    (below -2**63 it reads a float, which a write would then store changed; -2**63 - 1 has 19 digits)."""
    return data.translate(_DIGITS_AS_ZERO).find(b"0" * 19) != -1


def _loads_with_json(data: bytes) -> object | None:
    """Valid JSON that orjson refuses or cannot keep exactly, read with the standard library:
    strings escaping a lone UTF-16 surrogate (`"\\ud83d"`, as JavaScript writes a string cut
    inside a pair), so one such entry is kept as an invalid entry instead of the whole file
    counting as corrupt; and integers beyond 64 bits, kept as they are."""
    if b"\\u" not in data and not _may_hold_a_big_integer(data):
        return None
    import json

    def reject(value: str) -> float:
        raise ValueError(f"not JSON: {value}")

    def finite(value: str) -> float:
        number = float(value)
        return number if number not in (float("inf"), float("-inf")) else reject(value)

    try:
        return json.loads(data.decode("utf-8"), parse_constant=reject, parse_float=finite)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _has_lone_surrogate(value: object) -> bool:
    pending = [value]  # a walk without recursion: any depth the parser accepted is fine here
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _LONE_SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _top_level_entries(data: bytes) -> list:
    """The values of every top-level `entries` key when there is more than one (JSON allows a key
    twice; parsers keep the last). Cheap unless the bytes hold `"entries"` more than once."""
    if data.count(b'"entries"') < 2:
        return []
    import json

    last: list[list] = []

    def pairs_of(pairs: list) -> dict:
        last[:] = [pairs]  # objects close inside out: the last one closed is the top level
        return dict(pairs)

    try:
        json.loads(data.decode("utf-8"), object_pairs_hook=pairs_of)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    values = [value for key, value in last[0] if key == "entries"] if last else []
    return values if len(values) > 1 else []


def _the_one_non_empty(values: list) -> list | None:
    """The list among duplicate `entries` values when all the others are empty (or all are equal)."""
    non_empty = [value for value in values if value != []]
    if not non_empty:
        return []
    first = non_empty[0]
    if isinstance(first, list) and all(value == first for value in non_empty):
        return first
    return None


def _json_type(value: object) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _describe_json_error(data: bytes, exc: Exception | None) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return f"not UTF-8 (byte {err.start}, line {line})"
    if not text.strip():
        return "empty file"
    import json

    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return f"not JSON: {err.msg} at line {err.lineno} column {err.colno}"
    except ValueError as err:
        return f"not JSON: {err}"
    except RecursionError:
        return "JSON nested too deeply to read"
    return f"not JSON: {exc}" if exc is not None else "not JSON: NaN, Infinity or a number out of range"
