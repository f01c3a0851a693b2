"""memtui benchmarks: `python -m bench [--quick] [--sizes 500,2000,10000] [--big] [--skip-tui]`.

Measured the way agents pay for memory, and always next to a peer in the same run (the machine
may be loaded: compare the ratios, not the absolute times). Medians in milliseconds.

- per turn, a new process: `memtui inject QUERY` from spawn to exit, `.pyc` present, against
  `python -c "import orjson"` and against a process querying SQLite FTS5 with its index on disk;
  the commands run interleaved after a warm-up.
- a long-running agent: `retrieve_block` in one process with a query whose terms were never
  queried before (each query new), next to one of 8 repeated queries (the whole turn: stopwords,
  ranking, gate, blocked check, rendering, log); our ranking step alone (`Index.top`) on the very
  token lists scored by bm25s, rank_bm25 and FTS5 (in memory and on disk): like for like.
  `python -m bench.ab BEFORE AFTER` compares two trees' warm queries, interleaved.
- cold in-process: a new MemoryStore in a warm interpreter (what the app pays on a reload).
- RSS: peak resident memory of a process holding the store ready to answer, each peer in its
  own process (`python -m bench.rss`).
The corpus (bench/corpus.py, `make_realistic_entries`): 20-400 characters, 60% Chinese-dominant,
fullwidth punctuation and forms, ￥ ％ ℃, emoji with variation selectors, URLs, paths, digits.
100k entries are measured with `--big` (building and scoring it takes minutes).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.corpus import QUERIES, fresh_queries, write_realistic_store

TOP_K = 4


def median_ms(fn, repeat: int) -> float:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def limits_for(count: int):
    from memtui_core import Limits

    return Limits(max_entries=max(500, count))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # .pyc present, as in an installed package
    return env


def bench_process(directory: Path, runs: int, query: str) -> dict[str, float]:
    """Whole processes, interleaved: orjson import (the floor), FTS5 on disk, memtui inject."""
    import orjson

    from bench import peers
    from memtui_core.ranking.index import document_tokens
    from memtui_core.kinds import Kind
    from memtui_core.text.tokenize import tokenize

    entries = orjson.loads((directory / "memory.json").read_bytes())["entries"]
    docs = [document_tokens(e["text"], Kind(e["kind"]).label, e["kind"]) for e in entries]
    db_path = directory / "fts5.db"
    peers.fts5_build(docs, db_path).close()
    match = peers.fts5_match(tokenize(query))
    exe = Path(sys.executable)
    script = exe.with_name("memtui")
    commands = {
        "orjson": [sys.executable, "-c", "import orjson"],
        "fts5_disk": [sys.executable, "-c",
                      "import sqlite3,sys;db=sqlite3.connect(sys.argv[1]);"
                      "print(db.execute('SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT 4',"
                      "(sys.argv[2],)).fetchall())", str(db_path), match],
        "inject": ([str(script)] if script.exists() else [sys.executable, "-m", "memtui"])
        + ["--dir", str(directory), "inject", query],
    }
    env = _env()
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, cmd in commands.items():  # warm-up: .pyc written, page cache filled
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    for _ in range(runs):
        for name, cmd in commands.items():
            start = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
            times[name].append(time.perf_counter() - start)
    db_path.unlink()
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def bench_queries(directory: Path, count: int, repeat: int) -> dict[str, float]:
    """Warm queries in one process: ours (repeated and never-seen terms) and the peers."""
    from bench import peers
    from memtui_core import MemoryStore
    from memtui_core.ranking.index import document_tokens
    from memtui_core.text.tokenize import tokenize

    limits = limits_for(count)
    out: dict[str, float] = {}
    out["cold_inprocess"] = median_ms(lambda i: MemoryStore(directory, limits).retrieve_block(QUERIES[i % 8]),
                                      3 if count >= 50000 else 5)
    store = MemoryStore(directory, limits)
    entries = store.entries()
    texts = [e.text for e in entries]
    fresh = fresh_queries(texts, repeat * 3)
    for q in QUERIES:
        store.retrieve_block(q)
    out["ours_repeated"] = median_ms(lambda i: store.retrieve_block(QUERIES[i % 8]), repeat)
    out["ours_fresh"] = median_ms(lambda i: store.retrieve_block(fresh[i]), repeat)

    docs = [document_tokens(e.text, e.kind.label, e.kind.value) for e in entries]
    fresh_tokens = [tokenize(q) for q in fresh[repeat:]]
    # The ranking step alone, like for like with the peers: the same token lists (no stopwords,
    # no folding, no gate, no blocked check, no rendering, no log) to the best 4 ids.
    index = store._snap(lean=True).index
    index.top(tokenize(QUERIES[0]), TOP_K)  # past the first query, as a long-running agent is
    out["ours_rank"] = median_ms(lambda i: index.top(fresh_tokens[i], TOP_K), repeat)
    try:
        retriever = peers.bm25s_build(docs)
        out["bm25s"] = median_ms(lambda i: peers.bm25s_query(retriever, fresh_tokens[i]), repeat)
        del retriever
    except ImportError:
        pass
    if count <= 10000:  # rank_bm25 scores every document in Python: minutes at 100k
        try:
            okapi = peers.rank_bm25_build(docs)
            out["rank_bm25"] = median_ms(lambda i: peers.rank_bm25_query(okapi, fresh_tokens[i]), max(5, repeat // 10))
            del okapi
        except ImportError:
            pass
    db = peers.fts5_build(docs)
    out["fts5_memory"] = median_ms(lambda i: peers.fts5_query(db, fresh_tokens[i]), repeat)
    db.close()
    db = peers.fts5_build(docs, directory / "fts5.db")
    out["fts5_disk"] = median_ms(lambda i: peers.fts5_query(db, fresh_tokens[i]), repeat)
    db.close()
    (directory / "fts5.db").unlink()
    return out


def bench_rss(directory: Path, count: int) -> dict[str, float]:
    out = {}
    whos = ["baseline", "ours", "ours-derive", "bm25s", "fts5-memory", "fts5-disk"] + (["rank_bm25"] if count <= 10000 else [])
    for who in whos:
        done = subprocess.run([sys.executable, "-m", "bench.rss", who, str(directory)], capture_output=True,
                              text=True, env=_env(), check=False)
        try:
            out[who] = float(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            out[who] = float("nan")
    (directory / "fts5.db").unlink(missing_ok=True)
    return out


def bench_doctor(root: Path, count: int = 5000, runs: int = 3) -> float:
    """Whole-process `memtui doctor` on `count` near-identical template notes (the case that was
    quadratic: every entry a near-duplicate candidate of every other)."""
    import orjson

    directory = root / f"doctor{count}"
    directory.mkdir(parents=True, exist_ok=True)
    topics = ["deploy pipeline", "build cache", "release notes", "database migration", "code review"]
    entries = [{"id": f"{i:012x}", "kind": "fact", "text": f"note {i} about the {topics[i % 5]} for service {i % 50}",
                "source": "bench", "ts": i} for i in range(count)]
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": entries}))
    doctor = [sys.executable, "-m", "memtui", "--dir", str(directory), "doctor"]
    return median_ms(lambda i: subprocess.run(doctor, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env()),
                     runs)


def bench_tui(directory: Path, count: int) -> dict[str, float]:
    """First screen with rows (a new process, and in-process) and explain refresh, via scripts/measure_tui.py."""
    import asyncio
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "measure_tui", Path(__file__).resolve().parents[1] / "scripts" / "measure_tui.py"
    )
    measure = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(measure)  # type: ignore[union-attr]
    out = {
        "first_screen_process": statistics.median(measure.cold_start(directory, count) for _ in range(3)) * 1000,
        "first_screen": statistics.median(asyncio.run(measure.warm_start(directory, count)) for _ in range(3)) * 1000,
    }
    if count <= 500:
        _core, refresh, _key = asyncio.run(measure.explain_refresh(directory))
        out["explain_refresh"] = statistics.median(refresh) * 1000
    return out


def _f(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or value != value else f"{value:.{digits}f}"


def bench_injection_log(directory: Path, count: int, repeat: int) -> dict[str, float]:
    """Warm retrieve_block with the injection log off and on, interleaved so drift hits both alike."""
    from memtui_core import MemoryStore

    limits = limits_for(count)
    off = MemoryStore(directory, limits.replace(injection_log=0))
    on = MemoryStore(directory, limits)
    off.retrieve_block(QUERIES[0])
    on.retrieve_block(QUERIES[0])
    times: dict[str, list[float]] = {"off": [], "on": []}
    for i in range(repeat * 5):
        for name, store in (("off", off), ("on", on)) if i % 2 else (("on", on), ("off", off)):
            start = time.perf_counter()
            store.retrieve_block(QUERIES[i % len(QUERIES)])
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def bench_meaning(directory: Path, count: int, repeat: int) -> dict[str, float] | None:
    """A long-running process ranking by meaning (`Limits.semantic()`): the whole warm
    retrieve_block with never-seen messages, the message's embedding included, beside the words
    alone on the same messages, interleaved. Every entry has a vector (random unit vectors keyed
    by the entries' texts, written to the store's vector file: embedding 10,000 real texts takes
    the model over ten minutes here, and the cost of a turn does not depend on the numbers).
    Also the message's embedding alone. None without the model."""
    import numpy as np

    from memtui_core import MemoryStore
    from memtui_core.store import vectors
    from memtui_core.text import semantic

    if semantic.status() != "ok":
        return None
    limits = limits_for(count)
    words = MemoryStore(directory, limits)
    words.entries()  # every entry's threat verdict known, as in a store past its first listing
    meaning = MemoryStore(directory, limits.with_profile("semantic"))
    records = meaning._snap(lean=False).records
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((len(records), semantic.DIMENSIONS)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    with_keywords = meaning.limits.keyword_weight > 0
    keyed = {vectors.passage_key(vectors.passage_text(r.text, r.keywords, with_keywords)): row
             for r, row in zip(records, rows)}
    from memtui_core.store.fileio import atomic_write

    atomic_write(directory / ("memory.json" + vectors.VECTORS_SUFFIX),  # 0600, as the store writes it
                 vectors.encode(keyed, semantic.MODEL_ID, semantic.DIMENSIONS))
    assert meaning.warm(wait=False) == "ok"
    assert not meaning._snap(lean=False).meaning.missing(), "every entry has its vector"
    from memtui_core.ranking import meaning as rule

    fresh = fresh_queries([r.text for r in records], repeat, seed=11)
    meaning.retrieve_block(QUERIES[0])
    words.retrieve_block(QUERIES[0])
    times: dict[str, list[float]] = {"words": [], "rest": [], "embedding": [], "turn": []}
    for i in range(repeat):
        start = time.perf_counter()
        words.retrieve_block(fresh[i])
        times["words"].append(time.perf_counter() - start)
        start = time.perf_counter()
        rule.query_vector(fresh[i])  # the message's embedding (kept for the turn, as explain and the block share it)
        embedded = time.perf_counter()
        meaning.retrieve_block(fresh[i])
        done = time.perf_counter()
        times["embedding"].append(embedded - start)
        times["rest"].append(done - embedded)
        times["turn"].append(done - start)
    return {name: statistics.median(values) * 1000 for name, values in times.items()} | {
        "turn_p90": statistics.quantiles(times["turn"], n=10)[-1] * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,10000", help="store sizes (comma separated)")
    parser.add_argument("--big", action="store_true", help="add 100000 entries (takes minutes)")
    parser.add_argument("--repeat", type=int, default=200, help="repetitions of in-process measurements")
    parser.add_argument("--runs", type=int, default=20, help="runs of each whole-process command")
    parser.add_argument("--quick", action="store_true", help="sizes 500,10000, fewer repetitions, no TUI")
    parser.add_argument("--skip-tui", action="store_true", help="skip the Textual measurements")
    parser.add_argument("--skip-rss", action="store_true", help="skip the RSS measurements")
    parser.add_argument("--doctor", action="store_true", help="add the whole-process doctor measurement")
    parser.add_argument("--only-doctor", action="store_true", help="only the whole-process doctor measurement")
    args = parser.parse_args(argv)
    sizes = [500, 10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    if args.big and 100000 not in sizes:
        sizes.append(100000)
    repeat = 40 if args.quick else args.repeat
    runs = 8 if args.quick else args.runs

    print(f"# memtui benchmark — Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores, {platform.platform(terse=True)}; medians in ms; realistic corpus")
    root = Path(tempfile.mkdtemp(prefix="memtui-bench-"))
    if args.only_doctor:
        sizes = []
    try:
        dirs = {}
        for count in sizes:
            dirs[count] = root / f"s{count}"
            write_realistic_store(dirs[count], count)

        print("\n## per turn, a new process: `memtui inject` vs `python -c 'import orjson'` and FTS5 on disk")
        print(f"{'entries':>8} {'orjson':>8} {'fts5':>8} {'inject':>8} {'inj/orjson':>11} {'inj/fts5':>9}")
        for count in sizes:
            p = bench_process(dirs[count], max(3, runs // 4) if count >= 50000 else runs, QUERIES[0])
            print(f"{count:>8} {p['orjson']:>8.1f} {p['fts5_disk']:>8.1f} {p['inject']:>8.1f} "
                  f"{p['inject'] / p['orjson']:>10.2f}x {p['inject'] / p['fts5_disk']:>8.2f}x")

        print("\n## a long-running agent: warm queries in one process (never-seen terms unless marked)")
        print("(block: the whole warm retrieve_block -- stopwords, ranking, gate, blocked check, rendering, log;")
        print(" rank: our ranking step alone, the same token lists as the peers to the best 4 ids, like bm25s)")
        print(f"{'entries':>8} {'cold':>9} {'repeated':>9} {'block':>9} {'rank':>8} | {'bm25s':>8} {'rank_bm25':>9} "
              f"{'fts5 mem':>8} {'fts5 disk':>9} | {'rank/bm25s':>10} {'block/bm25s':>11}")
        for count in sizes:
            r = bench_queries(dirs[count], count, repeat if count < 50000 else max(10, repeat // 4))
            ratios = [f"{r[ours] / r['bm25s']:.2f}x" if "bm25s" in r else "-" for ours in ("ours_rank", "ours_fresh")]
            print(f"{count:>8} {r['cold_inprocess']:>9.2f} {r['ours_repeated']:>9.3f} {r['ours_fresh']:>9.3f} "
                  f"{r['ours_rank']:>8.3f} | {_f(r.get('bm25s')):>8} {_f(r.get('rank_bm25')):>9} "
                  f"{_f(r.get('fts5_memory')):>8} {_f(r.get('fts5_disk')):>9} | {ratios[0]:>10} {ratios[1]:>11}")

        print("\n## a long-running agent ranking by meaning: warm retrieve_block, never-seen messages (target <= 20 ms)")
        print("(words: the default profile's turn; turn: the semantic profile's, the message's embedding included,")
        print(" split into the embedding and the rest: words, every entry's cosine, the rules, rendering, log)")
        for count in sizes:
            if count <= 10000:
                r = bench_meaning(dirs[count], count, max(20, repeat // 4))
                if r is None:
                    print(f"{count:>8}   the sentence model is unavailable here")
                    continue
                print(f"{count:>8}   words {r['words']:.3f}   turn {r['turn']:.2f} (90th percentile {r['turn_p90']:.2f})"
                      f" = embedding {r['embedding']:.2f} + rest {r['rest']:.3f}   (load average "
                      f"{os.getloadavg()[0]:.1f})")

        print("\n## injection log: warm retrieve_block with the log off and on (goal: <= 5% more)")
        for count in sizes:
            if count <= 10000:
                r = bench_injection_log(dirs[count], count, repeat)
                print(f"{count:>8}   off {r['off']:.3f}   on {r['on']:.3f}   cost {(r['on'] / r['off'] - 1) * 100:+.1f}%")

        if not args.skip_rss:
            print("\n## peak RSS (MiB) of a process holding the store ready to answer")
            print("(ours: a process answering with the saved index, as every turn after the first; deriving: the")
            print(" process that finds no index, parses the whole file and saves one)")
            print(f"{'entries':>8} {'baseline':>9} {'ours':>8} {'deriving':>9} {'bm25s':>8} {'rank':>8} {'fts5 mem':>9} "
                  f"{'fts5 disk':>9}")
            for count in sizes:
                m = bench_rss(dirs[count], count)
                print(f"{count:>8} {_f(m.get('baseline'), 1):>9} {_f(m.get('ours'), 1):>8} {_f(m.get('ours-derive'), 1):>9} "
                      f"{_f(m.get('bm25s'), 1):>8} {_f(m.get('rank_bm25'), 1):>8} "
                      f"{_f(m.get('fts5-memory'), 1):>9} {_f(m.get('fts5-disk'), 1):>9}")

        if args.only_doctor or args.doctor:
            print("\n## `memtui doctor` as a whole process, 5000 near-identical notes (target <= 1 s)")
            print(f"memtui doctor: {bench_doctor(root):.0f} ms")

        if not (args.skip_tui or args.quick or args.only_doctor):
            print("\n## TUI (App.run_test, headless)")
            for count in sizes:
                if count <= 10000:
                    t = bench_tui(dirs[count], count)
                    line = (f"{count:>8} entries: first screen {t['first_screen_process']:.0f} ms from a new process "
                            f"({t['first_screen']:.0f} ms in-process)")
                    if "explain_refresh" in t:
                        line += f", explain refresh after a keystroke {t['explain_refresh']:.1f} ms"
                    print(line)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
