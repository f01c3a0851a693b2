"""The injections screen: open a past injection, see what it put into the prompt, replay it today."""

from __future__ import annotations

from memtui_core.store import MemoryStore
from memtui.app import MemtuiApp
from memtui.screens.injections import InjectionsScreen
from memtui.widgets.virtual_table import VirtualTable

from .helpers import shows, wait_for_text, wait_loaded, wait_until


async def test_open_a_past_injection_and_replay_it(seeded):
    agent = MemoryStore(seeded.dir, actor="cli")
    assert agent.retrieve_block("部署 dry-run 冒烟测试")
    agent.retrieve_block("kubernetes helm")  # nothing matched: logged too
    agent.injection_log.flush()
    deploy = seeded.id_of("部署脚本")
    smoke = seeded.id_of("部署前")
    old_text = agent.get(deploy).text
    agent.update(deploy, text="部署脚本默认先 dry-run，确认后再真正执行；生产环境还需审批")
    agent.delete(smoke)
    new = agent.remember("lesson", "冒烟测试脚本在 scripts/smoke.sh，部署前必须跑").entry.id

    app = MemtuiApp(seeded.store())
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
        assert table.row_count == len(MemoryStore(seeded.dir).entries()) - 1
        await pilot.press("n")
        await wait_until(pilot, lambda: table.row_count == 2)
