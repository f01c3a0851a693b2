"""Keyword matching rules: `python -m bench.relevance --sweep-keywords` and `--keywords-check SETTING`.

A keyword of several words ("closed Monday", "client email", "reply language") matches only when
the message holds more than half of its distinct tokens, so a two-word keyword never matches on
one word; and of the terms an entry holds only in its keywords, one counts (`keyword_only_terms`).
This replays, with keywords, the rules that could let such keywords help:

- part matches (`Limits.keyword_part_weight` w > 0): a keyword of several words the message does
  not hold mostly still matches on each query term it holds that is not weak (a general word,
  a number, a kind's name, a web address part, a lone CJK character or a bigram across a particle),
  each such occurrence counting w / (the keyword's distinct tokens) of a keyword occurrence;
- "rarest": the same, but only on the keyword's rarest token (fewest entries hold it), so
  "closed Monday" matches "Monday" when fewer entries hold `monday` than `closed`;
- "cjk" (third round): the same as "each", but only on CJK tokens;
- "credit": whether a part match counts in the gate's coverage, as a whole match does ("credit"),
  or only in the score ("nocredit"); and, added in the second round below, "scaled": it counts
  its share of a whole match (w / the keyword's distinct tokens) of the term's idf;
- `keyword_only_terms` 1 or 2.

The selection rule, fixed before the sweep ran:

1. Pool set A (all of it), B, C and D; the runs "default, keywords". The current default (w = 0,
   keyword_only_terms 1) is the baseline.
2. A setting is admissible when, pooled, false recall rises at most 1 point, other entries per
   relevant turn rise at most 0.05, lexical hits kept do not fall, and hit@4 on A's dev split does
   not fall.
3. Among the admissible, the largest pooled hit@4 wins; ties go to the lower false recall, then the
   fewer others, then the smaller change (w = 0.5 before 1.0, "each" before "rarest" before "cjk",
   credit before no credit before scaled, keyword_only_terms 1 before 2).
4. The texts-alone runs must be unchanged (the rules read only keywords: checked, not assumed).
5. Set E is then measured once with the chosen setting. The rule becomes the default profile's
   only if on E hit@4 with keywords rises (by one message or more), false recall is not worse and
   lexical hits kept do not fall; otherwise docs/ranking.md records it under "Tried and not adopted".

Second round, written after the first sweep and before the second ran: the first gained 3.5-5.8
points of hit@4 only where part matches count fully in the coverage, at 4-5 points of false recall
(not admissible), and nothing where they do not count. The "scaled" credit is added to the grid
(w 0.5 and 1.0, each and rarest, keyword_only_terms 1 and 2); the choice is made by the same rule
over both rounds' settings, and set E is still measured once, with that choice. One more
condition, since a setting that gains nothing is no choice: when no admissible setting raises
pooled hit@4, none is chosen and nothing is measured on E.

Third round, written after the second sweep and before the third ran: no setting of the first two
was admissible with a gain. Their gains came from English and Chinese keywords alike, while every
false recall they added was English ("reverse a linked list" and `reverse proxy`). A Chinese
keyword is not a phrase of words but overlapping bigrams of one compound (`提交信息`: 提交 交信
信息), so the mode "cjk" allows part matches only on CJK tokens (w 0.5 and 1.0, the three credits,
keyword_only_terms 1 and 2). Same rule, over all three rounds' settings; E measured once with the
choice, if there is one.
"""

from __future__ import annotations

import itertools
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

POOL = ("A", "B", "C", "D")
WEIGHTS = (0.0, 0.5, 1.0)
MODES = ("each", "rarest", "cjk")
CREDITS = ("credit", "nocredit", "scaled")
ONLY = (1, 2)


@dataclass(frozen=True)
class Setting:
    weight: float = 0.0
    mode: str = "each"
    credit: str = "credit"
    only: int = 1

    def __str__(self) -> str:
        if not self.weight:
            return f"off, kw-only {self.only}"
        return f"w {self.weight}, {self.mode}, {self.credit}, kw-only {self.only}"

    @classmethod
    def parse(cls, text: str) -> Setting:
        """'W,MODE,CREDIT,ONLY', e.g. '0.5,each,credit,1'."""
        weight, mode, credit, only = (part.strip() for part in text.split(","))
        if mode not in MODES or credit not in CREDITS:
            raise SystemExit(f"bad setting {text!r}: 'W,each|rarest|cjk,credit|nocredit|scaled,ONLY'")
        return cls(float(weight), mode, credit, int(only))

    def limits(self):
        from memtui_core import Limits

        return Limits(keyword_part_weight=self.weight, keyword_only_terms=self.only, core_budget=0)


@contextmanager
def applied(setting: Setting):
    """The setting's mode and credit on the engine's KeywordField for the time of one run."""
    from memtui_core.ranking.keyword_field import KeywordField

    before = (KeywordField.part_rarest_only, KeywordField.part_covers, KeywordField.part_cjk_only)
    KeywordField.part_rarest_only = setting.mode == "rarest"
    KeywordField.part_cjk_only = setting.mode == "cjk"
    KeywordField.part_covers = {"credit": "full", "nocredit": "none", "scaled": "scaled"}[setting.credit]
    try:
        yield
    finally:
        KeywordField.part_rarest_only, KeywordField.part_covers, KeywordField.part_cjk_only = before


