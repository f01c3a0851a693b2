"""Probes: the file, its care, and running them with explain's reasons."""

from __future__ import annotations

import os
import stat

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui_core.errors import InvalidInput
from memtui_core.agents.probes import (
    PROBES_BROKEN_PREFIX,
    ProbeNotFound,
    ProbesUnreadable,
    add_probe,
    load_probes,
    probes_path,
    remove_probe,
    run_probes,
    would_break,
)
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore

TEXTS = [
    ("correction", "部署脚本默认先 dry-run，确认后再真正执行"),
    ("preference", "回复用中文，代码注释用英文"),
    ("fact", "数据库是 PostgreSQL 15，连接池用 pgbouncer"),
    ("lesson", "Vite 热更新失效时先删 node_modules/.vite 缓存再重启"),
]


@pytest.fixture
def store(tmp_path) -> MemoryStore:
    """The four entries, retrieved by relevance: the pinned core (which would carry the correction
    and the preference in every block) is off; probes with it: test_the_pinned_core_*."""
    store = MemoryStore(tmp_path / "store", Limits(core_budget=0))
    for kind, text in TEXTS:
        store.remember(kind, text)
    return store


def ids(store: MemoryStore) -> dict[str, str]:
    return {entry.text[:4]: entry.id for entry in store.entries()}


def test_add_list_run_remove(store):
    deploy = ids(store)["部署脚本"]
    probe, outcome = add_probe(store, "  部署 dry-run 怎么跑 ", [deploy])
    assert outcome == "added" and probe.query == "部署 dry-run 怎么跑" and probe.expect == [deploy]
    nothing, _ = add_probe(store, "zebra giraffe", None)
    assert nothing.expects_nothing

    raw = orjson.loads(probes_path(store).read_bytes())
    assert raw["probes"][0]["expect"] == [deploy] and raw["probes"][1]["expect"] == "nothing"
    assert [p.id for p in load_probes(store).probes] == [probe.id, nothing.id]

    run = run_probes(store)
    assert (run.passed, run.failed, run.hit_rate, run.false_recall) == (2, 0, 1.0, 0.0)
    assert run.others_per_probe == len(run.results[0].injected) - 1  # one probe expects entries
    assert run.ok

    again, outcome = add_probe(store, "部署 dry-run 怎么跑", [deploy])
    assert (again.id, outcome) == (probe.id, "unchanged")
    other = ids(store)["数据库是"]
    updated, outcome = add_probe(store, "部署 dry-run 怎么跑", [other, deploy, other])
    assert (updated.id, outcome, updated.expect) == (probe.id, "updated", [other, deploy])
    assert len(load_probes(store).probes) == 2

    assert remove_probe(store, nothing.id).query == "zebra giraffe"
    assert [p.id for p in load_probes(store).probes] == [probe.id]
    with pytest.raises(ProbeNotFound, match="no probe with id"):
        remove_probe(store, nothing.id)
    elsewhere = MemoryStore(store.dir.parent / "never-created")
    with pytest.raises(ProbeNotFound):
        remove_probe(elsewhere, nothing.id)
    assert not elsewhere.dir.exists() and load_probes(elsewhere).probes == []


def test_failures_carry_explains_status_and_reason(store):
    deploy, vite = ids(store)["部署脚本"], ids(store)["Vite"]
    add_probe(store, "部署 dry-run", [vite])  # Vite's entry has none of these terms
    add_probe(store, "部署脚本", None)  # but the deploy entry matches
    run = run_probes(store)
    assert (run.passed, run.failed) == (0, 2) and not run.ok
    assert run.hit_rate == 0.0 and run.false_recall == 1.0
    miss = run.results[0].misses[0]
    explained = store.explain("部署 dry-run").for_id(vite)
    assert (miss.id, miss.status, miss.reason) == (vite, "zero_score", explained.reason)
    recalled = run.results[1].misses[0]
    assert (recalled.id, recalled.status) == (deploy, "injected")
    assert recalled.reason == store.explain("部署脚本").for_id(deploy).reason


