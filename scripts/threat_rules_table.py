"""Print the threat scan's rule table as Markdown, for docs/threat-scan.md.

    .venv/bin/python scripts/threat_rules_table.py > /tmp/rules.md

The rules are read from core/safety/rules/*.toml, in the order the scan lists them.
tests/core/safety/test_threats.py checks that every rule id and reason appears in the doc.
"""

from __future__ import annotations

from memtui_core.safety.threats import RULES


def main() -> None:
    print("| rule | category | reads | reason |")
    print("|---|---|---|---|")
    for rule in RULES:
        if rule.together:
            kind = "words together in a clause" + (" or two" if rule.window == 2 else
                                                   f" or {rule.window} in a row" if rule.window > 2 else "")
        else:
            kind = rule.view
        if rule.languages:
            kind += f" ({', '.join(rule.languages)})"
        print(f"| `{rule.id}` | {rule.category} | {kind} | {rule.reason} |")


if __name__ == "__main__":
    main()
