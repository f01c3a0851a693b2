"""The injection log: what every retrieve_block appends, how it is read back, replayed and rotated."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time

import orjson
import pytest

from memtui_core import Limits, MemoryStore
from memtui_core.errors import InvalidInput
from memtui_core.ranking.inject import render_lines
from memtui_core.store.injections import LOG_NAME, ROTATED_NAME, explain_line, replay, text_hash, usage

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def make_store(tmp_path, **limits) -> MemoryStore:
    """Three entries, retrieved by relevance: the pinned core is off unless asked for (it would
    carry the correction and the preference in every block; its log lines: test_the_core_is_logged)."""
    store = MemoryStore(tmp_path / "s", Limits(**{"core_budget": 0, **limits}), actor="agent")
    store.remember("correction", "部署脚本默认先 dry-run，确认后再真正执行")
    store.remember("preference", "回复用中文，代码注释用英文")
    store.remember("fact", "staging database is postgres 16 on db.internal")
    return store


def log_lines(store: MemoryStore) -> list[dict]:
    store.injection_log.flush()
    return [orjson.loads(line) for line in (store.dir / LOG_NAME).read_bytes().splitlines()]


def test_every_injection_is_one_line_with_ranked_ids_and_a_redacted_query(tmp_path):
    store = make_store(tmp_path)
    block = store.retrieve_block(f"部署 dry-run 中文 token {SECRET}")
    assert block
    [line] = log_lines(store)
    # the default language is the message's (auto): its Latin words outnumber its CJK characters
    assert line["actor"] == "agent" and line["profile"] == "default" and line["lang"] == "en"
    assert SECRET not in line["q"] and "[REDACTED" in line["q"] and "部署 dry-run" in line["q"]
    assert abs(line["at"] - time.time()) < 60
    ids = [hit[0] for hit in line["hits"]]
    assert [hit[1] for hit in line["hits"]] == list(range(1, len(ids) + 1))
    records = {r.id: r for r in store.storage.load().records}
    # the characters logged per hit add up to what the block spent
    picked = [records[i] for i in ids]
    assert sum(hit[3] for hit in line["hits"]) == render_lines(picked, store.limits.char_budget, line["lang"]).used_chars
    assert all(hit[4] == text_hash(records[hit[0]].text) for hit in line["hits"])
    assert stat.S_IMODE(os.stat(store.dir / LOG_NAME).st_mode) == 0o600
    assert SECRET.encode() not in (store.dir / LOG_NAME).read_bytes()


def test_an_injection_with_nothing_relevant_is_logged_too(tmp_path):
    store = make_store(tmp_path)
    assert store.retrieve_block("kubernetes helm chart") == ""
    [line] = log_lines(store)
    assert line["hits"] == [] and line["q"] == "kubernetes helm chart"


def test_hits_cut_by_the_budget_are_not_logged_as_injected(tmp_path):
    store = make_store(tmp_path, char_budget=40)
    store.retrieve_block("部署 dry-run 中文 postgres")
    [line] = log_lines(store)
    assert len(line["hits"]) == 1  # only the first line fits in 40 characters


def test_hash_only_and_off(tmp_path, monkeypatch):
    hashed = make_store(tmp_path / "a", injection_queries=0)
    hashed.retrieve_block("部署 dry-run")
    [line] = log_lines(hashed)
    assert "q" not in line and len(line["qh"]) == 16
    with pytest.raises(InvalidInput):
        replay(hashed, hashed.injection_log.read()[0][0])

    off = make_store(tmp_path / "b", injection_log=0)
    off.retrieve_block("部署 dry-run")
    off.injection_log.flush()
    assert not (off.dir / LOG_NAME).exists()

    monkeypatch.setenv("MEMTUI_INJECTION_LOG", "off")
    env_off = make_store(tmp_path / "c")
    env_off.retrieve_block("部署 dry-run")
    env_off.injection_log.flush()
    assert not (env_off.dir / LOG_NAME).exists()
    monkeypatch.setenv("MEMTUI_INJECTION_LOG", "hash")
    env_hash = make_store(tmp_path / "d")
    env_hash.retrieve_block("部署 dry-run")
    assert "q" not in log_lines(env_hash)[0]


def test_a_long_query_is_cut_and_marked(tmp_path):
    store = make_store(tmp_path, injection_query_chars=20)
    store.retrieve_block("部署 dry-run " + "x" * 100)
    [line] = log_lines(store)
    assert len(line["q"]) == 20 and line["cut"] is True and "qh" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only directories")
def test_a_read_only_directory_never_fails_the_injection(tmp_path):
    store = make_store(tmp_path)
    os.chmod(store.dir, 0o500)
    try:
        block = store.retrieve_block("部署 dry-run")
        store.injection_log.flush()
    finally:
        os.chmod(store.dir, 0o700)
    assert block
    assert "not written" in store.injection_log.error
    assert store.injection_log.take_error() and store.injection_log.take_error() is None  # told once


def test_a_symlink_in_place_of_the_log_is_not_followed(tmp_path):
    store = make_store(tmp_path)
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    os.symlink(target, store.dir / LOG_NAME)
    assert store.retrieve_block("部署 dry-run")
    store.injection_log.flush()
    assert target.read_text() == "keep me\n"
    assert "not written" in (store.injection_log.error or "")
    health = store.health()
    assert any("injection log" in w.text for w in health.warnings)


def test_corrupt_lines_are_skipped_and_reported(tmp_path):
    store = make_store(tmp_path)
    store.retrieve_block("部署 dry-run")
    store.injection_log.flush()
    with open(store.dir / LOG_NAME, "ab") as fh:
        fh.write(b'{"at": 1, "hits": \n[1,2]\n{"at":"x","hits":[]}\n\xff\xfe\n')
    store.retrieve_block("中文")
    lines, skipped = store.injection_log.read()
    assert len(lines) == 2 and [line["n"] for line in lines] == [1, 2]
    assert len(skipped) == 4 and all("line" in note for note in skipped)
    assert any("corrupt line" in w.text for w in store.health().warnings)


def test_rotation_by_size_keeps_both_files_under_the_cap(tmp_path):
    store = make_store(tmp_path, injection_max_bytes=4000)
    for i in range(60):
        store.retrieve_block(f"部署 dry-run {i}")
        store.injection_log.flush()
    sizes = [os.path.getsize(store.dir / name) for name in (LOG_NAME, ROTATED_NAME)]
    assert sum(sizes) <= 4000 + 400
    assert stat.S_IMODE(os.stat(store.dir / ROTATED_NAME).st_mode) == 0o600
    lines, _ = store.injection_log.read()
    assert lines and lines[-1]["q"] == "部署 dry-run 59"


def test_rotation_by_age_and_retention_window(tmp_path):
    store = make_store(tmp_path)
    old = time.time() - 20 * 86400
    very_old = time.time() - 40 * 86400
    hit = [store.entries()[0].id, 1, 1.0, 10, "0" * 12]
    (store.dir / LOG_NAME).write_bytes(
        orjson.dumps({"at": very_old, "actor": "a", "q": "ancient", "hits": [hit]}) + b"\n"
        + orjson.dumps({"at": old, "actor": "a", "q": "old", "hits": [hit]}) + b"\n"
    )
    lines, _ = store.injection_log.read()
    assert [line["q"] for line in lines] == ["old"]  # older than 30 days is not shown
    store.retrieve_block("部署 dry-run")
    store.injection_log.flush()
    assert (store.dir / ROTATED_NAME).exists()  # the first line was older than half the window
    assert [orjson.loads(x)["q"] for x in (store.dir / LOG_NAME).read_bytes().splitlines()] == ["部署 dry-run"]


def test_explain_as_it_was_finds_changed_and_deleted_texts(tmp_path):
    store = make_store(tmp_path)
    store.retrieve_block("部署 dry-run 回复 中文")
    [line] = store.injection_log.read()[0]
    first, second = line["hits"][0]["id"], line["hits"][1]["id"]
    old_first = store.get(first).text
    store.update(first, text="部署脚本默认先 dry-run，确认后再真正执行；生产环境需要审批")
    old_second = store.get(second).text
    store.delete(second)
    rows = {row["id"]: row for row in explain_line(store, line)}
    assert rows[first]["status"] == "changed" and rows[first]["text"] == old_first
    assert rows[first]["today"].endswith("需要审批")
    assert rows[second]["status"] == "deleted" and rows[second]["text"] == old_second
    # with the audit log gone, the backups still hold the old texts
    (store.dir / "audit.jsonl").unlink()
    store.storage._audit_cache = None
    rows = {row["id"]: row for row in explain_line(store, line)}
    assert rows[first]["text"] == old_first and rows[second]["text"] == old_second


def test_replay_shows_what_today_would_inject_instead(tmp_path):
    store = make_store(tmp_path)
    store.retrieve_block("postgres database")
    [line] = store.injection_log.read()[0]
    assert replay(store, line).same
    gone = line["hits"][0]["id"]
    store.delete(gone)
    new = store.remember("lesson", "postgres database migrations run in a transaction").entry.id
    result = replay(store, line)
    assert not result.same and gone in result.dropped and new in result.added
    assert len(log_lines(store)) == 1  # a replay is not an injection


def test_usage_and_health_share(tmp_path):
    store = make_store(tmp_path)
    for query in ("部署 dry-run", "部署", "中文"):
        store.retrieve_block(query)
    lines, _ = store.injection_log.read()
    used = usage(lines)
    deploy = next(e.id for e in store.entries() if e.kind.value == "correction")
    assert used[deploy][0] == 2 and used[deploy][1] == lines[1]["at"]
    health = store.health()
    assert health.injections == 3
    assert health.injected_share == pytest.approx(2 / 3)


def test_the_core_is_logged_apart_from_the_hits_and_counts_as_used(tmp_path):
    store = make_store(tmp_path, core_budget=1000)  # the default core: the correction and the preference
    block = store.retrieve_block("staging postgres")
    [line] = log_lines(store)
    by_kind = {e.kind.value: e for e in store.entries()}
    assert [item[0] for item in line["core"]] == [by_kind["preference"].id, by_kind["correction"].id]
    assert [hit[0] for hit in line["hits"]] == [by_kind["fact"].id]  # rank 1: the core takes no rank
    assert line["hits"][0][1] == 1
    # the characters logged add up to the lines the block carries, core and retrieved
    lines = [row for row in block.split("\n") if row.startswith("- [")]
    assert [item[1] for item in line["core"]] + [line["hits"][0][3]] == [len(row) + 1 for row in lines]
    assert all(item[2] == text_hash(by_kind[k].text) for item, k in zip(line["core"], ("preference", "correction")))
    lines_read, _ = store.injection_log.read()
    assert set(usage(lines_read)) == {e.id for e in store.entries()}  # an entry of the core was in the prompt
    assert store.health().injected_share == pytest.approx(1.0)
    store.retrieve_block("kubernetes helm chart")  # nothing retrieved: the core alone is still logged
    assert [len(item["core"]) for item in store.injection_log.read()[0]] == [2, 2]


def test_a_long_lived_process_writes_within_a_second_or_two(tmp_path):
    store = make_store(tmp_path)
    store.retrieve_block("部署")
    store.retrieve_block("中文")  # the second call starts the background flusher
    deadline = time.time() + 5
    while time.time() < deadline:
        path = store.dir / LOG_NAME
        if path.exists() and len(path.read_bytes().splitlines()) == 2:
            break
        time.sleep(0.1)
    assert len((store.dir / LOG_NAME).read_bytes().splitlines()) == 2


def test_concurrent_processes_never_interleave_lines(tmp_path):
    store = make_store(tmp_path)
    script = textwrap.dedent(f"""
        from memtui_core import MemoryStore
        store = MemoryStore({str(store.dir)!r}, actor="p")
        for i in range(60):
            store.retrieve_block("部署 dry-run 中文 " + "x" * (i * 7))
            store.injection_log.flush()
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(4)]
    assert all(p.wait(60) == 0 for p in procs)
    lines, skipped = store.injection_log.read()
    assert skipped == [] and len(lines) == 240


