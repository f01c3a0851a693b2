"""A real PostgreSQL server for the tests of database stores, started in a temporary folder.

`initdb` and `pg_ctl` run as the `postgres` user when the tests run as root (the server refuses
to run as root), on a free port of 127.0.0.1, with password logins (scram) so a URL's password is
really used. One server per test process (each pytest-xdist worker starts its own: no worker
waits for another, and none can stop a server another still uses); stopped at the end of the
session. `binaries()` finds the server programs, or says why there are none (the tests skip with
that reason; `.ci/postgres` installs them).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "s3cret-Pw_for-tests"  # the superuser's: tests check it never shows up in output
SEARCH = ("/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin",
          "/usr/lib/postgresql/14/bin", "/usr/lib/postgresql/13/bin", "/usr/local/bin", "/usr/bin")


def binaries() -> tuple[Path | None, str]:
    """The folder holding initdb and pg_ctl, or None and why not."""
    for folder in SEARCH:
        if os.access(os.path.join(folder, "initdb"), os.X_OK) and os.access(os.path.join(folder, "pg_ctl"), os.X_OK):
            return Path(folder), ""
    return None, "PostgreSQL's initdb/pg_ctl are not installed (bash .ci/postgres installs them)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="memtui-pg-"))
        self.data = self.root / "data"
        self.sock = self.root / "sock"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self.sock.mkdir()
        if self.as_postgres:
            shutil.chown(self.sock, "postgres", "postgres")

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bindir / argv[0]), *argv[1:]]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=120)

    def init(self, durable: bool = False) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_postgres:
            shutil.chown(pwfile, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--pwfile", str(pwfile), "--auth-local=trust",
                  "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync", "--no-instructions")
        pwfile.unlink()
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write("shared_buffers = 16MB\nmax_connections = 100\n")
            if not durable:  # a throwaway server for tests: no fsync (they check transactions, not the disk)
                conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")

    def start(self) -> None:
        opts = f"-k {self.sock} -p {self.port} -c listen_addresses=127.0.0.1"
        result = self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w",
                           "-t", "60", "start", check=False)
        if result.returncode != 0:
            log = (self.root / "log").read_text(errors="replace")[-2000:] if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {result.stderr.strip()} {log}")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart(self) -> None:
        self.stop()
        self.start()

    def url(self, store: str | None = None, user: str = "postgres", password: str | None = PASSWORD,
            db: str = "postgres") -> str:
        login = user + (f":{password}" if password is not None else "")
        return f"postgresql://{login}@127.0.0.1:{self.port}/{db}" + (f"?store={store}" if store else "")

    def sql(self, statement: str) -> str:
        """Run `statement` as the superuser over the server's socket (psql); its output."""
        result = self._run("psql", "-h", str(self.sock), "-p", str(self.port), "-U", "postgres", "-d", "postgres",
                           "-v", "ON_ERROR_STOP=1", "-At", "-c", statement)
        return result.stdout

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def start(durable: bool = False) -> Server:
    bindir, why = binaries()
    if bindir is None:
        raise LookupError(why)
    server = Server(bindir)
    server.init(durable)
    for attempt in range(3):
        try:
            server.start()
            break
        except RuntimeError:
            if attempt == 2:
                raise
            server.port = free_port()  # taken between free_port() and the server's bind
            time.sleep(0.2)
    return server
