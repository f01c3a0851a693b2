"""Live: another process writes while the app is open; the app shows it within about a second."""

from __future__ import annotations

import subprocess
import sys
import time

from memtui.app import MemtuiApp
from memtui.widgets.entry_table import EntryTable

from .helpers import screen_text, type_text, wait_loaded, wait_until

REMEMBER = "from memtui_core.memory import MemoryStore; import sys; MemoryStore(sys.argv[1]).remember('fact', sys.argv[2])"


async def test_a_write_from_another_process_shows_within_two_seconds(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        await pilot.press("down", "down")
        selected = table.selected_id()

        text = "另一个进程写入：发布窗口改到每周三下午"
        subprocess.run([sys.executable, "-c", REMEMBER, str(seeded.dir), text], check=True, timeout=30)
        written_at = time.monotonic()
        await wait_until(pilot, lambda: table.row_count == len(seeded.ids) + 1, timeout=2.0,
                         what="the outside write to appear")
        assert time.monotonic() - written_at < 2.0
        assert f"{len(seeded.ids) + 1}/500" in screen_text(app)
        assert table.selected_id() == selected  # the selection stays on the same entry


async def test_an_open_filter_and_edit_survive_a_reload(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash")
        await type_text(pilot, "部署")
        await pilot.press("enter")
        table = app.screen.query_one(EntryTable)
        await wait_until(pilot, lambda: table.row_count == 2)
        await pilot.press("e")
        await pilot.pause()
        await type_text(pilot, " draft")
        subprocess.run([sys.executable, "-c", REMEMBER, str(seeded.dir), "部署窗口改到周三"], check=True, timeout=30)
        await wait_until(pilot, lambda: table.row_count == 3, timeout=2.0, what="the filtered view to update")
        from memtui.modals.edit import EditModal

        assert isinstance(app.screen, EditModal) and app.screen.text.endswith(" draft")


async def test_a_write_to_a_database_store_from_another_process_shows(pg_url):
    """A database store: the app hears other processes' writes (LISTEN/NOTIFY) and reloads, and
    its once-a-second look asks the database nothing (pg_connect.ChangeWatcher)."""
    from memtui_core.memory import MemoryStore

    store = MemoryStore(pg_url)
    store.remember("fact", "the first note in the shared store")
    app = MemtuiApp(store)  # opens the store again as the app's actor: the same database, not its cache folder
    store = app.store
    assert store.location is not None
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        await wait_until(pilot, lambda: store.storage.db.watcher is not None and store.storage.db.watcher.connected,
                         timeout=5.0, what="the app to listen")
        assert table.row_count == 1
        subprocess.run([sys.executable, "-c", REMEMBER, pg_url, "a teammate wrote this from elsewhere"], check=True,
                       timeout=30)
        await wait_until(pilot, lambda: table.row_count == 2, timeout=3.0, what="the other process's write to appear")
        assert "a teammate wrote this" in screen_text(app)
        assert "s3cret" not in screen_text(app)  # the status bar names the store without its password


async def test_the_app_follows_a_database_store_across_a_server_restart(pg_url, pg_server):
    """The database goes away while the app is open and comes back: the app keeps running, and
    the next write from elsewhere shows (its listener reconnects, and reloads on reconnecting)."""
    from memtui_core.memory import MemoryStore

    MemoryStore(pg_url).remember("fact", "written before the restart")
    app = MemtuiApp(MemoryStore(pg_url))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        watcher = app.store.storage.db.watch()
        await wait_until(pilot, lambda: watcher.connected, timeout=5.0, what="the app to listen")
        pg_server.stop()
        try:
            await wait_until(pilot, lambda: not watcher.connected, timeout=5.0, what="the app to notice")
            await pilot.pause(0.3)
            assert app.is_running and table.row_count == 1
        finally:
            pg_server.start()
        subprocess.run([sys.executable, "-c", REMEMBER, pg_url, "written after the restart"], check=True, timeout=30)
        await wait_until(pilot, lambda: table.row_count == 2, timeout=8.0, what="the write after the restart")


async def test_probes_added_from_another_machine_show_on_the_probes_screen(pg_url, tmp_path):
    """A database store's probes are shared (memtui_files): a probe another machine adds shows on
    the open probes screen, told by NOTIFY, without the screen asking the database each second."""
    from memtui.screens.probes import ProbesScreen
    from memtui_core.memory import MemoryStore

    entry = MemoryStore(pg_url).remember("fact", "the staging database listens on port 5433").entry
    app = MemtuiApp(MemoryStore(pg_url))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("P")
        await wait_until(pilot, lambda: isinstance(app.screen, ProbesScreen) and app.screen.last_run is not None,
                         what="the probes screen's first run")
        screen = app.screen
        assert screen.last_run.results == []
        watcher = app.store.storage.db.watch()
        await wait_until(pilot, lambda: watcher.connected, timeout=5.0, what="the app to listen")
        import os

        elsewhere = {**os.environ, "MEMTUI_CACHE_DIR": str(tmp_path / "another-machine")}
        done = subprocess.run([sys.executable, "-m", "memtui", "--dir", pg_url, "probe", "add", "which port does staging use",
                               "--expect", entry.id], capture_output=True, timeout=60, env=elsewhere)
        assert done.returncode == 0, done.stderr
        await wait_until(pilot, lambda: screen.last_run is not None and len(screen.last_run.results) == 1, timeout=5.0,
                         what="the other machine's probe to show")
        assert screen.last_run.passed == 1
