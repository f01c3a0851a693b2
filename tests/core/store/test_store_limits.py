"""The limits a store carries itself (memory.json's top-level `limits`, core/store/store_limits.py)."""

from __future__ import annotations

import orjson
import pytest

from memtui_core.errors import EvictionRefused, InvalidInput
from memtui_core.limits import DEFAULT_LIMITS, Limits
from memtui_core.memory import MemoryStore


def _other_value(name: str, default: object) -> object:
    """A valid value of limit `name` other than its default, found generically (a field of a new
    type added to Limits gets one too, as long as one of these is valid for it)."""
    numbers = [default + 1, default / 2, 0, 1] if isinstance(default, (int, float)) and not isinstance(default, bool) else []
    collections = [["carriedword"], ["preference"], ["fact", "lesson"], []]
    for value in numbers + collections + ["carried", True, False]:
        if isinstance(default, int) and isinstance(value, float):
            continue
        try:
            made = Limits(**{name: value}).as_dict()[name]
        except (TypeError, ValueError):
            continue
        if made != default:
            return value
    raise AssertionError(f"no other valid value found for {name}")


def test_every_limits_field_is_carried_by_the_store_and_read_back_by_another_process(tmp_path):
    """Generic over Limits' own fields: a field added there (a core budget, say) is carried too."""
    store = MemoryStore(tmp_path)
    store.remember("fact", "one entry so the file exists")
    defaults = DEFAULT_LIMITS.as_dict()
    wanted = {name: _other_value(name, default) for name, default in defaults.items()}
    store.set_limits(wanted)
    reread = MemoryStore(tmp_path).limits.as_dict()
    for name, value in wanted.items():
        assert reread[name] == Limits(**{name: value}).as_dict()[name] != defaults[name], name
    # and back to the defaults, one audited write
    store.set_limits(unset=list(wanted))
    assert MemoryStore(tmp_path).limits == DEFAULT_LIMITS
    assert "limits" not in orjson.loads(store.path.read_bytes())
    events = [e for e in store.audit() if e.op.value == "limits"]
    assert len(events) == 2 and events[0].before is None and events[0].after["max_entries"] == wanted["max_entries"]


def test_a_limit_the_caller_sets_wins_over_the_stores_and_a_default_does_not(tmp_path):
    MemoryStore(tmp_path).set_limits({"max_entries": 20000, "top_k": 6})
    assert MemoryStore(tmp_path).limits.max_entries == 20000
    assert MemoryStore(tmp_path, limits=Limits(max_entries=50)).limits.max_entries == 50
    assert MemoryStore(tmp_path, limits=Limits(max_entries=50)).limits.top_k == 6
    assert MemoryStore(tmp_path, limits=Limits.nanohermes()).limits.max_entries == 20000


def test_the_cap_the_store_carries_keeps_a_default_writer_from_evicting(tmp_path):
    big = Limits(max_entries=40)
    api = MemoryStore(tmp_path, limits=big)
    for n in range(30):
        api.remember("fact", f"entry {n} with words of its own {n * 31}")
    api.set_limits({"max_entries": 40})
    default_writer = MemoryStore(tmp_path)  # e.g. the CLI, which passes no limits
    result = default_writer.remember("fact", "one more from a default writer")
    assert result.evicted == [] and len(default_writer) == 31


def test_max_evict_refuses_a_write_that_evicts_more_and_writes_nothing(tmp_path):
    store = MemoryStore(tmp_path, limits=Limits(max_entries=20))
    for n in range(20):
        store.remember("fact", f"entry {n} with words of its own {n * 31}")
    small = MemoryStore(tmp_path, limits=Limits(max_entries=5))
    before = store.path.read_bytes()
    with pytest.raises(EvictionRefused, match="would evict 16 entries to stay within max_entries 5") as refused:
        small.remember("fact", "a write that would evict sixteen", max_evict=5)
    assert (refused.value.count, refused.value.cap, refused.value.held) == (16, 5, 20)
    assert store.path.read_bytes() == before
    assert small.remember("fact", "a write that may evict one", max_evict=None).evicted


def test_a_bad_name_or_value_is_refused_and_what_the_file_holds_wrongly_is_ignored_and_reported(tmp_path):
    store = MemoryStore(tmp_path)
    with pytest.raises(InvalidInput, match="'max_entires' is not a limit"):
        store.set_limits({"max_entires": 10})
    with pytest.raises(InvalidInput, match="must be positive"):
        store.set_limits({"max_entries": -1})
    store.path.write_bytes(orjson.dumps({"entries": [], "limits": {"max_entries": 7, "top_k": "many", "nope": 1}}))
    fresh = MemoryStore(tmp_path)
    assert fresh.limits.max_entries == 7 and fresh.limits.top_k == DEFAULT_LIMITS.top_k
    [warning] = [w for w in fresh.health().warnings if w.code == "limits-invalid"]
    assert "'nope' is not a limit" in warning.text and "top_k" in warning.text


def test_recovery_replays_a_change_of_limits(tmp_path):
    store = MemoryStore(tmp_path)
    store.remember("fact", "first entry of the store")
    store.remember("fact", "second entry of the store")
    store.set_limits({"max_entries": 1234})
    store.path.write_bytes(store.path.read_bytes()[:30])  # corrupt: rebuilt from a backup and the log
    reopened = MemoryStore(tmp_path)
    assert reopened.limits.max_entries == 1234 and len(reopened) == 2
    assert reopened.storage.recovery is not None and reopened.storage.recovery.why.startswith("with the 1 change")


def test_a_query_that_does_not_parse_the_file_applies_the_stores_limits(tmp_path):
    store = MemoryStore(tmp_path)
    for text in ("deploy with the dry run first", "deploy to staging on fridays", "deploy notes live in the wiki"):
        store.remember("fact", text)
    store.set_limits({"top_k": 1})
    MemoryStore(tmp_path).entries()  # a reader saves the index: the next query is lean (not parsed)
    fresh = MemoryStore(tmp_path)
    assert len(fresh.search("deploy")) == 1
    assert type(fresh.storage.load(lean=True)).__name__ == "LeanDocument"


def test_setting_the_callers_limits_keeps_the_stores_own(tmp_path):
    store = MemoryStore(tmp_path)
    store.set_limits({"max_entries": 77})
    store.limits = Limits(top_k=3)
    assert (store.limits.top_k, store.limits.max_entries) == (3, 77)
    plain = MemoryStore(tmp_path / "other")
    plain.limits = Limits(top_k=9)
    assert plain.limits.top_k == 9 and plain.limits.max_entries == DEFAULT_LIMITS.max_entries
