"""Train the threat scan's second opinion (core/threat_model.json) from tests/core/data.

    pip install scikit-learn && python scripts/train_threat_model.py [--check]

Every `*hostile*.jsonl` / `*benign*.jsonl` pair in tests/core/data is one batch. The script:

1. measures the hostile-or-benign model honestly, leave-one-batch-out: for each batch written
   after the first one, a model trained on every other batch scores it, as a new batch of unseen
   phrasings would be;
2. picks the threshold: the lowest (to 0.001) at which those unseen benign rows are flagged at
   most 0.5% of the time;
3. trains both models (hostile or benign; which category) on every batch, checks that
   core/threat_model.py computes the same probabilities as scikit-learn on every row, and writes
   core/threat_model.json.

`--check` retrains and fails if the shipped file differs in its figures (used before a release).
scikit-learn is needed only here, never by memtui itself.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import sys
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "core" / "data"
NGRAM = (2, 5)
MAX_FEATURES = 20_000
PINS = ROOT / "tests" / "core" / "threat_model_pins.json"
PINNED_ROWS = 60
C = 8.0  # chosen by the leave-one-batch-out measurement (docs/threat-scan.md), not by fit
CATEGORY_C = 64.0  # the category model only names what the hostile model already flagged
MAX_BENIGN_RATE = 0.005
THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]  # the table printed beside the chosen threshold
CATEGORY = {"template": "fence"}  # the corpora's name for chat-template and fence lines


def words(text: str) -> str:
    """What the model reads at run time: the words view, of the text without its quoted examples
    of attacks when it frames them so (threats.scan_text)."""
    from memtui_core.scan_views import text_view, words_view
    from memtui_core.threats import _without_quoted_examples

    return words_view(text_view(_without_quoted_examples(text) or text)).text


def batches() -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    out = {}
    for hostile in sorted(DATA.glob("*hostile*.jsonl")):
        name = hostile.stem.replace("hostile", "").strip("_") or "first"
        benign = hostile.with_name(hostile.name.replace("hostile", "benign"))
        rows = [json.loads(line) for line in hostile.read_text("utf-8").splitlines() if line.strip()]
        good = [json.loads(line) for line in benign.read_text("utf-8").splitlines() if line.strip()] if benign.exists() else []
        out[name] = ([(words(r["text"]), CATEGORY.get(r.get("category", ""), r.get("category") or "override")) for r in rows],
                     [words(r["text"]) for r in good])
    for benign in sorted(DATA.glob("*benign*.jsonl")):  # lookalikes with no hostile batch beside them
        name = benign.stem.replace("benign", "").strip("_") or "first"
        if name not in out:
            rows = [json.loads(line) for line in benign.read_text("utf-8").splitlines() if line.strip()]
            out[name] = ([], [words(r["text"]) for r in rows])
    return out


def fit(data, names, categories: bool = True):
    """The vectorizer, the hostile-or-benign model, the category model (or None) and the texts."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from memtui_core.threat_model import analyze

    texts, labels = [], []
    for name in names:
        hostile, benign = data[name]
        texts += [t for t, _ in hostile] + benign
        labels += [c for _, c in hostile] + ["benign"] * len(benign)
    vectorizer = TfidfVectorizer(analyzer=lambda t: analyze(t, *NGRAM), sublinear_tf=True, min_df=2,
                                 max_features=MAX_FEATURES)
    matrix = vectorizer.fit_transform(texts)
    gate = LogisticRegression(C=C, max_iter=5000, class_weight="balanced")
    gate.fit(matrix, [label != "benign" for label in labels])
    model = None
    if categories:
        model = LogisticRegression(C=CATEGORY_C, max_iter=5000, class_weight="balanced").fit(matrix, labels)
    return vectorizer, gate, model, texts


def hostile_probability(vectorizer, gate, texts):
    return gate.predict_proba(vectorizer.transform(texts))[:, 1]


def leave_one_batch_out(data):
    """Per batch written after the first: the hostile and benign probabilities a model trained on
    every other batch gives its rows."""
    scores = {}
    for name in [name for name in data if name != "first"]:
        vectorizer, gate, _, _ = fit(data, [n for n in data if n != name], categories=False)
        hostile, benign = data[name]
        scores[name] = ([float(p) for p in hostile_probability(vectorizer, gate, [t for t, _ in hostile])] if hostile else [],
                        [float(p) for p in hostile_probability(vectorizer, gate, benign)] if benign else [])
    return scores


def pick_threshold(scores) -> float:
    """The lowest threshold (to 0.001) at which at most MAX_BENIGN_RATE of the unseen benign rows
    reach it."""
    benign = sorted((p for _, b in scores.values() for p in b), reverse=True)
    allowed = int(MAX_BENIGN_RATE * len(benign))
    return min(0.999, math.floor(benign[allowed] * 1000 + 1) / 1000) if len(benign) > allowed else 0.5


