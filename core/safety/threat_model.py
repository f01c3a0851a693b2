"""The threat scan's second opinion: linear models learned from the project's own corpora.

The rules (core/safety/threats.py) catch what they describe; a memory phrased in a way no rule describes
slips past them. This model reads character n-grams of the same normalised words view the rules
read (NFKC, case folding, confusables, de-spacing, de-leet), weighs them by tf-idf, and scores
hostile against benign with a logistic regression. When the rules name no intent and that model
gives at least `threshold`, a second, multinomial regression over the same features names the
likeliest category, and the scan reports one finding of it (`model.<category>`) with the
probability in its reason.

The weights live in `threat_model.json` next to this file: plain numbers, nothing executed when it
is loaded. `scripts/train_threat_model.py` trains it from tests/core/safety/data, checks that this
module's arithmetic gives the same probabilities as the trainer, and picks the threshold by
leave-one-batch-out measurement (docs/threat-scan.md, "The learned second opinion").
"""

from __future__ import annotations

import base64
import math
from array import array
from collections import Counter
from pathlib import Path

__all__ = ["MODEL_PATH", "Model", "analyze", "load"]

MODEL_PATH = Path(__file__).with_name("threat_model.json")
FORMAT = 1


def analyze(text: str, low: int, high: int) -> list[str]:
    """The character n-grams (`low` to `high` long) of the text with its white space squeezed to
    single spaces and a space at each end: the features the models were trained on."""
    padded = " " + " ".join(text.split()) + " "
    size = len(padded)
    return [padded[i : i + n] for n in range(low, high + 1) for i in range(size - n + 1)]


def _floats(encoded: str) -> array:
    values = array("f")
    values.frombytes(base64.b64decode(encoded))
    return values


class Model:
    """The learned weights: per n-gram its idf and one weight per class."""

    __slots__ = ("classes", "benign", "threshold", "low", "high", "column", "idf", "coef", "intercept",
                 "hostile_coef", "hostile_bias")

    def __init__(self, data: dict) -> None:
        if data.get("format") != FORMAT:
            raise ValueError(f"threat model format {data.get('format')!r}, expected {FORMAT}")
        self.classes: list[str] = list(data["classes"])
        self.benign = self.classes.index("benign")
        self.threshold = float(data["threshold"])
        self.low, self.high = (int(n) for n in data["ngram"])
        grams = data["grams"].split("\x1f")
        self.column = {gram: i for i, gram in enumerate(grams)}
        self.idf = _floats(data["idf"])
        self.coef = _floats(data["coef"])  # row-major: one row of len(grams) weights per class
        self.intercept = [float(v) for v in data["intercept"]]
        self.hostile_coef = _floats(data["hostile_coef"])
        self.hostile_bias = float(data["hostile_bias"])
        if (len(self.idf) != len(grams) or len(self.coef) != len(grams) * len(self.classes)
                or len(self.hostile_coef) != len(grams)):
            raise ValueError("threat model arrays do not match its n-grams")

    def _features(self, words: str) -> dict[int, float]:
        """Sublinear tf times idf, L2-normalised over the known n-grams (the trainer's vectors)."""
        counts = Counter(analyze(words, self.low, self.high))
        idf = self.idf
        log = math.log
        weights = {index: idf[index] if tf == 1 else (1.0 + log(tf)) * idf[index]
                   for index, tf in zip(map(self.column.get, counts), counts.values()) if index is not None}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {index: w / norm for index, w in weights.items()}

    def hostile(self, words: str) -> float:
        """P(hostile) for a text already in the words view: one weight per n-gram it holds."""
        coef = self.hostile_coef
        score = self.hostile_bias + sum(coef[index] * w for index, w in self._features(words).items())
        return 1.0 / (1.0 + math.exp(-score)) if score > -700 else 0.0

    def probabilities(self, words: str) -> list[float]:
        """P(class) of the category model, for a text already in the words view."""
        features = self._features(words)
        width = len(self.idf)
        logits = []
        for row, bias in enumerate(self.intercept):
            base = row * width
            logits.append(bias + sum(self.coef[base + index] * w for index, w in features.items()))
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        return [v / total for v in exps]

    def judge(self, words: str) -> tuple[str, float] | None:
        """(likeliest hostile category, P(hostile)) when P(hostile) reaches the threshold."""
        hostile = self.hostile(words)
        if hostile < self.threshold:
            return None
        probabilities = self.probabilities(words)
        best = max((p, name) for i, (p, name) in enumerate(zip(probabilities, self.classes)) if i != self.benign)
        return best[1], hostile


_MODEL: Model | None = None


def load() -> Model:
    """The shipped model, read once per process (about 10 ms; only the write path needs it)."""
    global _MODEL
    if _MODEL is None:
        import json

        _MODEL = Model(json.loads(MODEL_PATH.read_text("utf-8")))
    return _MODEL