def measure_sets(setting: Setting, sets, with_keywords: bool = True) -> dict[str, dict]:
    """The figures of one setting on each set (A split into dev and held-out as well as whole)."""
    from bench.relevance import build, load, measure

    out = {}
    with tempfile.TemporaryDirectory() as tmp, applied(setting):
        for name in sets:
            memories, messages = load(name)
            store, ids = build(Path(tmp) / name, memories, with_keywords, setting.limits())
            out[name] = measure(store, ids, messages)
            if name == "A":
                out["A dev"] = measure(store, ids, [m for m in messages if m["split"] == "dev"])
    return out


def pooled(figures: dict[str, dict], sets) -> dict[str, float]:
    parts = [figures[name] for name in sets]
    relevant = sum(p["relevant"] for p in parts)
    none = sum(p["none"] for p in parts)
    lexical = sum(p["lexical"] for p in parts)
    return {
        "hit@4": sum(p["hit@4"] * p["relevant"] for p in parts) / relevant,
        "false_recall": sum(p["false_recall"] * p["none"] for p in parts) / none,
        "others": sum(p["others_per_relevant_turn"] * p["relevant"] for p in parts) / relevant,
        "lexical": sum(p["lexical_hits_kept"] * p["lexical"] for p in parts) / lexical,
    }


def admissible(candidate: dict, base: dict, candidate_dev: float, base_dev: float) -> bool:
    """Rule 2 of the module docstring."""
    return (candidate["false_recall"] <= base["false_recall"] + 0.01 + 1e-9
            and candidate["others"] <= base["others"] + 0.05 + 1e-9
            and candidate["lexical"] >= base["lexical"] - 1e-9
            and candidate_dev >= base_dev - 1e-9)


def order(setting: Setting, figures: dict) -> tuple:
    """Rule 3: best first."""
    return (-figures["hit@4"], figures["false_recall"], figures["others"], setting.weight,
            MODES.index(setting.mode), CREDITS.index(setting.credit), setting.only)


def grid() -> list[Setting]:
    settings = [Setting(0.0, only=only) for only in ONLY]
    for weight, mode, credit, only in itertools.product(WEIGHTS[1:], MODES, CREDITS, ONLY):
        settings.append(Setting(weight, mode, credit, only))
    return settings


def row(label: str, p: dict, dev: float | None = None) -> str:
    dev_text = f"{dev:>7.1%}" if dev is not None else f"{'':>7}"
    return (f"{label:<40} {p['hit@4']:>6.1%} {p['false_recall']:>6.1%} {p['others']:>6.2f} "
            f"{p['lexical']:>6.1%} {dev_text}")


HEADER = f"{'setting':<40} {'hit@4':>6} {'FR':>6} {'others':>6} {'lex':>6} {'A dev':>7}"


def sweep() -> str:
    """Every setting of the grid on A-D pooled, with keywords; the choice by the docstring's rule."""
    base_setting = Setting()
    results = {}
    for setting in grid():
        figures = measure_sets(setting, POOL)
        results[setting] = (pooled(figures, POOL), figures["A dev"]["hit@4"])
    base, base_dev = results[base_setting]
    lines = ["A + B + C + D pooled, default profile with keywords", HEADER]
    for setting, (p, dev) in results.items():
        mark = " *" if setting != base_setting and admissible(p, base, dev, base_dev) else ""
        lines.append(row(str(setting) + mark, p, dev))
    chosen = sorted((s for s, (p, dev) in results.items() if admissible(p, base, dev, base_dev)
                     and p["hit@4"] > base["hit@4"] + 1e-9), key=lambda s: order(s, results[s][0]))
    best = chosen[0] if chosen else base_setting
    lines.append(f"* admissible; chosen: {best}")
    plain = {s: pooled(measure_sets(s, POOL, with_keywords=False), POOL) for s in (base_setting, best)}
    lines.append(f"texts alone unchanged by the chosen setting: {plain[base_setting] == plain[best]}")
    return "\n".join(lines)


def check(setting: Setting, sets=("E",)) -> str:
    """The sets given (E by default) with the default and with `setting`, keywords and texts alone."""
    lines = [HEADER]
    for with_keywords in (True, False):
        for label, s in (("default", Setting()), (str(setting), setting)):
            figures = measure_sets(s, sets, with_keywords)
            for name in sets:
                lines.append(row(f"{name}, {'keywords' if with_keywords else 'texts alone'}, {label}",
                                 pooled(figures, (name,))))
                if with_keywords and s is setting:
                    lines.append(f"  misses: {figures[name]['misses']}")
                    lines.append(f"  false recalls: {figures[name]['false_recalls']}")
    return "\n".join(lines)
