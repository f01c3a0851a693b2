"""Frictions of daily use (issue 15): sorting and counts in Browse, reset and find in Explain,
the eviction sentence, audit search by text, actor and time."""

from __future__ import annotations

from textual.widgets import Input

from memtui.app import MemtuiApp
from memtui.screens.explain import ExplainScreen
from memtui.widgets.entry_table import EntryTable
from memtui.widgets.virtual_table import VirtualTable

from .test_tui_explain import open_explain
from .helpers import screen_text, shows, type_text, wait_for_text, wait_loaded, wait_until


def flat(text: str) -> str:
    return "".join(text.split())


async def test_tab_counts_follow_the_filter_and_s_sorts(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash")
        await type_text(pilot, "部署")
        await pilot.press("enter")
        table = app.screen.query_one(EntryTable)
        await wait_until(pilot, lambda: table.row_count == 2, what="two rows")
        text = flat(screen_text(app))
        assert "All2/6" in text and "经验lesson1/2" in text and "偏好preference0/1" in text and "纠正correction1经验" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: table.row_count == 6)
        assert "All6" in flat(screen_text(app)) and "All6/6" not in flat(screen_text(app))

        texts = lambda: [entry.text for entry in table.entries]  # noqa: E731
        await pilot.press("s")  # newest first
        await pilot.pause(0.1)
        ts = [entry.ts for entry in table.entries]
        assert ts == sorted(ts, reverse=True)
        await pilot.press("s", "s")  # oldest, then by kind
        await pilot.pause(0.1)
        kinds = [entry.kind.value for entry in table.entries]
        assert kinds == sorted(kinds, key=["preference", "correction", "lesson", "fact"].index)
        await pilot.press("s")  # longest first
        await pilot.pause(0.1)
        assert [len(t) for t in texts()] == sorted((len(t) for t in texts()), reverse=True)
        assert "longest first" in screen_text(app)


async def test_the_eviction_line_is_one_plain_sentence(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await wait_for_text(pilot, "Nothing is")
        detail = app.screen.query_one("#detail-body")
        assert shows(detail, "Nothing is evicted until the store is full (6/500); then this entry goes")
        assert not shows(detail, "to be evicted") and not shows(detail, "none until")


async def test_explain_says_when_trial_limits_differ_and_r_resets_them(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, "部署")
        await pilot.press("enter")  # to the ranked list, where letters are keys
        await pilot.press("t")
        await type_text(pilot, "1")
        await pilot.press("enter")
        text = flat(await wait_for_text(pilot, "r resets"))
        assert "tryingtop-k1(store4),rresets" in text
        await pilot.press("r")
        await wait_until(pilot, lambda: "r resets" not in screen_text(app), what="the reset")
        assert screen.query_one("#top-k", Input).value == "4"
        assert screen.explanation is not None and screen.explanation.top_k == 4


async def test_find_narrows_the_ranked_list_keeping_ranks(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, "部署")
        await pilot.press("enter")  # to the ranked list
        table = screen.query_one("#ranked", VirtualTable)
        await wait_until(pilot, lambda: table.row_count == 6)
        await pilot.press("f")
        await type_text(pilot, "pgbouncer")
        await wait_until(pilot, lambda: table.row_count == 1, what="one row")
        assert seeded.id_of("数据库") == table.selected_key()
        await pilot.press("escape")  # clears the search, stays on explain
        await wait_until(pilot, lambda: table.row_count == 6)
        assert isinstance(app.screen, ExplainScreen)


async def test_audit_searches_text_and_filters_by_actor_and_time(seeded):
    import time as _time

    from memtui_core.memory import MemoryStore
    from memtui.screens.audit import AuditScreen
    from textual.widgets import Select

    cli = MemoryStore(seeded.dir, actor="cli")
    cli.update(seeded.id_of("Vite"), text="Vite 缓存出问题时删掉 node_modules/.vite 再重启")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AuditScreen))
        screen = app.screen
        table = screen.query_one("#audit-table", VirtualTable)
        await wait_until(pilot, lambda: table.row_count == 7)
        await pilot.press("slash")
        await type_text(pilot, "pgbouncer")  # a text, not an id
        await wait_until(pilot, lambda: table.row_count == 1, what="the add of the pgbouncer entry")
        assert screen.shown[0].id == seeded.id_of("数据库")
        await pilot.press("enter")
        await pilot.press("x")
        await wait_until(pilot, lambda: table.row_count == 7)

        await pilot.press("c")  # the actor
        await pilot.press("enter")
        await pilot.press("down", "down", "down")  # any actor, mcp, tui, cli
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.query_one("#audit-actor", Select).value == "cli")
        await wait_until(pilot, lambda: table.row_count == 1)
        assert screen.shown[0].actor == "cli" and str(screen.shown[0].op) == "edit"

        await pilot.press("x")
        await wait_until(pilot, lambda: table.row_count == 7)
        screen.events[0] = screen.events[0].model_copy(update={"at": _time.time() - 3 * 86_400})
        screen.query_one("#audit-time", Select).value = 86_400.0  # the last day
        await wait_until(pilot, lambda: table.row_count == 6, what="the old event left out")


