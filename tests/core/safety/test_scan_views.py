"""The views the threat scan reads: each normalisation step, its Unicode data, and the offset map."""

from __future__ import annotations

import re
import unicodedata

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui_core.safety.scan_views import (
    _PLAIN_CLASS,
    control_chars,
    is_plain,
    prototypes,
    strip_controls,
    text_view,
    words_view,
)


def test_no_plain_character_is_one_a_step_would_change():
    # The fast path skips the ignorable and confusable steps for plain text; that is only safe
    # if no character of the plain class is default-ignorable or has an ASCII prototype.
    plain = re.compile(f"[{_PLAIN_CLASS}]")
    ignorable = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cf}]")
    table = prototypes()
    wrong = []
    for code in range(0x110000):
        char = chr(code)
        if not plain.match(char):
            continue
        folded = unicodedata.normalize("NFKC", char).casefold()
        if ignorable.match(char) or (not folded.isascii() and any(c in table for c in folded)):
            wrong.append(hex(code))
    assert wrong == []


def test_control_characters_come_from_the_character_database():
    assert set(control_chars()) == {chr(c) for c in range(0x100) if unicodedata.category(chr(c)) == "Cc"} - set("\t\n\r")
    assert strip_controls("a\x00b\x1b[31mc\x7fd\x9be\tf\ng\r") == "ab[31mcde\tf\ng\r"


def test_the_confusables_table_maps_common_homoglyphs_to_ascii():
    table = prototypes()
    assert len(table) > 500
    for char, ascii_ in {"\u043e": "o", "\u0430": "a", "\u0435": "e", "\u0440": "p", "\u0455": "s", "\u13a5": "i",
                         "\u0261": "g", "\u03bf": "o", "\u0131": "i"}.items():
        assert table[char] == ascii_


def test_each_step():
    assert text_view("Ign\u043ere").text == "ignore"  # confusable inside a Latin word
    assert text_view("Игнорируй").text == "игнорируй"  # a Russian word is left alone
    assert text_view("ＩＧＮＯＲＥ").text == "ignore"  # NFKC
    assert text_view("Stra\u00dfe").text == "strasse"  # case folding
    assert text_view("ig\u200bno\u00adre\u2060").text == "ignore"  # ignorable characters
    assert words_view(text_view("i g n o r e it")).text == "ignore it"
    assert words_view(text_view("I.G.N.O.R.E it")).text == "ignore it"
    assert words_view(text_view("1gn0r3 4ll")).text == "ignore all"
    assert words_view(text_view("pre-vious dry_run")).text == "previous dry run"
    assert words_view(text_view("忽 略 之 前")).text == "忽略之前"
    assert words_view(text_view("a\n\n  b")).text == "a b"
    assert words_view(text_view("use 4 spaces and v2")).text == "use 4 spaces and v2"  # numbers alone stay


def test_plain_text_is_recognised():
    assert is_plain("plain ascii, 中文，かな、한국어 — “quotes” → ✓ 😀")
    assert not is_plain("zero\u200bwidth") and not is_plain("\u043e") and not is_plain("esc\x1b")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab IgN0-._1 \u200b\u00ad\u043eＡ中 文\n\x1b😀\u200d\ufe0f")), max_size=40))
def test_the_offset_map_matches_the_text(text):
    for view in (text_view(text, tracked=True), words_view(text_view(text, tracked=True))):
        assert len(view.offsets) == len(view.text)
        assert all(0 <= offset < len(text) for offset in view.offsets)
        assert view.offsets == sorted(view.offsets)
    assert text_view(text, tracked=True).text == text_view(text).text
    assert words_view(text_view(text, tracked=True)).text == words_view(text_view(text)).text
