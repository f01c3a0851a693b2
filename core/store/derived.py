"""The derived index: what the per-turn path works out from memory.json, saved next to it.

`memory.json.index` holds, for one exact content of memory.json, each entry's threat verdict (of
the entries judged so far), whether its text goes into the block as it is (of the entries
rendered so far), its keywords as tokens, where the pinned core looks (the pinned entries in the
core's order, and per kind the others newest first), the inverted index of the texts (terms, postings,
document lengths), whether the file is canonical (in memtui's own form: records.Document.canonical)
and, for a canonical file, where each entry's object starts and ends in its bytes. The keyword
weight and BM25's k1 and b are applied on load, so one file serves every ranking profile.

It is never a source of truth: it is keyed by the hash of memory.json's bytes, a format version
and a fingerprint of the code that derives it (the threat rules, the tokenizer, the kinds, the
block's cleaning), and anything that does not match -- a stale, corrupt, newer, foreign or loosely
permitted file -- is ignored and the index is derived again in memory. Deleting it only costs
time. Loading it executes nothing: a fixed header, a JSON part read by orjson, and arrays of
32-bit integers read with `array.frombytes`.

What it buys (lean.py): a query of a canonical file reads the arrays, looks its terms up in the
sorted term table by bisection, scores their postings and parses with orjson only the entries it
meets; memory.json is hashed, not parsed, and nothing is checked again (the index was derived from
a full parse of these very bytes). A file in another form is parsed whole, with the verdicts.

Layout: MAGIC, then a little-endian u32 header length, the header (JSON), then the body: the terms
sorted by their UTF-8 bytes in one blob, where each ends, where each term's postings start, the
postings (document ids, one per occurrence), per-document lengths and the entries' byte spans
(int32 arrays in the byte order named by the header; the header gives each part's size and the
body's CRC-32).

Writers refresh it under the lock right after replacing memory.json; a reader that finds it stale
derives the index and saves it if it can (atomically, 0600, never through a symlink), without
taking the lock: two readers doing so at once each replace the file with the same bytes. What a
turn learns (verdicts, plain texts) is saved by that turn's process once per file state.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from array import array
from bisect import bisect_left
from pathlib import Path

import orjson

__all__ = ["FORMAT", "INDEX_SUFFIX", "Derived", "content_key", "derive", "ensure", "index_path", "parse", "read", "save"]

FORMAT = 5  # 5: the header carries the store's limits (store_limits.py) and the core's candidates (`pins`, `recent`)
INDEX_SUFFIX = ".index"
MAGIC = b"MEMTUI-INDEX\n"
_MAX_HEADER = 64 * 1024 * 1024

_fingerprint: str | None = None
_stat: str | None = None
_warned: set[str] = set()


class Derived:
    """A memory file's derived index: what the threat scan found in each valid entry (by position;
    None for an entry not judged when it was saved: the scan runs when it is needed) and the parts
    of `ranking.Index`, with each entry's keywords as tokens."""

    __slots__ = ("key", "verdicts", "keywords", "terms", "starts", "ids", "doc_lens", "plain", "canonical", "spans",
                 "limits", "pins", "recent")

    def __init__(
        self,
        key: str,
        verdicts: list[list[str] | None],
        keywords: list[list[list[str]]],
        terms: list[str],
        starts: array,
        ids: array,
        doc_lens: array,
        plain: list[bool | None] | None = None,
        canonical: bool = False,
        spans: array | None = None,
        limits: dict | None = None,
        pins: list[int] | None = None,
        recent: dict[str, list[int]] | None = None,
    ) -> None:
        self.key = key
        # the valid limits memory.json's top level carries (store_limits.carried), so a query that
        # does not parse the file still applies them
        self.limits = limits or {}
        self.verdicts = verdicts
        # per entry, whether its text goes into the block as it is (records.Record.plain; None: not known yet)
        self.plain: list[bool | None] = plain if plain is not None else [None] * len(verdicts)
        self.canonical = canonical  # the file is in memtui's own form (records.Document.canonical)
        # of a canonical file: where each entry's object starts and ends in its bytes (start, end, ...),
        # so a query parses only the entries it meets (lean.py)
        self.spans = spans
        self.keywords = keywords  # per entry, the tokens of each of its keywords (the second field)
        self.terms = terms
        self.starts = starts
        self.ids = ids
        self.doc_lens = doc_lens
        # where the pinned core looks (ranking.pinned.candidates), by position: the entries pinned by
        # hand in the core's order, and per kind those the policy may take, newest first; None: not known
        self.pins = pins
        self.recent = recent


