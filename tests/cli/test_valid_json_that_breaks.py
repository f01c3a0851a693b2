"""Valid JSON that used to end in a traceback: times no date can hold, and a derived index whose
key and checksum are right but whose contents do not add up.

An entry with `ts` 10**29 or 1e300 broke `list --json`, `search --json` and the MCP resource, and
kept breaking them after later writes. An index whose postings point past the last entry ended
`search` and `probe run` in an IndexError; one whose byte spans were shifted said "unexpected
content after document". Now such a time reads as unknown (0) and doctor names the entries; such
an index is derived again."""

from __future__ import annotations

import os
from array import array
from zlib import crc32

import orjson
import pytest

from memtui_core.store import derived

from .conftest import run_memtui
from .test_mcp_raw import INIT, Raw

DEPLOY = "the deploy script runs a dry run first"

BAD_TIMES = {"1e29 as an integer": 10**29, "1e300": 1e300, "-1e300": -1e300, "-1e29 as an integer": -(10**29),
             "negative": -86400}


def _store_with_time(tmp_path, ts) -> object:
    store = tmp_path / "store"
    store.mkdir()
    entries = [{"id": "0000000000a1", "kind": "fact", "text": DEPLOY, "source": "other", "ts": "TS"},
               {"id": "0000000000a2", "kind": "lesson", "text": "makefiles want tabs", "source": "other",
                "ts": 1_700_000_000}]
    # written by hand: orjson cannot write 10**29, and the point is another program's bytes
    (store / "memory.json").write_bytes(orjson.dumps({"entries": entries}).replace(b'"TS"', repr(ts).encode()))
    return store


@pytest.mark.parametrize("name", list(BAD_TIMES))
def test_a_time_no_date_can_hold_reads_as_unknown_and_breaks_no_command(tmp_path, name):
    store = _store_with_time(tmp_path, BAD_TIMES[name])
    for round_ in ("as another program wrote it", "after a write"):
        listed = run_memtui("list", "--json", store=store)
        assert "Traceback" not in listed.err, (round_, listed.err)
        times = {entry["id"]: entry["ts"] for entry in listed.json()}
        assert times["0000000000a1"] == 0 and times["0000000000a2"] == 1_700_000_000, round_
        hits = run_memtui("search", "deploy", "--json", store=store).json()
        assert [hit["entry"]["ts"] for hit in hits] == [0], round_
        for args in (["list"], ["search", "deploy"], ["audit", "--json"], ["explain", "deploy", "--json"]):
            result = run_memtui(*args, store=store)
            assert result.code == 0 and "Traceback" not in result.err, (round_, args, result.err)
        if round_ == "as another program wrote it":
            doctor = run_memtui("doctor", "--json", store=store).json()
            [warning] = [w for w in doctor["warnings"] if w["code"] == "ts-out-of-range"]
            assert "0000000000a1" in warning["text"]
            assert run_memtui("add", "fact", "a later write through the cli", store=store).code == 0
    # the write stored 0 and logged the value it replaced
    doctor = run_memtui("doctor", "--json", store=store).json()
    assert not [w for w in doctor["warnings"] if w["code"] == "ts-out-of-range"]
    imports = [e for e in run_memtui("audit", "--json", store=store).json() if e["op"] == "import"]
    assert imports and "ts" in imports[0]["note"]


