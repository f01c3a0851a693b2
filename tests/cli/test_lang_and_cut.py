"""The language setting and truncation warnings through the real `memtui` process."""

from __future__ import annotations

import pytest

from memtui_core.ranking.inject import HEADER, HEADER_EN

from .conftest import run_memtui


@pytest.fixture
def store(tmp_path):
    directory = tmp_path / "store"
    assert run_memtui("add", "correction", "部署脚本默认先 dry-run，确认后再真正执行", store=directory).code == 0
    return directory


def _header(result) -> str:
    assert result.code == 0, result.err
    return result.out.split("\n")[1]


def test_inject_language_from_flag_env_and_auto(store):
    assert _header(run_memtui("inject", "部署 dry-run", store=store)) == HEADER
    assert _header(run_memtui("inject", "部署 dry-run", "--lang", "en", store=store)) == HEADER_EN
    assert _header(run_memtui("inject", "部署 dry-run", store=store, env={"MEMTUI_LANG": "en"})) == HEADER_EN
    assert _header(run_memtui("inject", "部署 dry-run", "--lang", "zh", store=store, env={"MEMTUI_LANG": "en"})) == HEADER
    auto = {"MEMTUI_LANG": "auto"}
    assert _header(run_memtui("inject", "how do I run the dry-run deploy", store=store, env=auto)) == HEADER_EN
    assert _header(run_memtui("inject", "部署之前要做什么 dry-run", store=store, env=auto)) == HEADER
    assert _header(run_memtui("inject", "--lang=auto", "the dry-run", store=store)) == HEADER_EN
    explained = run_memtui("explain", "the dry-run", "--lang", "auto", "--json", store=store).json()
    assert explained["block"].split("\n")[1] == HEADER_EN


def test_a_bad_language_setting_is_one_clear_line(store):
    bad = run_memtui("inject", "部署", store=store, env={"MEMTUI_LANG": "fr"})
    assert bad.code == 1 and bad.raw == b""
    assert bad.error_line == "memtui: error: $MEMTUI_LANG must be one of zh, en, auto, got 'fr'"
    usage = run_memtui("inject", "--lang", "fr", "部署", store=store)
    assert usage.code == 2 and "invalid choice: 'fr'" in usage.err


def test_add_reports_a_cut_text_on_stderr_and_in_json(tmp_path):
    text = "部署" * 286 + "!"  # 573 characters
    added = run_memtui("add", "fact", text, "--json", store=tmp_path / "s")
    result = added.json()
    assert result["truncated"] is True and result["original_length"] == 573 and len(result["entry"]["text"]) == 400
    assert "memtui: warning: the text had 573 characters and was cut to 400 (the max_text limit)" in added.err
    human = run_memtui("add", "lesson", "测试" * 300, store=tmp_path / "s")
    assert human.code == 0 and "the text had 600 characters and was cut to 400" in human.err
    short = run_memtui("add", "fact", "short text", "--json", store=tmp_path / "s")
    assert short.json()["truncated"] is False and short.err == ""


def test_edit_reports_a_cut_text_on_stderr(store):
    entry_id = run_memtui("list", "--json", store=store).json()[0]["id"]
    edited = run_memtui("edit", entry_id, "--text", "x " * 300, "--json", store=store)
    assert edited.json()["text"] == ("x " * 200).strip()
    assert "the text had 599 characters and was cut to 400" in edited.err