def _hash(data: bytes | memoryview) -> str:
    try:  # the built-in BLAKE2: `hashlib` would load OpenSSL first, milliseconds of every turn
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b

    return blake2b(data, digest_size=20).hexdigest()


_CODE = ("safety.threats", "safety.scan_views", "ranking.inject", "store.derived", "text.tokenize", "text.han_fold_data",
         "ranking.index", "kinds", "store.records", "ranking.pinned")


def _code_files():
    from importlib import import_module

    for name in _CODE:
        yield name, import_module(f"memtui_core.{name}").__file__ or ""
    # The threat scan's rule table is data, and the index keeps the scan's verdicts: a changed rule
    # file (its TOML, or the parsed JSON the scan reads) derives the index again, as changed code does.
    rules = Path(import_module("memtui_core.safety.threats").__file__ or "").parent / "rules"
    for path in sorted(rules.rglob("*")):
        if path.suffix in (".toml", ".json"):
            yield f"safety/rules/{path.relative_to(rules).as_posix()}", str(path)


def code_fingerprint() -> str:
    """Changes whenever the code that derives the index may derive something else."""
    global _fingerprint
    if _fingerprint is None:
        import unicodedata

        parts = [f"{FORMAT}", unicodedata.unidata_version, f"{sys.version_info[0]}.{sys.version_info[1]}"]
        for name, file in _code_files():
            try:
                parts.append(_hash(Path(file).read_bytes()))
            except OSError:
                parts.append("unreadable:" + name)
        _fingerprint = _hash("\n".join(parts).encode())
    return _fingerprint


def code_stat() -> str:
    """The code's files as Python's own bytecode cache tells them apart: path, modification time
    and size. An index saved under the same `code_stat` was derived by these very files, so the
    code fingerprint in its key is this code's, and a turn need not read and hash its sources
    (about 1 ms; another installation of the same code has another `code_stat`, hashes, and
    still finds the same key)."""
    global _stat
    if _stat is None:
        parts = [f"{FORMAT}", sys.version]
        for name, file in _code_files():
            try:
                st = os.stat(file)
                parts.append(f"{file}\0{st.st_mtime_ns}\0{st.st_size}")
            except OSError:
                parts.append("unreadable:" + name)
        _stat = _hash("\0\n".join(parts).encode("utf-8", "surrogateescape"))
    return _stat


def content_key(data: bytes) -> str:
    """The key of one content of memory.json under this code."""
    return _hash(data) + ":" + code_fingerprint()


def index_path(memory_path: Path) -> Path:
    return memory_path.with_name(memory_path.name + INDEX_SUFFIX)


def warn_once(message: str) -> None:
    """One line on stderr, once per process and message: the index is an optimisation, a problem
    with it never fails a call."""
    if message not in _warned:
        _warned.add(message)
        print(f"memtui: {message}", file=sys.stderr)


def read(path: Path, key: str) -> Derived | None:
    """The derived index saved at `path` for `key`, or None when there is none that can be trusted."""
    data = _read_file(path)
    return None if data is None else decode(data, key)


def read_for(path: Path, memory: bytes) -> tuple[str, Derived | None]:
    """The content key of memory.json's bytes `memory`, and the index saved at `path` for it (or
    None). The code's fingerprint is taken from the index when it was saved by these very code
    files (`code_stat`), else the code is hashed."""
    data = _read_file(path)
    header = _header(data) if data is not None else None
    if header is not None and _fingerprint is None and header[0].get("code") == code_stat():
        saved = header[0].get("key")
        if isinstance(saved, str) and ":" in saved:
            _adopt(saved.partition(":")[2])
    key = content_key(memory)
    return key, (None if data is None else decode(data, key, header))


def _adopt(fingerprint: str) -> None:
    global _fingerprint
    _fingerprint = fingerprint


