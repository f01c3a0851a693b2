"""`memtui probe` through real processes: add, run (exit 1 on a failure), list, rm, bad input."""

from __future__ import annotations

import os
import stat

import orjson

from .conftest import run_memtui

DEPLOY, CHINESE, VITE, VITE_TEST = "000000000002", "000000000001", "000000000003", "000000000004"


def test_add_run_list_rm(store_dir):
    added = run_memtui("probe", "add", "部署 dry-run 怎么跑", "--expect", DEPLOY, store=store_dir)
    assert added.code == 0 and "added probe" in added.out and "it passes now" in added.out
    probe_id = added.out.split("added probe ", 1)[1].split(":", 1)[0].strip()
    nothing = run_memtui("probe", "add", "What is the capital of Australia?", "--expect-nothing", "--json",
                         store=store_dir).json()
    assert nothing["outcome"] == "added" and nothing["probe"]["expect"] == [] and nothing["result"]["passed"]

    path = store_dir / "probes.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p["expect"] for p in orjson.loads(path.read_bytes())["probes"]] == [[DEPLOY], "nothing"]

    ran = run_memtui("probe", "run", store=store_dir)
    assert (ran.code, ran.err) == (0, "")
    assert "2 of 2 probes pass" in ran.out and "hit rate 1/1 (100%)" in ran.out and "false recall 0/1 (0%)" in ran.out
    as_json = run_memtui("probe", "run", "--json", store=store_dir).json()
    assert (as_json["passed"], as_json["failed"], as_json["hit_rate"], as_json["false_recall"]) == (2, 0, 1.0, 0.0)

    listed = run_memtui("probe", "list", "--json", store=store_dir).json()
    assert [p["id"] for p in listed] == [probe_id, nothing["probe"]["id"]]
    shown = run_memtui("probe", "list", store=store_dir)
    assert probe_id in shown.out and "nothing" in shown.out and "2 probes in" in shown.out

    gone = run_memtui("probe", "rm", probe_id, store=store_dir)
    assert gone.code == 0 and f"deleted probe {probe_id}" in gone.out
    assert len(run_memtui("probe", "list", "--json", store=store_dir).json()) == 1
    again = run_memtui("probe", "rm", probe_id, store=store_dir)
    assert again.code == 1 and "no probe with id" in again.error_line


def test_run_fails_with_explains_reason_and_exit_1(store_dir):
    run_memtui("probe", "add", "部署 dry-run", "--expect", VITE, store=store_dir)
    run_memtui("probe", "add", "部署 dry-run", "--expect", DEPLOY, "--expect", VITE_TEST, store=store_dir)  # replaces it
    run_memtui("probe", "add", "前端 构建", "--expect-nothing", store=store_dir)
    ran = run_memtui("probe", "run", store=store_dir)
    assert ran.code == 1 and ran.err == ""
    assert "0 of 2 probes pass" in ran.out and "hit rate 1/2 (50%)" in ran.out and "false recall 1/1 (100%)" in ran.out
    assert "other entries per probe" in ran.out
    assert f"{VITE_TEST} zero_score: no query term appears in it; missing:" in ran.out
    assert f"{VITE_TEST} #1 injected: ranked #1 of the top 4" in ran.out
    assert run_memtui("probe", "list", "--json", store=store_dir).json()[0]["expect"] == [DEPLOY, VITE_TEST]
    data = run_memtui("probe", "run", "--json", store=store_dir)
    assert data.code == 1
    report = orjson.loads(data.raw)
    misses = [m for r in report["results"] for m in r["misses"]]
    assert {(m["id"], m["status"]) for m in misses} == {(VITE_TEST, "zero_score"), (VITE_TEST, "injected")}


def test_a_deleted_entry_fails_with_a_clear_reason(store_dir):
    run_memtui("probe", "add", "部署 dry-run", "--expect", DEPLOY, store=store_dir)
    run_memtui("rm", DEPLOY, store=store_dir)
    ran = run_memtui("probe", "run", store=store_dir)
    assert ran.code == 1 and f"{DEPLOY} missing: the entry was deleted by cli" in ran.out


def test_bad_input_is_one_line(store_dir):
    unknown = run_memtui("probe", "add", "部署", "--expect", "0123456789ab", store=store_dir)
    assert unknown.code == 1 and "no entry with id 0123456789ab" in unknown.error_line
    malformed = run_memtui("probe", "add", "部署", "--expect", "nope", store=store_dir)
    assert malformed.code == 1 and "not an entry id" in malformed.error_line
    empty = run_memtui("probe", "add", "  ", "--expect-nothing", store=store_dir)
    assert empty.code == 1 and "query is empty" in empty.error_line
    both = run_memtui("probe", "add", "部署", "--expect", DEPLOY, "--expect-nothing", store=store_dir)
    assert both.code == 2 and "not allowed with" in both.err
    neither = run_memtui("probe", "add", "部署", store=store_dir)
    assert neither.code == 2
    assert not (store_dir / "probes.json").exists()
    from_stdin = run_memtui("probe", "add", "-", "--expect", DEPLOY, "--json", store=store_dir, input="部署 dry-run".encode())
    assert from_stdin.json()["probe"]["query"] == "部署 dry-run"


def test_a_corrupt_probes_file_is_set_aside_and_reported(store_dir):
    path = store_dir / "probes.json"
    path.write_bytes(b'{"probes": [{"query": "half')
    ran = run_memtui("probe", "run", store=store_dir)
    assert ran.code == 1 and "Traceback" not in ran.err
    assert "probes.json was corrupt (not JSON" in ran.err and "moved it to probes.json.broken-" in ran.err
    broken = [name for name in os.listdir(store_dir) if name.startswith("probes.json.broken-")]
    assert len(broken) == 1 and (store_dir / broken[0]).read_bytes() == b'{"probes": [{"query": "half'
    listed = run_memtui("probe", "list", store=store_dir)
    assert listed.code == 0 and "1 corrupt probes file set aside" in listed.err


def test_a_symlinked_probes_file_is_refused(store_dir, tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_bytes(b'{"probes": []}')
    (store_dir / "probes.json").symlink_to(target)
    ran = run_memtui("probe", "add", "部署", "--expect-nothing", store=store_dir)
    assert ran.code == 1 and "symbolic link" in ran.error_line
    assert target.read_bytes() == b'{"probes": []}'


def test_probes_run_under_the_profile_given(store_dir):
    # function words only: the default profile ignores them, the original ranking does not
    run_memtui("probe", "add", "用 的 是 什么", "--expect-nothing", store=store_dir)
    assert run_memtui("probe", "run", store=store_dir).code == 0
    original = run_memtui("probe", "run", "--profile", "nanohermes", store=store_dir)
    assert original.code == 1 and "false recall 1/1 (100%)" in original.out
