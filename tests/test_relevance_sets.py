"""The relevance evaluation's hand-written sets (bench/relevance*.json) are well formed: every
expected id names a memory of its set, every memory has a kind and keywords, and each set holds
messages with and without a relevant memory (docs/ranking.md, "The evaluation")."""

from __future__ import annotations

import pytest

from bench import relevance
from memtui_core.kinds import Kind


@pytest.mark.parametrize("name", relevance.SETS)
def test_a_relevance_set_is_well_formed(name):
    memories, messages = relevance.load(name)
    ids = [m["id"] for m in memories]
    assert len(ids) == len(set(ids)) >= 20
    assert all(Kind(m["kind"]) and m["text"].strip() and isinstance(m["keywords"], list) for m in memories)
    relevant = [m for m in messages if m["expect"]]
    assert len(relevant) >= 40 and len(messages) - len(relevant) >= 20
    assert all(set(m["expect"]) <= set(ids) and isinstance(m["lexical"], bool) for m in relevant)
    assert len({m["text"] for m in messages}) == len(messages)  # no message twice
