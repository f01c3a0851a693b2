"""memtui benchmarks: `python -m bench [--quick] [--sizes 500,10000] [--skip-tui]`.

Prints medians (milliseconds) and ratios. Stores are generated deterministically in a temp dir.
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

from bench.corpus import QUERIES, write_store


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


def bench_retrieve(directory: Path, count: int, repeat: int) -> dict[str, float]:
    from memtui_core import MemoryStore

    limits = limits_for(count)

    def cold(i: int) -> None:
        MemoryStore(directory, limits).retrieve_block(QUERIES[i % len(QUERIES)])

    store = MemoryStore(directory, limits)
    store.retrieve_block(QUERIES[0])

    def warm(i: int) -> None:
        store.retrieve_block(QUERIES[i % len(QUERIES)])

    return {
        "cold": median_ms(cold, max(3, repeat // 10)),
        "warm": median_ms(warm, repeat),
    }


def bench_explain(directory: Path, count: int, repeat: int) -> float:
    from memtui_core import MemoryStore

    store = MemoryStore(directory, limits_for(count))
    store.explain(QUERIES[0])
    return median_ms(lambda i: store.explain(QUERIES[i % len(QUERIES)]), max(3, repeat // 10))


def bench_libraries(directory: Path, count: int, repeat: int) -> dict[str, float]:
    """Our index vs bm25s and rank_bm25 on identical document tokens."""
    import numpy as np

    from memtui_core import MemoryStore
    from memtui_core.ranking import Index, document_tokens
    from memtui_core.tokenize import tokenize

    store = MemoryStore(directory, limits_for(count))
    docs = [document_tokens(e.text, e.kind.label, e.kind.value) for e in store.entries()]
    queries = [tokenize(q) for q in QUERIES]
    top_k = 4
    out: dict[str, float] = {}

    def ours_query(index: Index, i: int):
        return index.top(queries[i % len(queries)], top_k)

    out["ours_index"] = median_ms(lambda i: ours_query(Index(docs), i), 3)
    index = Index(docs)
    out["ours_query"] = median_ms(lambda i: ours_query(index, i), repeat)

    try:
        import bm25s

        def bm25s_index():
            retriever = bm25s.BM25(method="atire", idf_method="lucene", k1=1.2, b=0.75, dtype="float64")
            retriever.index(docs, show_progress=False)
            return retriever

        def bm25s_query(retriever, i: int):
            scores = retriever.get_scores(queries[i % len(queries)])
            top = np.argpartition(-scores, top_k)[:top_k]
            return top[np.argsort(-scores[top])]

        out["bm25s_index"] = median_ms(lambda i: bm25s_query(bm25s_index(), i), 3)
        retriever = bm25s_index()
        out["bm25s_query"] = median_ms(lambda i: bm25s_query(retriever, i), repeat)
    except ImportError:
        pass
    try:
        from rank_bm25 import BM25Okapi

        out["rank_bm25_index"] = median_ms(
            lambda i: np.argsort(-BM25Okapi(docs, k1=1.2, b=0.75).get_scores(queries[i % len(queries)]))[:top_k], 3
        )
        okapi = BM25Okapi(docs, k1=1.2, b=0.75)
        out["rank_bm25_query"] = median_ms(
            lambda i: np.argsort(-okapi.get_scores(queries[i % len(queries)]))[:top_k], max(3, repeat // 20)
        )
    except ImportError:
        pass
    return out


def bench_process(directory: Path, runs: int) -> dict[str, float]:
    """Whole-process `memtui inject` against `python -c "import orjson"`."""
    exe = Path(sys.executable)
    script = exe.with_name("memtui")
    inject = [str(script)] if script.exists() else [sys.executable, "-m", "memtui"]
    inject += ["--dir", str(directory), "inject", QUERIES[0]]
    baseline = [sys.executable, "-c", "import orjson"]

    def run(cmd):
        return lambda i: subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    run(inject)(0)
    return {"orjson": median_ms(run(baseline), runs), "inject": median_ms(run(inject), runs)}


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
    return median_ms(lambda i: subprocess.run(doctor, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), runs)


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,10000,100000", help="store sizes (comma separated)")
    parser.add_argument("--repeat", type=int, default=200, help="repetitions of fast measurements")
    parser.add_argument("--quick", action="store_true", help="sizes 500,10000 and fewer repetitions")
    parser.add_argument("--skip-tui", action="store_true", help="skip the Textual measurements")
    parser.add_argument("--skip-process", action="store_true", help="skip the whole-process inject measurement")
    parser.add_argument("--only-doctor", action="store_true", help="only the whole-process doctor measurement")
    args = parser.parse_args(argv)
    sizes = [500, 10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeat = 50 if args.quick else args.repeat

    print(f"# memtui benchmark — Python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores, {platform.platform(terse=True)}")
    print("# medians in milliseconds")
    root = Path(tempfile.mkdtemp(prefix="memtui-bench-"))
    if args.only_doctor:
        sizes = []
    try:
        dirs = {}
        for count in sizes:
            dirs[count] = root / f"s{count}"
            write_store(dirs[count], count)

        print("\n## retrieve_block (cold = first call in a process, reading the file; warm = file unchanged)")
        print(f"{'entries':>8} {'cold':>9} {'warm':>9}")
        for count in sizes:
            r = bench_retrieve(dirs[count], count, repeat)
            print(f"{count:>8} {r['cold']:>9.3f} {r['warm']:>9.3f}")

        print("\n## explain (one query, every entry explained)")
        for count in sizes:
            if count <= 10000:
                print(f"{count:>8} {bench_explain(dirs[count], count, repeat):>9.3f}")

        print("\n## BM25 libraries on identical tokens")
        print("# build = index the corpus + one query; query = score + top 4 on a built index;")
        print("# ratios are the library's time over ours (above 1 means we are faster)")
        print(f"{'entries':>8} | {'ours':>8} {'bm25s':>8} {'rank':>8} {'bm25s/us':>9} {'rank/us':>8} | "
              f"{'ours q':>8} {'bm25s q':>8} {'rank q':>8} {'bm25s/us':>9} {'rank/us':>8}")
        for count in sizes:
            r = bench_libraries(dirs[count], count, repeat)

            def ratio(key: str, ours: str) -> str:
                return f"{r[key] / r[ours]:.2f}x" if key in r else "-"

            print(f"{count:>8} | {r['ours_index']:>8.2f} {r.get('bm25s_index', float('nan')):>8.2f} "
                  f"{r.get('rank_bm25_index', float('nan')):>8.2f} {ratio('bm25s_index', 'ours_index'):>9} "
                  f"{ratio('rank_bm25_index', 'ours_index'):>8} | {r['ours_query']:>8.3f} "
                  f"{r.get('bm25s_query', float('nan')):>8.3f} {r.get('rank_bm25_query', float('nan')):>8.3f} "
                  f"{ratio('bm25s_query', 'ours_query'):>9} {ratio('rank_bm25_query', 'ours_query'):>8}")

        if not args.skip_process and 500 in dirs:
            print("\n## `memtui inject QUERY` as a whole process, 500 entries")
            p = bench_process(dirs[500], 10 if args.quick else 30)
            print(f"python -c 'import orjson': {p['orjson']:.1f} ms   memtui inject: {p['inject']:.1f} ms   "
                  f"ratio {p['inject'] / p['orjson']:.2f}x (target <= 3x)")

        if not args.skip_process or args.only_doctor:
            print("\n## `memtui doctor` as a whole process, 5000 near-identical notes (target <= 1 s)")
            print(f"memtui doctor: {bench_doctor(root):.0f} ms")

        if not args.skip_tui and not args.only_doctor:
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
