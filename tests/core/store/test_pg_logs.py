"""A database store's logs against a real server (tests/pg_server.py): the injection log in its
table (retention, failure never costs a turn), the version a listening process knows without
asking, and the audit log's rotation."""

from __future__ import annotations

import time

import pytest

from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore

from pg_server import PASSWORD


def _rows(pg_server, store: MemoryStore) -> int:
    return int(pg_server.sql(f"SELECT count(*) FROM memtui_injections WHERE store = '{store.location.store}'").strip())


def test_injections_are_rows_of_the_store_read_by_any_process(pg_url, pg_server, tmp_path, monkeypatch):
    store = MemoryStore(pg_url)
    store.remember("fact", "the staging database listens on port 5433")
    assert "5433" in store.retrieve_block("which port does staging use")
    store.injection_log.flush()
    assert _rows(pg_server, store) == 1
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "another-machine"))
    elsewhere = MemoryStore(pg_url)
    lines = elsewhere.injection_log.read()[0]
    assert [(line["n"], line["q"]) for line in lines] == [(1, "which port does staging use")]
    assert elsewhere.health().injections == 1 and elsewhere.health().injected_share == 1.0
    # a row another program wrote that is not a log line is skipped and said so, never fatal
    pg_server.sql(f"INSERT INTO memtui_injections (store, at, line) VALUES ('{store.location.store}', "
                  f"extract(epoch from now()), 'not json')")
    lines, skipped = elsewhere.injection_log.read()
    assert len(lines) == 1 and len(skipped) == 1 and skipped[0].startswith("memtui_injections row ")


@pytest.mark.parametrize("libpq", [True, False], ids=["libpq", "driver only"])
def test_a_log_row_never_joins_a_write_in_progress(pg_url, pg_server, libpq):
    """A process that writes and injects (an agent's loop; the flusher is a thread of its own):
    the log's row is not sent on the connection a write may hold a transaction open on, where it
    would be rolled back with that write, or commit it without waiting for the disk."""
    store = MemoryStore(pg_url)
    store.remember("fact", "the staging database listens on port 5433")  # the driver's connection exists
    store.storage.db.no_libpq = not libpq  # where libpq cannot be loaded, the driver sends the row
    assert "5433" in store.retrieve_block("which port does staging use")
    conn = store.storage.connection()
    with pytest.raises(RuntimeError):
        with conn.transaction():  # a write under way on another thread, rolled back
            conn.execute("SELECT 1 FROM memtui_stores WHERE name = %s FOR UPDATE", (store.location.store,))
            store.injection_log.flush()
            raise RuntimeError("the write fails")
    assert store.injection_log.error is None and _rows(pg_server, store) == 1


def test_the_tables_retention_is_the_file_logs(pg_url, pg_server):
    """Past `injection_max_bytes` the oldest rows go, down to half of it (a file log drops its
    older half); rows older than `injection_days` go too, and are never read."""
    store = MemoryStore(pg_url, limits=Limits().replace(injection_max_bytes=4000))
    store.remember("fact", "the staging database listens on port 5433")
    for n in range(40):
        store.retrieve_block(f"which port does staging use {n}")
    store.injection_log.flush()
    assert _rows(pg_server, store) == 40
    gone = store.injection_log.prune()
    sizes = pg_server.sql(f"SELECT sum(octet_length(line) + 1) FROM memtui_injections "
                          f"WHERE store = '{store.location.store}'")
    assert gone > 0 and int(sizes.strip()) <= 2000
    queries = [line["q"] for line in store.injection_log.read()[0]]
    assert queries[-1] == "which port does staging use 39" and len(queries) == 40 - gone  # the newest kept
    pg_server.sql(f"UPDATE memtui_injections SET at = at - 31 * 86400 WHERE store = '{store.location.store}' "
                  f"AND seq = (SELECT max(seq) FROM memtui_injections WHERE store = '{store.location.store}')")
    assert len(store.injection_log.read()[0]) == 40 - gone - 1  # older than injection_days: not read
    store.injection_log.prune()
    assert _rows(pg_server, store) == 40 - gone - 1  # and deleted by the next check


def test_retention_is_checked_as_rows_come_without_asking(pg_url, pg_server, monkeypatch):
    from memtui_core.store import pg_injections

    monkeypatch.setattr(pg_injections, "PRUNE_EVERY", 4)
    store = MemoryStore(pg_url, limits=Limits().replace(injection_max_bytes=1000))
    store.remember("fact", "the staging database listens on port 5433")
    for n in range(30):
        store.retrieve_block(f"which port does staging use {n}")
        store.injection_log.flush()
    assert _rows(pg_server, store) < 20


