"""An experiment on the relevance gate: is a word that is common in everyday language weak evidence?

    pip install wordfreq
    python -m bench.relevance --sweep-common          # choose the setting on A dev, B, C and D
    python -m bench.relevance --common-check 5.25      # then set E, once, before and after

The rule tried (docs/ranking.md, "Tried and not adopted"): an entry that passed the gate is still
held back when the only content term it shares with the message is one common word (Zipf
frequency >= T in the `wordfreq` data: English words, and Chinese two-character words, the unit of
the index's CJK bigrams), and the message holds another real word the entry lacks (any English
content word; for Chinese, a bigram that is a word in the zh list, so that fragments across two
words such as 存穿 in 缓存穿透 do not count). "explain Python's GIL" would then not inject the
memory about the project's Python version, while "mypy 报错了" still finds the mypy memory and a
message made only of words the entry holds ("python 版本") still injects it.

The rule is applied on top of the default profile's own choice, read from `explain`: the hits that
pass the gate, in rank order, less those the rule holds back, the first `top_k` of them. With the
rule off this is exactly what `search` returns (`--sweep-common`'s first two rows, and
tests/test_relevance_sets.py). Measured and not adopted: docs/ranking.md has the figures.
"""

from __future__ import annotations

import math
import re
import tempfile
from pathlib import Path

THRESHOLDS = (3.5, 4.0, 4.5, 4.75, 5.0, 5.25, 5.5)
ZH_WORD_FLOOR = 2.5  # a Chinese bigram with at least this Zipf frequency is a word of the message
DEV_SETS = ("A", "B", "C", "D")


def grades() -> tuple[dict[str, float], dict[str, float]]:
    """Zipf frequency (log10 of occurrences per billion words) of English words and Chinese
    two-character words, from the wordfreq package."""
    try:
        import wordfreq
    except ImportError:
        raise SystemExit("this experiment needs the wordfreq package: pip install wordfreq") from None
    en = {w: math.log10(f * 1e9) for w, f in wordfreq.get_frequency_dict("en").items()
          if f > 0 and re.fullmatch(r"[a-z0-9]{2,}", w)}
    zh = {w: math.log10(f * 1e9) for w, f in wordfreq.get_frequency_dict("zh").items()
          if f > 0 and re.fullmatch(r"[\u4e00-\u9fff]{2}", w)}
    return en, zh


class CommonRule:
    """Holds back a hit sharing only one common word with a message that has other real words."""

    def __init__(self, threshold: float | None, en: dict[str, float], zh: dict[str, float]) -> None:
        self.threshold = threshold
        self.en = en
        self.zh = zh

    def zipf(self, term: str) -> float:
        return (self.zh if term[:1] >= "\u3000" else self.en).get(term, 0.0)

    def word(self, term: str) -> bool:
        return term[:1] < "\u3000" or self.zh.get(term, 0.0) >= ZH_WORD_FLOOR

    def holds_back(self, entry, weak) -> bool:
        if self.threshold is None:
            return False
        content = [row for row in entry.terms if row.ignored is None and not weak(row.term)]
        held = {row.term for row in content if row.tf or row.keyword_tf}
        if len(held) != 1 or self.zipf(next(iter(held))) < self.threshold:
            return False
        return any(row.term not in held and self.word(row.term) for row in content)

    def picker(self):
        from memtui_core.ranking.index import _weak

        def pick(store, text: str) -> list[str]:
            general = store.limits.general_words
            weak = lambda term: _weak(term, general)  # noqa: E731
            explanation = store.explain(text)
            passed = sorted((e for e in explanation.entries if e.rank is not None), key=lambda e: e.rank)
            return [e.id for e in passed if not self.holds_back(e, weak)][: explanation.top_k]

        return pick


def _runs(sets, thresholds, en, zh):
    from bench.relevance import build, load, measure
    from memtui_core import Limits

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name in sets:
            memories, messages = load(set_name)
            if set_name == "A":
                messages = [m for m in messages if m["split"] == "dev"]
            for with_keywords in (True, False):
                store, ids = build(Path(tmp) / f"{set_name}{with_keywords}", memories, with_keywords, Limits(core_budget=0))
                run = "keywords" if with_keywords else "texts"
                out[(set_name, run, "search")] = measure(store, ids, messages)
                for threshold in thresholds:
                    rule = CommonRule(threshold, en, zh)
                    out[(set_name, run, threshold)] = measure(store, ids, messages, rule.picker())
    return out


def _row(label: str, figures: list[dict]) -> str:
    rel = sum(f["relevant"] for f in figures)
    none = sum(f["none"] for f in figures)
    lex = sum(f["lexical"] for f in figures)
    hit = sum(f["hit@4"] * f["relevant"] for f in figures) / rel
    fr = sum(f["false_recall"] * f["none"] for f in figures) / none
    others = sum(f["others_per_relevant_turn"] * f["relevant"] for f in figures) / rel
    kept = sum(f["lexical_hits_kept"] * f["lexical"] for f in figures) / lex
    cells = " ".join(f"{f['hit@4']:>4.0%}/{f['false_recall']:>3.0%}" for f in figures)
    return f"{label:<26} {hit:>6.1%} {fr:>6.1%} {others:>6.2f} {kept:>6.1%} | {cells}"


def sweep() -> str:
    """Pooled over A dev, B, C and D (and per set: hit@4/false recall), each threshold, both runs."""
    en, zh = grades()
    results = _runs(DEV_SETS, (None, *THRESHOLDS), en, zh)
    lines = [f"{'run, setting':<26} {'hit@4':>6} {'FR':>6} {'others':>6} {'lex':>6} | "
             + " ".join(f"{s + ' hit/FR':>8}" for s in DEV_SETS)]
    for run in ("keywords", "texts"):
        for setting in ("search", None, *THRESHOLDS):
            label = {"search": "default (search)", None: "rule off (explain)"}.get(setting, f"T >= {setting}")
            lines.append(_row(f"{run}, {label}", [results[(s, run, setting)] for s in DEV_SETS]))
    return "\n".join(lines)


def check(threshold: float) -> str:
    """Set E, before and after, for both runs: the unseen check of the chosen threshold."""
    en, zh = grades()
    results = _runs(("E",), (None, threshold), en, zh)
    lines = [f"{'set E, run':<26} {'hit@4':>6} {'FR':>6} {'others':>6} {'lex':>6}"]
    for run in ("keywords", "texts"):
        for setting, label in ((None, "before (rule off)"), (threshold, f"after (T >= {threshold})")):
            f = results[("E", run, setting)]
            lines.append(f"{run + ', ' + label:<26} {f['hit@4']:>6.1%} {f['false_recall']:>6.1%} "
                         f"{f['others_per_relevant_turn']:>6.2f} {f['lexical_hits_kept']:>6.1%}")
    return "\n".join(lines)
