"""Browse: the table, the kind views and counts, the filter, the detail pane and the header."""

from __future__ import annotations

from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.widgets.entry_table import EntryTable

from .helpers import screen_text, shows, type_text, wait_for_text, wait_loaded, wait_until


async def test_views_filter_and_detail_show_the_store(demo: MemoryStore):
    entries = demo.entries()
    app = MemtuiApp(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        text = screen_text(app)
        assert f"{len(entries)}/500" in text
        assert "1 entry blocked by the threat scan" in text  # header warning from store.health()
        assert table.row_count == len(entries)
        for kind in ("preference", "correction", "lesson", "fact"):
            count = sum(1 for e in entries if e.kind.value == kind)
            assert f"{kind} {count}" in text

        await pilot.press("3")  # the correction view
        await pilot.pause()
        corrections = [e for e in entries if e.kind.value == "correction"]
        assert table.row_count == len(corrections)
        assert table.selected_id() in {e.id for e in corrections}

        await pilot.press("1", "slash")
        await type_text(pilot, "dry-run")
        await pilot.press("enter")
        target = next(e for e in entries if "dry-run" in e.text)
        await wait_for_text(pilot, target.id)
        assert table.row_count == 1
        text = screen_text(app)
        assert target.text in text  # the full text in the detail pane
        assert f"{len(target.text)}/400 chars" in text
        position = [e.id for e in demo.eviction_order()].index(target.id) + 1
        ordinal = "next" if position == 1 else f"{position}{'th' if 10 <= position % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(position % 10, 'th')} in line"
        assert shows(app.screen.query_one("#detail-body"),
                     f"Nothing is evicted until the store is full ({len(entries)}/500); then this entry goes {ordinal}.")
        # its history: written by the agent, deleted by mistake from the CLI, brought back by a restore
        assert "delete" in text and "cli" in text
        assert "restore" in text and "brought back by" in text

        await pilot.press("escape")  # clears the filter
        await pilot.pause(0.3)
        assert table.row_count == len(entries)

        await pilot.press("slash", "q", "d", "down")  # q and d are letters in the filter; down goes to the rows
        await pilot.pause()
        assert app.is_running and app.screen.query_one("#filter").value == "qd"
        assert app.focused is table and table.row_count == 0
        assert len(demo.entries()) == len(entries)


async def test_cjk_text_is_clipped_by_cell_width_with_an_ellipsis(seeded):
    long_text = "长期记忆的难点不在存而在下一次用得上" * 20
    seeded.store().remember("lesson", long_text)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        entry_id = seeded.store().entries()[-1].id
        assert table.select_id(entry_id)
        await pilot.pause()
        line = next(line for line in screen_text(app).splitlines() if "长期记忆的难点" in line)
        assert "…" in line  # cut by terminal cells, with an ellipsis
        assert table.text_width < 80


async def test_empty_store_in_a_directory_that_does_not_exist_yet(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the header shows ~/not/yet/…, which fits whatever tmp_path is
    directory = tmp_path / "not" / "yet"
    app = MemtuiApp(MemoryStore(directory))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        text = screen_text(app)
        assert "No memories yet" in text
        assert "memtui add" in text and " n " in text
        assert "0/500" in text and "(not created yet)" in text
        await pilot.press("w")
        await type_text(pilot, "部署")
        await wait_for_text(pilot, "No entries to rank: the store is empty.")
        assert "Type a query to rank" not in screen_text(app)
        assert not directory.exists()


async def test_the_first_entries_of_an_empty_store_take_the_keys(tmp_path):
    from memtui.modals.edit import EditModal

    app = MemtuiApp(MemoryStore(tmp_path / "empty"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_loaded(pilot)
        await wait_for_text(pilot, "No memories yet")
        agent = MemoryStore(tmp_path / "empty", actor="api")
        first = agent.remember("fact", "CI runs on GitHub Actions").entry
        second = agent.remember("lesson", "部署前先跑冒烟测试").entry
        await wait_for_text(pilot, "CI runs on GitHub Actions", timeout=3)
        detail = app.screen.query_one("#detail-body")
        assert shows(detail, "(just now)") and not shows(detail, "now ago")
        table = app.screen.query_one(EntryTable)
        assert table.selected_id() == first.id
        await pilot.press("down")  # moves through the entries, not the detail pane
        assert table.selected_id() == second.id
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EditModal), what="the editor")
        assert app.screen.entry.id == second.id


async def test_header_warns_about_a_recovered_corrupt_file(seeded):
    seeded.store().remember("fact", "another write so that a backup of the seeded file exists")
    (seeded.dir / "memory.json").write_bytes(b'{"entries": [ this is not json')
    app = MemtuiApp(MemoryStore(seeded.dir))
    async with app.run_test(size=(200, 30)) as pilot:
        await wait_loaded(pilot)
        text = screen_text(app)
        assert "corrupt memory file was quarantined" in text
        assert f"{len(MemoryStore(seeded.dir).entries())}/500" in text  # what the core recovered
    assert list(seeded.dir.glob("memory.json.broken-*"))  # the corrupt bytes were kept, not overwritten


async def test_narrow_terminal_with_a_full_length_chinese_entry(seeded):
    text_400 = ("中文记忆条目测试" * 50)[:400]
    entry = seeded.store().remember("preference", text_400).entry
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash")
        await type_text(pilot, entry.id)
        await pilot.press("enter")
        await wait_for_text(pilot, "400/400")
        table = app.screen.query_one(EntryTable)
        assert table.row_count == 1 and table.selected_id() == entry.id
        assert "中文记忆条目测试" in screen_text(app)


async def test_a_large_store_lists_every_entry_and_filters_it(tmp_path):
    import orjson

    from memtui_core.limits import Limits

    directory = tmp_path / "big"
    directory.mkdir()
    kinds = ["preference", "correction", "lesson", "fact"]
    entries = [
        {"id": f"{i:012x}", "kind": kinds[i % 4], "text": f"记忆条目 number {i} 部署 cache {'缓存' * (i % 50)}",
         "source": "auto", "ts": 1_760_000_000 + i}
        for i in range(3000)
    ]
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": entries}))
    app = MemtuiApp(MemoryStore(directory, Limits(max_entries=5000)))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot, timeout=20.0)  # 3,000 entries, each scanned on load: seconds on a busy machine
        table = app.screen.query_one(EntryTable)
        assert table.row_count == 3000
        await pilot.press("end")
        assert table.selected_id() == f"{2999:012x}"
        await wait_for_text(pilot, "number 2999")
        await pilot.press("slash")
        await type_text(pilot, "number 1234 ")
        await pilot.press("enter")
        await wait_for_text(pilot, f"id {1234:012x}")
        assert table.row_count == 1


async def test_filtered_counts_fit_80_columns(demo: MemoryStore):
    """At 80 columns a filter's `shown/total` counts would push the last tab off the edge: the
    tabs drop the kinds' English names instead, and wider terminals keep them."""
    entries = demo.entries()
    facts = sum(1 for e in entries if e.kind.value == "fact")
    app = MemtuiApp(demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash")
        await type_text(pilot, "test")
        await pilot.press("enter")
        shown = sum(1 for e in entries if e.kind.value == "fact" and "test" in e.text.lower())
        await wait_until(pilot, lambda: f"事实 {shown}/{facts}" in screen_text(app))
        tabs_line = next(line for line in screen_text(app).splitlines() if "All " in line)
        assert tabs_line.rstrip().endswith(f"事实 {shown}/{facts}")
        assert "preference" not in tabs_line
        await pilot.resize_terminal(160, 40)
        await wait_until(pilot, lambda: f"事实 fact {shown}/{facts}" in screen_text(app))


async def test_new_counts_move_the_tab_underline_at_once_and_choosing_a_view_slides_it(demo: MemoryStore):
    """Every load and filter keystroke relabels the tabs; the underline follows the active tab's
    new width at once (Textual's tabs slide it for 0.3 s each time). Choosing a view still slides."""
    from textual.widgets._tabs import Underline

    from memtui.widgets.view_tabs import ViewTabs

    entries = demo.entries()
    app = MemtuiApp(demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        tabs = app.screen.query_one(ViewTabs)
        underline = tabs.query_one(Underline)
        slid: list[str] = []
        real = underline.animate
        underline.animate = lambda attribute, *args, **kwargs: slid.append(attribute) or real(attribute, *args, **kwargs)
        before = underline.highlight_end
        await pilot.press("slash")
        await type_text(pilot, "dry-run")
        await pilot.press("enter")
        shown = sum(1 for e in entries if "dry-run" in e.text)
        await wait_until(pilot, lambda: f"All {shown}/{len(entries)}" in screen_text(app))
        await pilot.pause(0.1)
        assert slid == []
        active = tabs.active_tab
        assert active is not None
        span = active.virtual_region.shrink(active.styles.gutter).column_span
        assert (underline.highlight_start, underline.highlight_end) == span
        assert underline.highlight_end != before  # the label did change width

        await pilot.press("3")  # the person chose a view: that move slides, as in Textual
        await wait_until(pilot, lambda: "highlight_end" in slid)
