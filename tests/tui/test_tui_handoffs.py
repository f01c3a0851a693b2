"""What one part of the app hands another arrives as an argument: the entry a write touched, the
entry Browse had selected when the person switched screens, a probe's query and expected entry."""

from __future__ import annotations

from memtui_core.kinds import Kind
from memtui.app import MemtuiApp
from memtui.modals.edit import EditModal
from memtui.screens.audit import AuditScreen
from memtui.screens.browse import BrowseScreen
from memtui.screens.explain import ExplainScreen
from memtui.widgets.entry_table import EntryTable

from .helpers import file_entries, paste, type_text, wait_loaded, wait_until


def browse_of(app: MemtuiApp) -> BrowseScreen:
    screen = app.get_screen_stack("browse")[0]
    assert isinstance(screen, BrowseScreen)
    return screen


async def on_entry(pilot, entry_id: str, key: str, screen_type: type):
    """Select `entry_id` in Browse, press `key`, and return the screen it opens."""
    app = pilot.app
    assert browse_of(app).query_one(EntryTable).select_key(entry_id)
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, screen_type), what=screen_type.__name__)
    return app.screen


async def test_an_added_entry_hidden_by_the_view_and_the_filter_is_shown_and_selected(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        browse = browse_of(app)
        await pilot.press("4")  # lessons only
        await pilot.press("slash")
        await type_text(pilot, "部署")
        await pilot.press("enter")
        table = browse.query_one(EntryTable)
        await wait_until(pilot, lambda: table.row_count == 1, what="one lesson about 部署")

        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, EditModal), what="the editor")
        await pilot.press("tab")  # from the kind (fact) to the text
        await paste(pilot, "只读副本在 10.0.0.5，报表查询走它")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: len(file_entries(seeded.dir)) == len(seeded.ids) + 1, what="the add")
        added = file_entries(seeded.dir)[-1]
        assert added["kind"] == "fact"
        await wait_until(pilot, lambda: table.selected_id() == added["id"], what="the new entry selected")
        assert browse.view is None and browse.filter_text == "" and browse.filter_input.value == ""
        assert table.row_count == len(seeded.ids) + 1  # the whole store: All, no filter


async def test_a_write_finishing_during_a_read_selects_its_entry_after_the_next_read(seeded):
    """The selection rides with the queued reload, not with the read already under way (which may
    have started before the write)."""
    target = seeded.id_of("The main branch")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        table = browse_of(app).query_one(EntryTable)
        assert table.selected_id() != target
        app.reload()  # a read under way ...
        app.reload(select=target)  # ... and the write's, queued behind it
        await wait_until(pilot, lambda: table.selected_id() == target, what="the written entry selected")
        app.reload()  # a later plain read keeps the selection where it is
        table.action_cursor(-1)
        moved = table.selected_id()
        await pilot.pause(0.3)
        assert table.selected_id() == moved != target


async def test_explain_pins_the_entry_selected_in_browse_on_every_visit(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        first, second = seeded.id_of("数据库"), seeded.id_of("Vite")
        explain = await on_entry(pilot, first, "w", ExplainScreen)
        await wait_until(pilot, lambda: explain.pinned == first, what="the first entry pinned")

        await pilot.press("escape")  # back to Browse
        await wait_until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        assert await on_entry(pilot, second, "w", ExplainScreen) is explain
        await wait_until(pilot, lambda: explain.pinned == second, what="the second entry pinned")
        await type_text(pilot, "Vite 缓存")
        await wait_until(pilot, lambda: explain.selected_row() is not None and explain.selected_row().id == second,
                         what="the pinned entry selected once ranked")

        await pilot.press("down", "a")  # explain → audit → explain: no entry comes along, the pin stays
        await wait_until(pilot, lambda: isinstance(app.screen, AuditScreen))
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, ExplainScreen))
        await pilot.pause(0.2)
        assert explain.pinned == second


async def test_the_history_key_filters_audit_and_a_plain_visit_drops_only_that_filter(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        entry_id = seeded.id_of("回答")
        audit = await on_entry(pilot, entry_id, "h", AuditScreen)
        await wait_until(pilot, lambda: audit.id_filter.value == entry_id, what="the entry's filter")
        assert {event.id for event in audit.shown} == {entry_id}

        await pilot.press("m", "a")  # a plain visit: the filter `h` set is dropped
        await wait_until(pilot, lambda: audit.id_filter.value == "", what="the filter dropped")
        await pilot.press("slash")
        await type_text(pilot, "部署")
        await pilot.press("enter", "m", "a")  # one the person typed is kept
        await pilot.pause(0.2)
        assert audit.id_filter.value == "部署"


async def test_a_kind_changed_in_the_editor_is_written_with_the_entry_as_seen(seeded):
    """The editor's result becomes one Edit carrying the entry as the person saw it."""
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        entry_id = seeded.id_of("部署前")
        await on_entry(pilot, entry_id, "e", EditModal)
        await pilot.press("shift+tab")  # from the text to the kinds
        await pilot.press("left", "enter")  # lesson → correction
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: next(e for e in file_entries(seeded.dir) if e["id"] == entry_id)["kind"]
                         == Kind.CORRECTION.value, what="the new kind on disk")