def _read_file(path: Path) -> bytes | None:
    from .fileio import open_regular

    try:
        fd = open_regular(path)
    except OSError:
        return None  # missing, a symlink, a FIFO (health says so), unreadable: derive in memory
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            warn_once(f"ignoring {path}: not owned by this user or readable by others (the index is derived in memory)")
            return None
        from .fileio import read_fd

        return read_fd(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


_SECTIONS = ("terms", "term_ends", "starts", "ids", "doc_lens", "spans")


def _header(data: bytes) -> tuple[dict, int] | None:
    """An index file's header (a JSON object) and where its body starts; None if there is none."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        return None
    at = len(MAGIC)
    size = int.from_bytes(data[at : at + 4], "little")
    at += 4
    if size > _MAX_HEADER or at + size > len(data):
        return None
    try:
        header = orjson.loads(data[at : at + size])
    except orjson.JSONDecodeError:
        return None
    return (header, at + size) if isinstance(header, dict) else None


def decode(data: bytes, key: str, header: tuple[dict, int] | None = None) -> Derived | None:
    """Parse an index file's bytes; None if they are not a complete index of this format for `key`.
    `header`: what `_header` found in them, when already read."""
    found = header if header is not None else _header(data)
    if found is None:
        return None
    header, at = found  # type: ignore[assignment]
    if header.get("format") != FORMAT or header.get("key") != key:
        return None  # stale, or written by another format (newer or older): derive again
    body = memoryview(data)[at:]
    try:
        from zlib import crc32

        if header["body"] != crc32(body) or header["byteorder"] != sys.byteorder:
            return None
        n_docs, n_terms, n_ids, canonical = (header[k] for k in ("docs", "terms", "ids", "canonical"))
        if not all(type(n) is int and n >= 0 for n in (n_docs, n_terms, n_ids)) or not isinstance(canonical, bool):
            return None
        verdicts, plain, keywords = header["verdicts"], header["plain"], header["keywords"]
        if not all(type(part) is list and len(part) == n_docs for part in (verdicts, plain, keywords)):
            return None
        # the common values are checked by type in bulk: most verdicts are null, most keyword lists empty
        if not set(map(type, plain)) <= {type(None), bool} or not set(map(type, keywords)) <= {list}:
            return None
        if not set(map(type, verdicts)) <= {type(None), list} or not all(
            type(c) is str for v in verdicts if v for c in v
        ):
            return None
        if not all(type(kw) is list and all(type(t) is str for t in kw) for kws in keywords if kws for kw in kws):
            return None
        pins, recent = header["pins"], header["recent"]
        if type(pins) is not list or type(recent) is not dict or not all(type(v) is list for v in recent.values()):
            return None
        if not all(type(p) is int and 0 <= p < n_docs for part in (pins, *recent.values()) for p in part):
            return None
        counts = {"term_ends": n_terms, "starts": n_terms + 1, "ids": n_ids, "doc_lens": n_docs,
                  "spans": 2 * n_docs if canonical else 0}
        pos = 0
        parts: dict[str, object] = {}
        for name in _SECTIONS:
            length = header["sizes"][name]
            if type(length) is not int or length < 0 or pos + length > len(body):
                return None
            chunk = body[pos : pos + length]
            pos += length
            if name == "terms":
                parts[name] = bytes(chunk)
                continue
            part = array("i")
            part.frombytes(chunk)
            if len(part) != counts[name]:
                return None
            parts[name] = part
    except (KeyError, TypeError, ValueError):
        return None
    starts, ends = parts["starts"], parts["term_ends"]
    if pos != len(body) or starts[0] != 0 or starts[-1] != n_ids or (n_terms and ends[-1] != len(parts["terms"])):
        return None
    limits = header.get("limits")
    if not isinstance(limits, dict):
        return None
    terms = TermTable(parts["terms"], ends)  # type: ignore[arg-type]
    found = Derived(key, verdicts, keywords, terms, starts, parts["ids"], parts["doc_lens"], plain,  # type: ignore[arg-type]
                    canonical, parts["spans"] if canonical else None, limits, pins, recent)  # type: ignore[arg-type]
    return found


def encode(derived: Derived) -> bytes:
    """The index file: the header (JSON), then the body (terms sorted by their UTF-8 bytes, so a
    reader finds one by bisection without building a dictionary of them all; int32 arrays).
    A freshly derived index takes that layout too (its terms become a TermTable), so saving it
    again (what a turn learnt) sorts nothing, and the query's index needs no dictionary of terms."""
    terms = derived.terms
    if isinstance(terms, TermTable):  # as read (or saved once): already in that order
        blob, ends, starts, ids = terms.blob, terms.ends, derived.starts, derived.ids
    else:
        encoded = [term.encode("utf-8") for term in terms]
        order = sorted(range(len(encoded)), key=encoded.__getitem__)
        old_starts, old_ids = derived.starts, derived.ids
        ids = array("i")
        starts = array("i", [0])
        ends = array("i")
        joined = bytearray()
        for slot in order:
            joined += encoded[slot]
            ends.append(len(joined))
            ids += old_ids[old_starts[slot] : old_starts[slot + 1]]
            starts.append(len(ids))
        blob = bytes(joined)
        derived.terms, derived.starts, derived.ids = TermTable(blob, ends), starts, ids  # type: ignore[assignment]
    canonical = derived.canonical and derived.spans is not None and len(derived.spans) == 2 * len(derived.doc_lens)
    # the arrays' own memory, not copies: the file is assembled once (at 100k entries each copy is 28 MiB)
    sections = [memoryview(blob), memoryview(ends).cast("B"), memoryview(starts).cast("B"),
                memoryview(ids).cast("B"), memoryview(derived.doc_lens).cast("B"),
                memoryview(derived.spans if canonical else b"").cast("B")]  # type: ignore[arg-type]
    from zlib import crc32

    crc = 0
    for section in sections:
        crc = crc32(section, crc)
    header = orjson.dumps(
        {
            "format": FORMAT,
            "key": derived.key,
            "code": code_stat(),
            "byteorder": sys.byteorder,
            "body": crc,
            "docs": len(derived.doc_lens),
            "terms": len(terms),
            "ids": len(ids),
            "sizes": dict(zip(_SECTIONS, (section.nbytes for section in sections))),
            "canonical": canonical,
            "verdicts": derived.verdicts,
            "plain": derived.plain,
            "keywords": derived.keywords,
            "limits": derived.limits,
            "pins": derived.pins or [],
            "recent": derived.recent or {},
        }
    )
    return b"".join([MAGIC, len(header).to_bytes(4, "little"), header, *sections])


_PREFIX_CHUNK = 1 << 16


class TermTable:
    """The terms of a saved index, sorted by their UTF-8 bytes in one blob, and the slot of each
    (its place in that order): a mapping looked up by bisection, never expanded into a dict, so
    loading it costs a copy of bytes however many terms the store holds."""

    __slots__ = ("blob", "ends", "_prefixes", "_sorted")

    def __init__(self, blob: bytes, ends: array) -> None:
        self.blob = blob
        self.ends = ends
        self._prefixes: array | None = None  # see `index_prefixes`
        self._sorted = None  # the prefixes as a numpy array, for `slots`

    def index_prefixes(self) -> None:
        """Speed lookups up for a process that makes many (a long-running agent; it has numpy):
        each term's first 8 bytes as one number, in the table's order (sorted, since the terms
        are), so a lookup bisects machine integers in C and compares the bytes of the few terms
        sharing them. 8 bytes a term, made with numpy in milliseconds."""
        if self._prefixes is not None or not len(self.ends):
            return
        import numpy as np

        blob = np.frombuffer(self.blob, dtype=np.uint8)
        last = len(blob) - 1
        all_ends = np.frombuffer(self.ends, dtype=np.intc)
        prefixes = array("Q")
        for lo in range(0, len(all_ends), _PREFIX_CHUNK):  # in chunks: a big store's peak memory stays low
            ends = all_ends[lo : lo + _PREFIX_CHUNK].astype(np.int64)
            starts = np.concatenate(([all_ends[lo - 1] if lo else 0], ends[:-1]))
            lengths = ends - starts
            keys = np.zeros(len(ends), dtype=np.uint64)
            for j in range(8):
                byte = blob[np.minimum(starts + j, last)].astype(np.uint64)
                byte[lengths <= j] = 0
                keys |= byte << np.uint64(8 * (7 - j))
            prefixes.frombytes(keys.tobytes())
        self._prefixes = prefixes
        self._sorted = np.frombuffer(prefixes, dtype=np.uint64)

    def slots(self, terms) -> list[int | None]:
        """`get` of each of `terms`. With the prefixes indexed, all are bisected in one numpy call
        (bisecting an array of Python-sized integers makes an object per comparison: about a
        microsecond a term)."""
        if self._sorted is None:
            return [self.get(term) for term in terms]
        keys, wanted = [], []
        for term in terms:
            try:
                key = term.encode("utf-8")
            except (UnicodeEncodeError, AttributeError):
                key = None
            keys.append(key)
            wanted.append(int.from_bytes(key[:8].ljust(8, b"\0"), "big") if key is not None else 0)
        import numpy as np

        blob, ends, prefixes = self.blob, self.ends, self._prefixes
        count = len(prefixes)  # type: ignore[arg-type]
        out: list[int | None] = []
        for key, prefix, at in zip(keys, wanted, self._sorted.searchsorted(np.array(wanted, dtype=np.uint64)).tolist()):
            found = None
            if key is not None:
                while at < count and prefixes[at] == prefix:  # type: ignore[index]
                    if blob[ends[at - 1] if at else 0 : ends[at]] == key:
                        found = at
                        break
                    at += 1
            out.append(found)
        return out

    def get(self, term: str, default: int | None = None) -> int | None:
        try:
            key = term.encode("utf-8")
        except (UnicodeEncodeError, AttributeError):
            return default
        blob, ends = self.blob, self.ends
        prefixes = self._prefixes
        if prefixes is not None:
            prefix = int.from_bytes(key[:8].ljust(8, b"\0"), "big")
            at = bisect_left(prefixes, prefix)
            while at < len(prefixes) and prefixes[at] == prefix:
                if blob[ends[at - 1] if at else 0 : ends[at]] == key:
                    return at
                at += 1
            return default
        lo, hi = 0, len(ends)
        while lo < hi:
            mid = (lo + hi) // 2
            start = ends[mid - 1] if mid else 0
            found = blob[start : ends[mid]]
            if found < key:
                lo = mid + 1
            elif found > key:
                hi = mid
            else:
                return mid
        return default

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None

    def __len__(self) -> int:
        return len(self.ends)

    def __iter__(self):
        start = 0
        for end in self.ends:
            yield self.blob[start:end].decode("utf-8")
            start = end


def save(storage, derived: Derived) -> bool:
    from .fileio import atomic_write

    """Write the index next to memory.json with the store's atomic write (fileio); False when it
    cannot be saved. A read-only store (permission refused, a read-only file system) says nothing:
    it is a store to read, every read derives the index in memory, and `memtui doctor` reports the
    store as unwritable; any other failure (a full disk) is one warning per process."""
    path = index_path(storage.path)
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        existing = None
    except OSError:
        return False
    if existing is not None and not stat.S_ISREG(existing.st_mode) and not stat.S_ISLNK(existing.st_mode):
        return False  # a FIFO, a folder...: leave it, derive in memory (health reports it: special-file)
    if existing is not None and existing.st_uid != os.geteuid():
        return False  # someone else's file: leave it, derive in memory
    try:
        atomic_write(path, encode(derived))
    except FileNotFoundError:
        return False  # a writer cleaned up our temporary file: the next reader saves it
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            warn_once(f"cannot save the index next to {storage.path} ({exc.strerror or exc}); it is derived in memory")
        return False
    return True


def without_gc(make, *args, **kwargs):
    """`make(*args, **kwargs)` with the cyclic garbage collector paused. Deriving an index or parsing
    a big file allocates millions of small lists and strings, none of them in a reference cycle,
    and every few hundred allocations the collector would walk them all again: at 10,000 entries
    a quarter of deriving the index (0.6 of 2.3 s). It is switched back on if it was on."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return make(*args, **kwargs)
    finally:
        if enabled:
            gc.enable()


def derive(
    records: list, key: str, canonical: bool = False, data: bytes | None = None, redact: bool = False,
    limits: dict | None = None,
    order: list[str] | None = None,
) -> Derived:
    """The derived index of these records (as parsed from the bytes `key` names, which are
    `canonical` or not: records.Document.canonical). Given those bytes (`data`) of a canonical
    file, it also says where each entry is in them, for queries that parse only what they meet.
    `redact`: the records may hold secrets another program wrote (memtui's own writes never store
    one): their terms are taken from the redacted text, so the saved index holds no secret either.
    `order`: the file's core order (records.Document.core_order)."""
    return without_gc(_derive, records, key, canonical, data, redact, limits, order)


def _derive(
    records: list, key: str, canonical: bool = False, data: bytes | None = None, redact: bool = False,
    limits: dict | None = None,
    order: list[str] | None = None,
) -> Derived:
    """See `derive`."""
    from ..ranking.index import build_parts, document_tokens
    from ..text.tokenize import tokenize

    texts = [r.text for r in records]
    kept = [r.keywords for r in records]
    if redact:  # every field redacted as a write would (a value found secret in one, in all of them)
        from ..safety.redaction import redact_entry

        for i, record in enumerate(records):
            whole = redact_entry(record.text, record.source, record.keywords)
            if whole.changed:
                texts[i] = whole.text
                kept[i] = ["" if n in whole.fragments else k for n, k in enumerate(whole.keywords)]  # positions kept
    terms, starts, ids, lengths = build_parts(
        document_tokens(text, r.kind.label, r.kind.value) for text, r in zip(texts, records))
    verdicts = [None if r.scanned is None else list(r.scanned) for r in records]  # None: not judged yet
    keywords = [[tokenize(k) for k in found] for found in kept]
    if not redact:  # memtui just wrote: whether each entry it made renders as it is, known from now on
        from ..ranking.inject import clean_text

        for record in records:
            if record.plain is None and record.raw is None:  # made by this write (not read from the file)
                clean_text(record)  # sets record.plain, which the index keeps for every turn
    plain = [r.plain for r in records]
    spans = None
    if canonical and data is not None:
        from .records import entry_spans

        found = entry_spans(data)
        spans = array("i", found) if found is not None and len(found) == 2 * len(records) else None
    from ..ranking.pinned import candidates

    pins, recent = candidates(records, order or [])
    return Derived(key, verdicts, keywords, terms, starts, ids, array("i", lengths), plain, canonical, spans, limits,
                   pins, recent)


def parse(storage, data: bytes, known: tuple[str, Derived | None] | None = None):
    """memory.json's bytes as a Document, with the threat verdicts of a saved index of these exact
    bytes when there is one (`doc.derived`), so the scan is skipped. Raises records.Corrupt.
    `known`: the content key and the index already read for these bytes."""
    from .records import parse_document

    key, found = known if known is not None else read_for(index_path(storage.path), data)
    if found is None:
        doc = without_gc(parse_document, data)
    else:
        doc = without_gc(parse_document, data, found.verdicts, found.plain, found.canonical)
    doc.key = key
    if found is not None and len(found.doc_lens) == len(found.verdicts) == len(doc.records):
        doc.derived = found
    elif doc.canonical:
        doc.data = data  # kept until the index is derived (`ensure`): where each entry is in them
    return doc


def ensure(storage, doc, written: bool = False) -> Derived | None:
    """The document's derived index: the one read with it, or derived now and saved if possible.
    `written`: memtui just wrote this document (every field redacted); a document read as it is
    may hold secrets another program wrote, kept out of the index."""
    if doc.derived is None and doc.key is not None:
        from .store_limits import carried

        doc.derived = derive(doc.records, doc.key, doc.canonical, doc.data, redact=not written,
                             limits=carried(doc.top)[0], order=doc.core_order)
        doc.data = None
        save(storage, doc.derived)
    return doc.derived


def _spans_fit(spans: array, data: bytes) -> bool:
    """Whether the entries' byte spans plausibly frame `data`'s entries: in order, inside the bytes,
    the first and the last an object. Cheap (the rest is checked as each entry is parsed)."""
    if not spans:
        return True
    first, last = spans[0], spans[-1]
    return (0 < first < last <= len(data) and data[first : first + 1] == b"{" and data[last - 1 : last] == b"}"
            and all(spans[i] < spans[i + 1] for i in (0, len(spans) - 2)))


def lean(storage, data: bytes, approval_key: bytes | None):
    """memory.json's bytes ready to answer queries without being parsed (lean.LeanDocument), when a
    saved index of these exact bytes can be trusted and found them canonical; else (None, the
    content key, the index read or None) for `parse`."""
    key, found = read_for(index_path(storage.path), data)
    if found is not None and found.canonical and found.spans is not None and not _spans_fit(found.spans, data):
        found = None  # the spans do not frame these bytes' entries: derive it again (lean.py checks each one)
    if found is None or not found.canonical or found.spans is None:
        return None, (key, found)
    from .lean import LeanDocument

    return LeanDocument(data, key, found, approval_key), (key, found)