def test_cut_by_top_k_is_a_failure_with_its_rank(tmp_path):
    store = MemoryStore(tmp_path / "s")
    made = [store.remember("fact", f"部署 步骤 {n} 号说明文字 {'很长' * n}").entry.id for n in range(1, 7)]
    add_probe(store, "部署 步骤", [made[-1]])
    [result] = run_probes(store).results
    assert not result.passed and result.misses[0].status == "cut_top_k"
    assert result.misses[0].rank and result.misses[0].rank > store.limits.top_k


def test_an_expected_entry_deleted_later_fails_with_a_clear_reason(store):
    deploy = ids(store)["部署脚本"]
    add_probe(store, "部署 dry-run", [deploy])
    MemoryStore(store.dir, actor="cli").delete(deploy)
    [result] = run_probes(store).results
    assert not result.passed
    miss = result.misses[0]
    assert miss.status == "missing" and "deleted by cli" in miss.reason and "no longer in the store" in miss.reason


def test_an_unknown_id_is_a_one_line_error_and_nothing_is_written(store):
    with pytest.raises(InvalidInput, match=r"no entry with id 0123456789ab") as error:
        add_probe(store, "部署", ["0123456789ab"])
    assert "\n" not in str(error.value)
    with pytest.raises(InvalidInput, match="not an entry id"):
        add_probe(store, "部署", ["xyz"])
    for query in ("", "   ", 3, "a" * 2001):
        with pytest.raises(InvalidInput):
            add_probe(store, query, None)  # type: ignore[arg-type]
    assert not probes_path(store).exists()


def test_file_is_private_atomic_and_keeps_what_it_does_not_know(store):
    add_probe(store, "部署", None)
    path = probes_path(store)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    raw = orjson.loads(path.read_bytes())
    raw["owner"] = "me"
    raw["probes"][0]["note"] = "keep me"
    raw["probes"].append({"query": "broken", "expect": 7})
    path.write_bytes(orjson.dumps(raw))
    loaded = load_probes(store)
    assert len(loaded.probes) == 1 and loaded.invalid[0].error.startswith("expect is neither")
    add_probe(store, "数据库", None)
    after = orjson.loads(path.read_bytes())
    assert after["owner"] == "me" and after["probes"][0]["note"] == "keep me"
    assert after["probes"][1] == {"query": "broken", "expect": 7}  # an invalid item is kept verbatim
    assert [p["query"] for p in after["probes"]] == ["部署", "broken", "数据库"]
    assert not [name for name in os.listdir(store.dir) if name.endswith(".tmp")]
    run = run_probes(store)
    assert run.invalid and not run.ok  # an invalid probe is reported, not skipped silently


def test_a_secret_in_the_query_is_redacted_before_it_is_stored(store):
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    probe, _ = add_probe(store, f"use the key {key} for the deploy", None)
    assert key not in probes_path(store).read_text() and "[REDACTED" in probe.query


def test_a_corrupt_file_is_moved_aside_and_reported_never_emptied(store):
    path = probes_path(store)
    path.write_bytes(b'{"probes": [ {"query": "x", ')
    loaded = load_probes(store)
    assert loaded.quarantined and loaded.quarantined.startswith(PROBES_BROKEN_PREFIX)
    assert "not JSON" in (loaded.error or "")
    assert (store.dir / loaded.quarantined).read_bytes() == b'{"probes": [ {"query": "x", '
    assert not path.exists() and loaded.broken == [loaded.quarantined]
    run = run_probes(store, loaded)
    assert not run.ok  # the run that found it does not pass
    for bad in (b"[]", b'{"probes": 3}', b"\xff\xfe", b""):
        path.write_bytes(bad)
        assert load_probes(store).quarantined
    assert len(load_probes(store).broken) == 5


