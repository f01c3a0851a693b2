"""Print the threat scan's rule table as Markdown, for docs/threat-scan.md.

    .venv/bin/python scripts/threat_rules_table.py > /tmp/rules.md

tests/core/safety/test_threats.py checks that every rule id and reason appears in the doc.
"""

from __future__ import annotations

from memtui_core.safety.threats import RULES


def main() -> None:
    print("| rule | category | reads | reason |")
    print("|---|---|---|---|")
    for rule in RULES:
        kind = "words together in a clause" if rule.together else rule.view
        print(f"| `{rule.id}` | {rule.category} | {kind} | {rule.reason} |")


if __name__ == "__main__":
    main()
