"""`memtui setup claude-code` and `memtui setup hermes` through real processes: they merge into
what is there, change nothing the second time, show the change first (only that with --dry-run),
and refuse, with one line and nothing written, a file or folder they should not touch."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import orjson
import pytest

from .conftest import SAMPLE, run_memtui, unwritable

SETTINGS = ".claude/settings.json"


def setup(*args, store=None, env=None):
    return run_memtui("setup", *args, store=store, env=env)


def read_json(path):
    return json.loads(path.read_text())


def memtui_hooks(settings: dict, event: str) -> list[dict]:
    return [hook for group in settings["hooks"][event] for hook in group["hooks"]
            if "hook claude-code" in hook.get("command", "")]


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def test_a_new_project_gets_both_hooks_and_the_mcp_server(project, store_dir):
    done = setup("claude-code", "--project", str(project), store=store_dir)
    assert done.code == 0, done.err
    settings = read_json(project / SETTINGS)
    for event in ("UserPromptSubmit", "SessionStart"):
        [hook] = memtui_hooks(settings, event)
        assert hook["type"] == "command" and hook["timeout"] > 5
    assert not any("matcher" in group for group in settings["hooks"]["SessionStart"])  # startup, resume, clear...
    server = read_json(project / ".mcp.json")["mcpServers"]["memtui"]
    assert server["type"] == "stdio" and server["args"][-3:] == ["mcp", "--dir", str(store_dir)]
    assert f"+++ {project / SETTINGS}" in done.out and f"wrote {project / '.mcp.json'}" in done.out

    # what was written runs: the hook command answers an event as Claude Code would send it
    [hook] = memtui_hooks(settings, "UserPromptSubmit")
    event = {"hook_event_name": "UserPromptSubmit", "cwd": str(project), "prompt": "前端用什么构建？"}
    ran = subprocess.run(hook["command"], shell=True, input=orjson.dumps(event), capture_output=True, cwd=project,
                         env={**os.environ, "MEMTUI_DIR": str(project / "not-this-one")}, timeout=30)
    assert ran.returncode == 0, ran.stderr
    assert "前端用 Vite 构建" in orjson.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"]
    assert [server["command"], *server["args"]][:3] == [sys.executable, "-m", "memtui"]


def test_what_is_there_is_kept(project):
    (project / ".claude").mkdir()
    mine = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./scripts/lint-prompt.sh"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}],
        },
    }
    (project / SETTINGS).write_text(json.dumps(mine))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}, "x": 1}))
    assert setup("claude-code", "--project", str(project)).code == 0
    settings = read_json(project / SETTINGS)
    assert settings["model"] == "opus" and settings["permissions"] == mine["permissions"]
    assert settings["hooks"]["PreToolUse"] == mine["hooks"]["PreToolUse"]
    assert settings["hooks"]["UserPromptSubmit"][0] == mine["hooks"]["UserPromptSubmit"][0]
    assert len(memtui_hooks(settings, "UserPromptSubmit")) == 1
    servers = read_json(project / ".mcp.json")
    assert servers["mcpServers"]["github"] == {"command": "gh-mcp"} and servers["x"] == 1
    # the file each replaced is kept beside it, byte for byte
    assert json.loads((project / (SETTINGS + ".memtui-backup")).read_text()) == mine


def test_a_second_run_changes_nothing(project):
    assert setup("claude-code", "--project", str(project)).code == 0
    before = {name: (project / name).read_bytes() for name in (SETTINGS, ".mcp.json")}
    stamps = {name: (project / name).stat().st_mtime_ns for name in before}
    again = setup("claude-code", "--project", str(project))
    assert again.code == 0
    assert again.out.count("already set up, nothing to change") == 2 and "wrote" not in again.out
    assert {name: (project / name).read_bytes() for name in before} == before
    assert {name: (project / name).stat().st_mtime_ns for name in before} == stamps
    assert not (project / (SETTINGS + ".memtui-backup")).exists()


def test_an_older_memtui_hook_is_updated_in_place(project, store_dir):
    (project / ".claude").mkdir()
    old = {"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "/old/venv/bin/memtui --dir /old/store hook claude-code", "timeout": 3}]}]}}
    (project / SETTINGS).write_text(json.dumps(old))
    assert setup("claude-code", "--project", str(project), store=store_dir).code == 0
    [hook] = memtui_hooks(read_json(project / SETTINGS), "UserPromptSubmit")
    assert "/old/" not in hook["command"] and shlex.split(hook["command"])[-2:] == ["--dir", str(store_dir)]


def test_dry_run_shows_the_change_and_writes_nothing(project):
    done = setup("claude-code", "--project", str(project), "--dry-run")
    assert done.code == 0
    assert f"+++ {project / SETTINGS}" in done.out and '"UserPromptSubmit"' in done.out
    assert "nothing was written (--dry-run)" in done.out
    assert os.listdir(project) == []


@pytest.mark.parametrize("content, says", [
    ('{"hooks": {', "is not valid JSON (line 1"),
    ("[]", "holds a JSON list, not an object"),
    ('{"hooks": []}', '"hooks" is not an object'),
    ('{"hooks": {"SessionStart": {}}}', "hooks.SessionStart is not a list"),
    (b"\xff\xfe{}", "is not UTF-8"),
])
def test_a_malformed_settings_file_is_left_alone(project, content, says):
    (project / ".claude").mkdir()
    path = project / SETTINGS
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    done = setup("claude-code", "--project", str(project))
    assert done.code == 1
    assert says in done.error_line and "nothing was written" in done.error_line
    assert path.read_bytes() == (content if isinstance(content, bytes) else content.encode())
    assert sorted(os.listdir(project)) == [".claude"] and os.listdir(project / ".claude") == ["settings.json"]


def test_a_symlinked_settings_file_is_left_alone(project, tmp_path):
    (project / ".claude").mkdir()
    target = tmp_path / "dotfiles-settings.json"
    target.write_text("{}")
    (project / SETTINGS).symlink_to(target)
    done = setup("claude-code", "--project", str(project))
    assert done.code == 1 and "is a symlink" in done.error_line
    assert (project / SETTINGS).is_symlink() and target.read_text() == "{}"


def test_a_project_folder_that_is_not_writable(project):
    with unwritable(project):
        done = setup("claude-code", "--project", str(project))
        assert done.code == 1
        assert "cannot write" in done.error_line and "nothing was written" in done.error_line
        assert os.listdir(project) == []


def test_a_writable_settings_folder_in_an_unwritable_project_writes_nothing(project):
    # .claude/ can take its file but the project cannot take .mcp.json: neither is written
    (project / ".claude").mkdir()
    (project / SETTINGS).write_text("{}")
    with unwritable(project):
        done = setup("claude-code", "--project", str(project))
    assert done.code == 1 and ".mcp.json" in done.error_line
    assert (project / SETTINGS).read_text() == "{}" and not (project / ".mcp.json").exists()


def test_a_project_that_is_not_a_folder(tmp_path):
    done = setup("claude-code", "--project", str(tmp_path / "nope"))
    assert done.code == 1 and "is not a folder" in done.error_line
    assert setup("claude-code", "--project", str(tmp_path), "--user").code == 2


def test_user_settings_follow_claude_config_dir(tmp_path, project):
    config = tmp_path / "claude-config"
    done = run_memtui("setup", "claude-code", "--user", env={"CLAUDE_CONFIG_DIR": str(config)})
    assert done.code == 0, done.err
    assert len(memtui_hooks(read_json(config / "settings.json"), "SessionStart")) == 1
    assert "claude mcp add --scope user memtui -- " in done.out and done.out.rstrip().endswith(" mcp")
    home = tmp_path / "home"
    done = run_memtui("setup", "claude-code", "--user", env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""})
    assert done.code == 0 and (home / ".claude" / "settings.json").exists()


# ---------------------------------------------------------------------------- hermes


def no_hermes_env(tmp_path) -> dict[str, str]:
    return {"PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin", "HOME": str(tmp_path / "home")}


def test_hermes_setup_installs_the_plugin_where_hermes_looks(tmp_path):
    home = tmp_path / "hermes"
    done = setup("hermes", "--hermes-home", str(home), env=no_hermes_env(tmp_path))
    assert done.code == 0, done.err
    init = (home / "plugins" / "memtui" / "__init__.py").read_text()
    assert "MemtuiMemoryProvider" in init and "def register(ctx)" in init
    assert (home / "plugins" / "memtui" / "plugin.yaml").exists()
    assert "hermes config set memory.provider memtui" in done.out
    assert not (home / "config.yaml").exists()  # only with --write-config
    assert "hermes is not on PATH" in done.err
    again = setup("hermes", "--hermes-home", str(home), env=no_hermes_env(tmp_path))
    assert again.out.count("already set up, nothing to change") == 2


def test_hermes_home_comes_from_the_environment(tmp_path):
    home = tmp_path / "from-env"
    done = setup("hermes", env={**no_hermes_env(tmp_path), "HERMES_HOME": str(home)})
    assert done.code == 0 and (home / "plugins" / "memtui" / "__init__.py").exists()


def test_hermes_write_config_keeps_the_rest_of_the_file(tmp_path):
    home = tmp_path / "hermes"
    home.mkdir()
    original = "# my settings\nmodel:\n  default: gpt-x   # the one I pay for\nmemory:\n  memory_enabled: true\n" \
               "  provider: holographic\nplugins:\n  hermes-memory-store:\n    db_path: x.db\n"
    (home / "config.yaml").write_text(original)
    done = setup("hermes", "--hermes-home", str(home), "--write-config", env=no_hermes_env(tmp_path))
    assert done.code == 0, done.err
    assert (home / "config.yaml").read_text() == original.replace("provider: holographic", "provider: memtui")
    assert (home / "config.yaml.memtui-backup").read_text() == original
    assert "set memory.provider" not in done.out
    again = setup("hermes", "--hermes-home", str(home), "--write-config", env=no_hermes_env(tmp_path))
    assert again.out.count("already set up, nothing to change") == 3


def test_hermes_dry_run_writes_nothing(tmp_path):
    home = tmp_path / "hermes"
    done = setup("hermes", "--hermes-home", str(home), "--write-config", "--dry-run", env=no_hermes_env(tmp_path))
    assert done.code == 0 and "+memory:" in done.out and "nothing was written (--dry-run)" in done.out
    assert not home.exists()


def test_a_hermes_config_it_cannot_edit_safely_is_left_alone(tmp_path):
    home = tmp_path / "hermes"
    home.mkdir()
    (home / "config.yaml").write_text("memory: {provider: holographic}\n")
    done = setup("hermes", "--hermes-home", str(home), "--write-config", env=no_hermes_env(tmp_path))
    assert done.code == 1 and "hermes config set memory.provider memtui" in done.error_line
    assert (home / "config.yaml").read_text() == "memory: {provider: holographic}\n"
    assert not (home / "plugins").exists()  # nothing at all was written


def test_hermes_setup_names_a_store_folder_given_with_dir(tmp_path, store_dir):
    done = setup("hermes", "--hermes-home", str(tmp_path / "hermes"), store=store_dir, env=no_hermes_env(tmp_path))
    assert done.code == 0 and f"    dir: {store_dir}" in done.out
    assert len(SAMPLE) == len(orjson.loads((store_dir / "memory.json").read_bytes())["entries"])
