"""Does numpy pay for itself? `retrieve_block` with and without it, at several store sizes.

    python scripts/measure_numpy.py [--sizes 500,2000,10000] [--repeat 200]

For each size, three fresh processes over the same generated store: `pure` (numpy made
unimportable), `default` (numpy used from ranking.VECTOR_MIN_DOCS entries up, when installed) and
`numpy` (array scoring forced at every size). Each prints the first call (reads the file, builds
the index) and the median of warm calls, in milliseconds, plus the process's import time of numpy.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, statistics, sys, time
mode, directory, count, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if mode == "pure":
    sys.modules["numpy"] = None  # import numpy now raises ImportError, as when it is not installed
from memtui_core import Limits, MemoryStore
from memtui_core.ranking import index as ranking
from bench.corpus import QUERIES
if mode == "numpy":
    ranking.VECTOR_MIN_DOCS = 0
limits = Limits(max_entries=max(500, count))
start = time.perf_counter()
store = MemoryStore(directory, limits)
store.retrieve_block(QUERIES[0])
first = (time.perf_counter() - start) * 1000
times = []
for i in range(repeat):
    start = time.perf_counter()
    store.retrieve_block(QUERIES[i % len(QUERIES)])
    times.append(time.perf_counter() - start)
print(json.dumps({"first": first, "warm": statistics.median(times) * 1000,
                  "numpy_loaded": "numpy" in sys.modules and sys.modules["numpy"] is not None}))
"""


def run(mode: str, directory: Path, count: int, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(directory), str(count), str(repeat)],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,10000")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.corpus import write_store

    print(f"{'entries':>8}  {'mode':<8}  {'first ms':>9}  {'warm ms':>8}  numpy loaded")
    with tempfile.TemporaryDirectory() as tmp:
        for count in (int(s) for s in args.sizes.split(",")):
            directory = Path(tmp) / str(count)
            write_store(directory, count)
            for mode in ("pure", "default", "numpy"):
                r = run(mode, directory, count, args.repeat)
                print(f"{count:>8}  {mode:<8}  {r['first']:>9.2f}  {r['warm']:>8.3f}  {r['numpy_loaded']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
