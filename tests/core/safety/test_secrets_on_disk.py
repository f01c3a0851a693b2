"""No secret reaches the disk: every file under the store holds only the redacted form, whether
the text came through the Python API, an edit, or an agent's tool call; control characters are
never stored and never reach the block."""

from __future__ import annotations

import pytest

from memtui_core import MemoryStore, run_tool

# (text holding a secret, the secret itself)
SECRETS = [
    ("prod db is postgres://app:S3cr3tPassw0rd!@db.internal/prod", "S3cr3tPassw0rd!"),
    ("mirror: https://deploy:hunter2hunter2@git.example.com/repo.git", "hunter2hunter2"),
    ("cache: redis://:r3d1sPa55w0rd@cache:6379/0", "r3d1sPa55w0rd"),
    ("run PGPASSWORD=Pg$ecret99x psql -h db", "Pg$ecret99x"),
    ("header Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw=="),
    ("call with Authorization: Bearer tkn_9f8e7d6c5b4a3f2e1d0c", "tkn_9f8e7d6c5b4a3f2e1d0c"),
    ("the wifi password is sunflower42", "sunflower42"),
    ("服务器 root 密码是 Xy7!kQ2#mm", "Xy7!kQ2#mm"),
    ("数据库密码：Zx9Kq2Lm7Np4Rt8V", "Zx9Kq2Lm7Np4Rt8V"),
    ("export STRIPE_SECRET_KEY=sk_live_51Habcdefghijklmnop", "51Habcdefghijklmnop"),
    ("OPENAI key sk-proj-Ab3dEf9hIj2kLm5nOp8qRs1tUv4wXy7z", "Ab3dEf9hIj2kLm5nOp8qRs1tUv4wXy7z"),
    ("gh token ghp_a1B2c3D4e5a1B2c3D4e5a1B2c3D4e5a1B2c3D4e5", "a1B2c3D4e5a1B2c3D4e5a1B2c3D4e5"),
]


def files_under(directory):
    return [path for path in directory.rglob("*") if path.is_file()]


def assert_nowhere(directory, secret: str) -> None:
    assert files_under(directory), "the store wrote nothing"
    import json

    for path in files_under(directory):
        data = path.read_bytes()
        assert secret.encode() not in data, path
        assert json.dumps(secret)[1:-1].encode() not in data, path  # nor its JSON-escaped form


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_remember_redacts_text_and_source_before_anything_is_written(tmp_path, text, secret):
    store = MemoryStore(tmp_path / "store")
    first = store.remember("fact", "the first entry, so that later writes make backups")
    entry = store.remember("fact", text, source=f"copied from {text}").entry
    store.update(first.entry.id, text="edited: " + text)
    store.remember("lesson", "a third write, to rotate the backups once more")
    assert "secret-redacted" in entry.flags and "[REDACTED:" in entry.text and "[REDACTED:" in entry.source
    assert_nowhere(tmp_path / "store", secret)


@pytest.mark.parametrize(("text", "secret"), SECRETS[:6])
def test_tool_saves_are_redacted_on_disk(tmp_path, text, secret):
    store = MemoryStore(tmp_path / "store")
    answer = run_tool("memory_save", {"kind": "fact", "text": text}, store)
    assert "[REDACTED]" in answer
    run_tool("memory_save", {"kind": "lesson", "text": "another entry after it"}, store)
    assert_nowhere(tmp_path / "store", secret)
    assert secret not in run_tool("memory_search", {"query": text}, store)


def test_control_characters_are_never_stored_nor_injected(tmp_path):
    store = MemoryStore(tmp_path / "store")
    entry = store.remember("fact", "deploy\x1b[2J with\x00 care\x08\x07 today\x9b", source="src\x1b]0;x\x07").entry
    assert entry.text == "deploy[2J with care today" and entry.source == "src]0;x"
    raw = (tmp_path / "store" / "memory.json").read_bytes()
    assert b"\\u001b" not in raw and b"\\u0000" not in raw and b"\x1b" not in raw
    block = store.retrieve_block("deploy care")
    assert block and not any(ch in block for ch in "\x1b\x00\x08\x07\x9b")


def test_an_entry_written_by_another_program_is_injected_without_control_characters(tmp_path):
    import orjson

    directory = tmp_path / "store"
    directory.mkdir()
    entry = {"id": "a1b2c3d4e5f6", "kind": "fact", "text": "deploy \x1b[31mred\x1b[0m at noon\x00", "source": "x", "ts": 1}
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": [entry]}))
    store = MemoryStore(directory)
    [listed] = store.entries()
    assert not listed.blocked  # not a finding: they are removed from everything memtui prints
    block = store.retrieve_block("deploy noon")
    assert "deploy [31mred[0m at noon" in block and "\x1b" not in block and "\x00" not in block