def test_a_symlink_is_refused_not_followed(store, tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(b'{"probes": []}')
    probes_path(store).symlink_to(elsewhere)
    with pytest.raises(ProbesUnreadable, match="symbolic link"):
        load_probes(store)
    with pytest.raises(ProbesUnreadable, match="symbolic link"):
        add_probe(store, "部署", None)
    assert elsewhere.read_bytes() == b'{"probes": []}'


def test_would_break_names_the_probes_a_change_breaks(store):
    deploy = ids(store)["部署脚本"]
    add_probe(store, "部署 dry-run", [deploy])
    add_probe(store, "完全无关 zebra", None)
    probes = load_probes(store).probes
    assert would_break(store, deploy, probes, text="部署脚本默认先 dry-run，确认后执行") == []
    [broken] = would_break(store, deploy, probes, text="上线前先跑冒烟测试")
    assert broken.probe.expect == [deploy] and broken.after.misses[0].status == "zero_score"
    [recalls] = would_break(store, deploy, probes, text="部署 zebra 完全无关")
    assert recalls.probe.expects_nothing and recalls.after.misses[0].id == deploy
    assert MemoryStore(store.dir).get(deploy).text == TEXTS[0][1]  # nothing was written


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_either_load_or_are_set_aside(tmp_path_factory, data):
    store = MemoryStore(tmp_path_factory.mktemp("p"))
    path = probes_path(store)
    path.write_bytes(data)
    loaded = load_probes(store)
    if loaded.quarantined:
        assert (store.dir / loaded.quarantined).read_bytes() == data
    else:
        assert path.read_bytes() == data  # a readable file is never rewritten by a read


def test_would_break_a_new_entry_that_would_be_injected(store):
    add_probe(store, "zebra 斑马", None)
    deploy = ids(store)["部署脚本"]
    add_probe(store, "部署 dry-run", [deploy])
    probes = load_probes(store).probes
    [recalls] = would_break(store, None, probes, text="斑马线前要减速", kind="lesson")
    assert recalls.probe.expects_nothing and recalls.after.misses[0].status == "injected"
    assert recalls.after.misses[0].id not in {entry.id for entry in store.entries()}
    assert would_break(store, None, probes, text="完全无关的一句话", kind="fact") == []
    assert len(store) == len(TEXTS)


def test_the_cheap_check_agrees_with_explain_and_the_block(tmp_path):
    import random

    from memtui_core.agents.probes import Probe, evaluate, injected_ids

    rng = random.Random(7)
    words = ["部署", "dry-run", "数据库", "缓存", "测试", "release", "notes", "the", "of", "构建", "vite", "索引"]
    store = MemoryStore(tmp_path / "s", limits=Limits(char_budget=300), lang="auto")  # the language moves the cut
    for n in range(40):
        store.remember(rng.choice(["fact", "lesson", "preference", "correction"]),
                       " ".join(rng.sample(words, 4)) + f" 第{n}条" + "说明" * rng.randint(0, 60))
    entries = store.entries()
    for n in range(60):
        query = " ".join(rng.sample(words, rng.randint(1, 4)))
        explanation = store.explain(query)
        fast = injected_ids(store, query)  # the pinned core (on: preferences and corrections) first
        assert fast == explanation.core + [row.id for row in explanation.entries if row.status == "injected"]
        assert explanation.core and all(explanation.for_id(i).status == "pinned" for i in explanation.core)
        assert (store.retrieve_block(query) == "") == (not fast)
        probe = Probe(id="0000", query=query, expect=[rng.choice(entries).id] if n % 2 else [])
        assert evaluate(probe, explanation).passed == check_passes(store, probe)


def check_passes(store, probe) -> bool:
    from memtui_core.agents.probes import check

    return check(store, probe).passed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=80))
def test_any_query_is_kept_as_it_reads_back_or_refused_in_one_line(tmp_path_factory, query):
    store = MemoryStore(tmp_path_factory.mktemp("q"))
    try:
        probe, outcome = add_probe(store, query, None)
    except InvalidInput as error:
        assert "\n" not in str(error) and not probes_path(store).exists()
        return
    assert outcome == "added" and probe.query == probe.query.strip() and probe.query
    [loaded] = load_probes(store).probes
    assert loaded == probe
    assert add_probe(store, query, None) == (probe, "unchanged")


# ---------------------------------------------------------------- the pinned core


