"""A single CJK character in the query: the reason says the entry's terms are bigrams."""

from memtui_core.memory import MemoryStore


def test_a_single_cjk_character_is_explained_as_inside_bigrams(tmp_path):
    store = MemoryStore(tmp_path)
    store.remember("fact", "数据库是 PostgreSQL 15，连接池用 pgbouncer")
    store.remember("fact", "部署前先跑冒烟测试")
    rows = {row.text[:3]: row for row in store.explain("库").entries}
    reason = rows["数据库"].reason
    assert rows["数据库"].score == 0  # ranking is unchanged
    assert "missing: 库" in reason and "bigrams (据库, 库是)" in reason and "e.g. 据库" in reason
    assert "bigrams" not in rows["部署前"].reason  # the character is not in that entry at all
    assert "bigrams" not in store.explain("pgbouncer 数据").entries[1].reason
