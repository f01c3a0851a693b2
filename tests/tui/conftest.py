"""Stores for the TUI tests: small seeded ones written through the core, and the demo store."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore

SEED = [
    ("preference", "回答尽量简短，先给结论", "auto"),
    ("correction", "部署脚本默认先 dry-run，确认后再真正执行", "auto"),
    ("lesson", "Vite 热更新失效时先删 node_modules/.vite 缓存再重启", "tool"),
    ("fact", "数据库是 PostgreSQL 15，连接池用 pgbouncer", "auto"),
    ("fact", "The main branch is protected: merges need review and green CI", "tool"),
    ("lesson", "部署前先跑冒烟测试，失败就停止部署", "auto"),
]


class Seeded:
    """A store directory plus the ids of the seeded texts, by text."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.ids: dict[str, str] = {}
        agent = MemoryStore(directory, actor="api")
        for kind, text, source in SEED:
            self.ids[text] = agent.remember(kind, text, source=source).entry.id

    def store(self, core: bool = True) -> MemoryStore:
        """The store; `core=False`: without the pinned core, for tests of ranking, probes and the
        injection log that rank the preference and the correction like the others."""
        return MemoryStore(self.dir, None if core else Limits(core_budget=0), actor="api")

    def id_of(self, start: str) -> str:
        return next(entry_id for text, entry_id in self.ids.items() if text.startswith(start))


@pytest.fixture
def seeded(tmp_path) -> Seeded:
    return Seeded(tmp_path / "store")


@pytest.fixture
def demo(tmp_path) -> MemoryStore:
    from memtui.demo import create_demo_store

    return create_demo_store(tmp_path / "demo")
