"""Train the threat scan's second opinion (core/threat_model.json) from tests/core/data.

    pip install scikit-learn && python scripts/train_threat_model.py [--check]

Every `*hostile*.jsonl` / `*benign*.jsonl` pair in tests/core/data is one batch. The script:

1. measures the hostile-or-benign model honestly, leave-one-batch-out: for each batch written
   after the first one, a model trained on every other batch scores it, as a new batch of unseen
   phrasings would be;
2. picks the threshold: the lowest (of 0.50, 0.55 … 0.95, 0.97, 0.98, 0.99) at which those unseen benign rows are
   flagged at most 0.5% of the time;
3. trains both models (hostile or benign; which category) on every batch, checks that
   core/threat_model.py computes the same probabilities as scikit-learn on every row, and writes
   core/threat_model.json.

`--check` retrains and fails if the shipped file differs in its figures (used before a release).
scikit-learn is needed only here, never by memtui itself.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "core" / "data"
NGRAM = (2, 4)
MAX_FEATURES = 8_000
C = 64.0
MAX_BENIGN_RATE = 0.005
THRESHOLDS = [round(0.5 + 0.05 * i, 2) for i in range(10)] + [0.97, 0.98, 0.99]
CATEGORY = {"template": "fence"}  # the corpora's name for chat-template and fence lines


def words(text: str) -> str:
    from memtui_core.scan_views import text_view, words_view

    return words_view(text_view(text)).text


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
        model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(matrix, labels)
    return vectorizer, gate, model, texts


def hostile_probability(vectorizer, gate, texts):
    return gate.predict_proba(vectorizer.transform(texts))[:, 1]


def leave_one_batch_out(data):
    held = [name for name in data if name != "first"]
    counts = {t: [0, 0, 0, 0] for t in THRESHOLDS}
    for name in held:
        vectorizer, gate, _, _ = fit(data, [n for n in data if n != name], categories=False)
        hostile, benign = data[name]
        ph = hostile_probability(vectorizer, gate, [t for t, _ in hostile]) if hostile else []
        pb = hostile_probability(vectorizer, gate, benign) if benign else []
        for t, c in counts.items():
            c[0] += int(sum(p >= t for p in ph)) if hostile else 0
            c[1] += len(hostile)
            c[2] += int(sum(p >= t for p in pb))
            c[3] += len(benign)
    return held, counts


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
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from memtui_core.threat_model import MODEL_PATH, Model

    data = batches()
    held, counts = leave_one_batch_out(data)
    print(f"leave-one-batch-out over {len(held)} batches ({', '.join(held)}):")
    print(f"{'threshold':>9}  {'hostile caught':>16}  {'benign flagged':>16}")
    for t, (h, hn, b, bn) in counts.items():
        print(f"{t:>9.2f}  {h:>5}/{hn:<5} {h / hn:>5.0%}  {b:>5}/{bn:<5} {b / bn:>5.1%}")
    threshold = next((t for t, c in counts.items() if c[2] <= MAX_BENIGN_RATE * c[3]), THRESHOLDS[-1])
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
    if args.check:
        shipped = json.loads(MODEL_PATH.read_text("utf-8"))
        if shipped["threshold"] != threshold or shipped["classes"] != exported["classes"]:
            raise SystemExit("core/threat_model.json is out of date: retrain it")
        return 0
    MODEL_PATH.write_text(json.dumps(exported, ensure_ascii=False, separators=(",", ":")) + "\n", "utf-8")
    print(f"wrote {MODEL_PATH} ({MODEL_PATH.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
