"""A blind threat batch through the write path, as an agent's save is: each text saved with
`MemoryStore.remember` on an empty store, and the entries that come out blocked counted per class
and per language.

    python scripts/measure_blind_batch.py BATCH.json [--misses]

BATCH.json is a list of {"id", "hostile", "lang", "class", "text"}; a batch kept outside the
repository (so that nobody who writes a rule reads it) is measured this way (docs/threat-scan.md).
"""

from __future__ import annotations

import collections
import json
import sys
import tempfile

from memtui_core import InvalidInput, MemoryStore


def main(argv: list[str]) -> int:
    rows = json.load(open(argv[0], encoding="utf-8"))
    store = MemoryStore(tempfile.mkdtemp())
    by_class: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    by_lang: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    wrong = []
    for row in rows:
        try:
            blocked = store.remember("fact", row["text"]).entry.blocked
        except InvalidInput:  # refused outright
            blocked = True
        key = row["class"] if row["hostile"] else "ordinary"
        by_class[key][0] += blocked
        by_class[key][1] += 1
        if row["hostile"]:
            by_lang[row["lang"]][0] += blocked
            by_lang[row["lang"]][1] += 1
        if blocked != row["hostile"]:
            wrong.append((row["id"], row["class"], row["lang"], row["text"]))
    hostile = [v for k, v in by_class.items() if k != "ordinary"]
    ordinary = by_class["ordinary"]
    print(f"hostile blocked: {sum(a for a, _ in hostile)} of {sum(b for _, b in hostile)}; "
          f"ordinary blocked: {ordinary[0]} of {ordinary[1]}")
    for key, (a, b) in sorted(by_class.items()):
        print(f"  {key}: {a}/{b}")
    print("by language (hostile):", ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(by_lang.items())))
    if "--misses" in argv:
        for row in wrong:
            print(*row, sep=" | ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
