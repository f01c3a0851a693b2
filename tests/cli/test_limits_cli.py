"""`memtui limits` and the confirmation before a write evicts more than a handful (issue 28, item 6).

One `memtui add` on a store built through the API with a higher cap evicted 9,507 entries, and the
CLI could not raise the cap. The store now carries its own limits, and `add` asks first."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time

import orjson

from memtui_core.kinds import Kind
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
from memtui_core.store.records import Record
from memtui_core.store.storage import Change

from .conftest import REPO, run_memtui


def _over_the_default_cap(directory, entries: int = 520):
    """A store of `entries` written through the API with a cap of 1000 (one write)."""
    store = MemoryStore(directory, limits=Limits(max_entries=1000))

    def fill(doc):
        for i in range(entries):
            doc.items.append(Record(f"{i:012x}", Kind.FACT, f"fact number {i} about subsystem {i * 7919 % 1009}",
                                    "api", 1_700_000_000 + i))
        return Change([{"op": "add", "id": f"{i:012x}", "before": None, "after": None} for i in range(entries)])

    store.storage.transact(fill)
    return directory


def test_an_add_that_would_evict_more_than_a_handful_is_refused_without_a_terminal(tmp_path):
    store = _over_the_default_cap(tmp_path / "store")
    before = (store / "memory.json").read_bytes()
    refused = run_memtui("add", "fact", "one more fact from the command line", store=store)
    assert refused.code == 1
    line = refused.error_line
    assert "would evict 21 entries to stay within max_entries 500 (the store holds 520)" in line
    assert "pass --yes" in line and "limits set max_entries=521" in line
    assert (store / "memory.json").read_bytes() == before


def test_raising_the_cap_through_the_cli_keeps_every_entry_and_is_audited(tmp_path):
    store = _over_the_default_cap(tmp_path / "store")
    assert run_memtui("limits", "set", "max_entries=1000", store=store).code == 0
    added = run_memtui("add", "fact", "one more fact from the command line", "--json", store=store).json()
    assert added["added"] and added["evicted"] == []
    shown = run_memtui("limits", "--json", store=store).json()
    assert shown["limits"]["max_entries"] == {"value": 1000, "source": "store", "default": 500,
                                              "reason": Limits.reasons()["max_entries"]}
    assert shown["store"] == {"max_entries": 1000} and shown["invalid"] == []
    [event] = run_memtui("audit", "--op", "limits", "--json", store=store).json()
    assert event["after"] == {"max_entries": 1000} and "max_entries: (default) -> 1000" in event["note"]
    assert orjson.loads((store / "memory.json").read_bytes())["limits"] == {"max_entries": 1000}
    # an option given on the command line wins over the store's
    assert run_memtui("limits", "--json", "--profile", "nanohermes", store=store).json()[
        "limits"]["min_coverage"]["source"] == "option"


def test_yes_allows_the_eviction_and_it_is_said(tmp_path):
    store = _over_the_default_cap(tmp_path / "store")
    added = run_memtui("add", "fact", "one more fact from the command line", "--yes", store=store)
    assert added.code == 0 and added.out.count("  evicted ") == 21
    assert len(run_memtui("list", "--json", store=store).json()) == 500


def _in_a_terminal(args: list[str], answer: bytes) -> tuple[int, str]:
    """Run memtui with a terminal for stdin, stdout and stderr; answer the question when it comes."""
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "memtui", *args], stdin=child_fd, stdout=child_fd, stderr=child_fd,
                            cwd=REPO, env={**os.environ, "TERM": "dumb", "NO_COLOR": "1"})
    os.close(child_fd)
    seen = b""
    answered = False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if not answered and b"[y/N]" in seen:
                os.write(main_fd, answer)
                answered = True
        code = proc.wait(timeout=30)
    finally:
        os.close(main_fd)
    return code, seen.decode("utf-8", "replace")


def test_on_a_terminal_the_add_asks_first_and_does_what_the_answer_says(tmp_path):
    store = _over_the_default_cap(tmp_path / "store")
    code, seen = _in_a_terminal(["--dir", str(store), "add", "fact", "asked about first"], b"n\n")
    assert code == 1 and "would evict 21 entries" in seen and "nothing was written" in seen
    assert len(MemoryStore(store, limits=Limits(max_entries=1000))) == 520
    code, seen = _in_a_terminal(["--dir", str(store), "add", "fact", "asked about first"], b"y\n")
    assert code == 0 and "added " in seen
    assert len(MemoryStore(store)) == 500


def test_lowering_the_cap_below_the_store_asks_first_too(tmp_path):
    store = tmp_path / "store"
    for n in range(12):
        assert run_memtui("add", "fact", f"entry {n} of a small store about topic {n * 37}", store=store).code == 0
    refused = run_memtui("limits", "set", "max_entries=3", store=store)
    assert refused.code == 1 and "the next add would evict 10" in refused.error_line
    assert "limits" not in orjson.loads((store / "memory.json").read_bytes())
    assert run_memtui("limits", "set", "max_entries=3", "--yes", store=store).code == 0
    assert run_memtui("limits", "set", "max_entries=10", store=store).code == 0  # only 3 over: no question


def test_a_bad_name_or_value_is_one_line(tmp_path):
    store = tmp_path / "store"
    for args, said in ((["set", "max_entires=10"], "'max_entires' is not a limit"),
                       (["set", "max_entries=many"], "limit max_entries must be a whole number"),
                       (["set", "max_entries=-4"], "limit max_entries must be positive"),
                       (["set", "max_entries"], "is not NAME=VALUE"),
                       (["unset", "nope"], "'nope' is not a limit")):
        result = run_memtui("limits", *args, store=store)
        assert result.code == 1 and said in result.error_line, (args, result.err)


def test_every_client_applies_the_limits_the_store_carries(tmp_path):
    store = tmp_path / "store"
    for text in ("deploy with the dry run first", "deploy to staging on fridays", "deploy notes live in the wiki"):
        assert run_memtui("add", "fact", text, store=store).code == 0
    assert len(run_memtui("search", "deploy", "--json", store=store).json()) == 3
    assert run_memtui("limits", "set", "top_k=1", store=store).code == 0
    assert len(run_memtui("search", "deploy", "--json", store=store).json()) == 1  # a fresh process, the lean path
    assert run_memtui("inject", "deploy", store=store).out.count("deploy") == 1
    assert len(MemoryStore(store).search("deploy")) == 1
