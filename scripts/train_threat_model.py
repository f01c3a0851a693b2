"""Train the threat scan's second opinion (core/safety/threat_model.json) from tests/core/safety/data.

    pip install scikit-learn && python scripts/train_threat_model.py [--check]

Every `*hostile*.jsonl` / `*benign*.jsonl` pair in tests/core/safety/data is one batch; a benign file with
no hostile file beside it (`lookalikes_benign.jsonl`, `plain_benign.jsonl`: ordinary memories
shaped like instructions) is a batch of its own, held out like any other, so its rows count for the
threshold and the leave-one-batch-out figures (they only ever add benign rows). The script:

1. measures the hostile-or-benign model honestly, leave-one-batch-out: for each batch written
   after the first one, a model trained on every other batch scores it, as a new batch of unseen
   phrasings would be;
2. picks the threshold: the lowest (to 0.001) at which those unseen benign rows are flagged at
   most 0.5% of the time;
3. trains both models (hostile or benign; which category) on every batch, checks that
   core/safety/threat_model.py computes the same probabilities as scikit-learn on every row, and writes
   core/safety/threat_model.json.

Then the same for the semantic third opinion (core/safety/threat_model_semantic.json): logistic
regressions over each row's sentence embedding (core/text/semantic.py), measured leave-one-batch-out,
its threshold picked the same way for its probability weighed with the character model's unseen
one (`SEMANTIC_CHAR_WEIGHT`), its arithmetic checked, some rows pinned with their embeddings
in tests/core/safety/threat_model_semantic_pins.json. Embeddings are cached outside the repository
(`SEMANTIC_CACHE`), so only rows not seen before are embedded. `--semantic-only` trains only it;
`--explore` prints the options it was chosen from (the input view, C, a stacked model, which model
names the category better).

`--check` retrains and fails if the shipped files differ in their figures (used before a release).
scikit-learn is needed only here, never by memtui itself.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import os
import sys
from array import array
from pathlib import Path

# One thread for the linear algebra: on a small shared machine, threads that outnumber its cores
# make the many small fits of the leave-one-batch-out measurement many times slower.
for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "core" / "safety" / "data"
NGRAM = (2, 5)
MAX_FEATURES = 20_000
PINS = ROOT / "tests" / "core" / "safety" / "threat_model_pins.json"
PINNED_ROWS = 60
C = 8.0  # chosen by the leave-one-batch-out measurement (docs/threat-scan.md), not by fit
CATEGORY_C = 64.0  # the category model only names what the hostile model already flagged
MAX_BENIGN_RATE = 0.005
THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]  # the table printed beside the chosen threshold
CATEGORY = {"template": "fence"}  # the corpora's name for chat-template and fence lines


def words(text: str) -> str:
    """What the model reads at run time: the words view, of the text without its quoted examples
    of attacks when it frames them so (threats.scan_text)."""
    from memtui_core.safety.scan_views import text_view, words_view
    from memtui_core.safety.quoted import _without_quoted_examples

    return words_view(text_view(_without_quoted_examples(text) or text)).text


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()] if path.exists() else []


def _rows() -> dict[str, tuple[list[dict], list[dict]]]:
    """Every batch's hostile and benign rows, by batch name."""
    out = {}
    for hostile in sorted(DATA.glob("*hostile*.jsonl")):
        name = hostile.stem.replace("hostile", "").strip("_") or "first"
        out[name] = (_read(hostile), _read(hostile.with_name(hostile.name.replace("hostile", "benign"))))
    for benign in sorted(DATA.glob("*benign*.jsonl")):  # lookalikes with no hostile batch beside them
        name = benign.stem.replace("benign", "").strip("_") or "first"
        if name not in out:
            out[name] = ([], _read(benign))
    return out


def _category(row: dict) -> str:
    return CATEGORY.get(row.get("category", ""), row.get("category") or "override")


