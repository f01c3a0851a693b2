"""The debounce helper the filter and query boxes share, on a running app's timers."""

from __future__ import annotations

from textual.app import App

from memtui.debounce import Debounce


class Host(App[None]):
    pass


async def test_a_burst_of_pokes_runs_the_callback_once_after_the_last():
    app = Host()
    async with app.run_test() as pilot:
        calls: list[float] = []
        debounce = Debounce(app, 0.2, lambda: calls.append(1))
        for _ in range(5):
            debounce.poke()
            await pilot.pause(0.05)  # each poke within the delay of the one before
        assert calls == [] and debounce.pending
        await pilot.pause(0.4)
        assert calls == [1] and not debounce.pending


async def test_now_runs_at_once_and_drops_the_pending_run():
    app = Host()
    async with app.run_test() as pilot:
        calls: list[str] = []
        debounce = Debounce(app, 0.1, lambda: calls.append("run"))
        debounce.poke()
        debounce.now()
        assert calls == ["run"] and not debounce.pending
        await pilot.pause(0.3)
        assert calls == ["run"]


async def test_cancel_drops_the_pending_run():
    app = Host()
    async with app.run_test() as pilot:
        calls: list[str] = []
        debounce = Debounce(app, 0.1, lambda: calls.append("run"))
        debounce.poke()
        debounce.cancel()
        debounce.cancel()  # nothing pending: harmless
        await pilot.pause(0.3)
        assert calls == [] and not debounce.pending
