"""Secrets and control characters through the real `memtui` process."""

from __future__ import annotations

import json

import orjson

from tests.cli.conftest import run_memtui

SECRETS = [
    ("prod db is postgres://app:S3cr3tPassw0rd!@db.internal/prod", "S3cr3tPassw0rd!"),
    ("redis://:r3d1sPa55w0rd@cache:6379/0 is the cache", "r3d1sPa55w0rd"),
    ("PGPASSWORD=Pg$ecret99x psql -h db", "Pg$ecret99x"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw=="),
    ("the wifi password is sunflower42", "sunflower42"),
    ("服务器 root 密码是 Xy7!kQ2#mm", "Xy7!kQ2#mm"),
]


def test_cli_add_and_edit_leave_no_secret_on_disk(tmp_path):
    store = tmp_path / "store"
    for text, _ in SECRETS:
        added = run_memtui("add", "fact", text, "--source", f"pasted: {text}", "--json", store=store)
        assert added.code == 0, added.err
    entry_id = orjson.loads(run_memtui("add", "lesson", "one more entry to edit", "--json", store=store).raw)["entry"]["id"]
    edited = run_memtui("edit", entry_id, "--text", "now it says " + SECRETS[0][0], store=store)
    assert edited.code == 0, edited.err
    listed = run_memtui("list", "--json", store=store)
    for text, secret in SECRETS:
        assert secret not in listed.out
        for path in (p for p in store.rglob("*") if p.is_file()):
            data = path.read_bytes()
            assert secret.encode() not in data and json.dumps(secret)[1:-1].encode() not in data, (secret, path)


def test_inject_never_prints_control_characters(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    entry = {"id": "a1b2c3d4e5f6", "kind": "fact", "text": "deploy \x1b[2J\x1b[31mred\x00\x08 at noon", "source": "x",
             "ts": 1}
    (store / "memory.json").write_bytes(orjson.dumps({"entries": [entry]}))
    out = run_memtui("inject", "deploy noon", store=store)
    assert out.code == 0 and "deploy" in out.out
    assert not any(char in out.raw.decode() for char in "\x1b\x00\x08")
    added = run_memtui("add", "fact", "ring\x07 the\x1b[5m bell", store=store)
    assert added.code == 0 and "\x1b" not in added.out and "\x07" not in added.out


def test_approve_on_an_entry_the_scan_passed_does_not_call_it_safe(tmp_path):
    store = tmp_path / "store"
    entry_id = orjson.loads(run_memtui("add", "fact", "uses pytest", "--json", store=store).raw)["entry"]["id"]
    out = run_memtui("approve", entry_id, store=store).out
    assert "not blocked" in out and "filter" in out and "safe" in out and "does not make" in out


def test_a_secret_another_program_wrote_is_redacted_by_the_next_cli_write(tmp_path):
    store = tmp_path / "store"
    assert run_memtui("add", "fact", "the deploy script runs a dry-run first", store=store).code == 0
    data = orjson.loads((store / "memory.json").read_bytes())
    text, secret = SECRETS[0]
    data["entries"].append({"id": "f0f0f0f0f0f0", "kind": "fact", "text": text, "source": "", "ts": 1})
    (store / "memory.json").write_bytes(orjson.dumps(data))
    injected = run_memtui("inject", "prod db postgres", store=store)
    assert "postgres" in injected.out and secret not in injected.out  # shown redacted before any write
    assert run_memtui("add", "preference", "answers in English", store=store).code == 0
    for path in (p for p in store.rglob("*") if p.is_file()):
        assert secret.encode() not in path.read_bytes(), path
    audit = run_memtui("audit", "--json", store=store)
    assert "secrets another program wrote were redacted" in audit.out