def test_a_process_that_injects_once_writes_its_line_at_exit(tmp_path):
    store = make_store(tmp_path)
    code = f"from memtui_core import MemoryStore; print(bool(MemoryStore({str(store.dir)!r}).retrieve_block('部署')))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "True"
    assert len(store.injection_log.read()[0]) == 1


def test_a_log_that_cannot_be_written_never_fails_the_injection(tmp_path):
    store = make_store(tmp_path)
    (store.dir / LOG_NAME).mkdir()  # as unwritable as a full disk or a read-only file, even for root
    assert store.retrieve_block("部署 dry-run")
    store.injection_log.flush()
    assert "not written" in store.injection_log.error
    assert any("not written" in w.text and w.code == "injection-log-unwritten" for w in store.health().warnings)
    (store.dir / LOG_NAME).rmdir()
    store.retrieve_block("部署 dry-run")
    store.injection_log.flush()
    assert store.injection_log.error is None


def test_stores_made_per_turn_are_not_kept_alive_by_the_log(tmp_path):
    import gc
    import weakref

    from memtui_core.store.injections import flush_pending

    make_store(tmp_path)
    refs = []
    for query in ("部署", "中文", "postgres"):
        store = MemoryStore(tmp_path / "s")
        store.retrieve_block(query)
        refs.append(weakref.ref(store.injection_log))
        del store
    flush_pending()  # what the flusher thread and the exit handler do
    deadline = time.time() + 5  # the flusher thread may be writing them right now
    while any(ref() is not None for ref in refs) and time.time() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert all(ref() is None for ref in refs)
    assert [line["q"] for line in MemoryStore(tmp_path / "s").injection_log.read()[0]] == ["部署", "中文", "postgres"]


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.lists(st.one_of(st.binary(max_size=80), st.text(max_size=80).map(str.encode),
                               st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10),
                                            lambda inner: st.lists(inner, max_size=4)
                                            | st.dictionaries(st.sampled_from(["at", "hits", "q", "actor", "qh"]),
                                                              inner, max_size=5),
                                            max_leaves=12).map(lambda v: orjson.dumps(v))),
                     max_size=8))
