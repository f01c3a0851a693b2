"""How the threat scan does on labelled corpora: flagged hostile lines (and with the right
category), flagged benign lines, per language and per category, and the lines it got wrong.

    python scripts/measure_threat_corpus.py tests/core/safety/data/fresh4_*.jsonl
    python scripts/measure_threat_corpus.py --misses DIR/*.jsonl      # also print each miss
    python scripts/measure_threat_corpus.py --core /tmp/old/oldcore FILES   # an older scan
    python scripts/measure_threat_corpus.py --second-opinion FILES   # as the write path scans
    python scripts/measure_threat_corpus.py --second-opinion --model M.json FILES   # another model

A file whose lines carry a `category` is hostile, one whose lines do not (or whose name says
`benign`: its lines may name the class each lookalike imitates) is benign. `--core`
points at a directory holding another version's threats.py (and scan_views.py), imported as a
package, so a batch can be measured against the scan as it was before the batch was written.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections import defaultdict
from pathlib import Path


# Other names outside authors give the scan's categories.
ALIASES = {"template": "fence", "jailbreak": "persona", "consent": "authority", "hidden": "invisible"}


def _scanner(core: str | None, second_opinion: bool, model: Path | None):
    if core is None:
        from memtui_core.safety import threats
    else:
        path = Path(core).resolve()
        sys.path.insert(0, str(path.parent))
        try:  # a core laid out by part keeps the scan in safety/; an older one at its top
            threats = importlib.import_module(f"{path.name}.safety.threats")
        except ModuleNotFoundError:
            threats = importlib.import_module(f"{path.name}.threats")
    if model is not None:
        threat_model = importlib.import_module(threats.__name__.rsplit(".", 1)[0] + ".threat_model")  # beside threats
        threat_model._MODEL = threat_model.Model(json.loads(model.read_text("utf-8")))
    if second_opinion:
        return lambda text: threats.scan_text(text, second_opinion=True)
    return threats.scan_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--core", help="another version's core/ folder (with safety/threats.py, or threats.py at its top), imported as a package")
    parser.add_argument("--misses", action="store_true", help="print every hostile line missed and benign line flagged")
    parser.add_argument("--second-opinion", action="store_true",
                        help="scan as the write path does: the learned model reads what no rule names")
    parser.add_argument("--model", type=Path, help="with --second-opinion: this model file instead of the shipped one")
    args = parser.parse_args(argv)
    scan = _scanner(args.core, args.second_opinion, args.model)
    for path in args.files:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        # A benign file may name the class each lookalike imitates: its name says it is benign.
        hostile = "benign" not in path.name and any("category" in row for row in rows)
        by_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        by_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        wrong = []
        for row in rows:
            # a warning (`warning.<rule>`: a learned verdict not sure enough to block) flags nothing
            found = {f.category for f in scan(row["text"]) if f.category != "secret" and not f.rule.startswith("warning.")}
            flagged = bool(found)
            right = ALIASES.get(row.get("category"), row.get("category")) in found
            for key, table in ((row.get("lang", "?"), by_lang), (row.get("category", "-"), by_cat)):
                table[key][0] += 1
                table[key][1] += flagged
                table[key][2] += right
            if hostile and not right or not hostile and flagged:
                wrong.append((row, sorted(found)))
        total = [sum(v[i] for v in by_lang.values()) for i in range(3)]
        if hostile:
            print(f"{path.name}: {total[1]}/{total[0]} flagged, {total[2]}/{total[0]} with the right category")
            print("  by language: " + ", ".join(f"{k} {v[2]}/{v[0]}" for k, v in sorted(by_lang.items())))
            print("  by category: " + ", ".join(f"{k} {v[2]}/{v[0]}" for k, v in sorted(by_cat.items())))
        else:
            print(f"{path.name}: {total[1]}/{total[0]} benign lines flagged")
            if total[1]:
                print("  by language: " + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(by_lang.items()) if v[1]))
        if args.misses:
            for row, found in wrong:
                label = row.get("category", "benign")
                print(f"    [{row.get('lang', '?')} {label} -> {','.join(found) or 'none'}] {row['text'][:160]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