def batches() -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    return {name: ([(words(r["text"]), _category(r)) for r in hostile], [words(r["text"]) for r in benign])
            for name, (hostile, benign) in _rows().items()}


# ---------------------------------------------------------------- the semantic third opinion

# Embeddings of the corpora are cached outside the repository, keyed by the model and a hash of the
# text: embedding every batch takes minutes on a small machine, so it is never done twice.
SEMANTIC_CACHE = Path(os.environ.get("MEMTUI_SEMANTIC_CACHE", "/tmp/semscan_cache.npz"))
SEMANTIC_PATH = ROOT / "core" / "threat_model_semantic.json"
SEMANTIC_PINS = ROOT / "tests" / "core" / "safety" / "threat_model_semantic_pins.json"


def _raw(text: str) -> str:
    """What the third opinion reads: the raw text, without its quoted examples of attacks when it
    frames them so (as threats.scan_text hands it over)."""
    from memtui_core.safety.quoted import _without_quoted_examples

    return _without_quoted_examples(text) or text


def _text_view(text: str) -> str:
    from memtui_core.safety.scan_views import text_view

    return text_view(text).text


def _words_view(text: str) -> str:
    from memtui_core.safety.scan_views import text_view, words_view

    return words_view(text_view(text)).text


def _cut(text: str) -> str:
    from memtui_core.safety.threat_model_semantic import model_input

    return model_input(text, "cut")


VIEWS = {"raw": lambda text: text, "cut": _cut, "text": _text_view, "words": _words_view}


def raw_batches() -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    """The batches as `batches()` reads them, but each row as the third opinion's raw input."""
    out = {}
    for name, (hostile, benign) in _rows().items():
        out[name] = ([(_raw(r["text"]), _category(r)) for r in hostile], [_raw(r["text"]) for r in benign])
    return out


_CACHE: dict[str, "object"] = {}


