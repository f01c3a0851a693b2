"""Check the threat scan's rule files and write their parsed form, core/safety/rules/parsed/*.json.

    .venv/bin/python scripts/gen_threat_rules.py            # check every file, then write the JSON
    .venv/bin/python scripts/gen_threat_rules.py --check    # exit 1 if a JSON file is stale

The TOML files in core/safety/rules/ are the rules; the JSON beside them is what a process reads
(core/safety/rule_data.py says why: reading TOML would cost every turn about 5 ms). Run this
after editing a rule file: it reads every file from its TOML, checks it in full (fields, ids,
categories, views, names in braces, every pattern compiled) and writes the JSON only when all
pass; an error is printed as one line naming the file and the rule. Until it runs, the scan reads
an edited file from its TOML, and tests/core/test_threats.py fails on the stale JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

from memtui_core.safety.rule_data import DIRECTORY, FAMILIES, RuleDataError, RuleSet, source_digest

NAMES = ("vocabulary",) + FAMILIES


def parsed(name: str, directory: Path = Path(DIRECTORY)) -> bytes:
    """The JSON of one rule file: its data as tomllib reads it, and the digest of its TOML."""
    source = (directory / f"{name}.toml").read_bytes()
    data = tomllib.loads(source.decode("utf-8"))
    return (json.dumps({"source": source_digest(source), "data": data}, ensure_ascii=False, separators=(",", ":"))
            + "\n").encode("utf-8")


def stale(directory: Path = Path(DIRECTORY)) -> list[str]:
    """The files whose JSON does not hold what their TOML says."""
    out = []
    for name in NAMES:
        target = directory / "parsed" / f"{name}.json"
        if not target.exists() or target.read_bytes() != parsed(name, directory):
            out.append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether a JSON file is stale")
    args = parser.parse_args(argv)
    directory = Path(DIRECTORY)
    if args.check:
        names = stale(directory)
        for name in names:
            print(f"{directory / 'parsed' / (name + '.json')}: stale; run scripts/gen_threat_rules.py", file=sys.stderr)
        return 1 if names else 0
    try:
        rules = RuleSet(str(directory), snapshots=False).check()
    except RuleDataError as exc:
        print(exc, file=sys.stderr)
        return 1
    (directory / "parsed").mkdir(exist_ok=True)
    for name in NAMES:
        (directory / "parsed" / f"{name}.json").write_bytes(parsed(name, directory))
    print(f"checked {len(rules)} rules in {len(FAMILIES)} files; wrote {directory / 'parsed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
