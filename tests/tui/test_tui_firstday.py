"""What a newcomer tripped on in the app on the first day (issue 29), each pressed through with real keys."""

from __future__ import annotations

from textual.widgets import Input

from memtui.app import MemtuiApp
from memtui.modals.confirm import ConfirmModal
from memtui.modals.edit import EditModal
from memtui.screens.browse import BrowseScreen

from .helpers import file_entry, open_editor, screen_text, shows, type_text, wait_for_text, wait_loaded, wait_until

# ---------------------------------------------------------------- 1. edits are never lost without a word


async def test_escape_asks_before_dropping_a_change_to_the_keywords_alone(seeded):
    entry_id = seeded.id_of("部署脚本")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        editor = await open_editor(pilot, "dry-run")
        await pilot.press("tab")  # from the text to the keywords
        await wait_until(pilot, lambda: app.focused is editor.query_one("#edit-keywords", Input))
        await type_text(pilot, "deploy, rollout")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await wait_for_text(pilot, "Discard")
        assert shows(app.screen.query_one("#confirm-body"), f"loses your changes to {entry_id}")
        await pilot.press("n")  # keep editing: the keywords are still there
        await wait_until(pilot, lambda: app.screen is editor)
        assert editor.query_one("#edit-keywords", Input).value == "deploy, rollout"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: file_entry(seeded.dir, entry_id).get("keywords") == ["deploy", "rollout"],
                         what="the keywords saved")


async def test_quitting_with_unsaved_text_in_the_editor_asks_first(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        editor = await open_editor(pilot)
        await pilot.press("tab")
        await type_text(pilot, "先写测试再改代码")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await wait_for_text(pilot, "Quit without saving?")
        assert shows(app.screen.query_one("#confirm-body"), "Quitting now loses this new memory")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is editor)
        assert app.is_running and editor.text == "先写测试再改代码"
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_until(pilot, lambda: app._exit_renderables is not None or not app.is_running, what="the app to quit")


async def test_quitting_with_nothing_typed_quits_at_once(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await open_editor(pilot)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not isinstance(app.screen, (EditModal, BrowseScreen)) or not app.is_running
                         or app.return_code is not None, what="the app to quit")
        assert not isinstance(app.screen, ConfirmModal)
