"""Backups (preview what a restore changes, then restore) and the audit log (newest first, filters)."""

from __future__ import annotations

from textual.widgets import DataTable, Select

from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.screens.audit import AuditScreen
from memtui.screens.backups import BackupsScreen
from memtui.widgets.entry_table import EntryTable
from memtui.widgets.virtual_table import VirtualTable

from .helpers import (
    audit_events,
    file_entry,
    reported_late,
    screen_text,
    shows,
    type_text,
    wait_for_text,
    wait_loaded,
    wait_until,
)


async def test_preview_and_restore_a_backup(seeded):
    gone = seeded.id_of("Vite")
    text_of_gone = next(t for t, i in seeded.ids.items() if i == gone)
    agent = MemoryStore(seeded.dir, actor="cli")
    agent.delete(gone)
    changed = seeded.id_of("回答")
    agent.update(changed, text="回答尽量简短，先给结论，然后列出依据")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BackupsScreen)
        table = screen.query_one("#backup-list", DataTable)
        await wait_until(pilot, lambda: table.row_count == len(MemoryStore(seeded.dir).backups()))
        # newest first: the backup taken just before the edit still has the deleted entry
        await pilot.press("down")
        preview = screen.query_one("#preview-body")
        await wait_until(pilot, lambda: shows(preview, "bring back 1, remove 0 and change 1"), what="the preview")
        assert shows(preview, "Comes back (1)") and shows(preview, text_of_gone)  # with its text
        assert shows(preview, "Changes (1)")
        assert shows(preview, "回答尽量简短，先给结论，然后列出依据\n回答尽量简短，先给结论")  # now → restored
        backup_name = MemoryStore(seeded.dir).backups()[1].name

        await pilot.press("r")
        await wait_for_text(pilot, "Restore a backup?")
        await pilot.press("y")
        await wait_until(pilot, lambda: file_entry(seeded.dir, gone) is not None, what="the restore")
        assert file_entry(seeded.dir, changed)["text"] == "回答尽量简短，先给结论"
        # the list refreshes: the file as it was before the restore is now the newest backup
        await wait_until(pilot, lambda: table.row_count == len(MemoryStore(seeded.dir).backups()))
        await pilot.press("escape")
        await pilot.pause()
        await wait_until(pilot, lambda: app.screen.query_one(EntryTable).row_count == len(seeded.ids))
    last = audit_events(seeded.dir)[-1]
    assert (last["op"], last["actor"]) == ("restore", "tui")
    assert backup_name in last["note"] and last["added"] == [gone] and last["changed"] == [changed]


async def test_audit_log_newest_first_with_filters_and_edit_texts(demo: MemoryStore):
    events = demo.audit()
    edit = next(e for e in reversed(events) if str(e.op) == "edit")
    app = MemtuiApp(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("a")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        table = screen.query_one("#audit-table", VirtualTable)
        await wait_until(pilot, lambda: table.row_count == len(events))
        assert screen.shown[0].at == max(e.at for e in events)  # newest first
        assert f"{len(events)} of {len(events)} events" in screen_text(app)

        await pilot.press("slash")
        await type_text(pilot, edit.id)
        await pilot.press("enter")
        mine = [e for e in events if e.id == edit.id]
        await wait_until(pilot, lambda: table.row_count == len(mine), what="the id filter")
        assert all(e.id == edit.id for e in screen.shown)

        await pilot.press("o")  # the operation filter
        await pilot.press("enter")
        await pilot.pause()
        await type_text(pilot, "edit")  # type-to-search in the open list
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.query_one("#audit-op", Select).value == "edit")
        await wait_until(pilot, lambda: all(str(e.op) == "edit" for e in screen.shown))
        text = screen_text(app)
        assert edit.before["text"][:12] in text and edit.after["text"][:12] in text
        assert "Before" in text and "After" in text

        await pilot.press("x")
        await wait_until(pilot, lambda: table.row_count == len(events), what="clearing the filters")


