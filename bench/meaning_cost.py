"""Meaning's cost a turn in a long-running process: `python -m bench.meaning_cost [--sizes 500,10000] [--repeat 60]`.

For each store size (the realistic corpus of bench/corpus.py), one process holds two stores on the
same folder: the default profile (words alone) and the semantic profile (the default in a
long-running process: words, then meaning). Every turn is a never-seen message, and the two are
measured interleaved, message by message:

- words: the default profile's whole warm `retrieve_block` (what `python -m bench` calls "block");
- embedding: the message's embedding alone (multilingual-e5-small, the query side);
- rest: the semantic profile's `retrieve_block` once the message's vector is known (the words,
  every entry's cosine in blocks of 1,024 rows, the keep and admit rules, rendering, the log);
- turn: embedding + rest, what the long-running default pays a turn.

Every entry has a vector: random unit vectors keyed by the entries' texts, written to the store's
vector file as the store writes it (0600). Embedding 10,000 real texts would take the model over
ten minutes here, and a turn's cost does not depend on the numbers in the vectors. Medians and
the 90th percentile in milliseconds, with the load average (the machine is shared: compare the
columns of one run, not runs minutes apart). Needs the sentence model (Linux x86-64).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

TARGET_MS = 20.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.meaning_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,10000", help="store sizes (comma separated)")
    parser.add_argument("--repeat", type=int, default=60, help="never-seen messages per size")
    args = parser.parse_args(argv)
    from bench.__main__ import bench_meaning
    from bench.corpus import write_realistic_store
    from memtui_core.text import semantic

    if semantic.status() != "ok":
        print(f"the sentence model is unavailable here: {semantic.status()}", file=sys.stderr)
        return 1
    root = Path(tempfile.mkdtemp(prefix="memtui-meaning-cost-"))
    print(f"# meaning's cost a turn, medians in ms (target <= {TARGET_MS:.0f} ms a turn); "
          f"{os.cpu_count()} cores")
    print(f"{'entries':>8} {'words':>7} {'embedding':>10} {'rest':>7} {'turn':>7} {'turn p90':>9} {'load':>5}")
    try:
        for count in [int(size) for size in args.sizes.split(",")]:
            directory = root / f"s{count}"
            write_realistic_store(directory, count)
            r = bench_meaning(directory, count, args.repeat)
            assert r is not None
            print(f"{count:>8} {r['words']:>7.2f} {r['embedding']:>10.2f} {r['rest']:>7.2f} {r['turn']:>7.2f} "
                  f"{r['turn_p90']:>9.2f} {os.getloadavg()[0]:>5.1f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
