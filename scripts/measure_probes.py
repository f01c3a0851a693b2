"""How long probes take on a 500-entry store with 30 probes: `probe run`, and the check the editor
runs while a person types (which passing probes a change would break).

    .venv/bin/python scripts/measure_probes.py
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time

from memtui_core.agents.probes import add_probe, load_probes, run_probes, would_break
from memtui_core.memory import MemoryStore

WORDS = ("deploy build test cache vite react postgres index query backup restore audit lint format commit "
         "branch merge review release docker image pipeline token config python rust node").split()
CJK = ["部署", "构建", "测试", "缓存", "数据库", "索引", "备份", "恢复", "审计", "发布", "镜像", "分支", "合并", "配置"]


def main() -> None:
    rng = random.Random(1)
    directory = tempfile.mkdtemp(prefix="memtui-probes-")
    try:
        store = MemoryStore(directory)
        for n in range(500):
            text = " ".join(rng.sample(WORDS, 5)) + " " + "".join(rng.sample(CJK, 3)) + f" note {n}"
            store.remember(rng.choice(["fact", "lesson", "preference", "correction"]), text)
        entries = store.entries()
        for n in range(30):
            entry = rng.choice(entries)
            add_probe(store, " ".join(entry.text.split()[:3]), [entry.id] if n % 3 else None)
        probes = load_probes(store).probes
        started = time.perf_counter()
        run = run_probes(store)
        ran = time.perf_counter() - started
        started = time.perf_counter()
        broken = would_break(store, entries[0].id, probes, text=entries[0].text + " 额外", fields={"keywords": ["extra"]})
        checked = time.perf_counter() - started
        print(f"500 entries, 30 probes ({run.passed} pass, {run.failed} fail): probe run {ran * 1000:.0f} ms; "
              f"would_break {checked * 1000:.0f} ms ({len(broken)} broken)")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
