"""The derived index: what the per-turn path works out from memory.json, saved next to it.

`memory.json.index` holds, for one exact content of memory.json, each entry's threat verdict (of
the entries judged so far), its keywords as tokens, and the inverted index of the texts (terms,
postings, document lengths); the keyword weight and BM25's k1 and b are applied on load, so one
file serves every ranking profile. It is never a source of truth: it is keyed
by the hash of memory.json's bytes, a format version and a fingerprint of the code that derives
it (the threat rules, the tokenizer, the kinds), and anything that does not match -- a stale, corrupt,
newer, foreign or loosely permitted file -- is ignored and the index is derived again in memory.
Deleting it only costs time. Loading it executes nothing: a fixed header, a JSON part read by
orjson, and arrays of 32-bit integers read with `array.frombytes`.

Layout: MAGIC, then a little-endian u32 header length, the header (JSON), then the body: the
terms (UTF-8, newline-separated), per-document lengths, term starts and document ids (int32
arrays in the byte order named by the header). The header carries the body's hash.

Writers refresh it under the lock right after replacing memory.json; a reader that finds it stale
derives the index and saves it if it can (atomically, 0600, never through a symlink), without
taking the lock: two readers doing so at once each replace the file with the same bytes.
"""

from __future__ import annotations

import os
import stat
import sys
from array import array
from pathlib import Path

import orjson

__all__ = ["FORMAT", "INDEX_SUFFIX", "Derived", "content_key", "derive", "ensure", "index_path", "parse", "read", "save"]

FORMAT = 1
INDEX_SUFFIX = ".index"
MAGIC = b"MEMTUI-INDEX\n"
_MAX_HEADER = 64 * 1024 * 1024

_fingerprint: str | None = None
_warned: set[str] = set()


class Derived:
    """A memory file's derived index: what the threat scan found in each valid entry (by position;
    None for an entry not judged when it was saved: the scan runs when it is needed) and the parts
    of `ranking.Index`, with each entry's keywords as tokens."""

    __slots__ = ("key", "verdicts", "keywords", "terms", "starts", "ids", "doc_lens")

    def __init__(
        self,
        key: str,
        verdicts: list[list[str] | None],
        keywords: list[list[list[str]]],
        terms: list[str],
        starts: array,
        ids: array,
        doc_lens: array,
    ) -> None:
        self.key = key
        self.verdicts = verdicts
        self.keywords = keywords  # per entry, the tokens of each of its keywords (the second field)
        self.terms = terms
        self.starts = starts
        self.ids = ids
        self.doc_lens = doc_lens


def _hash(data: bytes | memoryview) -> str:
    from hashlib import blake2b

    return blake2b(data, digest_size=20).hexdigest()


def code_fingerprint() -> str:
    """Changes whenever the code that derives the index may derive something else."""
    global _fingerprint
    if _fingerprint is None:
        import unicodedata
        from importlib import import_module

        parts = [f"{FORMAT}", unicodedata.unidata_version, f"{sys.version_info[0]}.{sys.version_info[1]}"]
        for name in ("threats", "scan_views", "derived", "tokenize", "ranking", "kinds", "records"):
            module = import_module(f".{name}", __package__)
            try:
                parts.append(_hash(Path(module.__file__ or "").read_bytes()))
            except OSError:
                parts.append("unreadable:" + name)
        _fingerprint = _hash("\n".join(parts).encode())
    return _fingerprint


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
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None  # missing, a symlink (ELOOP), unreadable: derive in memory
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            warn_once(f"ignoring {path}: not owned by this user or readable by others (the index is derived in memory)")
            return None
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return decode(b"".join(chunks), key)