def test_a_log_that_cannot_be_written_never_costs_the_turn(pg_url, pg_server):
    """A role that may read the store but not insert into the log: the turn gets its block, the
    failure is said once (naming the store without its password), nothing else changes."""
    MemoryStore(pg_url).remember("fact", "the team deploys on tuesdays")
    pg_server.sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'memtui_reader') THEN "
                  "CREATE ROLE memtui_reader LOGIN PASSWORD 'reader-pw'; END IF; END $$; "
                  "GRANT SELECT ON memtui_stores, memtui_audit, memtui_backups, memtui_files TO memtui_reader; "
                  "REVOKE INSERT ON memtui_injections FROM memtui_reader")
    reader = MemoryStore(pg_url.replace(f"postgres:{PASSWORD}@", "memtui_reader:reader-pw@"))
    assert "tuesdays" in reader.retrieve_block("when does the team deploy")
    log = reader.injection_log
    log.flush()
    failure = log.take_error()
    assert failure is not None and "permission denied for table memtui_injections" in failure
    assert "\n" not in failure and "reader-pw" not in failure and "postgresql://memtui_reader@" in failure
    assert log.take_error() is None  # told once
    assert "tuesdays" in reader.retrieve_block("when does the team deploy again")


def test_a_database_made_before_the_log_table_logs_from_the_next_write(pg_url, pg_server):
    store = MemoryStore(pg_url)
    store.remember("fact", "the team deploys on tuesdays")
    pg_server.sql("DROP TABLE memtui_injections")
    try:
        turn = MemoryStore(pg_url)
        assert "tuesdays" in turn.retrieve_block("when does the team deploy")
        turn.injection_log.flush()
        assert turn.injection_log.error is None and turn.injection_log.read()[0] == []  # nothing, no error
        MemoryStore(pg_url).remember("fact", "the team reviews on mondays")  # the next write makes the table
        again = MemoryStore(pg_url)
        again.retrieve_block("when does the team deploy")
        again.injection_log.flush()
        assert len(again.injection_log.read()[0]) == 1
    finally:
        from memtui_core.store.pg_storage import SCHEMA

        pg_server.sql(SCHEMA)


# ---------------------------------------------------------------------------- a listening process asks nothing


def _version_queries(store: MemoryStore) -> list:
    """Count the version queries `store` sends from now on."""
    asked: list = []
    db = store.storage.db
    real = db.query

    def counting(sql, params=(), writing=False):
        if sql.startswith("SELECT uid, version FROM"):
            asked.append(sql)
        return real(sql, params, writing)

    db.query = counting
    return asked


