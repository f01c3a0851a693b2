"""The write path against issue 27's targets: one `remember` in a warm process (at most 50 ms) and
an import of 500 entries (within 15 s), on ordinary notes (the benign corpora of tests/core/safety/data,
each made unique).

    .venv/bin/python scripts/measure_write_targets.py                 # as installed (sentence model if there)
    MEMTUI_SCAN_SEMANTIC=off .venv/bin/python scripts/measure_write_targets.py

Run it in two checkouts one after the other, a few times, to compare engines on a busy machine.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memtui_core import MemoryStore
from memtui_core.agents.transfer import import_file

DATA = Path(__file__).resolve().parent.parent / "tests" / "core" / "safety" / "data"


def notes() -> list[str]:
    texts = []
    for path in sorted(DATA.glob("*_benign.jsonl")):
        texts += [json.loads(line)["text"] for line in path.read_text("utf-8").splitlines() if line.strip()]
    return texts


def main() -> int:
    texts = notes()
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore(Path(folder) / "warm")
        store.remember("fact", "a first note, so that the process is warm")
        times = []
        for i, text in enumerate(texts[::13][:150]):
            started = time.perf_counter()
            store.remember("fact", f"{text} ({i})")
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(f"remember, warm process: median {statistics.median(times):.1f} ms, p90 {times[int(len(times) * 0.9)]:.1f} ms"
              f" ({len(times)} notes)")
        path = Path(folder) / "in.jsonl"
        path.write_text("".join(json.dumps({"kind": "fact", "text": f"{text} ({i})", "source": "notes", "ts": 1},
                                           ensure_ascii=False) + "\n" for i, text in enumerate(texts[:500])), "utf-8")
        store = MemoryStore(Path(folder) / "import")
        started = time.perf_counter()
        plan = import_file(store, path)
        print(f"import of 500: {time.perf_counter() - started:.1f} s ({plan.count('add')} added, "
              f"{plan.as_dict()['blocked']} blocked)")
    print(f"third opinion: {os.environ.get('MEMTUI_SCAN_SEMANTIC', 'as installed')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