def report(scores, threshold: float) -> None:
    hostile = [p for h, _ in scores.values() for p in h]
    benign = [p for _, b in scores.values() for p in b]
    print(f"leave-one-batch-out over {len(scores)} batches:")
    print(f"{'threshold':>9}  {'hostile caught':>16}  {'benign flagged':>16}")
    for t in sorted(set(THRESHOLDS) | {threshold}):
        h, b = sum(p >= t for p in hostile), sum(p >= t for p in benign)
        mark = "  <- chosen" if t == threshold else ""
        print(f"{t:>9.3f}  {h:>5}/{len(hostile):<5} {h / len(hostile):>5.0%}  {b:>5}/{len(benign):<5} {b / len(benign):>5.1%}{mark}")
    print(f"per batch at {threshold}:")
    for name, (h, b) in scores.items():
        print(f"  {name:<12} hostile {sum(p >= threshold for p in h):>3}/{len(h):<3}  benign {sum(p >= threshold for p in b)}/{len(b)}")


def export(vectorizer, gate, model, threshold: float) -> dict:
    grams = vectorizer.get_feature_names_out().tolist()
    assert not any("\x1f" in g for g in grams)
    idf = array("f", vectorizer.idf_.tolist())
    coef = array("f", model.coef_.reshape(-1).tolist())
    hostile_coef = array("f", gate.coef_.reshape(-1).tolist())
    if len(model.classes_) == 2:  # scikit-learn keeps one row for two classes; never the case here
        raise SystemExit("the corpora must hold at least two hostile categories")
    return {
        "format": 1,
        "about": "memtui threat scan second opinion; trained by scripts/train_threat_model.py",
        "ngram": list(NGRAM),
        "threshold": threshold,
        "classes": model.classes_.tolist(),
        "intercept": [round(float(v), 6) for v in model.intercept_],
        "grams": "\x1f".join(grams),
        "idf": base64.b64encode(idf.tobytes()).decode(),
        "coef": base64.b64encode(coef.tobytes()).decode(),
        "hostile_coef": base64.b64encode(hostile_coef.tobytes()).decode(),
        "hostile_bias": round(float(gate.intercept_[0]), 6),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the shipped model's threshold differs")
    parser.add_argument("--output", type=Path, help="write the model here (and no pins) instead of core/threat_model.json")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from memtui_core.threat_model import MODEL_PATH, Model

    data = batches()
    scores = leave_one_batch_out(data)
    threshold = pick_threshold(scores)
    report(scores, threshold)
    print(f"threshold: {threshold} (the lowest flagging at most {MAX_BENIGN_RATE:.1%} of unseen benign rows)")

    vectorizer, gate, model, texts = fit(data, list(data))
    exported = export(vectorizer, gate, model, threshold)
    mine = Model(exported)
    theirs = model.predict_proba(vectorizer.transform(texts))
    worst = max(abs(a - b) for row, text in zip(theirs, texts) for a, b in zip(row, mine.probabilities(text)))
    hostile = hostile_probability(vectorizer, gate, texts)
    worst = max(worst, max(abs(p - mine.hostile(text)) for p, text in zip(hostile, texts)))
    print(f"core/threat_model.py against scikit-learn on {len(texts)} rows: largest difference {worst:.2e}")
    if worst > 1e-4:
        raise SystemExit("the shipped arithmetic does not reproduce the trainer")
    step = max(1, len(texts) // PINNED_ROWS)
    pins = [{"words": texts[i], "hostile": round(float(hostile[i]), 7), "probabilities": [round(float(p), 7) for p in theirs[i]]}
            for i in range(0, len(texts), step)]
    encoded = json.dumps(exported, ensure_ascii=False, separators=(",", ":")) + "\n"
    if args.check:
        shipped = json.loads(MODEL_PATH.read_text("utf-8"))
        if abs(shipped["threshold"] - threshold) > 0.002 or shipped["classes"] != exported["classes"]:
            raise SystemExit("core/threat_model.json is out of date: retrain it")
        pinned = json.loads(PINS.read_text("utf-8"))
        if pinned["model_sha256"] != hashlib.sha256(MODEL_PATH.read_bytes()).hexdigest():
            raise SystemExit(f"{PINS.name} pins another model: retrain")
        worst = max(abs(a - b) for old, new in zip(pinned["rows"], pins)
                    for a, b in zip([old["hostile"], *old["probabilities"]], [new["hostile"], *new["probabilities"]]))
        if len(pinned["rows"]) != len(pins) or worst > 1e-3:
            raise SystemExit(f"retraining moves the pinned probabilities by {worst:.1e}: retrain and commit")
        print(f"core/threat_model.json is current (pinned probabilities within {worst:.1e} of a retrain)")
        return 0
    target = args.output or MODEL_PATH
    target.write_text(encoded, "utf-8")
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")
    if args.output is None:
        PINS.write_text(json.dumps({"about": "scikit-learn's probabilities for some training rows, written by "
                                             "scripts/train_threat_model.py; tests/core/test_threat_model.py checks "
                                             "that core/threat_model.py computes the same",
                                    "model_sha256": hashlib.sha256(encoded.encode()).hexdigest(), "rows": pins},
                                   ensure_ascii=False, indent=0) + "\n", "utf-8")
        print(f"wrote {PINS} ({len(pins)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
