"""Figures for docs/storage.md#sharing-a-store-postgresql: what a turn and a write cost when the store is in
PostgreSQL, beside the same store in a folder.

    .venv/bin/python scripts/measure_pg.py [--url postgresql://...] [--sizes 500 10000] [--rounds 15]
                                           [--before TREE] [--log-off] [--no-writes]

Without --url a throwaway server is started in a temporary folder (tests/pg_server.py, with
fsync on, as a real server has it) and removed at the end. For each size, the same entries go into a folder store and a database store
(imported from the folder, so both hold the same bytes); then:

- `memtui inject` as a whole fresh process, folder and database runs interleaved (so load on the
  machine falls on both alike), median of --rounds each, after one warm-up run each (which makes
  the derived index and the local copy of the database's version);
- a warm query in one process (`retrieve_block`, the store already open), median of 200, in a
  process of its own, folder and database (and --before) runs interleaved, median of 3 such runs;
- with --before TREE (a checkout of an earlier commit), the database's turn and warm query with
  that code too, interleaved with this code's, to measure what a change costs;
- with --log-off, the database's turn with the injection log off too (MEMTUI_INJECTION_LOG=off):
  what the log's row costs a turn;
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


def run(*args: str, env: dict | None = None, cwd: Path = REPO) -> float:
    start = time.perf_counter()
    subprocess.run(MEMTUI + list(args), check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd)
    return time.perf_counter() - start


def code_of(tree: Path, tmp: Path, env: dict, label: str) -> tuple[dict, Path]:
    """The environment and working folder that run the code of the checkout `tree` (its `memtui`
    and `memtui_core` ahead of any installed one on the path), with a local cache of its own (the
    derived index is keyed by the code that made it: two codes sharing one would remake it)."""
    links = tmp / f"code-{label}"
    links.mkdir(exist_ok=True)
    for name, target in (("memtui_core", tree / "core"), ("memtui", tree / "memtui")):
        if not (links / name).exists():
            (links / name).symlink_to(target)
    return {**env, "PYTHONPATH": str(links), "MEMTUI_CACHE_DIR": str(tmp / f"cache-{label}")}, tree


def per_turn(runs: dict[str, tuple[str, dict, Path]], rounds: int) -> dict[str, float]:
    """Median time of `memtui inject` per named run (where, env, cwd), the runs interleaved and
    their order turned round every round."""
    for where, env, cwd in runs.values():  # warm-up: the derived index, the version's local copy
        run("--dir", where, "inject", QUERIES[0], env=env, cwd=cwd)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for i in range(rounds):
        for name in (list(runs) if i % 2 == 0 else list(runs)[::-1]):
            where, env, cwd = runs[name]
            times[name].append(run("--dir", where, "inject", QUERIES[i % len(QUERIES)], env=env, cwd=cwd))
    return {name: statistics.median(found) for name, found in times.items()}


WARM = """
import statistics, sys, time
from memtui_core.memory import MemoryStore
queries = sys.argv[2:]
store = MemoryStore(sys.argv[1])
for _ in range(20):
    store.retrieve_block(queries[0])
time.sleep(0.5)  # a listening process has its listener connected by now
samples = []
for i in range(200):
    start = time.perf_counter()
    store.retrieve_block(queries[i % len(queries)])
    samples.append(time.perf_counter() - start)
store.injection_log.flush()
print(statistics.median(samples))
"""


def warm(runs: dict[str, tuple[str, dict, Path]], rounds: int = 3) -> dict[str, float]:
    """Median of `retrieve_block` in a process that has the store open, per named run: each
    round one process per run, interleaved; the median of the rounds' medians."""
    found: dict[str, list[float]] = {name: [] for name in runs}
    for i in range(rounds):
        for name in (list(runs) if i % 2 == 0 else list(runs)[::-1]):
            where, env, cwd = runs[name]
            out = subprocess.run([sys.executable, "-c", WARM, where, *QUERIES], check=True, capture_output=True,
                                 env=env, cwd=cwd, text=True).stdout
            found[name].append(float(out.split()[-1]))
    return {name: statistics.median(values) for name, values in found.items()}


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
    parser.add_argument("--before", type=Path, help="a checkout of earlier code: its database turn beside this one's")
    parser.add_argument("--log-off", action="store_true", help="also the database's turn without the injection log")
    parser.add_argument("--no-writes", action="store_true", help="skip the writes per second")
    args = parser.parse_args()
    server = None
    base = args.url
    if base is None:
        sys.path.insert(0, str(REPO / "tests"))
        import pg_server

        server = pg_server.start(durable=True)  # fsync on, as a real server: writes pay for the disk
        base = server.url()
    tmp = Path(tempfile.mkdtemp(prefix="memtui-measure-pg-"))
    env, _here = code_of(REPO, tmp, dict(os.environ), "this")  # this checkout's code, whatever is installed
    sep = "&" if "?" in base else "?"
    try:
        before = code_of(args.before.resolve(), tmp, env, "before") if args.before else None
        head = (f"{'entries':>8} {'inject folder':>14} {'inject pg':>10} {'ratio':>6} {'warm folder':>12} {'warm pg':>9} "
                f"{'ratio':>6}")
        print(head + (f" {'inject pg before':>17} {'warm pg before':>15}" if before else "")
              + (f" {'inject pg log off':>18}" if args.log_off else ""))
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
            runs = {"folder": (folder, env, REPO), "pg": (url, env, REPO)}
            if before:
                runs["before"] = (url, *before)
            turns = dict(runs)
            if args.log_off:
                turns["log off"] = (url, {**env, "MEMTUI_INJECTION_LOG": "off",
                                          "MEMTUI_CACHE_DIR": str(tmp / "cache-log-off")}, REPO)
            turn, hot = per_turn(turns, args.rounds), warm(runs)
            line = (f"{n:>8} {turn['folder'] * 1000:>12.1f}ms {turn['pg'] * 1000:>8.1f}ms "
                    f"{turn['pg'] / turn['folder']:>6.2f} {hot['folder'] * 1000:>10.2f}ms {hot['pg'] * 1000:>7.2f}ms "
                    f"{hot['pg'] / hot['folder']:>6.2f}")
            if before:
                line += f" {turn['before'] * 1000:>15.1f}ms {hot['before'] * 1000:>13.2f}ms"
            if args.log_off:
                line += f" {turn['log off'] * 1000:>16.1f}ms"
            print(line, flush=True)
        if args.no_writes:
            return
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
