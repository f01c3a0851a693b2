"""Figures for docs/storage.md#sharing-a-store-postgresql: what a turn and a write cost when the store is in
PostgreSQL, beside the same store in a folder.

    .venv/bin/python scripts/measure_pg.py [--url postgresql://...] [--sizes 500 10000] [--rounds 15]

Without --url a throwaway server is started in a temporary folder (tests/pg_server.py, with
fsync on, as a real server has it) and removed at the end. For each size, the same entries go into a folder store and a database store
(imported from the folder, so both hold the same bytes); then:

- `memtui inject` as a whole fresh process, folder and database runs interleaved (so load on the
  machine falls on both alike), median of --rounds each, after one warm-up run each (which makes
  the derived index and the local copy of the database's version);
- a warm query in one process (`retrieve_block`, the store already open), median of 200;
- writes per second with 1, 4 and 16 writer processes, each with its own connection, adding
  entries to the database store (and, for scale, to a folder store).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MEMTUI = [sys.executable, "-m", "memtui"]
WORDS = ("deploy build cache port staging database python tabs spaces review merge branch token window "
         "tuesday canary blue green switch rollout metric alert pager owner team lunch coffee editor vim shell "
         "docker image kernel driver invoice budget travel flight hotel garden piano lesson recipe").split()
QUERIES = ["how do we deploy to staging", "which editor and shell do I use", "what about the budget for travel"]


def entries(n: int, seed: int = 7) -> bytes:
    import orjson

    rnd = random.Random(seed)
    lines = [orjson.dumps({"kind": rnd.choice(["fact", "preference", "lesson"]),
                           "text": " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(6, 18))) + f" item{i}",
                           "source": "bench", "ts": 1_700_000_000 + i}) for i in range(n)]
    return b"\n".join(lines) + b"\n"


def run(*args: str, env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(MEMTUI + list(args), check=True, stdout=subprocess.DEVNULL, env=env, cwd=REPO)
    return time.perf_counter() - start


def per_turn(folder: str, url: str, rounds: int, env: dict) -> tuple[float, float]:
    for where in (folder, url):  # warm-up: the derived index, the version's local copy
        run("--dir", where, "inject", QUERIES[0], env=env)
    times: dict[str, list[float]] = {folder: [], url: []}
    for i in range(rounds):
        for where in ((folder, url) if i % 2 == 0 else (url, folder)):
            times[where].append(run("--dir", where, "inject", QUERIES[i % len(QUERIES)], env=env))
    return statistics.median(times[folder]), statistics.median(times[url])


def warm(where: str) -> float:
    from memtui_core.memory import MemoryStore

    store = MemoryStore(where)
    store.retrieve_block(QUERIES[0])
    samples = []
    for i in range(200):
        start = time.perf_counter()
        store.retrieve_block(QUERIES[i % len(QUERIES)])
        samples.append(time.perf_counter() - start)
    store.injection_log.flush()
    return statistics.median(samples)


WRITER = """
import sys, time
from memtui_core.memory import MemoryStore
s = MemoryStore(sys.argv[1], actor="bench")
n = int(sys.argv[2])
s.remember("fact", "warm up " + sys.argv[3])
start = time.time()
for i in range(n):
    s.remember("fact", f"writer {sys.argv[3]} note {i} zq{sys.argv[3]}x{i}")
print(start, time.time())
"""


def writes_per_second(where: str, writers: int, each: int, env: dict) -> float:
    """Writes per second while `writers` processes write at once: each times its own loop (after
    its start-up and a first write), and the rate is every loop's writes over the span from the
    first loop's start to the last one's end."""
    env = {**env, "MEMTUI_SCAN_SEMANTIC": "off"}  # the storage's cost; the scan's own is the same for both
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, where, str(each), f"{writers}w{w}"], env=env,
                              stdout=subprocess.PIPE) for w in range(writers)]
    spans = []
    for p in procs:
        out = p.communicate()[0]
        if p.returncode != 0:
            raise SystemExit("a writer failed")
        spans.append([float(x) for x in out.split()])
    return writers * each / (max(end for _s, end in spans) - min(start for start, _e in spans))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a database to use (default: a throwaway server)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 10_000])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--writes", type=int, default=40, help="writes per writer process")
    args = parser.parse_args()
    server = None
    base = args.url
    if base is None:
        sys.path.insert(0, str(REPO / "tests"))
        import pg_server

        server = pg_server.start(durable=True)  # fsync on, as a real server: writes pay for the disk
        base = server.url()
    tmp = Path(tempfile.mkdtemp(prefix="memtui-measure-pg-"))
    env = {**os.environ, "MEMTUI_CACHE_DIR": str(tmp / "cache")}
    os.environ["MEMTUI_CACHE_DIR"] = env["MEMTUI_CACHE_DIR"]
    sep = "&" if "?" in base else "?"
    try:
        print(f"{'entries':>8} {'inject folder':>14} {'inject pg':>10} {'ratio':>6} {'warm folder':>12} {'warm pg':>9}")
        for n in args.sizes:
            folder = str(tmp / f"folder{n}")
            url = f"{base}{sep}store=bench{n}_{os.getpid()}"
            src = tmp / f"entries{n}.jsonl"
            src.write_bytes(entries(n))
            limit = ["--yes"]
            subprocess.run(MEMTUI + ["--dir", folder, "limits", "set", f"max_entries={max(n, 500)}"], check=True,
                           env=env, stdout=subprocess.DEVNULL)
            subprocess.run(MEMTUI + ["--dir", folder, "import", str(src), *limit], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            subprocess.run(MEMTUI + ["--dir", url, "limits", "set", f"max_entries={max(n, 500)}"], check=True,
                           env=env, stdout=subprocess.DEVNULL)
            subprocess.run(MEMTUI + ["--dir", url, "import", folder, *limit], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            f_turn, p_turn = per_turn(folder, url, args.rounds, env)
            f_warm, p_warm = warm(folder), warm(url)
            print(f"{n:>8} {f_turn * 1000:>12.1f}ms {p_turn * 1000:>8.1f}ms {p_turn / f_turn:>6.2f} "
                  f"{f_warm * 1000:>10.2f}ms {p_warm * 1000:>7.2f}ms", flush=True)
        print(f"\n{'writers':>8} {'pg writes/s':>12} {'folder writes/s':>16}")
        for writers in (1, 4, 16):
            url = f"{base}{sep}store=writes{writers}_{os.getpid()}"
            folder = str(tmp / f"writes{writers}")
            pg = writes_per_second(url, writers, args.writes, env)
            fs = writes_per_second(folder, writers, args.writes, env)
            print(f"{writers:>8} {pg:>12.0f} {fs:>16.0f}", flush=True)
    finally:
        if server is not None:
            server.remove()
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