def test_the_mcp_entries_resource_serves_a_store_with_such_a_time(tmp_path):
    store = _store_with_time(tmp_path, 10**29)
    raw = Raw(store)
    try:
        raw.send(orjson.dumps(INIT))
        assert raw.reply(30)["result"]["serverInfo"]["name"] == "memtui"
        raw.send(orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        raw.send(orjson.dumps({"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                               "params": {"uri": "memtui://entries"}}))
        answer = raw.reply(10)
        assert answer["id"] == 5 and "error" not in answer, answer
        rows = orjson.loads(answer["result"]["contents"][0]["text"])["entries"]
        assert {row["id"]: row["ts"] for row in rows} == {"0000000000a1": 0, "0000000000a2": 1_700_000_000}
    finally:
        raw.close()


# ------------------------------------------------------------------ a derived index that does not add up


def _damage(store, how: str) -> None:
    """Rewrite memory.json.index with its key and checksum intact but its contents wrong."""
    path = store / "memory.json.index"
    data = path.read_bytes()
    header, at = derived._header(data)
    body = bytearray(data[at:])
    where, pos = {}, 0
    for name in derived._SECTIONS:
        where[name] = (pos, header["sizes"][name])
        pos += header["sizes"][name]

    def part(name):
        values = array("i")
        values.frombytes(bytes(body[where[name][0]: sum(where[name])]))
        return values

    def put(name, values):
        body[where[name][0]: sum(where[name])] = values.tobytes()

    if how == "postings past the last entry":
        put("ids", array("i", [doc_id + 1000 for doc_id in part("ids")]))
    elif how == "negative postings":
        put("ids", array("i", [-1 - doc_id for doc_id in part("ids")]))
    elif how == "every span shifted":
        put("spans", array("i", [offset + 1 for offset in part("spans")]))
    elif how == "one span shifted":
        spans = part("spans")
        spans[2] += 2  # the second entry's start: found only when a query parses that entry
        put("spans", spans)
    header["body"] = crc32(bytes(body))
    head = orjson.dumps(header)
    path.write_bytes(derived.MAGIC + len(head).to_bytes(4, "little") + head + bytes(body))
    os.chmod(path, 0o600)


def _index_adds_up(store) -> bool:
    data = (store / "memory.json").read_bytes()
    found = derived.read(store / "memory.json.index", derived.content_key(data))
    return found is not None and all(0 <= doc_id < len(found.doc_lens) for doc_id in found.ids) and (
        found.spans is None or derived._spans_fit(found.spans, data))


@pytest.mark.parametrize("how", ["postings past the last entry", "negative postings", "every span shifted",
                                 "one span shifted"])
def test_an_index_that_does_not_add_up_is_derived_again_for_search_inject_explain_and_probes(tmp_path, how):
    store = tmp_path / "store"
    for text in ("makefiles want tabs", "the staging deploy host is deploy-1", DEPLOY):
        assert run_memtui("add", "fact", text, store=store).code == 0
    ids = {e["text"]: e["id"] for e in run_memtui("list", "--json", store=store).json()}
    assert run_memtui("probe", "add", "deploy dry run", "--expect", ids[DEPLOY], store=store).code == 0
    assert _index_adds_up(store)
    _damage(store, how)

    found = run_memtui("search", "deploy dry run", "--json", store=store)
    assert "Traceback" not in found.err and found.code == 0, found.err
    assert found.json()[0]["entry"]["text"] == DEPLOY
    assert _index_adds_up(store)  # derived again and saved by that first reader

    _damage(store, how)
    block = run_memtui("inject", "deploy dry run", store=store)
    assert block.code == 0 and DEPLOY in block.out, block.err
    _damage(store, how)
    explained = run_memtui("explain", "deploy dry run", "--json", store=store)
    assert explained.code == 0 and DEPLOY in explained.out, explained.err
    _damage(store, how)
    probes = run_memtui("probe", "run", store=store)
    assert probes.code == 0 and "Traceback" not in probes.err, probes.err
    assert "1 of 1" in probes.out or "pass" in probes.out.lower()


def test_a_long_running_process_answers_from_a_derived_index_after_finding_its_saved_one_damaged(tmp_path):
    from memtui_core.memory import MemoryStore

    store_dir = tmp_path / "store"
    store = MemoryStore(store_dir)
    for text in ("makefiles want tabs", "the staging deploy host is deploy-1", DEPLOY):
        store.remember("fact", text)
    MemoryStore(store_dir).entries()  # a reader saves the index with spans
    _damage(store_dir, "postings past the last entry")
    fresh = MemoryStore(store_dir)
    assert [hit.entry.text for hit in fresh.search("deploy dry run")][0] == DEPLOY
    assert [hit.entry.text for hit in fresh.search("deploy dry run")][0] == DEPLOY  # and again, from memory
    assert fresh.retrieve_block("deploy dry run")


def test_a_field_another_program_added_with_an_integer_past_64_bits_is_printed_as_it_is(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "memory.json").write_bytes(
        b'{"entries": [{"id": "0000000000a1", "kind": "fact", "text": "' + DEPLOY.encode()
        + b'", "source": "other", "ts": 5, "count": 100000000000000000000000000000}]}')
    for args in (["list", "--json"], ["search", "deploy", "--json"]):
        result = run_memtui(*args, store=store)
        assert result.code == 0 and "Traceback" not in result.err, (args, result.err)
        assert b'"count":100000000000000000000000000000' in result.raw
    assert run_memtui("add", "fact", "a later write keeps the field", store=store).code == 0
    assert b'"count":100000000000000000000000000000' in run_memtui("list", "--json", store=store).raw


def test_list_json_of_many_entries_is_what_each_entry_dumps_to(tmp_path):
    """`list --json` is written by pydantic in one pass: the same bytes as dumping each entry."""
    from memtui_core.memory import MemoryStore

    store = MemoryStore(tmp_path / "store")
    for n in range(30):
        store.remember("fact" if n % 2 else "preference", f"note {n}: 部署 dry-run 第 {n} 条", keywords=[f"k{n}"])
    printed = run_memtui("list", "--json", store=tmp_path / "store").raw
    assert printed == orjson.dumps([entry.model_dump(mode="json") for entry in store.entries()]) + b"\n"
