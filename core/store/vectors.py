"""Each entry's sentence vector, kept beside memory.json (docs/ranking.md, "Meaning in a long-running process").

`memory.json.vectors` holds one vector per entry text, keyed by the hash of the text embedded and
the model's id (core/text/semantic.py, MODEL_ID), so a vector is computed once: at write time when
the writing process has the model (the threat scan's write-time embedding of the same text is the
same computation: semantic.passages remembers it), or in the background by a long-running process
that finds an entry without one. Like the derived index it is never a source of truth: a missing,
corrupt, foreign or other model's file is ignored and the vectors are derived again, and reading it
executes nothing (a fixed header, a JSON part read by orjson, then float32 rows).

Layout: MAGIC, a little-endian u32 header length, the header (JSON: format, model, dims,
byteorder, the body's CRC-32 and one hex key per row), then the rows (float32, `dims` each).
Only a long-running process that ranks by meaning reads it; the per-turn hook never does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import orjson

__all__ = ["VECTORS_SUFFIX", "Meaning", "Table", "passage_key", "passage_text", "vectors_path"]

FORMAT = 1
VECTORS_SUFFIX = ".vectors"
MAGIC = b"MEMTUI-VECTORS\n"
BATCH = 8  # texts per model call in the background: a turn waits at most one batch for the model


def vectors_path(memory_path: Path) -> Path:
    return memory_path.with_name(memory_path.name + VECTORS_SUFFIX)


def passage_text(text: str, keywords, with_keywords: bool) -> str:
    """What an entry is embedded as (measured: docs/ranking.md): its text, then its keywords when
    the profile uses them. An entry without keywords is embedded as its text alone, the very input
    of the threat scan's write-time embedding, so the two are one computation."""
    if with_keywords and keywords:
        return f"{text} {', '.join(keywords)}"
    return text


