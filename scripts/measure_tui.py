"""Measure the app against its budgets (docs/performance.md): startup to the first screen with rows, and explain refresh time.

    .venv/bin/python scripts/measure_tui.py            # 500 and 10,000 entries
    .venv/bin/python scripts/measure_tui.py --quick    # 500 only

Stores are generated straight into memory.json (the documented file format), because writing
10,000 entries one by one would measure the writer, not the app. Startup is measured twice:
in a fresh process (interpreter + imports + app, until the rows are on screen) and in-process.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

KINDS = ["preference", "correction", "lesson", "fact"]
ZH = "部署脚本默认先确认后再真正执行数据库连接池前端构建缓存测试失败时不要直接改断言日志里不要打印用户手机号发布窗口每周三下午"
EN = ("deploy dry run staging production database migration cache vite react docker build index queue worker "
      "redis sentry review commit branch release rollback schema token budget retrieval memory").split()


def make_store(directory: Path, n: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    now = int(time.time())
    entries = []
    for i in range(n):
        parts = []
        length = rng.choice([20, 40, 80, 160, 400])
        while sum(len(p) for p in parts) < length:
            if rng.random() < 0.5:
                start = rng.randrange(len(ZH) - 6)
                parts.append(ZH[start : start + rng.randint(2, 6)])
            else:
                parts.append(" " + rng.choice(EN) + " ")
        text = "".join(parts).strip()[:400] + f" #{i}"
        entries.append({"id": secrets.token_hex(6), "kind": rng.choice(KINDS), "text": text,
                        "source": rng.choice(["auto", "tool", "cli"]), "ts": now - rng.randrange(60 * 86400)})
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": entries}, option=orjson.OPT_INDENT_2))
    return directory


CHILD = r"""
import asyncio, sys, time
sys.path.insert(0, {repo!r})
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.widgets.entry_table import EntryTable

async def main():
    app = MemtuiApp(MemoryStore({directory!r}, Limits(max_entries={cap})))
    async with app.run_test(size=(120, 36)) as pilot:
        while app.first_rows_at is None:
            await pilot.pause(0.005)
        await pilot.pause()  # one more refresh: the rows are painted
        rows = app.screen.query_one(EntryTable).row_count
    print(rows)

asyncio.run(main())
"""


def cold_start(directory: Path, n: int) -> float:
    script = CHILD.format(repo=str(REPO), directory=str(directory), cap=max(n, 500))
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    assert int(out.stdout.strip()) == n, out
    return elapsed


async def warm_start(directory: Path, n: int) -> float:
    from memtui_core.limits import Limits
    from memtui_core.memory import MemoryStore
    from memtui.app import MemtuiApp

    app = MemtuiApp(MemoryStore(directory, Limits(max_entries=max(n, 500))))
    started = time.perf_counter()
    async with app.run_test(size=(120, 36)) as pilot:
        while app.first_rows_at is None:
            await pilot.pause(0.005)
        await pilot.pause()
        elapsed = time.perf_counter() - started
    return elapsed


async def explain_refresh(directory: Path, keystrokes: int = 20) -> tuple[list[float], list[float], list[float]]:
    """Per keystroke: core explain time, debounce-fire → table and panes updated, key → screen updated."""
    from memtui.app import MemtuiApp
    from memtui.screens.explain import ExplainScreen
    from memtui_core.memory import MemoryStore

    app = MemtuiApp(MemoryStore(directory))
    core_s, refresh_s, key_s = [], [], []
    async with app.run_test(size=(120, 36)) as pilot:
        while app.snapshot is None:
            await pilot.pause(0.01)
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExplainScreen)
        await pilot.press(*"部署")
        text = "部署 dry run 数据库 cache 测试失败 deploy 日志 worker queue"
        for ch in text[2 : 2 + keystrokes]:
            before = screen.refreshes
            pressed = time.perf_counter()
            await pilot.press(ch)
            while screen.refreshes == before:
                await pilot.pause(0.002)
            done = time.perf_counter()
            core, total = screen.last_refresh
            core_s.append(core)
            refresh_s.append(total)
            key_s.append(done - pressed)
    return core_s, refresh_s, key_s


def ms(values: list[float]) -> str:
    return f"median {statistics.median(values) * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 entries only")
    args = parser.parse_args()
    sizes = [500] if args.quick else [500, 10_000]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            directory = make_store(Path(tmp) / f"store-{n}", n)
            cold = [cold_start(directory, n) for _ in range(3)]
            warm = [asyncio.run(warm_start(directory, n)) for _ in range(3)]
            target = 1.5 if n <= 500 else 3.0
            print(f"startup, {n:>6} entries: new process {ms(cold)}; in-process {ms(warm)}  (target ≤ {target} s)")
        core, refresh, key = asyncio.run(explain_refresh(make_store(Path(tmp) / "explain-500", 500)))
        from memtui.screens.explain import EXPLAIN_DELAY

        print(f"explain at 500 entries: core explain {ms(core)}; refresh (explain + table + panes) {ms(refresh)} "
              f"(target ≤ 50 ms)")
        print(f"  keystroke → screen updated, including the {EXPLAIN_DELAY * 1000:.0f} ms typing debounce: {ms(key)}")


if __name__ == "__main__":
    main()
