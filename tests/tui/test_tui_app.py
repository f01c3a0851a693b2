"""Keys, the command palette, quitting, and the demo store."""

from __future__ import annotations

import shutil

from memtui_core.kinds import Kind
from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.demo import create_demo_store
from memtui.screens.explain import ExplainScreen
from memtui.screens.help import HelpScreen

from .helpers import screen_text, type_text, wait_loaded, wait_until


async def test_question_mark_lists_every_key_and_escape_closes_it(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query_one("#help-keys")
        from .helpers import widget_text

        text = widget_text(keys)
        for words in ("Filter", "Edit", "Kind", "Delete", "Approve", "Explain", "Backups", "Audit", "Pin", "Restore",
                      "Quit", "Keep mine"):
            assert words in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_command_palette_offers_the_same_actions(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_text(pilot, "keys")
        await wait_until(pilot, lambda: "List every key" in screen_text(app), what="memtui's Keys")
        assert "Show help for the focused widget" not in screen_text(app)  # not a second, different "Keys"
        await pilot.press(*["backspace"] * 4)
        await type_text(pilot, "explain")
        await wait_until(pilot, lambda: "Explain" in screen_text(app))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ExplainScreen), what="the explain screen")
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_demo_store_has_realistic_entries_and_history(tmp_path):
    store = create_demo_store(tmp_path / "demo")
    entries = store.entries()
    assert 35 <= len(entries) <= 50
    assert {e.kind for e in entries} == set(Kind)
    assert sum(e.blocked for e in entries) == 1
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in e.text) for e in entries)
    assert any(e.text.isascii() for e in entries)
    ops = {str(e.op) for e in store.audit()}
    assert {"add", "edit", "reclassify", "delete", "refresh", "restore"} <= ops
    assert len({e.actor for e in store.audit()}) >= 3
    assert store.actor == "tui"
    first, second = create_demo_store(), create_demo_store()
    try:
        assert first.dir != second.dir  # fresh temporary stores
    finally:
        shutil.rmtree(first.dir, ignore_errors=True)
        shutil.rmtree(second.dir, ignore_errors=True)


async def test_demo_flag_is_shown_in_the_header(tmp_path):
    app = MemtuiApp(create_demo_store(tmp_path / "demo"), demo=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        assert " DEMO " in screen_text(app)
        assert isinstance(app.store, MemoryStore)
