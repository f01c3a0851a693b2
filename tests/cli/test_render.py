"""The pieces behind the human output, in process: widths, tables, near-duplicates, argument handling."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from memtui_core.model import AuditOp
from memtui import cli
from memtui.cli.common import CliError, text_arg
from memtui.cli.history import AUDIT_OPS
from memtui.cli.inject import inject_parser, quick_inject_args
from memtui.doctor import near_duplicates
from memtui.render import Style, cell_width, clean, fit, pad, table, truncate


@pytest.mark.parametrize(
    ("text", "width"),
    [("abc", 3), ("部署", 4), ("前端用Vite", 10), ("ｆｕｌｌ", 8), ("e\u0301", 1), ("a\u200bb", 2), ("", 0)],
)
def test_cell_width_counts_wide_characters_twice(text, width):
    assert cell_width(text) == width


def test_truncate_and_fit_never_exceed_the_width():
    assert truncate("部署脚本默认先", 7) == "部署脚…"
    assert cell_width(truncate("部署脚本默认先", 7)) <= 7
    assert truncate("short", 10) == "short"
    assert fit("部署", 6) == "部署  " and pad("7", 3, ">") == "  7"
    for width in range(1, 12):
        assert cell_width(fit("前端用Vite构建", width)) == width


def test_clean_makes_one_safe_line():
    assert clean("a\nb\t c") == "a b c"
    assert clean("\x1b[2Jgone") == "\\x1b[2Jgone"
    assert clean("部署\u3000脚本") == "部署 脚本"


def test_table_aligns_mixed_scripts_and_colours_after_cutting():
    def rows(style):
        return [["1", "偏好", "回复用中文"], ["22", "fact", ("a long english text here", style.red)]]

    plain = table(["#", "KIND", "TEXT"], rows(Style(False)), align="><<", width=20)
    assert plain == [" #  KIND  TEXT", " 1  偏好  回复用中文", "22  fact  a long en…"]
    assert all(cell_width(line) <= 20 for line in plain)
    coloured = table(["#", "KIND", "TEXT"], rows(Style(True)), align="><<", width=20, style=Style(True))
    assert coloured[2] == "22  fact  \x1b[31ma long en…\x1b[0m"


def test_style_is_plain_when_disabled():
    assert Style(False).red("x") == "x" and Style(True).red("x") == "\x1b[31mx\x1b[0m"


def _entries(*texts):
    return [SimpleNamespace(id=f"{i:012x}", text=text, ts=i) for i, text in enumerate(texts)]


def test_near_duplicates_pair_overlapping_texts_and_keep_the_longer():
    entries = _entries("回复用中文，代码注释用英文", "完全不同的一条事实", "回复用中文，注释用英文", "Deploy with dry-run first",
                       "deploy with DRY-RUN first!")
    pairs = near_duplicates(entries)
    assert [(p.keep, p.remove) for p in pairs] == [("000000000004", "000000000003"), ("000000000000", "000000000002")]
    assert pairs[0].similarity == 1.0 and pairs[1].similarity == 0.8
    assert near_duplicates(_entries("部署脚本", "数据库迁移")) == []


def test_the_command_word_is_found_past_global_options():
    assert cli._command_at(["inject", "q"]) == 0
    assert cli._command_at(["--dir", "inject", "inject", "q"]) == 2
    assert cli._command_at(["--dir=/x", "--lock-timeout", "3", "search", "q"]) == 3
    assert cli._command_at(["--json", "list"]) is None
    assert cli._command_at([]) is None


def test_arguments_that_are_not_utf8_are_repaired_or_refused():
    assert text_arg("部署", "QUERY") == "部署"
    assert text_arg("caf\udce9", "QUERY") == "caf\ufffd"
    with pytest.raises(CliError, match="TEXT is not valid UTF-8"):
        text_arg("caf\udce9", "TEXT", strict=True)


def test_the_audit_ops_offered_are_the_models():
    assert AUDIT_OPS == tuple(op.value for op in AuditOp)


def test_main_returns_the_exit_status_in_process(tmp_path, capsys):
    assert cli.main(["--dir", str(tmp_path), "add", "fact", "前端用 Vite 构建"]) == 0
    assert cli.main(["--dir", str(tmp_path), "rm", "0123456789ab"]) == 1
    assert capsys.readouterr().err.strip() == "memtui: error: no entry with id '0123456789ab'"
    assert cli.main(["--dir", str(tmp_path), "nope"]) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["q"], ["部署 dry-run"], ["-"], ["--dir", "/s", "q"], ["q", "--dir=/s"], ["--lang", "en", "q"],
        ["--lock-timeout", "2.5", "q", "--lang=zh"], ["--", "-not-an-option"], ["--dir", "/a", "--dir", "/b", "q"],
        ["q", "--dir", "inject"],
    ],
)
def test_the_quick_inject_parser_agrees_with_argparse(argv):
    quick = quick_inject_args(list(argv))
    assert quick is not None
    assert vars(quick) == vars(inject_parser().parse_args(list(argv)))


@pytest.mark.parametrize(
    "argv", [[], ["--help"], ["a", "b"], ["--lang", "fr", "q"], ["--dir=", "q"], ["--lock-timeout", "0", "q"],
             ["--json", "q"], ["q", "--dir"], ["--la", "en", "q"], ["-x"]],
)
def test_anything_unusual_goes_to_argparse(argv):
    assert quick_inject_args(list(argv)) is None
