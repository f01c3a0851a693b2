"""Measure the threat scan's share of a cold `retrieve_block`: a fresh process opens a store of
500 entries (each scanned on load) and builds one block.

    .venv/bin/python scripts/measure_scan_cost.py            # 15 runs per store, prints medians
    .venv/bin/python scripts/measure_scan_cost.py --runs 30
    .venv/bin/python scripts/measure_scan_cost.py --before /tmp/before   # interleaved with an older engine

`--before DIR` names a folder holding another `memtui_core` package (for example the main
branch's `core/` copied there under that name); its runs alternate with this one's, so a busy
machine slows both alike.

    .venv/bin/python scripts/measure_scan_cost.py --writes       # the write path, semantic third opinion on/off

`--writes` measures what a write pays for the threat scan, with the semantic third opinion
(core/safety/threat_model_semantic.py) on and with `MEMTUI_SEMANTIC=off`, on the benign notes of
tests/core/safety/data (real developer notes; each made unique): the median `remember` in a warm process,
the median fresh `memtui add` process, and one import of 1,000 entries (embedded together, 64 a
model call), beside 200 of them written one `remember` at a time.

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
import time
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


_WRITES_CHILD = """
import json, statistics, sys, time
from memtui_core import Limits, MemoryStore
from memtui_core.agents.transfer import import_file
limits = Limits(max_entries=2000)
texts = json.loads(open(sys.argv[2], encoding="utf-8").read())
store = MemoryStore(sys.argv[1] + "/warm")
store.remember("fact", "a first write loads what the scan needs, which a warm process has already paid")
times = []
for text in texts[:40]:
    t0 = time.perf_counter()
    store.remember("fact", text)
    times.append(time.perf_counter() - t0)
one_by_one = time.perf_counter()
alone = MemoryStore(sys.argv[1] + "/alone", limits)
for text in texts[:200]:
    alone.remember("fact", text)
one_by_one = time.perf_counter() - one_by_one
with open(sys.argv[1] + "/in.jsonl", "w", encoding="utf-8") as out:
    out.writelines(json.dumps({"kind": "fact", "text": text}, ensure_ascii=False) + "\\n" for text in texts[:1000])
t0 = time.perf_counter()
plan = import_file(MemoryStore(sys.argv[1] + "/imported", limits), sys.argv[1] + "/in.jsonl")
imported = time.perf_counter() - t0
print(json.dumps({"warm": statistics.median(times) * 1000, "import": imported, "remember_200": one_by_one,
                  "added": plan.count("add")}))
"""


def _notes() -> list[str]:
    """The benign notes of the corpora, each made unique, 1,000 or more."""
    data = Path(__file__).resolve().parent.parent / "tests" / "core" / "safety" / "data"
    lines = [json.loads(line)["text"] for path in sorted(data.glob("*benign*.jsonl"))
             for line in path.read_text("utf-8").splitlines() if line.strip()]
    random.Random(11).shuffle(lines)
    return [f"{text} (note {i})" for i, text in enumerate((lines * 2)[:1000])]


def measure_writes(runs: int) -> None:
    import shutil

    base = {key: value for key, value in os.environ.items() if key not in ("PYTHONDONTWRITEBYTECODE", "MEMTUI_SEMANTIC")}
    memtui = shutil.which("memtui", path=str(Path(sys.executable).parent)) or "memtui"
    notes = _notes()
    for label, env in (("semantic on", base), ("semantic off", {**base, "MEMTUI_SEMANTIC": "off"})):
        with tempfile.TemporaryDirectory() as tmp:
            texts = Path(tmp) / "texts.json"
            texts.write_text(json.dumps(notes, ensure_ascii=False), "utf-8")
            result = json.loads(subprocess.run([sys.executable, "-c", _WRITES_CHILD, tmp, str(texts)], check=True,
                                               capture_output=True, text=True, env=env).stdout)
            fresh = []
            for i in range(runs):
                start = time.perf_counter()
                subprocess.run([memtui, "--dir", f"{tmp}/cli", "add", "fact", notes[i]], check=True, capture_output=True,
                               env=env)
                fresh.append((time.perf_counter() - start) * 1000)
        print(f"{label:12}  remember (warm process) {result['warm']:6.1f} ms   memtui add (fresh process) "
              f"{statistics.median(fresh):6.0f} ms   import of 1,000 {result['import']:5.1f} s "
              f"({result['added']} added)   200 remember calls {result['remember_200']:5.1f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="DIR", help="a folder holding an older memtui_core to compare with")
    parser.add_argument("--writes", action="store_true", help="measure the write path's scan instead")
    args = parser.parse_args()
    if args.writes:
        measure_writes(args.runs)
        return 0
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
