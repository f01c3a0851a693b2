"""Every language's function words (docs/ranking.md, "Stopwords").

The function words of the other languages the threat scan reads are ignored in a message that
reads as that language (core/text/data/function_words.txt, generated from stopwords-iso); a CJK
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
from memtui_core.text.tokenize import tokenize

ROOT = Path(__file__).resolve().parents[3]


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


# ---------------------------------------------------------------- other languages' function words


def test_the_function_word_lists_are_stopwords_iso_s():
    pytest.importorskip("stopwordsiso")
    module = _script("gen_function_words")
    files = module.words()
    assert sorted(files) == ["function_characters.txt", "function_words.txt", "function_words_ja.txt"]
    for name, words in files.items():
        assert (module.DATA / name).read_text("utf-8") == module.render(name, words), name


def test_japanese_kana_function_words_are_always_ignored():
    kept, ignored = split_query(tokenize("これは テスト です"), DEFAULT_STOPWORDS)
    assert {"これ", "です"} <= set(ignored) and {"テス", "スト"} <= set(kept)
    assert {"これ", "です"} <= set(split_query(tokenize("これは テスト です"), frozenset({"the"}))[0])  # the list's


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


@pytest.mark.parametrize("message", [
    "¿Cuál es la dosis de penicilina para un adulto?", "Die Katze ist auf dem Tisch", "final total",
    "what's the final total on the invoice", "la", "deploy the vite build with pytest", "le chat et la souris",
])
def test_a_new_process_s_lookup_in_the_text_agrees_with_the_sets(message, monkeypatch):
    """A new process finds a message's words in the file's text instead of building the sets."""
    from memtui_core.text import stopwords

    english = DEFAULT_STOPWORDS | GENERAL_WORDS
    monkeypatch.setattr(stopwords, "_latin", None)
    monkeypatch.setattr(stopwords, "_scans", 0)
    by_text = stopwords.foreign_function_words(tokenize(message), english)
    monkeypatch.setattr(stopwords, "_scans", stopwords.SCANS)
    assert stopwords.foreign_function_words(tokenize(message), english) == by_text
    assert stopwords._fewer_than_two(set(tokenize(message))) == (len(stopwords._any.intersection(tokenize(message))) < 2)
