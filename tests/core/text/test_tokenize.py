"""The tokenizer (docs/ranking.md): ASCII words of 2+ characters, lowercased; overlapping bigrams of CJK runs."""

from __future__ import annotations

import string

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memtui_core.text.tokenize import SHORT_TEXT, regex_runs, short_runs, tokenize, fold_han

# ---------------------------------------------------------------- a reference, straight from the prose

CJK_BLOCKS = (
    (0x3400, 0x4DBF),  # Han extension A
    (0x4E00, 0x9FFF),  # Han unified ideographs
    (0xF900, 0xFAFF),  # Han compatibility ideographs
    (0x20000, 0x2FA1F),  # Han extensions B and later
    (0x3040, 0x30FF),  # Hiragana and Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0xAC00, 0xD7AF),  # Hangul syllables
)


def is_ascii_alnum(ch: str) -> bool:
    return "a" <= ch <= "z" or "A" <= ch <= "Z" or "0" <= ch <= "9"


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in CJK_BLOCKS)


def reference_tokenize(text: str) -> list[str]:
    """One scan, two buffers, exactly as docs/ranking.md describes it."""
    tokens: list[str] = []
    word: list[str] = []
    run: list[str] = []

    def end_word() -> None:
        if len(word) >= 2:
            tokens.append("".join(word).lower())
        word.clear()

    def end_run() -> None:
        run[:] = fold_han("".join(run))  # one script first (the fold keeps the length)
        if len(run) == 1:
            tokens.append(run[0])
        for i in range(len(run) - 1):
            tokens.append(run[i] + run[i + 1])
        run.clear()

    for ch in text:
        if is_ascii_alnum(ch):
            end_run()
            word.append(ch)
        elif is_cjk(ch):
            end_word()
            run.append(ch)
        else:
            end_word()
            end_run()
    end_word()
    end_run()
    return tokens


# ---------------------------------------------------------------- the examples of docs/ranking.md


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("前端用Vite", ["前端", "端用", "vite"]),
        ("NanoHermes", ["nanohermes"]),
        ("a", []),
        ("120_000", ["120", "000"]),
        ("构建", ["构建"]),
        ("好", ["好"]),
    ],
)
def test_spec_examples(text, tokens):
    assert tokenize(text) == tokens


def test_empty_and_symbol_only_text_has_no_tokens():
    assert tokenize("") == []
    assert tokenize("  ,.!?;:-_=+*/\\|@#$%^&()[]{}<>~`'\"\t\n") == []
    assert tokenize("a b c 1 2 3") == []


def test_ascii_words_are_lowercased_and_need_two_characters():
    assert tokenize("Use PNPM, not npm! x y z9 42") == ["use", "pnpm", "not", "npm", "z9", "42"]


def test_digits_are_word_characters():
    assert tokenize("v2 node18 2025-01-07") == ["v2", "node18", "2025", "01", "07"]


def test_underscore_and_other_symbols_split_words():
    assert tokenize("snake_case_name") == ["snake", "case", "name"]
    assert tokenize("dry-run") == ["dry", "run"]
    assert tokenize("a_b") == []


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("café", ["caf"]),  # é is a non-ASCII letter: it ends the word, and is not a token
        ("naïve", ["na", "ve"]),
        ("résumé", ["sum"]),  # "r" is too short, "sum" is a word
        ("Straße", ["stra"]),
        ("Ａｂｃ", []),  # full-width Latin is not ASCII
        ("москва", []),  # Cyrillic
        ("αβγ", []),  # Greek
        ("٣٤٥", []),  # Arabic-Indic digits are not ASCII digits
    ],
)
def test_non_ascii_letters_are_separators(text, tokens):
    assert tokenize(text) == tokens


def test_cjk_run_emits_overlapping_bigrams():
    assert tokenize("长期记忆") == ["长期", "期记", "记忆"]


def test_punctuation_ends_a_cjk_run():
    assert tokenize("回复，用中文。好") == ["回复", "用中", "中文", "好"]


def test_switching_scripts_ends_the_other_buffer():
    assert tokenize("用pnpm装包") == ["用", "pnpm", "装包"]
    assert tokenize("Vite前端") == ["vite", "前端"]
    assert tokenize("x前y") == ["前"]


def test_hiragana_and_katakana():
    assert tokenize("ひらがな") == ["ひら", "らが", "がな"]
    assert tokenize("カタカナ") == ["カタ", "タカ", "カナ"]
    assert tokenize("ㇰㇱ") == ["ㇰㇱ"]  # Katakana phonetic extensions, U+31F0-U+31FF