def decode(data: bytes, key: str) -> Derived | None:
    """Parse an index file's bytes; None if they are not a complete index of this format for `key`."""
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
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key:
        return None  # stale, or written by another format (newer or older): derive again
    body = memoryview(data)[at + size :]
    try:
        if header["body"] != _hash(body) or header["byteorder"] != sys.byteorder:
            return None
        n_terms_bytes, n_docs, n_terms, n_ids = (int(header[k]) for k in ("terms_bytes", "docs", "terms", "ids"))
        verdicts = header["verdicts"]
        if not (isinstance(verdicts, list) and len(verdicts) == n_docs):
            return None
        if not all(v is None or isinstance(v, list) and all(isinstance(c, str) for c in v) for v in verdicts):
            return None
        keywords = header["keywords"]
        if not (isinstance(keywords, list) and len(keywords) == n_docs) or not all(
            isinstance(kws, list) and all(isinstance(kw, list) and all(isinstance(t, str) for t in kw) for kw in kws)
            for kws in keywords
        ):
            return None
        pos = n_terms_bytes
        terms = bytes(body[:pos]).decode("utf-8").split("\n") if n_terms else []
        arrays = []
        for count in (n_docs, n_terms + 1, n_ids):
            part = array("i")
            part.frombytes(body[pos : pos + 4 * count])
            pos += 4 * count
            arrays.append(part)
        doc_lens, starts, ids = arrays
    except (KeyError, TypeError, ValueError, UnicodeDecodeError):
        return None
    if (
        pos != len(body) or len(terms) != n_terms or len(doc_lens) != n_docs
        or len(starts) != n_terms + 1 or starts[0] != 0 or starts[-1] != n_ids
    ):
        return None
    return Derived(key, verdicts, keywords, terms, starts, ids, doc_lens)


def encode(derived: Derived) -> bytes:
    terms = "\n".join(derived.terms).encode("utf-8")
    body = terms + derived.doc_lens.tobytes() + derived.starts.tobytes() + derived.ids.tobytes()
    header = orjson.dumps(
        {
            "format": FORMAT,
            "key": derived.key,
            "byteorder": sys.byteorder,
            "body": _hash(body),
            "terms_bytes": len(terms),
            "docs": len(derived.doc_lens),
            "terms": len(derived.terms),
            "ids": len(derived.ids),
            "verdicts": derived.verdicts,
            "keywords": derived.keywords,
        }
    )
    return MAGIC + len(header).to_bytes(4, "little") + header + body


def save(storage, derived: Derived) -> bool:
    from .fileio import atomic_write

    """Write the index next to memory.json with the store's atomic write (fileio); False (with one
    warning per process for a store that cannot be written) when it cannot be saved."""
    path = index_path(storage.path)
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        existing = None
    except OSError:
        return False
    if existing is not None and (
        not stat.S_ISREG(existing.st_mode) and not stat.S_ISLNK(existing.st_mode) or existing.st_uid != os.geteuid()
    ):
        return False  # someone else's file or a directory: leave it, derive in memory
    try:
        atomic_write(path, encode(derived))
    except FileNotFoundError:
        return False  # a writer cleaned up our temporary file: the next reader saves it
    except OSError as exc:
        warn_once(f"cannot save the index next to {storage.path} ({exc.strerror or exc}); it is derived in memory")
        return False
    return True


def derive(records: list, key: str, redact: bool = False) -> Derived:
    """The derived index of these records (as parsed from the bytes `key` names). `redact`: the
    records may hold secrets another program wrote (memtui's own writes never store one): their
    terms are taken from the redacted text, so the saved index holds no secret either."""
    from .ranking import build_parts, document_tokens
    from .tokenize import tokenize

    clean = (lambda text: text)
    if redact:
        from .threats import redact_secrets as clean
    terms, starts, ids, lengths = build_parts(
        document_tokens(clean(r.text), r.kind.label, r.kind.value) for r in records)
    verdicts = [None if r.scanned is None else list(r.scanned) for r in records]  # None: not judged yet
    keywords = [[tokenize(clean(k)) for k in r.keywords] for r in records]
    return Derived(key, verdicts, keywords, terms, starts, ids, array("i", lengths))


def parse(storage, data: bytes):
    """memory.json's bytes as a Document, with the threat verdicts of a saved index of these exact
    bytes when there is one (`doc.derived`), so the scan is skipped. Raises records.Corrupt."""
    from .records import parse_document

    key = content_key(data)
    found = read(index_path(storage.path), key)
    doc = parse_document(data, found.verdicts if found is not None else None)
    doc.key = key
    if found is not None and len(found.doc_lens) == len(found.verdicts) == len(doc.records):
        doc.derived = found
    return doc


def ensure(storage, doc, written: bool = False) -> Derived | None:
    """The document's derived index: the one read with it, or derived now and saved if possible.
    `written`: memtui just wrote this document (every field redacted); a document read as it is
    may hold secrets another program wrote, kept out of the index."""
    if doc.derived is None and doc.key is not None:
        doc.derived = derive(doc.records, doc.key, redact=not written)
        save(storage, doc.derived)
    return doc.derived
