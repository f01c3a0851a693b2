"""The threat scan's second opinion: a linear model learned from the project's own corpora.

The rules (core/threats.py) catch what they describe; a memory phrased in a way no rule describes
slips past them. This model reads character n-grams of the same normalised words view the rules
read (NFKC, case folding, confusables, de-spacing, de-leet), weighs them by tf-idf, and scores
each category of hostile memory against "benign" with a multinomial logistic regression. When the
rules find nothing and the model gives the hostile categories together at least `threshold`, the
scan reports one finding of the likeliest category (`model.<category>`), with the probability in
its reason.

The weights live in `threat_model.json` next to this file: plain numbers, nothing executed when it
is loaded. `scripts/train_threat_model.py` trains it from tests/core/data, checks that this
module's arithmetic gives the same probabilities as the trainer, and picks the threshold by
leave-one-batch-out measurement (docs/threat-scan.md, "The learned second opinion").
"""

from __future__ import annotations

import base64
import math
from array import array
from pathlib import Path

__all__ = ["MODEL_PATH", "Model", "analyze", "load"]

MODEL_PATH = Path(__file__).with_name("threat_model.json")
FORMAT = 1


def analyze(text: str, low: int, high: int) -> list[str]:
    """The character n-grams (`low` to `high` long) of each space-separated word, padded with a
    space on both sides: the features the model was trained on."""
    grams: list[str] = []
    extend = grams.extend
    for word in text.split():
        padded = f" {word} "
        size = len(padded)
        for n in range(low, high + 1):
            extend(padded[i : i + n] for i in range(size - n + 1))
    return grams


def _floats(encoded: str) -> array:
    values = array("f")
    values.frombytes(base64.b64decode(encoded))
    return values


class Model:
    """The learned weights: per n-gram its idf and one weight per class."""

    __slots__ = ("classes", "benign", "threshold", "low", "high", "column", "idf", "coef", "intercept")

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
        if len(self.idf) != len(grams) or len(self.coef) != len(grams) * len(self.classes):
            raise ValueError("threat model arrays do not match its n-grams")

    def probabilities(self, words: str) -> list[float]:
        """P(class) for a text already in the words view (the trainer's predict_proba)."""
        counts: dict[int, int] = {}
        column = self.column
        for gram in analyze(words, self.low, self.high):
            index = column.get(gram)
            if index is not None:
                counts[index] = counts.get(index, 0) + 1
        # sublinear tf times idf, L2-normalised over the known n-grams
        weights = {index: (1.0 + math.log(tf)) * self.idf[index] for index, tf in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        width = len(self.idf)
        logits = []
        for row, bias in enumerate(self.intercept):
            base = row * width
            logits.append(bias + sum(self.coef[base + index] * w for index, w in weights.items()) / norm)
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        return [v / total for v in exps]

    def judge(self, words: str) -> tuple[str, float] | None:
        """(likeliest hostile category, P(hostile)) when P(hostile) reaches the threshold."""
        probabilities = self.probabilities(words)
        hostile = 1.0 - probabilities[self.benign]
        if hostile < self.threshold:
            return None
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
