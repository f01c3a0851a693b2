"""What a newcomer tripped on in the CLI and over MCP on the first day (issue 29), through real processes."""

from __future__ import annotations

import os
import stat
import sys
import time

import anyio
import orjson
import pytest

from memtui_core.ranking.inject import HEADER, HEADER_EN

from .conftest import REPO, run_memtui, unwritable

NO_SETTING = {"MEMTUI_LANG": ""}  # as a newcomer has it: nothing set


@pytest.fixture
def store(tmp_path):
    directory = tmp_path / "store"
    for kind, text in (("preference", "Keep commit messages short, in the imperative"),
                       ("correction", "部署脚本默认先 dry-run，确认后再真正执行"),
                       ("lesson", "Run the migrations before the deploy, never after"),
                       ("fact", "The staging database is postgres 16")):
        assert run_memtui("add", kind, text, store=directory).code == 0
    return directory


def _header(result) -> str:
    assert result.code == 0, result.err
    return result.out.split("\n")[1]


# ---------------------------------------------------------------- 2. the user's language by default


def test_inject_speaks_the_language_of_the_message_with_no_setting(store):
    """Issue 29: `memtui inject "how should I write commit messages"` printed the Chinese header."""
    assert _header(run_memtui("inject", "how should I write commit messages", store=store, env=NO_SETTING)) == HEADER_EN
    assert _header(run_memtui("inject", "部署 dry-run 之前要做什么", store=store, env=NO_SETTING)) == HEADER
    # the original Chinese block stays a flag (or a profile) away
    assert _header(run_memtui("inject", "how should I write commit messages", "--lang", "zh", store=store,
                              env=NO_SETTING)) == HEADER
    assert _header(run_memtui("inject", "how should I write commit messages", "--profile", "nanohermes",
                              store=store, env=NO_SETTING)) == HEADER
    helped = run_memtui("inject", "--help", env=NO_SETTING)
    assert "else auto" in " ".join(helped.out.split()) and "else zh" not in helped.out


async def _mcp_answers(store_dir) -> list[str]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {key: value for key, value in os.environ.items() if key != "MEMTUI_LANG"}
    server = StdioServerParameters(command=sys.executable, args=["-m", "memtui", "mcp", "--dir", str(store_dir)],
                                   cwd=str(REPO), env=env)
    answers = []
    with anyio.fail_after(30):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for kind, text in (("lesson", "Always rebase before opening a pull request"),
                               ("lesson", "合并前先在本地跑一遍全部测试")):
                result = await session.call_tool("memory_save", {"kind": kind, "text": text, "keywords": None})
                answers.append("".join(part.text for part in result.content))
    return answers


def test_mcp_answers_an_english_user_in_english_with_no_setting(tmp_path):
    """Issue 29: MCP answered "已记下（经验）…" to an English user."""
    english, chinese = anyio.run(_mcp_answers, tmp_path / "store")
    assert english.startswith("Saved (lesson)"), english
    assert chinese.startswith("已记下（经验）"), chinese


# ---------------------------------------------------------------- 3. Hermes: a folder of two files


def test_a_hermes_export_is_a_folder_that_says_what_went_where_and_imports_back(store, tmp_path):
    """Issue 29: `export --format hermes -o x.md` wrote 2 of 3 entries and said "exported"."""
    refused = run_memtui("export", "--format", "hermes", "-o", str(tmp_path / "x.md"), store=store)
    assert refused.code == 1 and "writes a folder holding MEMORY.md and USER.md" in refused.error_line
    assert not (tmp_path / "x.md").exists()
    assert "give -o FOLDER" in run_memtui("export", "--format", "hermes", store=store).error_line

    folder = tmp_path / "hermes"
    done = run_memtui("export", "--format", "hermes", "-o", str(folder), store=store)
    assert done.code == 0 and done.out == ""
    said = done.err.splitlines()
    assert said[0].startswith(f"exported to {folder} (hermes,") and "from a store of 4 entries" in said[0]
    assert "  MEMORY.md: 3 entries: 1 fact, 1 lesson, 1 correction (what the agent learned)" in said
    assert "  USER.md: 1 entry: 1 preference (the user's profile)" in said
    assert (folder / "USER.md").read_text() == "Keep commit messages short, in the imperative\n"
    assert "纠正：部署脚本默认先 dry-run" in (folder / "MEMORY.md").read_text()
    assert stat.S_IMODE(os.stat(folder / "USER.md").st_mode) == 0o600

    other = tmp_path / "other"
    dry = run_memtui("import", str(folder), "--dry-run", store=other)
    assert dry.code == 0 and "add       USER.md line 1 " in dry.out and "MEMORY.md line" in dry.out
    report = run_memtui("import", str(folder), "--json", store=other).json()
    assert report["added"] == 4 and {row["file"] for row in report["rows"]} == {"MEMORY.md", "USER.md"}
    kinds = lambda directory: sorted((e["kind"], e["text"]) for e in run_memtui("list", "--json", store=directory).json())  # noqa: E731
    assert kinds(other) == kinds(store)


def test_a_jsonl_line_without_a_time_is_dated_by_the_import(tmp_path):
    """Issue 29: such a line came in at ts 0 and showed no age."""
    source = tmp_path / "notes.jsonl"
    source.write_bytes(b'{"kind": "fact", "text": "the queue runs on redis"}\n'
                       b'{"kind": "fact", "text": "the cache is memcached", "ts": 1700000000}\n')
    before = time.time()
    done = run_memtui("import", str(source), store=tmp_path / "s")
    assert done.code == 0
    assert "(no time in the file: dated now): the queue runs on redis" in done.out
    times = {e["text"]: e["ts"] for e in run_memtui("list", "--json", store=tmp_path / "s").json()}
    assert before - 1 <= times["the queue runs on redis"] <= time.time() + 1
    assert times["the cache is memcached"] == 1700000000


# ---------------------------------------------------------------- 6. a read-only store


@pytest.fixture
def read_only_store(tmp_path):
    """A store another program wrote to (so a read derives its index), in a directory nobody may
    write: chattr +i as root (permission bits do not stop root), else mode 0555."""
    directory = tmp_path / "ro"
    assert run_memtui("add", "fact", "the deploy script runs a dry-run first", store=directory).code == 0
    raw = orjson.loads((directory / "memory.json").read_bytes())
    raw["entries"].append({"kind": "fact", "text": "another program wrote this deploy note", "ts": 1})
    (directory / "memory.json").write_bytes(orjson.dumps(raw))
    with unwritable(directory):
        yield directory


def test_reads_of_a_read_only_store_say_nothing_about_the_index(read_only_store):
    """Issue 29: every read printed "cannot save the index" lines."""
    for args in (("list",), ("search", "deploy"), ("explain", "deploy"), ("export",)):
        done = run_memtui(*args, store=read_only_store)
        assert done.code == 0, (args, done.err)
        assert "cannot save the index" not in done.err, args
    assert "not writable" in run_memtui("doctor", store=read_only_store).out  # where it is said, once