def passage_key(text: str) -> str:
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def read(path: Path, model: str, dims: int) -> dict[str, object] | None:
    """The vectors saved at `path` for this model (key -> float32 row), or None when there are none
    that can be trusted."""
    import numpy as np

    from .fileio import open_regular, read_fd

    try:
        fd = open_regular(path)  # never a symbolic link, never waiting on a FIFO
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o077:
            return None
        data = read_fd(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        return None
    at = len(MAGIC)
    size = int.from_bytes(data[at:at + 4], "little")
    at += 4
    try:
        header = orjson.loads(data[at:at + size])
        from zlib import crc32

        body = memoryview(data)[at + size:]
        keys = header["keys"]
        if (header["format"] != FORMAT or header["model"] != model or header["dims"] != dims
                or header["byteorder"] != sys.byteorder or header["body"] != crc32(body)
                or type(keys) is not list or len(body) != len(keys) * dims * 4
                or not all(type(key) is str for key in keys)):
            return None
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    rows = np.frombuffer(body, dtype=np.float32).reshape(len(keys), dims) if keys else np.empty((0, dims), np.float32)
    return dict(zip(keys, rows))


def encode(vectors: dict[str, object], model: str, dims: int) -> bytes:
    import numpy as np
    from zlib import crc32

    keys = list(vectors)
    body = np.ascontiguousarray(np.stack([vectors[key] for key in keys]).astype(np.float32)) if keys else (
        np.empty((0, dims), np.float32))
    raw = body.tobytes()
    header = orjson.dumps({"format": FORMAT, "model": model, "dims": dims, "byteorder": sys.byteorder,
                           "body": crc32(raw), "keys": keys})
    return b"".join([MAGIC, len(header).to_bytes(4, "little"), header, raw])


class Table:
    """The vectors of one store in this process: read from the file once, filled as entries are
    embedded, saved when something was added. Thread-safe: a background fill and the turns share it."""

    def __init__(self, memory_path: Path) -> None:
        from ..text import semantic

        self.path = vectors_path(memory_path)
        import threading  # here: the per-turn hook imports this module but never makes a table

        self.model, self.dims = semantic.MODEL_ID, semantic.DIMENSIONS
        self._lock = threading.RLock()
        self._vectors: dict[str, object] | None = None
        self._stat: tuple | None = None
        self._filling = None  # the background thread filling the table
        self.version = 0  # counts changes, so a snapshot's rows refresh only when something was added
        self.failed = False  # the background fill met an error (the turns go on with what is known)

    def _file_stat(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def vectors(self) -> dict[str, object]:
        """key -> vector: what the file holds (read again when another process changed it), plus
        what this process embedded since."""
        with self._lock:
            now = self._file_stat()
            if self._vectors is None or (now is not None and now != self._stat):
                found = read(self.path, self.model, self.dims) or {}
                if self._vectors:
                    found = {**found, **self._vectors}
                self._vectors, self._stat = found, now
                self.version += 1
            return self._vectors

    def add(self, keyed: dict[str, object], save: bool = True, keep: set[str] | None = None) -> None:
        """Remember these vectors and save the file (keeping only the keys in `keep`, when given:
        the texts the store still holds)."""
        with self._lock:
            vectors = self.vectors()
            vectors.update(keyed)
            self.version += 1
            if keep is not None:
                for key in [key for key in vectors if key not in keep]:
                    del vectors[key]
            if save:
                self.save()

    def save(self) -> bool:
        from .fileio import atomic_write

        with self._lock:
            try:
                atomic_write(self.path, encode(self.vectors(), self.model, self.dims))
            except OSError:
                return False
            self._stat = self._file_stat()
            return True

    def embed(self, texts: list[str]) -> dict[str, object] | None:
        """The vectors of `texts` by key, embedding those not known (None without the model)."""
        from ..text import semantic

        vectors = self.vectors()
        missing = [text for text in dict.fromkeys(texts) if passage_key(text) not in vectors]
        if missing:
            try:
                rows = semantic.passages(missing)
            except (RuntimeError, ValueError, OSError, MemoryError):
                rows = None
            if rows is None:
                return None
            self.add({passage_key(text): row for text, row in zip(missing, rows)}, save=False)
        vectors = self.vectors()
        return {passage_key(text): vectors.get(passage_key(text)) for text in texts}

    def fill(self, texts: list[str], keep: set[str], done=None) -> None:
        """Embed, in a background thread, the texts without a vector, `BATCH` at a time, saving
        the file as batches finish; `done()` is called after each batch (the snapshot refreshes)."""
        import threading

        with self._lock:
            if self._filling is not None and self._filling.is_alive():
                return
            self._filling = threading.Thread(target=self._fill, args=(texts, keep, done), daemon=True,
                                             name="memtui-vectors")
            self._filling.start()

    def _fill(self, texts: list[str], keep: set[str], done) -> None:
        try:
            vectors = self.vectors()
            missing = [text for text in dict.fromkeys(texts) if passage_key(text) not in vectors]
            for start in range(0, len(missing), BATCH):
                if self.embed(missing[start:start + BATCH]) is None:
                    return
                self.add({}, save=(start + BATCH >= len(missing) or (start // BATCH) % 8 == 7), keep=keep)
                if done is not None:
                    done()
        except Exception:  # the vectors are an optimisation: the turns go on by words
            self.failed = True

    def wait(self, timeout: float | None = None) -> None:
        """Until the background fill ends (tests, benchmarks)."""
        thread = self._filling
        if thread is not None:
            thread.join(timeout)


class Rows:
    """One file state's entries as a matrix of vectors (float32, by position) and which are known;
    rows missing are filled from the table as the background embeds them."""

    __slots__ = ("table", "keys", "texts", "matrix", "known", "version")

    def __init__(self, table: Table, records, with_keywords: bool) -> None:
        import numpy as np

        self.table = table
        self.texts = [passage_text(record.text, record.keywords, with_keywords) for record in records]
        self.keys = [passage_key(text) for text in self.texts]
        self.matrix = np.zeros((len(self.keys), table.dims), dtype=np.float32)
        self.known = np.zeros(len(self.keys), dtype=bool)
        self.version = -1
        self.refresh()

    def refresh(self) -> None:
        import numpy as np

        if self.version == self.table.version and self.version >= 0:
            return
        self.version = self.table.version
        vectors = self.table.vectors()
        for position in np.flatnonzero(~self.known).tolist():
            vector = vectors.get(self.keys[position])
            if vector is not None and len(vector) == self.table.dims:
                self.matrix[position] = vector
                self.known[position] = True

    def missing(self) -> list[int]:
        import numpy as np

        return np.flatnonzero(~self.known).tolist()


# How many entries a turn embeds itself when the words' hits have no vector yet (the rest are
# embedded in the background): a turn never waits for a whole store.
TURN_EMBEDS = 12


class _Shares:
    """Whether an entry shares a scored term with the message (its BM25 score is above 0), worked
    out the first time meaning asks (only when some entry reaches the admit bar)."""

    __slots__ = ("index", "terms", "_scored")

    def __init__(self, index, terms) -> None:
        self.index = index
        self.terms = list(terms)
        self._scored: set[int] | None = None

    def __contains__(self, doc_id: object) -> bool:
        if self._scored is None:
            scores = self.index.scores(self.terms) if self.terms else {}
            self._scored = {found for found, score in scores.items() if score > 0.0}
        return doc_id in self._scored


class _Excluded:
    """What meaning may not admit: the blocked entries and the pinned core's (in the block already)."""

    __slots__ = ("blocked", "core")

    def __init__(self, blocked, core) -> None:
        self.blocked = blocked
        self.core = frozenset(core)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.core or doc_id in self.blocked


def judge(store, snap, query: str, hits: list[tuple[int, float]], k: int, blocked, core=()):
    """The words' `hits` judged by meaning (ranking/meaning.py) with the store's vectors: (picked,
    the Choice or None, a note or None). Without the model: the words' first `k`, and a note.
    `core`: the pinned core's entries, which meaning never admits (they are in the block already,
    and the words' hits come without them)."""
    return judge_parts([(store, snap)], None, snap.index, store.limits, query, hits, k, blocked, core)


def judge_parts(parts, where, index, limits, query: str, hits: list[tuple[int, float]], k: int, blocked, core=()):
    """`judge` over one candidate set made of several stores' entries (core/scopes.py): `parts` is
    [(store, snapshot)], each with its own vectors; the set's positions are the parts' entries one
    after the other, unless `where` names each position's (part, position in the part); `index`
    ranks the set (whether an entry shares a word with the message)."""
    from ..ranking import meaning
    from ..ranking.index import split_query
    from ..text import semantic
    from ..text.tokenize import tokenize

    status = semantic.status()
    if status != "ok":
        if not semantic.turned_off():
            from .derived import warn_once

            warn_once(f"meaning is unavailable ({status}); ranking by words alone")
        return hits[:k], None, meaning.unavailable(status)
    vector = meaning.query_vector(query)
    if vector is None:
        return hits[:k], None, meaning.unavailable("the model failed on this message")
    every = [_rows(store, snap) for store, snap in parts]
    starts = [0]
    for rows in every:
        starts.append(starts[-1] + len(rows.keys))
    if where is None:
        from bisect import bisect_right

        def locate(position: int) -> tuple[int, int]:
            part = bisect_right(starts, position) - 1
            return part, position - starts[part]
    else:
        locate = where.__getitem__
    unknown: dict[int, list[int]] = {}
    for doc_id, _ in hits:
        part, local = locate(doc_id)
        if not every[part].known[local]:
            unknown.setdefault(part, []).append(local)
    for part, locals_ in unknown.items():
        rows = every[part]
        if rows.table.embed([rows.texts[local] for local in locals_[:TURN_EMBEDS]]) is not None:
            rows.refresh()
    for (store, _snap), rows in zip(parts, every):
        missing = rows.missing()
        if missing and not store.storage.not_a_store:
            rows.table.fill([rows.texts[position] for position in missing], set(rows.keys), rows.refresh)
    cosines, known = _joined([meaning.cosines_of(rows.matrix, vector) for rows in every],
                             [rows.known for rows in every], where)
    terms, _ = split_query(tokenize(query), limits.stopwords, index.vocabulary if limits.fold_inflections else None,
                           None, bool(limits.language_stopwords), limits.general_words)
    choice = meaning.combine(hits, cosines, known, k, limits.semantic_floor, limits.semantic_admit,
                             _Excluded(blocked, core), _Shares(index, terms))
    return choice.picked, choice, None


def _joined(cosines: list, known: list, where):
    """The parts' cosines and known flags as the candidate set's arrays (by its positions)."""
    import numpy as np

    if len(cosines) == 1 and where is None:
        return cosines[0], known[0]
    if where is None:
        return np.concatenate(cosines), np.concatenate(known)
    part = np.fromiter((p for p, _ in where), dtype=np.intp, count=len(where))
    local = np.fromiter((i for _, i in where), dtype=np.intp, count=len(where))
    out_cos = np.zeros(len(where), dtype=np.float32)
    out_known = np.zeros(len(where), dtype=bool)
    for number, (part_cosines, part_known) in enumerate(zip(cosines, known)):
        mine = part == number
        out_cos[mine] = part_cosines[local[mine]]
        out_known[mine] = part_known[local[mine]]
    return out_cos, out_known


def _table(store) -> Table:
    if store._vectors is None:
        store._vectors = Table(store.path)
    return store._vectors


def _rows(store, snap) -> Rows:
    """The snapshot's matrix of vectors, made the first time meaning ranks this file state."""
    table = _table(store)
    rows = snap.meaning
    if rows is None or rows.table is not table:
        rows = snap.meaning = Rows(table, snap.records, store.limits.keyword_weight > 0)
    rows.refresh()
    return rows


class Meaning:
    """What MemoryStore adds to rank by meaning (a profile with `semantic_floor` or `semantic_admit`):
    the store's vector table, made when meaning first ranks, and `warm`."""

    _vectors: Table | None = None

    def warm(self, wait: bool = True) -> str:
        """Ready this store to rank by meaning: load the sentence model and every entry's vector,
        embedding those missing (here with `wait`, else in the background). A long-running process
        may call it at start; a turn then pays one embedding. Returns "ok", or why meaning is
        unavailable (the words rank alone)."""
        if not (self.limits.semantic_floor or self.limits.semantic_admit):  # type: ignore[attr-defined]
            return "ok"
        return warm(self, wait)

    def _meaning_judge(self, snap, query: str, core=()):
        """explain's judge (`judge(hits, k)`): the very judgement of a turn, or None when the
        profile does not rank by meaning."""
        if not (self.limits.semantic_floor or self.limits.semantic_admit):  # type: ignore[attr-defined]
            return None
        return lambda hits, k: judge(self, snap, query, hits, k, snap.blocked(), core)


def wanted(store) -> bool:
    """Whether a write keeps the vectors of what it wrote: when the store ranks by meaning, or the
    threat scan's third opinion embeds what is written (so the vector costs nothing more)."""
    if store.limits.semantic_floor or store.limits.semantic_admit:
        return True
    from ..safety import threat_model_semantic

    return threat_model_semantic._turned_off() is None


def after_write(store) -> None:
    """Keep the vectors of what was just written, when this process has the model loaded (the
    threat scan's write-time embedding loaded it; a long-running process that ranks by meaning):
    texts the scan embedded cost nothing more, at most TURN_EMBEDS others are embedded now, and a
    long-running process embeds the rest in the background. Never fails the write."""
    from ..text import semantic

    if not semantic.loaded() or semantic.turned_off():
        return
    try:
        records = store._snap(lean=False).records
        table = _table(store)
        known = table.vectors()
        texts = [passage_text(r.text, r.keywords, store.limits.keyword_weight > 0) for r in records]
        missing = [text for text in dict.fromkeys(texts) if passage_key(text) not in known]
        shared = {passage_key(text): semantic.cached(text) for text in missing}
        shared = {key: row for key, row in shared.items() if row is not None}
        rest = [text for text in missing if passage_key(text) not in shared][:TURN_EMBEDS]
        if rest:
            rows = semantic.passages(rest)
            if rows is not None:
                shared.update({passage_key(text): row for text, row in zip(rest, rows)})
        keep = {passage_key(text) for text in texts}
        if shared or any(key not in keep for key in known):  # new vectors, or those of texts gone
            table.add(shared, keep=keep)
    except Exception:  # the vectors are an optimisation: the write is done
        pass


def warm(store, wait: bool = True) -> str:
    """Load the model and every entry's vector now (embedding those missing: in this thread with
    `wait`, else in the background); 'ok' or why meaning is unavailable."""
    from ..text import semantic

    status = semantic.status()
    if status != "ok":
        return status
    snap = store._snap(lean=False)
    rows = _rows(store, snap)
    table = rows.table
    missing = rows.missing()
    if missing:
        texts = [rows.texts[position] for position in missing]
        if wait:
            for start in range(0, len(texts), BATCH * 4):
                if table.embed(texts[start:start + BATCH * 4]) is None:
                    return semantic.status()
            table.add({}, keep=set(rows.keys))
            rows.refresh()
        else:
            table.fill(texts, set(rows.keys), rows.refresh)
    return "ok"
