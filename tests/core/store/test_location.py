"""Where a store lives (core/store/location.py): a folder path stays a folder, a postgresql:// URL
is a database, anything else that looks like a URL is refused in one line, and the password is
in no display form."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from memtui_core.errors import InvalidInput
from memtui_core.memory import MemoryStore
from memtui_core.store.location import parse_location


@pytest.mark.parametrize("url, display, store", [
    ("postgresql://ann:pw@db.example:5433/mem", "postgresql://ann@db.example:5433/mem", "default"),
    ("postgres://db.example/mem?store=team", "postgresql://db.example/mem?store=team", "team"),
    ("postgresql://ann@db.example/mem#ann", "postgresql://ann@db.example/mem?store=ann", "ann"),
    ("postgresql:///mem?host=/run/postgresql&password=pw", "postgresql:///mem?host=%2Frun%2Fpostgresql", "default"),
])
def test_a_postgresql_url_is_a_database_named_without_its_password(url, display, store):
    found = parse_location(url)
    assert found is not None
    assert (found.display, found.store) == (display, store)
    assert "pw" not in found.display and "pw" not in repr(found)
    assert "connect_timeout=3" in found.conninfo  # a turn never hangs on a database that does not answer
    assert "store=" not in found.conninfo  # ours, not the driver's


@pytest.mark.parametrize("path", ["/tmp/x", "relative/dir", "~/notes", "C:/Users/x", "notes:2024", "a:b:c", "./postgresql:/x"])
def test_a_path_is_a_folder(path):
    assert parse_location(path) is None


@pytest.mark.parametrize("bad, says", [
    ("postgresql:/x", "not a PostgreSQL URL"),
    ("postgresql:x", "not a PostgreSQL URL"),
    ("postgres:/x", "not a PostgreSQL URL"),
    ("mysql://u:secretpw@h/db", "unsupported store location mysql://"),
    ("http://h/x", "unsupported store location"),
    ("postgresql://h/db?store=a/b", "store name"),
    ("postgresql://u:secretpw@h:notaport/db", "not a valid PostgreSQL URL"),
])
def test_a_malformed_url_is_one_line_never_a_folder(bad, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidInput) as caught:
        MemoryStore(bad)
    message = str(caught.value)
    assert says in message and "\n" not in message and "secretpw" not in message
    assert list(tmp_path.iterdir()) == []  # no folder called `postgresql:` or `mysql:`


def test_memtui_dir_may_be_a_url(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("MEMTUI_DIR", "postgresql://ann:pw@127.0.0.1:1/mem?store=team")
    store = MemoryStore()
    assert store.location is not None and store.location.store == "team"
    assert repr(store) == "MemoryStore('postgresql://ann@127.0.0.1:1/mem?store=team', actor='api')"
    assert Path(store.dir).is_relative_to(tmp_path)  # the local cache of the store, never a folder named by the URL


@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40))
def test_a_value_without_a_scheme_is_a_folder(value):
    """Whatever a folder path holds, it is read as a folder unless it begins `word:/` or names postgres."""
    lowered = value.lower()
    try:
        found = parse_location(value)
    except InvalidInput:
        head = lowered.split(":", 1)[0]
        assert ":" in value and (head in ("postgresql", "postgres") or value.split(":", 1)[1].startswith("/"))
        return
    if found is not None:
        assert lowered.startswith(("postgresql://", "postgres://"))


def test_a_folder_store_never_loads_the_database_code(tmp_path):
    """The driver and the database storage are for database stores only: a folder's writes, reads
    and turns import neither (`memtui[postgres]` is an optional extra)."""
    import subprocess
    import sys

    script = (
        "import sys\nfrom memtui_core.memory import MemoryStore\nfrom memtui.cli import main\n"
        "s = MemoryStore(sys.argv[1]); s.remember('fact', 'the deploy uses blue green'); s.entries()\n"
        "main(['--dir', sys.argv[1], 'inject', 'deploy']); main(['--dir', sys.argv[1], 'list'])\n"
        "loaded = [m for m in sys.modules if m.startswith(('psycopg', 'memtui_core.store.pg_'))]\n"
        "print('LOADED', loaded)\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "store")], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.splitlines()[-1] == "LOADED []", done.stdout + done.stderr
