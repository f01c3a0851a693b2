"""Where a cold `memtui inject` spends its time: cProfile of fresh processes.

    .venv/bin/python scripts/profile_inject.py --sizes 500,10000 [--top 25]

For each size a realistic store (bench/corpus.py) is written to a temporary directory, one
`memtui inject` process warms the byte-code and the page cache, then a fresh process runs the same
command under cProfile (`python -m cProfile -o FILE -m memtui ...`). Printed: the wall time of that
process, the functions with the highest cumulative time, and the share of the total spent in
starting Python and importing the CLI (before its main runs), regex compilation, reading and parsing
the file, the threat scan and the index build (buckets may overlap: a scan compiles its rules).
"""

from __future__ import annotations

import argparse
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import QUERIES, write_realistic_store  # noqa: E402

# (label, predicate on (file, line, function)) -- cumulative time of the outermost matching frames
BUCKETS = {
    "regex compile": lambda f, fn: f.endswith(("re/__init__.py", "re/_compiler.py", "re/_parser.py")) and fn in ("_compile", "compile"),
    "parse file": lambda f, fn: fn == "parse_document",
    "threat scan": lambda f, fn: fn == "scan_text",
    "index build": lambda f, fn: fn == "__init__" and f.endswith("ranking.py") or fn in ("build_parts", "derive"),
    "index file": lambda f, fn: f.endswith("derived.py") and fn in ("read", "save"),
}


def profile(directory: Path, query: str, out: Path) -> float:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "memtui", "--dir", str(directory), "inject", query]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, env=env, check=False)  # warm-up
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out)] + cmd[1:], stdout=subprocess.DEVNULL,
                   env=env, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,10000")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="memtui-profile-"))
    try:
        for count in (int(s) for s in args.sizes.split(",")):
            directory = root / f"s{count}"
            write_realistic_store(directory, count)
            out = root / f"s{count}.prof"
            wall = profile(directory, QUERIES[0], out)
            stats = pstats.Stats(str(out))
            total = stats.total_tt  # type: ignore[attr-defined]
            print(f"\n## cold `memtui inject`, {count} entries: {wall * 1000:.0f} ms wall under cProfile, "
                  f"{total * 1000:.0f} ms profiled")
            raw = stats.stats  # type: ignore[attr-defined]
            front_door = os.path.join("cli", "__init__.py")  # memtui.cli.main
            in_main = max((v[3] for (f, _l, fn), v in raw.items() if fn == "main" and f.endswith(front_door)),
                          default=0.0)
            start = total - in_main
            print(f"  {'start+imports':<14} {start * 1000:8.1f} ms  {100 * start / total:5.1f}%  (before the CLI's main)")
            for label, match in BUCKETS.items():
                cum = 0.0
                for (file, _line, fn), (_cc, _nc, _tt, ct, callers) in raw.items():
                    if not match(file, fn):
                        continue
                    # only the outermost frames: skip a frame called from another matching frame
                    if any(match(cf, cfn) for (cf, _cl, cfn) in callers):
                        continue
                    cum += ct
                print(f"  {label:<14} {cum * 1000:8.1f} ms  {100 * cum / total:5.1f}%")
            stats.sort_stats("cumulative").print_stats(args.top)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
