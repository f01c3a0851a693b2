"""What a big store costs to list (issue 28, item 6): the cyclic collector stays out of the
listing, and an entry does not carry a set of its own. Figures: `python -m bench` is not needed,
these check the two mechanisms; the numbers are in the commit that made them."""

from __future__ import annotations

import gc

import orjson

from memtui_core.memory import MemoryStore


def _written_by_another_program(directory, n: int) -> None:
    directory.mkdir()
    entries = [{"id": f"{i:012x}", "kind": "fact", "text": f"note {i} about host h{i % 97} and port {i % 1009}",
                "source": "other", "ts": 1_700_000_000 + i} for i in range(n)]
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": entries}))


def test_the_first_listing_runs_without_the_cyclic_collector(tmp_path):
    """Its passes over the growing heap were 15 of the 51 s of a 100,000-entry store's first listing."""
    _written_by_another_program(tmp_path / "store", 3000)
    store = MemoryStore(tmp_path / "store")
    snap = store._snap()
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        entries = snap.entries  # builds (and judges) every entry
    finally:
        gc.callbacks.remove(count)
    assert len(entries) == 3000
    assert collections == []
    assert gc.isenabled()  # and it is on again after


def test_entries_share_one_set_of_the_fields_set_and_still_copy_and_compare_as_before(tmp_path):
    """One set per entry was 49 MiB of a 100,000-entry listing."""
    store = MemoryStore(tmp_path)
    store.remember("fact", "the first note, about the deploy")
    store.remember("fact", "the second note, about the build")
    first, second = store.entries()
    assert first.model_fields_set is second.model_fields_set
    assert first.model_fields_set == {"id", "kind", "text", "source", "ts", "flags", "keywords", "pinned"}
    changed = first.model_copy(update={"text": "a copy with another text"})
    assert changed.text == "a copy with another text" and first.text == "the first note, about the deploy"
    assert first.model_fields_set == {"id", "kind", "text", "source", "ts", "flags", "keywords", "pinned"}
    assert first.model_dump(mode="json")["text"] == "the first note, about the deploy"
    # a field another program added is an extra, as before: dumped, not named in the set
    raw = orjson.loads(store.path.read_bytes())
    raw["entries"][0]["mood"] = "cheerful"
    store.path.write_bytes(orjson.dumps(raw))
    odd = MemoryStore(tmp_path).entries()[0]
    assert odd.model_dump()["mood"] == "cheerful" and odd.model_extra == {"mood": "cheerful"}