def _wait(condition, seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_listening_process_knows_the_version_without_asking(pg_url, pg_server):
    import subprocess
    import sys

    from memtui_core.store.pg_storage import LISTEN_AFTER

    store = MemoryStore(pg_url)
    store.remember("fact", "the deploy uses blue green switching")
    agent = MemoryStore(pg_url)
    asked = _version_queries(agent)
    agent.retrieve_block("how do we deploy")
    watcher = agent.storage.db.watcher
    assert watcher is None and asked  # a turn, or a process's first queries: asked, no listener
    for _ in range(LISTEN_AFTER):  # an agent's loop: after some queries it listens
        agent.retrieve_block("how do we deploy")
    assert agent.storage.db.watcher is not None and len(asked) == 1 + LISTEN_AFTER  # one a query, till then
    _wait(lambda: agent.storage.db.watcher.connected)
    agent.retrieve_block("how do we deploy")
    before = len(asked)
    for _ in range(50):
        assert "blue green" in agent.retrieve_block("how do we deploy")
    assert len(asked) == before  # warm queries: no round trip at all
    # a write by another process: seen by the next query once its notification has arrived
    token = agent.storage.db.watcher.token
    done = subprocess.run([sys.executable, "-m", "memtui", "--dir", pg_url, "add", "fact",
                           "deploys need a second approver"], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    _wait(lambda: agent.storage.db.watcher.token != token)
    assert "second approver" in agent.retrieve_block("deploy approver")
    assert len(asked) == before + 1  # one version query for that notification
    # its own write: seen at once, whether or not its own notification has come back yet
    agent.remember("fact", "deploys happen on tuesdays")
    assert "tuesdays" in agent.retrieve_block("when do deploys happen")


def test_a_listener_that_reconnects_asks_again(pg_url, pg_server):
    """While the listener is away, writes may go unheard: the version is asked on every query
    until it is back, and once after (the reconnection changes the token)."""
    MemoryStore(pg_url).remember("fact", "the deploy uses blue green switching")
    agent = MemoryStore(pg_url)
    agent.storage.db.watch()
    _wait(lambda: agent.storage.db.watcher.connected)
    asked = _version_queries(agent)
    agent.retrieve_block("how do we deploy")
    agent.retrieve_block("how do we deploy")
    assert len(asked) == 1
    pg_server.restart()
    _wait(lambda: agent.storage.db.watcher.connected is False or agent.storage.db.watcher.token > 1)
    MemoryStore(pg_url).remember("fact", "deploys need a second approver")  # perhaps unheard
    _wait(lambda: "second approver" in agent.retrieve_block("deploy approver"), 30)
    _wait(lambda: agent.storage.db.watcher.connected, 30)
    agent.retrieve_block("deploy approver")
    settled = len(asked)
    agent.retrieve_block("deploy approver")
    assert len(asked) == settled


# ---------------------------------------------------------------------------- the audit log rotates


def test_the_audit_log_rotates_as_audit_jsonl_does_and_the_chain_holds(pg_url, pg_server):
    """Past `audit_max_bytes` the current part becomes the previous one (the one before it is
    deleted) and a new part starts, as audit.jsonl becomes audit.jsonl.1; readers read both, the
    newest events in one contiguous run, and the last batch still names the document as it is."""
    from memtui_core.store.fileio import digest
    from memtui_core.store.pg_storage import ROTATE_EVERY, ROTATED

    store = MemoryStore(pg_url, limits=Limits(audit_max_bytes=3000))
    ids = [store.remember("fact", f"entry number {i:03d} of a long afternoon").entry.id for i in range(60)]
    name = store.location.store
    marks = int(pg_server.sql(f"SELECT count(*) FROM memtui_audit WHERE store = '{name}' "
                              f"AND line = '\\x{ROTATED.hex()}'::bytea").strip())
    assert marks == 1  # rotated, and the mark of the part before was deleted with it
    rows = pg_server.sql(f"SELECT sum(octet_length(line) + 1) FROM memtui_audit WHERE store = '{name}'")
    each = 600  # an add's line, about
    assert int(rows.strip()) <= 2 * 3000 + ROTATE_EVERY * each  # two parts, each past the limit by at most a check
    events = store.audit()
    assert [e.id for e in events] == ids[-len(events):] and len(events) >= 3000 // each  # the newest, contiguous
    assert store.audit(ids[-1])[0].op.value == "add"
    doc = bytes(store.storage.query("SELECT doc FROM memtui_stores WHERE name = %s", (name,))[0][0])
    shas = [e["file_sha"] for e in store.storage.audit_lines() if "file_sha" in e]
    assert shas[-1] == digest(doc) and len(shas) == len(events)  # every batch kept still carries its link
    # the chain goes on across the rotation: undo, an edit, a delete, each logged with its hash
    store.update(ids[-1], "entry number 059, edited after the rotation")
    store.delete(ids[-2])
    doc = bytes(store.storage.query("SELECT doc FROM memtui_stores WHERE name = %s", (name,))[0][0])
    assert [e.op.value for e in store.audit()[-2:]] == ["edit", "delete"]
    assert store.storage.audit_lines()[-1]["file_sha"] == digest(doc)
    assert MemoryStore(pg_url).health().warnings == []


def test_a_writer_role_writes_a_database_made_before_the_log_table(pg_url, pg_server):
    """A database made by an earlier version (no memtui_injections), written by a role that may
    not create tables: its writes and turns work as before, without the log, until the owner's
    next write makes the table."""
    MemoryStore(pg_url).remember("fact", "made by the owner")
    pg_server.sql("DROP TABLE memtui_injections")
    try:
        pg_server.sql("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'memtui_writer') THEN "
                      "CREATE ROLE memtui_writer LOGIN PASSWORD 'writer-pw'; END IF; END $$; "
                      "GRANT SELECT, INSERT, UPDATE, DELETE ON memtui_stores, memtui_audit, memtui_backups, "
                      "memtui_files, memtui_keys TO memtui_writer; "
                      "GRANT USAGE ON SEQUENCE memtui_audit_seq_seq TO memtui_writer; "
                      "REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        writer = MemoryStore(pg_url.replace(f"postgres:{PASSWORD}@", "memtui_writer:writer-pw@"))
        writer.remember("fact", "written by the writer role")
        assert "writer role" in writer.retrieve_block("what did the writer role write")
        writer.injection_log.flush()
        assert writer.injection_log.error is None and len(MemoryStore(pg_url)) == 2
    finally:
        from memtui_core.store.pg_storage import SCHEMA

        pg_server.sql(SCHEMA)