def test_hangul_syllables():
    assert tokenize("한국어") == ["한국", "국어"]


def test_han_extension_b_and_beyond():
    ext_b = "\U00020000\U00020001"
    assert tokenize(ext_b) == [ext_b]
    assert tokenize("\U0002fa1f") == ["\U0002fa1f"]
    assert tokenize("\U0002fa20") == []  # just past the end of the ranges


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        ("\u3400", "\u33ff"),
        ("\u4dbf", "\u4dc0"),
        ("\u4e00", "\u4dff"),
        ("\u9fff", "\ua000"),
        ("\uf900", "\uf8ff"),
        ("\ufaff", "\ufb00"),
        ("\U00020000", "\U0001ffff"),
        ("\u3040", "\u303f"),
        ("\u30ff", "\u3100"),
        ("\u31f0", "\u31ef"),
        ("\u31ff", "\u3200"),
        ("\uac00", "\uabff"),
        ("\ud7af", "\ud7b0"),
    ],
)
def test_range_boundaries(inside, outside):
    assert tokenize(inside) == [fold_han(inside)]  # a compatibility ideograph folds to its unified form
    assert tokenize(outside) == []
    # an out-of-range character splits a run like a space would
    assert tokenize(inside + outside + inside) == [fold_han(inside), fold_han(inside)]


# ---------------------------------------------------------------- property: tokenize == the reference

_BOUNDARY_CHARS = "".join(
    chr(c)
    for lo, hi in CJK_BLOCKS
    for c in (lo - 1, lo, lo + 1, hi - 1, hi, hi + 1)
    if not 0xD800 <= c <= 0xDFFF
)

_mixed_chars = st.one_of(
    st.sampled_from(string.ascii_letters + string.digits),
    st.sampled_from(string.punctuation + " \t\n_"),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
    st.characters(min_codepoint=0x3040, max_codepoint=0x31FF),
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7AF),
    st.characters(min_codepoint=0x20000, max_codepoint=0x2FA2F),
    st.sampled_from(_BOUNDARY_CHARS),
    st.sampled_from("éèüßñçøåÆŒİıＡｚ０９，。！？、；：「」（）【】…—·\u200b\u3000\u00a0"),
    st.characters(exclude_categories=("Cs",)),
)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_mixed_chars, max_size=60))
@example("前端用Vite")
@example("120_000")
@example("aé好b")
def test_tokenize_matches_the_reference(text):
    assert tokenize(text) == reference_tokenize(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_mixed_chars, max_size=80))
@example("前端用Vite")
@example("\u30fb\u30a0\u3097\u309b\u4dc0\ud7a4\U0002a6e0")  # in the ranges, not letters or unassigned
def test_the_character_loop_and_the_expression_find_the_same_runs(text):
    assert short_runs(text) == regex_runs(text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=_mixed_chars, max_size=80), min_size=1, max_size=40))
def test_long_and_short_texts_match_the_reference_whichever_way_they_are_split(parts):
    """A text longer than SHORT_TEXT goes through the expression, a short one through the loop."""
    text = "".join(parts)
    long_text = (text + " ") * (SHORT_TEXT // (len(text) + 1) + 1)
    assert len(long_text) > SHORT_TEXT
    assert tokenize(long_text) == reference_tokenize(long_text)
    assert tokenize(text) == reference_tokenize(text)


def test_every_code_point_is_classified_as_the_expression_classifies_it():
    """The loop's range bounds against the expression: the whole BMP but the surrogates, and the
    astral planes around every range's ends and at the top."""
    astral = {c for lo, hi in CJK_BLOCKS for end in (lo, hi) for c in range(end - 256, end + 257) if c > 0xFFFF}
    codes = [*range(0xD800), *range(0xE000, 0x10000), *sorted(astral), *range(0x10FF00, 0x110000)]
    chars = list(map(chr, codes))
    # each character between two separators: the runs are the characters the expression keeps
    text = "\n".join(chars)
    assert short_runs(text) == regex_runs(text)


def test_reference_agrees_with_the_spec_examples():
    # The reference itself must be right, or the property above proves nothing.
    assert reference_tokenize("前端用Vite") == ["前端", "端用", "vite"]
    assert reference_tokenize("120_000") == ["120", "000"]
    assert reference_tokenize("a") == []
    assert reference_tokenize("好") == ["好"]