async def test_history_key_opens_the_audit_log_of_the_selected_entry(seeded):
    entry_id = seeded.id_of("数据库")
    MemoryStore(seeded.dir, actor="cli").update(entry_id, text="数据库是 PostgreSQL 16，连接池用 pgbouncer")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash")
        await type_text(pilot, "数据库")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen.query_one(EntryTable).row_count == 1)
        await pilot.press("h")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AuditScreen)
        await wait_until(pilot, lambda: [str(e.op) for e in screen.shown] == ["edit", "add"])
        text = screen_text(app)
        assert "PostgreSQL 16" in text and "cli" in text

        await pilot.press("escape", "a")  # a plain visit shows the whole log again
        await pilot.pause()
        every = len(seeded.store().audit())
        await wait_until(pilot, lambda: len(app.screen.shown) == every, what="every event")
        assert app.screen.query_one("#audit-id").value == ""


async def test_each_backup_names_the_change_it_was_taken_before(seeded):
    from memtui.screens.backups import BackupsScreen, change_after

    store = MemoryStore(seeded.dir, actor="mcp")
    doomed = seeded.id_of("Vite")
    store.delete(doomed)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 42)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("b")
        await wait_until(pilot, lambda: isinstance(app.screen, BackupsScreen))
        text = await wait_for_text(pilot, f"delete {doomed[:4]}… by mcp")
        newest = store.backups()[0]
        event = change_after(newest, store.audit())
        assert (str(event.op), event.id, event.actor) == ("delete", doomed, "mcp")
        assert f"add {seeded.id_of('部署前')[:4]}… by api" in text  # every backup is labelled


def test_writes_less_than_a_millisecond_apart_each_name_their_own_change(tmp_path, monkeypatch):
    """On a fast disk one write follows another within a millisecond: the label of each backup is
    still the change it was taken before, not the change before that one."""
    import itertools

    from memtui.screens.backups import change_after
    from memtui_core.store import fileio

    ticks, start = itertools.count(), fileio.now()
    monkeypatch.setattr(fileio, "now", lambda: start + next(ticks) * 0.0002)  # 0.2 ms a reading
    store = MemoryStore(tmp_path / "store", actor="api")
    added = [store.remember("fact", f"release train {n} leaves on a thursday").entry.id for n in range(5)]
    backups = sorted(store.backups(), key=lambda backup: backup.at)  # one before each write but the first
    events = store.audit()
    assert [(str(e.op), e.id) for e in (change_after(b, events) for b in backups)] == [("add", i) for i in added[1:]]


async def open_backups(pilot, app) -> BackupsScreen:
    await wait_loaded(pilot)
    await pilot.press("b")
    await wait_until(pilot, lambda: isinstance(app.screen, BackupsScreen), what="the backups screen")
    return app.screen


async def test_a_slow_older_backup_listing_never_overwrites_a_newer_one(seeded):
    """The listing runs in a thread worker, which a newer request does not stop: an older listing
    that reports last must not hide the backup a write made meanwhile."""
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_backups(pilot, app)
        await wait_until(pilot, lambda: screen.backups, what="the first listing")
        before = len(screen.backups)
        app.store.backups, slowed = reported_late(app.store.backups)  # the backups as they are now
        screen._load_backups()  # the older request, slow
        await wait_until(pilot, slowed.is_set, what="the slow listing to start")
        MemoryStore(seeded.dir, actor="api").remember("fact", "The release train leaves every Thursday")
        await wait_until(pilot, lambda: len(screen.backups) == before + 1, timeout=5, what="the newer listing")
        await slowed.report(pilot)  # the older listing reports now, last
        assert len(screen.backups) == before + 1


async def test_a_slow_older_restore_preview_never_overwrites_a_newer_one(seeded):
    """The same for the restore preview: what a restore would change is shown against the store as
    it is now, not as it was when an older, slower preview began."""
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_backups(pilot, app)
        await wait_until(pilot, lambda: screen.preview is not None, what="the first preview")
        app.store.entries, slowed = reported_late(app.store.entries)  # the store as it is now
        screen._preview_selected()  # the older request, slow
        await wait_until(pilot, slowed.is_set, what="the slow preview to start")
        added = MemoryStore(seeded.dir, actor="api").remember("fact", "The release train leaves every Thursday")
        new_id = added.entry.id
        await wait_until(pilot, lambda: screen.preview is not None and new_id in screen.preview.current_entries,
                         timeout=5, what="the newer preview")
        await slowed.report(pilot)  # the older preview reports now, last
        assert new_id in screen.preview.current_entries
