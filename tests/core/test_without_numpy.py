"""numpy is optional (the `fast` extra): without it, a big store ranks the same, in pure Python."""

from __future__ import annotations

import random

import orjson

from memtui_core import Limits, MemoryStore
from memtui_core.ranking.index import VECTOR_MIN_DOCS

from test_import_hygiene import run_python

QUERIES = ["部署 rollout", "service17 数据库", "缓存 vite 构建", "dry-run 确认", "nothing-matches-this"]


def big_store(directory, count: int) -> None:
    rng = random.Random(11)
    words = "部署 回滚 数据库 迁移 缓存 构建 vite rollout dry-run 确认 日志 告警 pytest redis".split()
    entries = [
        {"id": f"{i:012x}", "kind": rng.choice(["preference", "correction", "lesson", "fact"]),
         "text": f"service{i % 97} " + " ".join(rng.choices(words, k=rng.randint(2, 12))), "source": "t", "ts": i}
        for i in range(count)
    ]
    directory.mkdir(parents=True)
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": entries}))


def test_a_store_past_the_array_threshold_ranks_the_same_without_numpy(tmp_path):
    directory = tmp_path / "store"
    count = VECTOR_MIN_DOCS + 500
    big_store(directory, count)
    limits = Limits(max_entries=count)
    store = MemoryStore(directory, limits)
    assert store._snap().index.vectorized  # this process has numpy: the array path
    expected = {q: [(h.entry.id, round(h.score, 9)) for h in store.search(q, top_k=10)] for q in QUERIES}
    blocks = {q: store.retrieve_block(q) for q in QUERIES}
    assert sum(map(len, expected.values())) >= 30  # the comparison is not vacuous

    result = run_python(
        f"""
        import json, sys
        sys.modules["numpy"] = None  # `import numpy` raises ImportError, as when it is not installed
        from memtui_core import Limits, MemoryStore
        store = MemoryStore({str(directory)!r}, Limits(max_entries={count}))
        queries = {QUERIES!r}
        print(json.dumps({{
            "vectorized": store._snap().index.vectorized,
            "hits": {{q: [(h.entry.id, round(h.score, 9)) for h in store.search(q, top_k=10)] for q in queries}},
            "blocks": {{q: store.retrieve_block(q) for q in queries}},
        }}))
        """,
        tmp_path,
    )
    assert result["vectorized"] is False
    assert {q: [tuple(pair) for pair in hits] for q, hits in result["hits"].items()} == expected
    assert result["blocks"] == blocks


def test_the_default_store_never_loads_numpy(tmp_path):
    directory = tmp_path / "store"
    big_store(directory, Limits().max_entries)
    result = run_python(
        f"""
        import json, sys
        from memtui_core import MemoryStore
        store = MemoryStore({str(directory)!r})
        hits = store.search("部署 rollout")
        store.explain("部署 rollout")
        print(json.dumps({{"hits": len(hits), "numpy": "numpy" in sys.modules}}))
        """,
        tmp_path,
    )
    assert result == {"hits": 4, "numpy": False}
