"""The screenshot post-processing: every glyph run at its own cell, CJK two cells wide, CJK fonts named."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


def load():
    spec = importlib.util.spec_from_file_location("screenshots_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_are_placed_by_cell_and_cjk_is_two_cells_wide():
    fix_svg = load().fix_svg
    svg = (
        '<style>.m { font-family: Fira Code, monospace; }</style>'
        '<text class="r1" x="0" y="20" textLength="48.8" clip-path="url(#c)">&#160;ab&#160;</text>'
        '<text class="r2" x="48.8" y="20" textLength="73.2" clip-path="url(#c)">&#160;&#160;事实&#160;x</text>'
    )
    out = fix_svg(svg)
    assert "WenQuanYi Micro Hei" in out and "Noto Sans CJK SC" in out and "Microsoft YaHei" in out
    pieces = re.findall(r'x="([0-9.]+)" y="20" textLength="([0-9.]+)"[^>]*>([^<]*)<', out)
    assert pieces == [
        ("12.2", "24.4", "ab"),  # the leading space is a cell, not a glyph
        ("73.2", "24.4", "事"),  # two spaces, then each CJK character is two cells
        ("97.6", "24.4", "实"),
        ("134.2", "12.2", "x"),
    ]
    assert "&#160;" not in out
