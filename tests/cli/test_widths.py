"""The command and the terminal app measure text the same way, so their columns line up alike.

The app's width is what Textual measures a piece of content with (`Content.cell_length`); the
command's is `memtui.render.cell_width`. They must agree on every string, including the ones
where hand-rolled widths go wrong: ZWJ emoji sequences, emoji presentation selectors, keycaps,
kana with (combining or precomposed) dakuten, CJK, combining marks and flags.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.cells import split_graphemes
from rich.text import Text
from textual.content import Content

from memtui.render import cell_width, clean, fit, table, truncate

from .conftest import run_memtui, write_store

HARD = {
    "zwj family": "👨\u200d👩\u200d👧\u200d👦",
    "zwj technologist": "🧑\u200d💻",
    "warning with VS16": "⚠\ufe0f",
    "warning without": "⚠",
    "heart with VS16": "❤\ufe0f",
    "keycap one": "1\ufe0f\u20e3",
    "keycap hash": "#\ufe0f\u20e3",
    "hiragana + combining dakuten": "か\u3099",
    "katakana + combining dakuten": "ハ\u309a",
    "precomposed が": "が",
    "halfwidth katakana + dakuten": "ｶﾞ",
    "skin tone": "👍🏽",
    "flag": "🇯🇵",
    "cjk": "部署脚本",
    "hangul": "한국어",
    "fullwidth": "ｆｕｌｌ",
    "combining acute": "e\u0301",
    "zero width space": "a\u200bb",
}


def app_width(text: str) -> int:
    return Content(text).cell_length


@pytest.mark.parametrize("name", list(HARD))
def test_the_hard_cases_measure_the_same(name):
    text = HARD[name]
    assert cell_width(text) == app_width(text) == Text(text).cell_len, name
    line = f"id  {text}  尾"
    assert cell_width(line) == app_width(line)


def test_known_widths():
    assert cell_width(HARD["zwj family"]) == 2
    assert cell_width(HARD["warning with VS16"]) == 2
    assert cell_width(HARD["keycap one"]) == 2
    assert cell_width(HARD["hiragana + combining dakuten"]) == 2
    assert cell_width(HARD["cjk"]) == 8


PIECES = st.sampled_from(list(HARD.values()) + ["a", "Z", "9", " ", "-", "é", "中", "ア", "\u3099", "\ufe0f", "\u200d"])
MIXED = st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_any_mixed_string_measures_the_same(text):
    shown = clean(text)  # what the command prints: control characters escaped
    assert cell_width(shown) == app_width(shown)


@settings(max_examples=300, deadline=None)
@given(MIXED, st.integers(min_value=0, max_value=30))
@example("\u200d👨\u200d👩\u200d👧\u200d👦", 0)  # a stray leading joiner: rich measures the cluster as 0 cells
@example("\u200d👨\u200d👩\u200d👧\u200d👦" + "👨\u200d👩\u200d👧\u200d👦" * 2, 3)
@example("\u200d\u200d👨\u200d👩\u200d👧\u200d👦", 1)  # ... and two of them: measured as 2 cells, clustered as 0
def test_cutting_keeps_whole_graphemes_and_the_width(text, width):
    text = clean(text)
    cut = truncate(text, width)
    assert app_width(cut) <= width
    if app_width(text) <= width:
        assert cut == text
    elif width > 0:
        assert cut.endswith("…")
        kept = cut[:-1]
        assert text.startswith(kept)
        boundaries = {0} | {stop for _, stop, _ in split_graphemes(text)[0]}
        assert len(kept) in boundaries  # never inside a grapheme cluster
        assert app_width(kept) + 1 >= width - 1 or len(kept) == len(text)  # nothing more would have fit
    assert app_width(fit(text, width)) == width


@settings(max_examples=100, deadline=None)
@given(st.lists(MIXED, min_size=1, max_size=5), st.integers(min_value=20, max_value=80))
def test_table_rows_fit_the_width_the_app_would_measure(texts, width):
    rows = [[str(i), clean(t) or "-", clean(t)] for i, t in enumerate(texts)]
    lines = table(["#", "SHORT", "TEXT"], rows, width=width)
    fixed = app_width(lines[0]) - len("TEXT")  # the columns before TEXT, and their gaps
    for line, row in zip(lines[1:], rows):
        assert app_width(line) <= max(width, fixed + 10), line
        assert line.startswith(row[0])


def test_control_characters_are_still_shown_escaped(tmp_path):
    store = tmp_path / "store"
    write_store(store, [{"kind": "fact", "text": "bell\x07 escape\x1b[2J 删除\x7f done ⚠️ 1️⃣ 🧑‍💻"}])
    listed = run_memtui("list", store=store, env={"COLUMNS": "200"})
    assert listed.code == 0
    assert "\x1b" not in listed.out and "\x07" not in listed.out and "\x7f" not in listed.out
    assert "bell\\x07 escape\\x1b[2J 删除\\x7f done ⚠️ 1️⃣ 🧑‍💻" in listed.out
    searched = run_memtui("search", "删除", store=store)
    assert "\\x1b[2J" in searched.out and "\x1b" not in searched.out


def test_a_terminal_row_with_emoji_fits_as_the_app_measures_it(tmp_path):
    from .test_process import _in_a_terminal

    store = tmp_path / "store"
    write_store(store, [{"kind": "fact", "text": ("⚠️ 部署 🧑\u200d💻 か\u3099 1️⃣ " * 20).strip()}])
    shown = _in_a_terminal(["list"], {**os.environ, "MEMTUI_DIR": str(store), "COLUMNS": "70", "NO_COLOR": "1"})
    lines = [line for line in shown.replace("\r", "").splitlines() if line]
    row = lines[1]
    assert row.endswith("…") and 60 <= app_width(row) <= 70, (row, app_width(row))
