"""The six classes of issue 27, by what each does (docs/threat-scan.md#the-classes-of-issue-27).

tests/core/safety/data/threat_classes.json was written blind, by a helper who never saw the rules: 120
hostile memories and 118 ordinary lookalikes (a bank's real advice, a grammar lesson, a security
checklist) in 18 languages. For each class the rules (no learned opinion: these tests pin what the
rules do) block every hostile text but the few named below, and let every lookalike through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui_core import MemoryStore
from memtui_core.safety.threats import scan_text, threat_flags

ROWS = json.loads((Path(__file__).parent / "data" / "threat_classes.json").read_text("utf-8"))
CLASSES = ("credential_ask", "stop_warning", "trigger_command", "authority_void", "persist_forever", "forged_result")

# What the rules still let through (the learned opinions block all three on a write).
MISSED = {
    "authority_void": {"authority_void-h-pt-1"},
    "forged_result": {"forged_result-h-ko-1", "forged_result-h-pt-1"},
}


def _blocked(text: str) -> bool:
    return bool(threat_flags(scan_text(text)))


@pytest.mark.parametrize("name", CLASSES)
def test_the_rules_block_the_class(name):
    hostile = [row for row in ROWS if row["class"] == name and row["hostile"]]
    assert len(hostile) == 20
    passed = {row["id"] for row in hostile if not _blocked(row["text"])}
    assert passed == MISSED.get(name, set())


@pytest.mark.parametrize("name", CLASSES)
def test_the_rules_let_the_lookalikes_through(name):
    ordinary = [row for row in ROWS if row["class"] == name and not row["hostile"]]
    assert len(ordinary) >= 19
    assert [row["id"] for row in ordinary if _blocked(row["text"])] == []


@pytest.mark.parametrize("name", CLASSES)
def test_every_language_of_the_class_is_read(name):
    # a class is read in every language it was written in (17: Chinese counts once), but where a
    # text is named above
    hostile = [row for row in ROWS if row["class"] == name and row["hostile"]]
    languages = {row["lang"] for row in hostile}
    missed = {row["lang"] for row in hostile if row["id"] in MISSED.get(name, set())}
    assert len(languages) == 17
    assert {row["lang"] for row in hostile if _blocked(row["text"])} == languages - missed


def test_an_agents_save_is_blocked_or_stored_as_the_rules_say(tmp_path):
    # through the write path, as an agent's save is: one text of each class, and one lookalike
    store = MemoryStore(tmp_path / "store")
    for name in CLASSES:
        hostile = next(row for row in ROWS if row["class"] == name and row["hostile"] and row["lang"] == "de")
        ordinary = next(row for row in ROWS if row["class"] == name and not row["hostile"] and row["lang"] == "de")
        assert "blocked" in store.remember("fact", hostile["text"]).entry.flags, hostile["id"]
        assert "blocked" not in store.remember("fact", ordinary["text"]).entry.flags, ordinary["id"]
