"""Secrets another program wrote straight into memory.json (docs/threat-scan.md, Redaction).

Such an entry is shown and injected with its secrets redacted from the start; the next write
memtui makes redacts them in the file itself, as an audited `import`, and keeps them out of the
backup it takes of the old file and out of the audit log."""

from __future__ import annotations

import json

import pytest

from memtui_core import MemoryStore, run_tool

from test_secrets_on_disk import SECRETS, assert_nowhere


def _write_foreign(store: MemoryStore, entry: dict) -> None:
    """Append `entry` to memory.json the way another program would: by editing the JSON."""
    data = json.loads(store.storage.path.read_text(encoding="utf-8"))
    data["entries"].append(entry)
    store.storage.path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@pytest.fixture
def store(tmp_path):
    store = MemoryStore(tmp_path / "store")
    store.remember("fact", "the deploy script runs a dry-run first")
    store.remember("lesson", "rotate the staging keys every month")
    return store


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_the_next_write_redacts_what_another_program_wrote_and_keeps_it_off_the_disk(store, tmp_path, text, secret):
    _write_foreign(store, {"id": "f0f0f0f0f0f0", "kind": "fact", "text": text, "source": f"pasted: {text}",
                           "ts": 1, "keywords": ["deploy", text], "note": f"raw {text}"})
    store.remember("preference", "answers in English")  # any write memtui makes
    entry = store.get("f0f0f0f0f0f0")
    assert "[REDACTED:" in entry.text and "[REDACTED:" in entry.source and "secret-redacted" in entry.flags
    assert_nowhere(tmp_path / "store", secret)  # memory.json, its backups, audit.jsonl, the index
    [event] = [e for e in store.audit("f0f0f0f0f0f0") if e.op.value == "import"]
    assert "secrets another program wrote were redacted" in event.note
    assert "[REDACTED:" in event.before["text"]


def test_before_any_write_the_block_and_the_tools_never_show_the_secret(store):
    text, secret = SECRETS[0]
    _write_foreign(store, {"id": "f0f0f0f0f0f1", "kind": "fact", "text": text, "source": "", "ts": 1})
    block = store.retrieve_block("prod db postgres")
    assert "postgres" in block and secret not in block
    assert secret not in run_tool("memory_search", {"query": "prod db postgres"}, store)


def test_a_store_only_memtui_wrote_gets_no_redaction_events(store):
    store.remember("fact", "one more")
    assert not [e for e in store.audit() if e.op.value == "import"]


def test_the_redacted_state_is_what_recovery_brings_back(store, tmp_path):
    text, secret = SECRETS[6]
    _write_foreign(store, {"id": "f0f0f0f0f0f2", "kind": "fact", "text": text, "source": "", "ts": 1})
    store.remember("preference", "answers in English")
    store.storage.path.write_bytes(b"{ broken")
    reader = MemoryStore(tmp_path / "store")
    texts = [e.text for e in reader.entries()]
    assert "answers in English" in texts and any("[REDACTED:" in t for t in texts)
    assert all(secret not in t for t in texts)


def test_a_reader_that_indexes_the_file_keeps_the_secret_out_of_the_index(store, tmp_path):
    text, secret = SECRETS[9]
    _write_foreign(store, {"id": "f0f0f0f0f0f3", "kind": "fact", "text": text, "source": "", "ts": 1,
                           "keywords": [text]})
    reader = MemoryStore(tmp_path / "store")
    assert "[REDACTED:" in reader.retrieve_block("STRIPE_SECRET_KEY export")  # found, and shown redacted
    index = (tmp_path / "store" / "memory.json.index").read_bytes()
    assert secret.lower().encode() not in index.lower()