def test_any_junk_in_the_log_is_skipped_never_fatal(tmp_path, junk):
    store = make_store(tmp_path / f"j{abs(hash(tuple(junk)))}")
    store.retrieve_block("部署")
    store.injection_log.flush()
    with open(store.dir / LOG_NAME, "ab") as fh:
        fh.write(b"\n".join(line.replace(b"\n", b" ") for line in junk) + b"\n")
    store.retrieve_block("中文")
    lines, skipped = store.injection_log.read()
    assert [line["q"] for line in lines if line.get("actor") == "agent"][-2:] == ["部署", "中文"]
    for line in lines:
        usage([line])
        explain_line(store, line)
    store.health()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_logs_its_own_injections_and_not_its_parents(tmp_path):
    store = make_store(tmp_path)
    store.retrieve_block("部署")  # buffered in the parent when it forks
    pid = os.fork()
    if pid == 0:  # the child: two injections start its flusher; os._exit skips exit handlers
        try:
            child = MemoryStore(store.dir, actor="child")
            child.retrieve_block("中文")
            child.retrieve_block("postgres")
            log, deadline = store.dir / LOG_NAME, time.monotonic() + 10  # its flusher writes within a second or two
            while time.monotonic() < deadline and (not log.exists() or log.read_bytes().count(b'"child"') < 2):
                time.sleep(0.05)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    lines, _ = store.injection_log.read()
    assert sorted((line["actor"], line["q"]) for line in lines) == [
        ("agent", "部署"), ("child", "postgres"), ("child", "中文")]