def test_the_pinned_core_is_injected_for_a_probe_and_never_a_recall(tmp_path):
    store = MemoryStore(tmp_path / "store")  # the default core: the correction and the preference
    for kind, text in TEXTS:
        store.remember(kind, text)
    deploy, chinese, vite = ids(store)["部署脚本"], ids(store)["回复用中"], ids(store)["Vite"]
    expect_core, _ = add_probe(store, "what database do we use?", [deploy])  # no shared word: the core has it
    nothing, _ = add_probe(store, "zebra giraffe", None)  # the core is in its block, and it still passes
    recall, _ = add_probe(store, "Vite 热更新", None)  # a retrieved entry: a recall
    run = run_probes(store)
    by_id = {result.probe.id: result for result in run.results}
    assert by_id[expect_core.id].passed and set(by_id[expect_core.id].pinned) == {deploy, chinese}
    assert by_id[expect_core.id].injected[:2] == by_id[expect_core.id].pinned
    assert by_id[nothing.id].passed and by_id[nothing.id].retrieved == []
    assert not by_id[recall.id].passed and [m.id for m in by_id[recall.id].misses] == [vite]
    assert (run.hits, run.expected, run.recalled, run.nothing_probes, run.others) == (1, 1, 1, 2, 0)
    # explain agrees: the same verdicts from the slow path, with the core's status
    for probe in (expect_core, nothing):
        from memtui_core.agents.probes import evaluate

        slow = evaluate(probe, store.explain(probe.query))
        assert slow.passed and slow.pinned == by_id[probe.id].pinned
    assert store.explain("what database do we use?").for_id(deploy).status == "pinned"


def test_a_pin_that_leaves_the_core_breaks_the_probe_that_needed_it(tmp_path):
    store = MemoryStore(tmp_path / "store", Limits(core_kinds=()))  # only pins: nothing by kind
    for kind, text in TEXTS:
        store.remember(kind, text)
    db = ids(store)["数据库是"]
    store.pin(db)
    add_probe(store, "how should the deploy go?", [db])
    probes = load_probes(store).probes
    assert run_probes(store).ok
    [broken] = would_break(store, db, probes, fields={"pinned": False})
    assert broken.after.misses[0].id == db and broken.after.misses[0].status == "zero_score"
    store.unpin(db)
    assert not run_probes(store).ok


# ---------------------------------------------------------------------------- inside a project: both stores as one


def _project_pair(tmp_path, monkeypatch):
    from memtui_core.scopes import Scoped

    monkeypatch.setenv("MEMTUI_DIR", str(tmp_path / "global"))
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".memtui").mkdir(mode=0o700)
    scoped = Scoped.open(cwd=root)
    in_project = scoped.remember("fact", "the frontend builds with vite and esbuild", scope="project")[1].entry
    in_global = scoped.remember("lesson", "vite needs node 18 or newer", scope="global")[1].entry
    scoped.remember("fact", "the office coffee machine is on the third floor", scope="global")
    return scoped, in_project, in_global


def test_probes_inside_a_project_rank_over_both_stores_and_name_each_expected_entrys_store(tmp_path, monkeypatch):
    scoped, in_project, in_global = _project_pair(tmp_path, monkeypatch)
    home = scoped.store("global")
    with pytest.raises(InvalidInput, match="no entry with id"):  # the global store alone does not hold it
        add_probe(home, "how does the frontend build with vite", [in_project.id])
    probe, _outcome = add_probe(home, "how does the frontend build with vite", [in_project.id], scoped=scoped)
    other, _outcome = add_probe(home, "which node version does vite need", [in_global.id], scoped=scoped)
    add_probe(home, "where is the vite and esbuild frontend built", None)  # must inject nothing: it recalls
    run = run_probes(home, scoped=scoped)
    by_query = {result.probe.query: result for result in run.results}
    passing = by_query[probe.query]
    assert passing.passed and passing.scopes[in_project.id] == "project"
    assert by_query[other.query].passed and by_query[other.query].scopes[in_global.id] == "global"
    recalled = by_query["where is the vite and esbuild frontend built"]
    assert not recalled.passed and in_project.id in recalled.injected  # the project's entry counts as recall
    alone = run_probes(home)  # the global store alone, as before scopes
    assert not {result.probe.query: result for result in alone.results}[probe.query].passed


def test_a_probe_whose_entry_moved_to_the_other_store_still_passes_and_says_where_it_is(tmp_path, monkeypatch):
    scoped, in_project, _in_global = _project_pair(tmp_path, monkeypatch)
    home = scoped.store("global")
    add_probe(home, "how does the frontend build with vite", [in_project.id], scoped=scoped)
    scoped.move(in_project.id, "global")  # the id travels with it
    [result] = run_probes(home, scoped=scoped).results
    assert result.passed and result.scopes[in_project.id] == "global"
