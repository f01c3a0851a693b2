"""The language setting: zh, en or auto, from the argument, the store, $MEMTUI_LANG, else auto."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memtui_core.errors import InvalidInput
from memtui_core.ranking.inject import BLOCK_END, BLOCK_START, HEADER, HEADER_EN
from memtui_core.lang import configured_lang, detect_lang
from memtui_core.memory import MemoryStore

# The original block, byte for byte: markers, the Chinese header, one "- [标签] text" line.
ORIGINAL_BLOCK = (
    "=== Long-term memory (retrieved from past sessions) ===\n"
    "以下是从过往会话中检索到的相关记忆（由对话自动提炼，仅供参考；用户当前指令优先）：\n"
    "\n- [经验] 部署脚本默认先 dry-run，确认后再真正执行"
    "\n\n=== End long-term memory ==="
)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMTUI_LANG", raising=False)
    store = MemoryStore(tmp_path)
    # a lesson: retrieved for the message (a correction would be in the pinned core, test_pinned.py)
    store.remember("lesson", "部署脚本默认先 dry-run，确认后再真正执行")
    return store


def test_the_default_speaks_the_users_language(store):
    """With no setting, a Chinese message gets the original block byte for byte, an English one the
    English block (issue 29: an English user got a Chinese header)."""
    assert store.lang == "auto"
    assert store.retrieve_block("部署 dry-run").encode("utf-8") == ORIGINAL_BLOCK.encode("utf-8")
    assert store.retrieve_block("deploy the dry-run please").split("\n")[1] == HEADER_EN


def test_zh_keeps_the_original_chinese_block_byte_for_byte(store):
    chinese = MemoryStore(store.dir, lang="zh")
    assert chinese.retrieve_block("部署 dry-run").encode("utf-8") == ORIGINAL_BLOCK.encode("utf-8")
    assert chinese.retrieve_block("deploy the dry-run please") == ORIGINAL_BLOCK  # zh stays zh
    assert store.retrieve_block("deploy the dry-run please", lang="zh") == ORIGINAL_BLOCK


def test_english_block(store):
    block = MemoryStore(store.dir, lang="en").retrieve_block("部署 dry-run")
    assert block == f"{BLOCK_START}\n{HEADER_EN}\n\n- [lesson] 部署脚本默认先 dry-run，确认后再真正执行\n\n{BLOCK_END}"
    assert store.retrieve_block("部署 dry-run", lang="en") == block  # per call, too


@pytest.mark.parametrize(("query", "header"), [
    ("部署的时候要注意什么", HEADER),
    ("What should I watch for in the dry-run deploy?", HEADER_EN),
    ("把 dry-run 部署脚本改一下", HEADER),
])
def test_auto_follows_the_users_message(store, query, header):
    auto = MemoryStore(store.dir, lang="auto")
    block = auto.retrieve_block(query)
    assert block.split("\n")[1] == header


def test_the_environment_sets_it_and_the_argument_wins(store, monkeypatch):
    monkeypatch.setenv("MEMTUI_LANG", "en")
    assert MemoryStore(store.dir).retrieve_block("部署").split("\n")[1] == HEADER_EN
    assert MemoryStore(store.dir, lang="zh").retrieve_block("部署").split("\n")[1] == HEADER
    monkeypatch.setenv("MEMTUI_LANG", " AUTO ")
    assert MemoryStore(store.dir).lang == "auto"


def test_a_bad_setting_is_a_clear_error(store, monkeypatch):
    with pytest.raises(InvalidInput, match="lang must be one of zh, en, auto, got 'fr'"):
        MemoryStore(store.dir, lang="fr")
    monkeypatch.setenv("MEMTUI_LANG", "klingon")
    with pytest.raises(InvalidInput, match=r"\$MEMTUI_LANG must be one of zh, en, auto"):
        configured_lang()
    with pytest.raises(InvalidInput):
        store.explain("部署", lang="fr")
    assert store.retrieve_block("部署", lang="fr") == ""  # the per-turn path never raises


def test_explain_renders_the_block_in_the_language(store):
    assert store.explain("部署 dry-run", lang="en").block.split("\n")[1] == HEADER_EN
    assert store.explain("部署 dry-run").block == ORIGINAL_BLOCK
    assert store.explain("the dry-run deploy").block.split("\n")[1] == HEADER_EN
    assert store.explain("the dry-run deploy", lang="zh").block == ORIGINAL_BLOCK


@pytest.mark.parametrize(("text", "lang"), [
    ("", "zh"), ("42", "zh"), ("继续", "zh"), ("ok", "en"), ("Please use pnpm", "en"),
    ("用 Vite 构建前端", "zh"), ("把 useEffect 改成 useLayoutEffect", "zh"),
    ("Fix the 部署 script before the release", "en"), ("日本語のテキスト", "zh"), ("한국어 문장", "zh"),
    ("Ça marche très bien", "en"),
])
def test_detect_lang(text, lang):
    assert detect_lang(text) == lang


@given(st.text())
def test_detect_lang_never_fails(text):
    assert detect_lang(text) in ("zh", "en")


def test_the_nanohermes_profile_keeps_the_chinese_block_whatever_memtui_lang_says(tmp_path, monkeypatch):
    from memtui_core import Limits, MemoryStore

    MemoryStore(tmp_path).remember("preference", "回复用中文，代码注释用英文")
    monkeypatch.setenv("MEMTUI_LANG", "en")
    original = MemoryStore(tmp_path, Limits.nanohermes()).retrieve_block("回复用中文")
    assert "长期记忆" in original or "记忆" in original.splitlines()[1]
    assert MemoryStore(tmp_path, Limits.nanohermes()).retrieve_block("回复用中文", lang="zh") == original
    assert MemoryStore(tmp_path).retrieve_block("回复用中文") != original  # the default profile follows the variable
