"""What an installed command offers beyond the store: its version, text from stdin, completion."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess

import pytest

from .conftest import run_memtui


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_is_the_installed_distribution_version(flag, store_dir):
    result = run_memtui(flag, store=store_dir)
    assert result.code == 0 and result.err == ""
    assert result.out == f"memtui {importlib.metadata.version('memtui')}\n"
    console = run_memtui(flag, store=store_dir, console=True)
    assert console.out == result.out


def test_add_reads_text_from_stdin(store_dir):
    text = "多行的记忆：\n部署前先跑 dry-run\r\n然后 `make deploy`  "
    added = run_memtui("add", "lesson", "-", "--json", store=store_dir, input=text.encode())
    entry = added.json()["entry"]
    assert added.json()["added"] is True
    assert entry["text"] == text.strip() and entry["kind"] == "lesson"
    stored = [e["text"] for e in run_memtui("list", "--json", store=store_dir).json()]
    assert stored[-1] == text.strip()


def test_edit_reads_text_from_stdin(store_dir):
    result = run_memtui("edit", "000000000002", "--text", "-", "--json", store=store_dir,
                        input="部署脚本先 dry-run，再执行；回滚用 make rollback\n".encode())
    assert result.json()["text"] == "部署脚本先 dry-run，再执行；回滚用 make rollback"
    human = run_memtui("edit", "000000000002", "--text", "-", store=store_dir, input=b"plain words from a pipe")
    assert human.code == 0 and "edited 000000000002" in human.out


@pytest.mark.parametrize("args", [("add", "fact", "-"), ("edit", "000000000001", "--text", "-")])
def test_bad_or_empty_stdin_text_is_one_error_line_and_nothing_changes(args, store_dir):
    before = run_memtui("list", "--json", store=store_dir).json()
    for data, message in ((b"\xff\xfe not utf-8", "not valid UTF-8"), (b"", "empty"), (b" \n\t", "empty")):
        result = run_memtui(*args, store=store_dir, input=data)
        assert result.code == 1, (args, data)
        assert message in result.error_line
    assert run_memtui("list", "--json", store=store_dir).json() == before


def test_a_literal_dash_query_still_reads_stdin(store_dir):
    # `-` means stdin for QUERY as it does for TEXT; the two read the same way.
    result = run_memtui("search", "-", "--json", store=store_dir, input="部署 dry-run".encode())
    assert [hit["entry"]["id"] for hit in result.json()][:1] == ["000000000002"]


# ---------------------------------------------------------------- shell completion


def _commands() -> list[str]:
    import argparse

    from memtui.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def _bash_complete(script: str, words: list[str]) -> list[str]:
    """What bash offers for the last of `words` (an empty string: a new word), using the script."""
    import shlex

    line = " ".join(words)
    quoted = " ".join(shlex.quote(word) for word in words)
    program = (
        f"source /dev/stdin <<'EOF'\n{script}\nEOF\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMP_LINE={shlex.quote(line)}; "
        "COMP_POINT=${#COMP_LINE}; _shtab_memtui; printf '%s\\n' \"${COMPREPLY[@]}\""
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [word for word in done.stdout.splitlines() if word]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completion_offers_commands_kinds_and_options(store_dir):
    result = run_memtui("completion", "bash", store=store_dir)
    assert result.code == 0 and result.err == ""
    script = result.out
    commands = _commands()
    assert {"list", "add", "inject", "explain", "doctor", "completion"} <= set(commands)
    assert sorted(_bash_complete(script, ["memtui", ""])) == sorted(commands)
    assert _bash_complete(script, ["memtui", "re"]) == ["reclassify", "restore"]
    assert _bash_complete(script, ["memtui", "add", ""]) == ["preference", "correction", "lesson", "fact"]
    assert _bash_complete(script, ["memtui", "reclassify", "000000000001", "le"]) == ["lesson"]
    assert "--top-k" in _bash_complete(script, ["memtui", "search", "--"])
    assert _bash_complete(script, ["memtui", "completion", ""]) == ["bash", "zsh", "tcsh"]


@pytest.mark.parametrize("shell", ["zsh", "tcsh"])
def test_every_shell_gets_a_script_naming_every_command(shell, store_dir):
    result = run_memtui("completion", shell, store=store_dir)
    assert result.code == 0 and result.err == ""
    for command in _commands():
        assert command in result.out, (shell, command)
    checker = shutil.which(shell)
    if checker and shell == "zsh":  # the script at least parses
        done = subprocess.run([checker, "-n"], input=result.out, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr


def test_an_unknown_shell_is_a_usage_error(store_dir):
    result = run_memtui("completion", "powershell", store=store_dir)
    assert result.code == 2 and "invalid choice" in result.err and result.out == ""

