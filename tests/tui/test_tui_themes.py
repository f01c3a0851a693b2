"""Every built-in theme is readable: the text the app draws contrasts with what it is drawn on,
the theme is remembered between runs, and the demo never writes the person's settings."""

from __future__ import annotations

import os
import stat
import time

from rich.color import Color as RichColor
from textual.theme import BUILTIN_THEMES
from textual.widgets._footer import Footer

from memtui.app import MemtuiApp
from memtui.settings import Settings
from memtui.widgets.palette import P

from .helpers import type_text, wait_loaded

FRAME = set("▔▁▎▊▏▕─━╸╺│▅▇█▉▌▍░▂▃▄▆ ")


def _luminance(colour: RichColor) -> float:
    def channel(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = colour.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: RichColor, bg: RichColor) -> float:
    a, b = _luminance(fg), _luminance(bg)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def low_contrast(app, minimum: float) -> list[tuple[str, float]]:
    """Every run of text the app draws (Textual's footer aside) whose colour contrasts less than
    `minimum` with its background. Borders and bars are not text; terminal default colours are skipped."""
    footer_rows = {y for footer in app.screen.query(Footer) for y in range(footer.region.y, footer.region.bottom)}
    bad = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        if y in footer_rows:
            continue
        for segment in strip:
            text, style = segment.text.strip(), segment.style
            if not text or set(text) <= FRAME or style is None or style.color is None or style.bgcolor is None:
                continue
            if style.color.is_default or style.bgcolor.is_default:
                continue
            fg, bg = (style.bgcolor, style.color) if style.reverse else (style.color, style.bgcolor)
            ratio = contrast(fg, bg)
            if ratio < minimum:
                bad.append((text[:24], round(ratio, 2)))
    return bad


async def settled_contrast(pilot, minimum: float, timeout: float = 2.0) -> list:
    """What stays unreadable once the redraw after a theme switch has landed (it takes a few frames)."""
    deadline = time.monotonic() + timeout
    await pilot.pause(0.05)
    bad = low_contrast(pilot.app, minimum)
    while bad and time.monotonic() < deadline:
        await pilot.pause(0.1)
        bad = low_contrast(pilot.app, minimum)
    return bad


async def test_every_theme_is_readable_on_browse_and_explain(demo):
    """Every built-in theme, in one app (a theme switch redraws everything, as a person's would)."""
    app = MemtuiApp(demo)
    unreadable: dict[str, list] = {}
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        for screen in ("browse", "explain"):
            if screen == "explain":
                await pilot.press("w")
                await type_text(pilot, "部署 数据库")
                await pilot.pause(0.5)
            for theme in BUILTIN_THEMES:
                app.theme = theme
                bad = await settled_contrast(pilot, 2.0)
                if bad:
                    unreadable[f"{theme} {screen}"] = bad[:5]
                if screen == "browse" and theme in ("textual-dark", "textual-light"):
                    assert "<svg" in app.export_screenshot()  # a screenshot renders in either kind of theme
    assert unreadable == {}


async def test_a_light_theme_gets_dark_text(demo):
    app = MemtuiApp(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        app.theme = "textual-light"
        await pilot.pause(0.1)
        for style in (P.muted, P.warning, P.success, P.primary):
            assert _luminance(RichColor.parse(style)) < 0.3, style  # not the dark theme's light colours
        app.theme = "textual-dark"
        await pilot.pause(0.1)
        assert _luminance(RichColor.parse(P.muted)) > 0.15


async def test_the_theme_is_remembered_between_runs(seeded, tmp_path):
    path = tmp_path / "config" / "settings.json"
    app = MemtuiApp(seeded.store(), settings=Settings.load(path))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        assert not path.exists()  # opening the app writes nothing
        app.theme = "solarized-light"
        await pilot.pause(0.1)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again = MemtuiApp(seeded.store(), settings=Settings.load(path))
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        assert again.theme == "solarized-light"


async def test_the_demo_reads_but_never_writes_the_settings(seeded, tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"theme": "nord"}')
    app = MemtuiApp(seeded.store(), demo=True, settings=Settings.load(path, writable=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        assert app.theme == "nord"
        app.theme = "textual-light"
        await pilot.pause(0.1)
    assert path.read_text() == '{"theme": "nord"}'


def test_an_unreadable_settings_file_is_kept_aside_and_reported(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    settings = Settings.load(path)
    assert settings.theme is None and "unreadable" in (settings.problem or "")
    assert (tmp_path / "settings.json.corrupt").read_text() == "{not json"
    settings.set("theme", "nord")
    assert Settings.load(path).theme == "nord"


def test_a_symlinked_settings_file_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    path = tmp_path / "settings.json"
    path.symlink_to(target)
    settings = Settings.load(path)
    settings.set("theme", "nord")
    assert target.read_text() == "{}" and "symlink" in (settings.problem or "")


def test_a_fifo_named_like_the_settings_file_is_reported_not_read(tmp_path):
    # Reading a FIFO blocks until a writer comes: the app would never start.
    path = tmp_path / "settings.json"
    os.mkfifo(path)
    settings = Settings.load(path)
    assert settings.values == {} and "FIFO" in (settings.problem or "")
    settings.set("theme", "nord")  # and nothing is written there either
    assert stat.S_ISFIFO(os.lstat(path).st_mode)


def test_no_screen_or_widget_draws_with_a_literal_colour():
    """Colours come from the theme (widgets/palette.py); a literal hex colour is unreadable on some
    theme, and the contrast test above only sees the screens it visits."""
    import re
    from pathlib import Path

    import memtui

    root = Path(memtui.__file__).parent
    literal = re.compile(r"#[0-9a-fA-F]{6}\b")
    offenders = [f"{path.relative_to(root)}:{number}"
                 for path in sorted(root.rglob("*.py")) if path.name != "palette.py"
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if literal.search(line)]
    assert offenders == []