async def test_undo_one_change_from_an_entrys_history(seeded):
    from memtui_core.memory import MemoryStore
    from memtui.modals.confirm import ConfirmModal
    from memtui.screens.audit import AuditScreen

    from .helpers import audit_events, file_entry
    from .test_tui_curate import select

    entry_id = seeded.id_of("数据库")
    MemoryStore(seeded.dir, actor="mcp").update(entry_id, text="数据库是 MySQL 8")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_loaded(pilot)
        await select(pilot, "MySQL")
        await pilot.press("h")  # its history
        await wait_until(pilot, lambda: isinstance(app.screen, AuditScreen))
        table = app.screen.query_one("#audit-table", VirtualTable)
        await wait_until(pilot, lambda: table.row_count == 2, what="the entry's two events")
        assert str(app.screen.selected_event().op) == "edit"  # newest first
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert "Take back this edit?" in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: file_entry(seeded.dir, entry_id)["text"].startswith("数据库是 PostgreSQL 15"),
                         what="the old text back")
        await wait_until(pilot, lambda: any("Took back the edit" in n.message for n in app._notifications),
                         what="the notice")
    last = audit_events(seeded.dir)[-1]
    assert (last["op"], last["actor"], last["id"]) == ("edit", "tui", entry_id)
    assert last["note"].startswith("undo: edit of ") and last["note"].endswith("by mcp")


async def test_mark_several_entries_then_delete_and_reclassify_them_at_once(seeded):
    from memtui_core.memory import MemoryStore
    from memtui.modals.confirm import ConfirmModal
    from memtui.modals.reclassify import ReclassifyModal

    from .helpers import audit_events, file_entries

    backups = len(MemoryStore(seeded.dir).backups())
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        first, second = table.keys[0], table.keys[1]
        await pilot.press("space", "space")  # marks a run: space moves on to the next row
        assert table.marked == {first, second}
        await wait_for_text(pilot, "2 marked")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        text = screen_text(app)
        assert "Delete 2 memories?" in text and first in text and second in text  # one preview of all
        await pilot.press("y")
        await wait_until(pilot, lambda: len(file_entries(seeded.dir)) == len(seeded.ids) - 2, what="the bulk delete")
        assert table.marked == set()

        await wait_until(pilot, lambda: table.row_count == len(seeded.ids) - 2)
        third, fourth = table.keys[0], table.keys[1]
        await pilot.press("home", "space", "space", "k")
        await wait_until(pilot, lambda: isinstance(app.screen, ReclassifyModal))
        assert "and 1 more marked" in screen_text(app)
        await pilot.press("3")  # lesson
        await wait_until(pilot, lambda: all(e["kind"] == "lesson" for e in file_entries(seeded.dir)
                                            if e["id"] in (third, fourth)), what="the bulk reclassify")
    events = audit_events(seeded.dir)
    deletes = [e for e in events if e["op"] == "delete"]
    assert sorted(e["id"] for e in deletes) == sorted([first, second]) and all(e["actor"] == "tui" for e in deletes)
    assert len(MemoryStore(seeded.dir).backups()) == backups + 2  # one per batch, not one per entry