def _key(text: str) -> str:
    from memtui_core.text.semantic import MODEL_ID

    return hashlib.sha256(f"{MODEL_ID}\0passage\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _load_cache() -> None:
    import numpy

    if _CACHE or not SEMANTIC_CACHE.exists():
        return
    try:
        with numpy.load(SEMANTIC_CACHE) as stored:
            _CACHE.update(zip(stored["keys"].tolist(), stored["vectors"]))
    except (OSError, ValueError, KeyError) as error:
        print(f"ignoring the embedding cache {SEMANTIC_CACHE}: {error}", file=sys.stderr)


def _save_cache() -> None:
    import numpy

    keys = list(_CACHE)
    partial = SEMANTIC_CACHE.with_name(SEMANTIC_CACHE.stem + ".partial.npz")
    numpy.savez(partial, keys=numpy.array(keys), vectors=numpy.array([_CACHE[k] for k in keys], dtype=numpy.float32))
    os.replace(partial, SEMANTIC_CACHE)


def embed(texts: list[str]):
    """The passage embeddings of `texts` (a len × 384 float32 matrix), from the cache when there."""
    import numpy

    from memtui_core.text import semantic

    _load_cache()
    keys = [_key(text) for text in texts]
    missing = list(dict.fromkeys(text for text, key in zip(texts, keys) if key not in _CACHE))
    if missing:
        if not semantic.available():
            raise SystemExit(f"the embedder is unavailable: {semantic.status()}")
        print(f"embedding {len(missing)} texts (cached in {SEMANTIC_CACHE})", file=sys.stderr, flush=True)
        for start in range(0, len(missing), 64):
            chunk = missing[start:start + 64]
            for text, vector in zip(chunk, semantic.passages(chunk)):
                _CACHE[_key(text)] = vector
            if start // 64 % 8 == 7:
                _save_cache()
        _save_cache()
    return numpy.array([_CACHE[key] for key in keys], dtype=numpy.float32)


SEMANTIC_VIEW = "cut"  # chosen by `--explore` (docs/threat-scan.md, "The semantic third opinion")
SEMANTIC_C = 8.0
SEMANTIC_CATEGORY_C = 8.0
SEMANTIC_GRID = {"view": list(VIEWS), "C": [1.0, 4.0, 8.0, 32.0]}
SEMANTIC_PINNED_ROWS = 16
# The weight of the character model's P(hostile) in the semantic score (score = P_sem^(1-w) * P_char^w,
# threat_model_semantic.Model.score), chosen leave-one-batch-out with t7 and plain (docs/threat-scan.md,
# "Round 7"): the middle of the plateau where the write path catches the most at the same benign rate.
SEMANTIC_CHAR_WEIGHT = 0.2
SEMANTIC_CHAR_WEIGHTS = [0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5]  # the table printed beside the choice


def weighed(semantic_scores, char_scores, weight: float):
    """The semantic leave-one-batch-out scores weighed with the character model's unseen ones, by
    the runtime's own formula (threat_model_semantic.blend)."""
    from memtui_core.safety.threat_model_semantic import blend

    return {name: ([blend(p, c, weight) for p, c in zip(h, char_scores[name][0])],
                   [blend(p, c, weight) for p, c in zip(b, char_scores[name][1])])
            for name, (h, b) in semantic_scores.items()}


def semantic_data(raw, view: str) -> dict:
    """Per batch: (hostile embeddings, their categories, benign embeddings, the model inputs)."""
    import numpy

    out = {}
    for name, (hostile, benign) in raw.items():
        inputs = [VIEWS[view](t) for t, _ in hostile] + [VIEWS[view](t) for t in benign]
        vectors = embed(inputs) if inputs else numpy.zeros((0, 384), dtype=numpy.float32)
        out[name] = (vectors[:len(hostile)], [c for _, c in hostile], vectors[len(hostile):], inputs)
    return out


def semantic_fit(sdata, names, C: float = SEMANTIC_C, categories: bool = True, extra=None):
    """The hostile-or-benign model and (or None) the category model over the embeddings of `names`.
    `extra` (name -> (hostile column, benign column)) appends one more feature (stacking)."""
    import numpy
    from sklearn.linear_model import LogisticRegression

    rows, labels = [], []
    for name in names:
        hostile, kinds, benign, _ = sdata[name]
        if extra is not None:
            hostile = numpy.hstack([hostile, extra[name][0].reshape(-1, 1)])
            benign = numpy.hstack([benign, extra[name][1].reshape(-1, 1)])
        rows += [hostile, benign]
        labels += kinds + ["benign"] * len(benign)
    matrix = numpy.vstack(rows)
    gate = LogisticRegression(C=C, max_iter=3000, class_weight="balanced").fit(matrix, [l != "benign" for l in labels])
    model = None
    if categories:
        model = LogisticRegression(C=SEMANTIC_CATEGORY_C, max_iter=3000, class_weight="balanced").fit(matrix, labels)
    return gate, model, matrix, labels


def semantic_lobo(sdata, C: float = SEMANTIC_C, categories: bool = False, extra=None):
    """As `leave_one_batch_out`, for the embedding model; with `categories`, also each unseen
    hostile row's predicted category beside its label."""
    import numpy

    scores, named = {}, []
    for name in [n for n in sdata if n != "first"]:
        gate, model, _, _ = semantic_fit(sdata, [n for n in sdata if n != name], C, categories, extra)
        hostile, kinds, benign, _ = sdata[name]
        if extra is not None:
            hostile = numpy.hstack([hostile, extra[name][0].reshape(-1, 1)])
            benign = numpy.hstack([benign, extra[name][1].reshape(-1, 1)])
        scores[name] = ([float(p) for p in gate.predict_proba(hostile)[:, 1]] if len(kinds) else [],
                        [float(p) for p in gate.predict_proba(benign)[:, 1]] if len(benign) else [])
        if categories and len(kinds):
            probabilities = model.predict_proba(hostile)
            hostile_classes = [i for i, c in enumerate(model.classes_) if c != "benign"]
            best = [model.classes_[hostile_classes[int(numpy.argmax(row[hostile_classes]))]] for row in probabilities]
            named += list(zip(scores[name][0], kinds, best))
    return scores, named


def caught(scores, threshold: float) -> tuple[float, float]:
    hostile = [p for h, _ in scores.values() for p in h]
    benign = [p for _, b in scores.values() for p in b]
    return sum(p >= threshold for p in hostile) / len(hostile), sum(p >= threshold for p in benign) / len(benign)


def explore(raw) -> None:
    """The options measured leave-one-batch-out before one was chosen (`--explore`)."""
    import numpy

    print("semantic third opinion, leave-one-batch-out: hostile caught at the threshold that flags "
          f"<= {MAX_BENIGN_RATE:.1%} of unseen benign rows (and at 2%)")
    print(f"{'view':>6} {'C':>5}  {'threshold':>9}  {'hostile':>8}  {'benign':>7}  {'hostile @2%':>11}")
    for view in SEMANTIC_GRID["view"]:
        sdata = semantic_data(raw, view)
        for C in SEMANTIC_GRID["C"]:
            scores, _ = semantic_lobo(sdata, C)
            threshold = pick_threshold(scores)
            benign = sorted((p for _, b in scores.values() for p in b), reverse=True)
            at2 = benign[int(0.02 * len(benign))]
            h, b = caught(scores, threshold)
            print(f"{view:>6} {C:>5g}  {threshold:>9.3f}  {h:>8.1%}  {b:>7.2%}  {caught(scores, at2)[0]:>11.1%}", flush=True)
    # Beside the character model: what each catches unseen, alone and together, and which names
    # the category better.
    data = batches()
    char_scores = leave_one_batch_out(data)
    char_threshold = pick_threshold(char_scores)
    sdata = semantic_data(raw, SEMANTIC_VIEW)
    scores, named = semantic_lobo(sdata, SEMANTIC_C, categories=True)
    threshold = pick_threshold(scores)
    extra = {}
    for name in sdata:
        h, b = char_scores.get(name, ([], []))
        if name == "first":  # never held out: score it with a model trained without it
            vectorizer, gate, _, _ = fit(data, [n for n in data if n != name], categories=False)
            hostile, benign = data[name]
            h = list(hostile_probability(vectorizer, gate, [t for t, _ in hostile])) if hostile else []
            b = list(hostile_probability(vectorizer, gate, benign)) if benign else []
        logit = lambda p: numpy.log(numpy.clip(numpy.array(p, dtype=float), 1e-6, 1 - 1e-6) / (1 - numpy.clip(numpy.array(p, dtype=float), 1e-6, 1 - 1e-6))) / 10
        extra[name] = (logit(h), logit(b))
    stacked, _ = semantic_lobo(sdata, SEMANTIC_C, extra=extra)
    stacked_threshold = pick_threshold(stacked)
    ch = [p for n in scores for p in char_scores[n][0]]
    cb = [p for n in scores for p in char_scores[n][1]]
    sh = [p for n in scores for p in scores[n][0]]
    sb = [p for n in scores for p in scores[n][1]]
    th = [p for n in scores for p in stacked[n][0]]
    tb = [p for n in scores for p in stacked[n][1]]
    rate = lambda flags: f"{sum(flags) / len(flags):.1%}"
    print(f"character model alone (threshold {char_threshold}): hostile {rate([p >= char_threshold for p in ch])}, "
          f"benign {rate([p >= char_threshold for p in cb])}")
    print(f"semantic alone ({SEMANTIC_VIEW}, C={SEMANTIC_C:g}, threshold {threshold}): hostile {rate([p >= threshold for p in sh])}, "
          f"benign {rate([p >= threshold for p in sb])}")
    print(f"character or semantic: hostile {rate([a >= char_threshold or b >= threshold for a, b in zip(ch, sh)])}, "
          f"benign {rate([a >= char_threshold or b >= threshold for a, b in zip(cb, sb)])}")
    print(f"stacked (embedding + character logit, threshold {stacked_threshold}): hostile "
          f"{rate([p >= stacked_threshold for p in th])}, benign {rate([p >= stacked_threshold for p in tb])}; "
          f"character or stacked: hostile {rate([a >= char_threshold or b >= stacked_threshold for a, b in zip(ch, th)])}, "
          f"benign {rate([a >= char_threshold or b >= stacked_threshold for a, b in zip(cb, tb)])}")
    # Categories: the embedding's multinomial model against the character model's, on the unseen
    # hostile rows the semantic model flags (the rows whose category it would name).
    flagged = [(kind, best) for p, kind, best in named if p >= threshold]
    char_named = []
    for name in [n for n in data if n != "first"]:
        vectorizer, _, model, _ = fit(data, [n for n in data if n != name])
        hostile, _ = data[name]
        if not hostile:
            continue
        probabilities = model.predict_proba(vectorizer.transform([t for t, _ in hostile]))
        hostile_classes = [i for i, c in enumerate(model.classes_) if c != "benign"]
        char_named += [(kind, model.classes_[hostile_classes[int(numpy.argmax(row[hostile_classes]))]])
                       for (_, kind), row in zip(hostile, probabilities)]
    char_flagged = [pair for pair, (p, _, _) in zip(char_named, named) if p >= threshold]
    right = lambda pairs: f"{sum(a == b for a, b in pairs)}/{len(pairs)}"
    print(f"category right, unseen hostile rows: semantic {right([(k, b) for _, k, b in named])}, "
          f"character {right(char_named)}; on the rows the semantic model flags: semantic {right(flagged)}, "
          f"character {right(char_flagged)}")


def _numbers(values) -> list:
    """Floats as JSON numbers, to seven significant digits (the float32 embeddings hold fewer)."""
    return [_numbers(v) if hasattr(v, "__len__") else float(f"{float(v):.7g}") for v in values]


def pinned_drift(pins_path: Path, model_path: Path, pins: list[dict]) -> float:
    """How far a retrain moves the probabilities pinned beside the shipped model (`--check`);
    exits when the pins are for another model or the retrain moves them by more than 1e-3."""
    pinned = json.loads(pins_path.read_text("utf-8"))
    if pinned["model_sha256"] != hashlib.sha256(model_path.read_bytes()).hexdigest():
        raise SystemExit(f"{pins_path.name} pins another model: retrain")
    worst = max(abs(a - b) for old, new in zip(pinned["rows"], pins)
                for a, b in zip([old["hostile"], *old["probabilities"]], [new["hostile"], *new["probabilities"]]))
    if len(pinned["rows"]) != len(pins) or worst > 1e-3:
        raise SystemExit(f"retraining moves the probabilities pinned in {pins_path.name} by {worst:.1e}: retrain and commit")
    return worst


def semantic_train(raw, check: bool, char_scores=None) -> None:
    """Measure, train and write (or with `check`, verify) the semantic third opinion. `char_scores`:
    the character model's leave-one-batch-out scores (computed here when not given), weighed in."""
    import numpy

    from memtui_core.text.semantic import DIMENSIONS, MODEL_ID
    from memtui_core.safety.threat_model_semantic import FORMAT, Model

    if char_scores is None:
        char_scores = leave_one_batch_out(batches())
    char_threshold = pick_threshold(char_scores)
    sdata = semantic_data(raw, SEMANTIC_VIEW)
    plain, _ = semantic_lobo(sdata)
    print(f"\nsemantic third opinion ({MODEL_ID}, {SEMANTIC_VIEW} text, C={SEMANTIC_C:g}), its probability weighed "
          f"with the character model's (weight w), leave-one-batch-out; 'either': the semantic score or the character "
          f"model at {char_threshold}, as the write path asks them:")
    print(f"{'w':>5}  {'threshold':>9}  {'semantic hostile':>16}  {'benign':>7}  {'either hostile':>14}  {'benign':>7}")
    for weight in SEMANTIC_CHAR_WEIGHTS:
        trial = weighed(plain, char_scores, weight)
        t = pick_threshold(trial)
        h, b = caught(trial, t)
        either = {name: ([max(p, 1.0 if c >= char_threshold else 0.0) for p, c in zip(hs, char_scores[name][0])],
                         [max(p, 1.0 if c >= char_threshold else 0.0) for p, c in zip(bs, char_scores[name][1])])
                  for name, (hs, bs) in trial.items()}
        eh, eb = caught(either, t)
        mark = "  <- chosen" if weight == SEMANTIC_CHAR_WEIGHT else ""
        print(f"{weight:>5g}  {t:>9.3f}  {h:>16.1%}  {b:>7.2%}  {eh:>14.1%}  {eb:>7.2%}{mark}")
    scores = weighed(plain, char_scores, SEMANTIC_CHAR_WEIGHT)
    threshold = pick_threshold(scores)
    report(scores, threshold)
    print(f"threshold: {threshold} (for the score with the character model weighed at {SEMANTIC_CHAR_WEIGHT})")
    gate, model, matrix, labels = semantic_fit(sdata, list(sdata))
    if len(model.classes_) == 2:
        raise SystemExit("the corpora must hold at least two hostile categories")
    entry = {"view": SEMANTIC_VIEW, "threshold": threshold, "char_weight": SEMANTIC_CHAR_WEIGHT, "C": SEMANTIC_C,
             "rows": len(labels),
             "classes": model.classes_.tolist(), "hostile_coef": _numbers(gate.coef_[0]),
             "hostile_bias": _numbers([gate.intercept_[0]])[0], "coef": _numbers(model.coef_),
             "intercept": _numbers(model.intercept_)}
    mine = Model(entry, DIMENSIONS)
    theirs_hostile = gate.predict_proba(matrix)[:, 1]
    theirs = model.predict_proba(matrix)
    worst = max(float(numpy.abs(mine.hostile(matrix) - theirs_hostile).max()),
                float(numpy.abs(mine.probabilities(matrix) - theirs).max()))
    print(f"core/safety/threat_model_semantic.py against scikit-learn on {len(labels)} rows: largest difference {worst:.2e}")
    if worst > 1e-4:
        raise SystemExit("the shipped arithmetic does not reproduce the trainer")
    inputs = [t for name in sdata for t in sdata[name][3]]
    step = max(1, len(inputs) // SEMANTIC_PINNED_ROWS)
    chosen = list(range(0, len(inputs), step))
    # both sides of the threshold are pinned, whichever rows the even spacing happened to fall on
    for side in (True, False):
        if not any((theirs_hostile[i] >= threshold) == side for i in chosen):
            chosen.append(next(i for i in range(len(inputs)) if (theirs_hostile[i] >= threshold) == side))
    pins = [{"input": inputs[i], "vector": _numbers(matrix[i]), "hostile": round(float(theirs_hostile[i]), 7),
             "probabilities": [round(float(p), 7) for p in theirs[i]]} for i in chosen]
    encoded = json.dumps({"format": FORMAT, "about": "memtui threat scan third opinion: logistic regressions over the "
                          "embedder's vectors, keyed by its MODEL_ID; trained by scripts/train_threat_model.py",
                          "models": {MODEL_ID: entry}}, ensure_ascii=False, separators=(",", ":")) + "\n"
    if check:
        shipped = json.loads(SEMANTIC_PATH.read_text("utf-8"))["models"][MODEL_ID]
        if abs(shipped["threshold"] - threshold) > 0.002 or shipped["classes"] != entry["classes"] \
                or shipped["view"] != SEMANTIC_VIEW or shipped.get("char_weight", 0.0) != SEMANTIC_CHAR_WEIGHT:
            raise SystemExit(f"{SEMANTIC_PATH.name} is out of date: retrain it")
        worst = pinned_drift(SEMANTIC_PINS, SEMANTIC_PATH, pins)
        print(f"{SEMANTIC_PATH.name} is current (pinned probabilities within {worst:.1e} of a retrain)")
        return
    SEMANTIC_PATH.write_text(encoded, "utf-8")
    print(f"wrote {SEMANTIC_PATH} ({SEMANTIC_PATH.stat().st_size // 1024} KiB)")
    SEMANTIC_PINS.write_text(json.dumps({"about": "scikit-learn's probabilities (and the embeddings) for some training "
                                                  "rows, written by scripts/train_threat_model.py; "
                                                  "tests/core/safety/test_threat_model_semantic.py checks that "
                                                  "core/safety/threat_model_semantic.py computes the same",
                                         "model_sha256": hashlib.sha256(encoded.encode()).hexdigest(), "rows": pins},
                                        ensure_ascii=False, separators=(",", ":")) + "\n", "utf-8")
    print(f"wrote {SEMANTIC_PINS} ({len(pins)} rows)")


def fit(data, names, categories: bool = True):
    """The vectorizer, the hostile-or-benign model, the category model (or None) and the texts."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from memtui_core.safety.threat_model import analyze

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
    parser.add_argument("--output", type=Path, help="write the model here (and no pins) instead of core/safety/threat_model.json")
    parser.add_argument("--explore", action="store_true",
                        help="measure the semantic model's options leave-one-batch-out and stop")
    parser.add_argument("--semantic-only", action="store_true", help="train (or check) only the semantic third opinion")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from memtui_core.safety.threat_model import MODEL_PATH, Model

    if args.explore:
        explore(raw_batches())
        return 0
    if args.semantic_only:
        semantic_train(raw_batches(), args.check)
        return 0
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
    print(f"core/safety/threat_model.py against scikit-learn on {len(texts)} rows: largest difference {worst:.2e}")
    if worst > 1e-4:
        raise SystemExit("the shipped arithmetic does not reproduce the trainer")
    step = max(1, len(texts) // PINNED_ROWS)
    pins = [{"words": texts[i], "hostile": round(float(hostile[i]), 7), "probabilities": [round(float(p), 7) for p in theirs[i]]}
            for i in range(0, len(texts), step)]
    encoded = json.dumps(exported, ensure_ascii=False, separators=(",", ":")) + "\n"
    if args.check:
        shipped = json.loads(MODEL_PATH.read_text("utf-8"))
        if abs(shipped["threshold"] - threshold) > 0.002 or shipped["classes"] != exported["classes"]:
            raise SystemExit("core/safety/threat_model.json is out of date: retrain it")
        worst = pinned_drift(PINS, MODEL_PATH, pins)
        print(f"core/safety/threat_model.json is current (pinned probabilities within {worst:.1e} of a retrain)")
        semantic_train(raw_batches(), check=True, char_scores=scores)
        return 0
    target = args.output or MODEL_PATH
    target.write_text(encoded, "utf-8")
    print(f"wrote {target} ({target.stat().st_size // 1024} KiB)")
    if args.output is None:
        PINS.write_text(json.dumps({"about": "scikit-learn's probabilities for some training rows, written by "
                                             "scripts/train_threat_model.py; tests/core/safety/test_threat_model.py checks "
                                             "that core/safety/threat_model.py computes the same",
                                    "model_sha256": hashlib.sha256(encoded.encode()).hexdigest(), "rows": pins},
                                   ensure_ascii=False, indent=0) + "\n", "utf-8")
        print(f"wrote {PINS} ({len(pins)} rows)")
        semantic_train(raw_batches(), check=False, char_scores=scores)
    return 0


if __name__ == "__main__":
    sys.exit(main())
