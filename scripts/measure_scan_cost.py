"""Measure the threat scan's share of a cold `retrieve_block`: a fresh process opens a store of
500 entries (each scanned on load) and builds one block.

    .venv/bin/python scripts/measure_scan_cost.py            # 15 runs per store, prints medians
    .venv/bin/python scripts/measure_scan_cost.py --runs 30
    .venv/bin/python scripts/measure_scan_cost.py --before /tmp/before   # interleaved with an older engine

`--before DIR` names a folder holding another `memtui_core` package (for example the main
branch's `core/` copied there under that name); its runs alternate with this one's, so a busy
machine slows both alike.

Two stores are built in a temporary directory: `plain` holds mixed Chinese and English text
(as scripts/measure_inject.py builds it); `varied` is the same with one entry in five carrying
characters that send the scan down its full normalisation path (accents, dashes, emoji, Cyrillic,
Japanese, Korean). Byte-code caching is on in the children. Each child reports the time to import the engine and the time from opening
the store to the block, so the import cost and the scan cost are seen apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_inject import QUERY, mixed_text  # noqa: E402

_VARIED = ("café naïve résumé", "deploy — then verify", "👩‍💻 on call ❤️", "Привет, сервер",
           "デプロイ前にテストを実行する", "배포 전에 테스트를 실행한다", "“quoted” ‘text’ → arrows")
_KINDS = ("preference", "correction", "lesson", "fact")

_CHILD = """
import sys, time
t0 = time.perf_counter()
from memtui_core import MemoryStore
t1 = time.perf_counter()
block = MemoryStore(sys.argv[1]).retrieve_block(sys.argv[2])
t2 = time.perf_counter()
assert block, "empty block"
print(f"{(t1 - t0) * 1000:.2f} {(t2 - t1) * 1000:.2f}")
"""


def build(directory: Path, varied: bool) -> None:
    rng = random.Random(7)
    entries = []
    for i in range(500):
        text = mixed_text(rng)
        if varied and i % 5 == 0:
            text = rng.choice(_VARIED) + " " + text
        entries.append({"id": f"{i:012x}", "kind": _KINDS[i % 4], "text": text, "source": "bench", "ts": 1700000000 + i})
    directory.mkdir(parents=True)
    (directory / "memory.json").write_text(json.dumps({"entries": entries}, ensure_ascii=False), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="DIR", help="a folder holding an older memtui_core to compare with")
    args = parser.parse_args()
    # Byte-code caching on, as in an installed package (see scripts/measure_inject.py).
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("plain", "varied"):
            store = Path(tmp) / name
            build(store, name == "varied")
            engines = {"this": env}
            if args.before:
                engines = {"before": {**env, "PYTHONPATH": args.before}, "this": env}
            times: dict[str, tuple[list[float], list[float]]] = {engine: ([], []) for engine in engines}
            for engine_env in engines.values():
                subprocess.run([sys.executable, "-c", _CHILD, str(store), QUERY], check=True, capture_output=True,
                               env=engine_env)
            for _ in range(args.runs):
                for engine, engine_env in engines.items():
                    out = subprocess.run([sys.executable, "-c", _CHILD, str(store), QUERY], check=True,
                                         capture_output=True, text=True, env=engine_env).stdout.split()
                    times[engine][0].append(float(out[0]))
                    times[engine][1].append(float(out[1]))
            for engine, (imports, blocks) in times.items():
                print(f"{name:7} {engine:6} import {statistics.median(imports):7.1f} ms   "
                      f"open + first retrieve_block (500 entries) {statistics.median(blocks):7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
