"""Recovery prefers the state the audit chain vouches for over the highest-numbered backup.

The fault run: three entries, then `{"entries": []}` saved as a backup numbered s999999, then
memory.json cut short. `memtui list` showed nothing and said it restored that file, while the
older backup plus the audit log rebuilt all three. docs/storage.md, "What recovery trusts"."""

from __future__ import annotations

import os

import orjson

from .conftest import run_memtui

TEXTS = ("the deploy script runs a dry run first", "tabs, not spaces, in makefiles", "staging is deploy-1")
PLANTED = "memory-20991231T000000.000000Z-s999999.json"


def _three_entries(tmp_path):
    store = tmp_path / "store"
    for text in TEXTS:
        assert run_memtui("add", "fact", text, store=store).code == 0
    return store


def _plant(store, entries: list) -> None:
    path = store / "backups" / PLANTED
    path.write_bytes(orjson.dumps({"entries": entries}) + b"\n")
    os.chmod(path, 0o600)


def _cut_short(store) -> None:
    path = store / "memory.json"
    path.write_bytes(path.read_bytes()[:20])


def test_a_higher_numbered_backup_does_not_win_over_the_one_the_audit_log_leads_from(tmp_path):
    store = _three_entries(tmp_path)
    _plant(store, [])
    _cut_short(store)
    listed = run_memtui("list", "--json", store=store)
    assert sorted(e["text"] for e in listed.json()) == sorted(TEXTS)
    # it says what it chose and why, and names the backup it passed over
    warning = next(line for line in listed.err.splitlines() if "was corrupt" in line)
    assert "restored it from backup memory-" in warning and "-s2.json" in warning
    assert "rebuilds exactly the file the audit log's last write left" in warning
    assert f"passed over 1 newer backup that does not lead to it: {PLANTED}" in warning

    doctor = run_memtui("doctor", "--json", store=store).json()
    [quarantine] = doctor["quarantined"]
    assert quarantine["restored_from"].endswith("-s2.json")
    assert "rebuilds exactly" in quarantine["why"] and PLANTED in quarantine["why"]
    [problem] = [p for p in doctor["problems"] if p["code"] == "quarantined"]
    assert any(detail.startswith("why memory-") for detail in problem["details"])
    restore = [e for e in run_memtui("audit", "--json", store=store).json() if e["op"] == "restore"]
    assert restore and restore[-1]["why"] == quarantine["why"]
    assert (store / "backups" / PLANTED).exists()  # passed over, never deleted


def test_when_the_log_cannot_rebuild_its_last_state_the_newest_backup_it_vouches_for_wins(tmp_path):
    store = _three_entries(tmp_path)
    _plant(store, [{"id": "0123456789ab", "kind": "fact", "text": "planted by another program", "ts": 1}])
    with (store / "audit.jsonl").open("ab") as log:  # a last batch whose state no backup leads to
        log.write(orjson.dumps({"at": 2e9, "actor": "x", "op": "edit", "id": None, "before": None,
                                "after": None, "file_sha": "0" * 16}) + b"\n")
    _cut_short(store)
    listed = run_memtui("list", "--json", store=store)
    texts = [e["text"] for e in listed.json()]
    assert texts == list(TEXTS[:2])  # the state the second logged write left (backup s2)
    assert "planted by another program" not in listed.out
    warning = next(line for line in listed.err.splitlines() if "was corrupt" in line)
    assert "the newest backup the audit log vouches for" in warning and PLANTED in warning


def test_without_an_audit_log_the_newest_backup_by_number_is_used_and_that_is_said(tmp_path):
    store = _three_entries(tmp_path)
    (store / "audit.jsonl").unlink()
    _cut_short(store)
    listed = run_memtui("list", "--json", store=store)
    assert [e["text"] for e in listed.json()] == list(TEXTS[:2])
    assert "the newest backup by number: the audit log vouches for none" in listed.err
