"""The injections screen: open a past injection, see what it put into the prompt, replay it today."""

from __future__ import annotations

from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.screens.injections import InjectionsScreen
from memtui.widgets.virtual_table import VirtualTable

from .helpers import shows, wait_for_text, wait_loaded, wait_until

# The ranking alone, for tests of explain, probes and the log that rank the seeded preference and
# correction like the others (the pinned core, on by default, would carry them): tests/tui/test_tui_core.py.
RANKING = Limits(core_budget=0)


async def test_open_a_past_injection_and_replay_it(seeded):
    agent = MemoryStore(seeded.dir, RANKING, actor="cli")
    assert agent.retrieve_block("部署 dry-run 冒烟测试")
    agent.retrieve_block("kubernetes helm")  # nothing matched: logged too
    agent.injection_log.flush()
    deploy = seeded.id_of("部署脚本")
    smoke = seeded.id_of("部署前")
    old_text = agent.get(deploy).text
    agent.update(deploy, text="部署脚本默认先 dry-run，确认后再真正执行；生产环境还需审批")
    agent.delete(smoke)
    new = agent.remember("lesson", "冒烟测试脚本在 scripts/smoke.sh，部署前必须跑").entry.id

    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("i")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InjectionsScreen)
        table = screen.query_one("#injections-table", VirtualTable)
        await wait_until(pilot, lambda: table.row_count == 2)
        await wait_for_text(pilot, "2 injections in the last 30 days")
        detail = screen.query_one("#injections-detail-body")
        # newest first: the unmatched query; the one below injected the deploy entries
        assert shows(detail, "nothing matched")
        await pilot.press("down")
        await wait_until(pilot, lambda: shows(detail, "Injected then"))
        assert shows(detail, "query: 部署 dry-run 冒烟测试")
        assert shows(detail, old_text) and shows(detail, "changed")  # the text as it was then
        assert shows(detail, "today: 部署脚本默认先 dry-run，确认后再真正执行；生产环境还需审批")
        assert shows(detail, "deleted")

        await pilot.press("r")
        await wait_until(pilot, lambda: shows(detail, "Replayed today"))
        assert shows(detail, f"no longer injected: {smoke}")
        assert shows(detail, f"newly injected: {new}")

        await pilot.press("n")  # the curation view: entries never injected
        await wait_until(pilot, lambda: table.row_count > 0)
        assert shows(detail, "never injected in the window")
        unused = {entry.id for entry in screen.unused}
        assert deploy not in unused and new in unused  # injected then / never injected
        assert table.row_count == len(MemoryStore(seeded.dir, RANKING).entries()) - 1
        await pilot.press("n")
        await wait_until(pilot, lambda: table.row_count == 2)


async def test_usage_in_the_detail_pane_and_the_browse_order(seeded):
    from memtui.widgets.entry_table import EntryTable

    agent = MemoryStore(seeded.dir, RANKING, actor="cli")
    for _ in range(2):
        agent.retrieve_block("部署脚本 dry-run 执行")
    agent.injection_log.flush()
    used = {hit["id"] for line in agent.injection_log.read()[0] for hit in line["hits"]}
    deploy = seeded.id_of("部署脚本")
    assert deploy in used

    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(EntryTable)
        await pilot.press("down")  # the second entry in store order: the deploy correction
        assert table.selected_id() == deploy
        detail = app.screen.query_one("#detail-body")
        await wait_until(pilot, lambda: shows(detail, "2 times in the last 30 days"))
        await pilot.press("u")  # least injected first
        await wait_until(pilot, lambda: table.entries[-1].id == deploy or table.entries[-1].id in used)
        assert table.entries[0].id not in used
        await pilot.press("u")  # never injected in 30 days
        await wait_until(pilot, lambda: table.row_count == len(seeded.ids) - len(used))
        assert not {entry.id for entry in table.entries} & used
        await pilot.press("down", "up")
        await wait_until(pilot, lambda: shows(detail, "never in the last 30 days"))
        await pilot.press("u")  # back to store order
        await wait_until(pilot, lambda: table.row_count == len(seeded.ids))


async def test_import_and_export_from_the_command_palette(seeded, tmp_path):
    from .helpers import run_command, type_text

    source = tmp_path / "MEMORY.md"
    source.write_text("Always run migrations inside a transaction\n\u00a7\nThe queue is RabbitMQ 3.13\n")
    before = (seeded.dir / "memory.json").read_bytes()
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_loaded(pilot)
        await run_command(pilot, "Import memories")
        from memtui.modals.transfer import TransferModal

        await wait_until(pilot, lambda: isinstance(app.screen, TransferModal) and app.screen.mode == "import")
        await type_text(pilot, str(source))
        await pilot.press("enter")
        text = await wait_for_text(pilot, "would import MEMORY.md (hermes): 2 added")
        assert "[lesson]" in text and "[fact]" in text
        assert (seeded.dir / "memory.json").read_bytes() == before  # only a preview so far
        await pilot.press("y")
        await wait_until(pilot, lambda: len(MemoryStore(seeded.dir).entries()) == len(seeded.ids) + 2)

        target = tmp_path / "out" / "USER.md"
        target.parent.mkdir()
        await run_command(pilot, "Export memories")
        await wait_until(pilot, lambda: isinstance(app.screen, TransferModal) and app.screen.mode == "export")
        await type_text(pilot, str(target))
        await pilot.press("enter")
        await wait_until(pilot, lambda: target.exists())
        assert target.read_text() == "回答尽量简短，先给结论\n"  # USER.md: the preferences
