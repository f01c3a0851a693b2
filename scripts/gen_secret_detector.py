"""Read detect-secrets' key formats as data: core/safety/rules/detect_secrets.json.

    .venv/bin/python scripts/gen_secret_detector.py            # write the file from the installed detect-secrets
    .venv/bin/python scripts/gen_secret_detector.py --check    # exit 1 if the file is not what it would write

detect-secrets (Yelp, Apache-2.0) keeps one plugin per key format, most of them a list of
regular expressions (`RegexBasedDetector.denylist`). memtui redacts with those expressions rather
than with patterns of its own wherever a plugin knows the format. Importing detect-secrets costs a
process 110-420 ms (it pulls in requests, multiprocessing and its filters) and the per-turn path
redacts every query it logs, so the expressions are read here, once, into a JSON file the scan
reads like its other rule files (core/safety/rule_data.py, family `secret`). detect-secrets is a
test dependency: tests/core/test_secret_formats.py fails when the installed version's plugins no
longer give this file, and running this script again brings in what a new version knows.

Each expression becomes one rule (view `cased`: the raw text, case kept unless the plugin ignores
case); one that knows a key by its form alone is a `shape` rule. Its `needs` are literal strings one of which every match holds, found by parsing the
expression, so that the expression runs only on a text that holds one. Where a plugin's expression
captures the key after a name (`aws ... key ... '<40 characters>'`, a URL's `user:<password>@`),
that group is named `value` and only it is redacted; a group that only names the key's prefix
(`(ghp|gho)_...`) is not. Left out: the public IPv4 address plugin (an address is not a secret) and
the private key plugin (it names the `BEGIN ... PRIVATE KEY` line only; secret.private-key in
secret.toml redacts the whole block). The keyword and high-entropy plugins are not regex plugins:
they read assignments and quoted strings in source code, and on notes they find a "secret" in most
ordinary words (docs/threat-scan.md#secrets).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parent.parent / "core" / "safety" / "rules" / "detect_secrets.json"
LEFT_OUT = {"Public IP (ipv4)": "an address is not a secret",
            "Private Key": "names the BEGIN line only; secret.private-key redacts the whole block"}


def _parser():
    try:
        from re import _parser as parser  # Python 3.11+
    except ImportError:  # pragma: no cover
        import sre_parse as parser  # type: ignore[no-redef]
    return parser


def _needles(items, least: int = 2) -> list[str] | None:
    """Literal strings one of which every match of the parsed sequence `items` holds (the longest
    such choice), or None when there is none of at least `least` characters."""
    parser = _parser()
    constants = parser  # LITERAL, SUBPATTERN, BRANCH... live beside the parser
    best: list[str] | None = None
    run = ""

    def consider(choice: list[str] | None) -> None:
        nonlocal best
        if choice and min(map(len, choice)) >= least and (best is None or min(map(len, choice)) > min(map(len, best))):
            best = choice

    for op, av in list(items) + [(None, None)]:
        if op is constants.LITERAL:
            run += chr(av)
            continue
        consider([run] if run else None)
        run = ""
        if op is constants.SUBPATTERN:
            consider(_needles(av[-1], least))
        elif op is constants.BRANCH:
            choices: list[str] = []
            for branch in av[1]:
                found = _needles(branch, least)
                if not found:
                    choices = []
                    break
                choices += found
            consider(choices or None)
        elif op is constants.MAX_REPEAT or op is constants.MIN_REPEAT:
            low, _high, inner = av
            if low >= 1:
                consider(_needles(inner, least))
    return best


def _width(items) -> int:
    return items.getwidth()[1]


def _value_group(parsed) -> int | None:
    """The group that holds the key where a plugin's expression captures it after a name: the
    widest capturing group, if it can hold eight characters or more and something must come
    before it. None: the whole match is the key."""
    parser = _parser()
    groups: list[tuple[int, int, bool]] = []  # (number, width, at the start)

    def walk(items, at_start: bool) -> None:
        first = True
        for op, av in items:
            leading = at_start and first
            if op is parser.SUBPATTERN:
                number, _add, _del, inner = av
                if number is not None:
                    groups.append((number, _width(inner), leading))
                walk(inner, leading)
            elif op is parser.BRANCH:
                for branch in av[1]:
                    walk(branch, leading)
            elif op in (parser.MAX_REPEAT, parser.MIN_REPEAT):
                walk(av[2], leading)
            if op not in (parser.AT, parser.ASSERT, parser.ASSERT_NOT):
                first = False

    walk(parsed, True)
    if not groups:
        return None
    number, width, leading = max(groups, key=lambda group: (group[1], -group[0]))
    return number if width >= 8 and not leading else None


def _name_group(pattern: str, number: int) -> str:
    """`pattern` with its capturing group `number` named `value`."""
    count, i, in_class = 0, 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif char == "(" and pattern[i + 1 : i + 2] != "?":
            count += 1
            if count == number:
                return pattern[: i + 1] + "?P<value>" + pattern[i + 1 :]
        i += 1
    raise ValueError(f"no group {number} in {pattern!r}")


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def rules_of_detector() -> dict:
    """The file's content, from the installed detect-secrets."""
    import importlib.metadata

    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    parser = _parser()
    out = []
    for secret_type, plugin in sorted(get_mapping_from_secret_type_to_class().items()):
        if not issubclass(plugin, RegexBasedDetector) or secret_type in LEFT_OUT:
            continue
        slug = _slug(secret_type)
        for number, expression in enumerate(plugin.denylist, 1):
            source = expression.pattern
            flags = expression.flags & (re.IGNORECASE | re.VERBOSE)
            parsed = parser.parse(source, flags)
            group = _value_group(parsed)
            if group is not None:
                source = _name_group(source, group)
            if flags & re.VERBOSE:
                source = "(?x)" + source
            if flags & re.IGNORECASE:
                source = "(?i)" + source
            # one character (a Telegram token's colon) when there is nothing longer
            needles = _needles(parsed) or _needles(parsed, 1)
            rule = {"id": f"secret.{slug}" + (f"-{number}" if len(plugin.denylist) > 1 else ""),
                    "reason": f"holds a {secret_type} (detect-secrets' {plugin.__name__})",
                    "view": "cased", "then": source}
            if group is None:  # it knows the key by its form, and names a finding it shares with another rule
                rule["shape"] = True
            if needles:
                rule["needs"] = sorted(set(needle.lower() if flags & re.IGNORECASE else needle for needle in needles))
            out.append(rule)
    version = importlib.metadata.version("detect-secrets")
    return {"detector": f"detect-secrets {version}", "license": "Apache-2.0",
            "written_by": "scripts/gen_secret_detector.py", "left_out": LEFT_OUT, "rule": out}


def content() -> bytes:
    return (json.dumps(rules_of_detector(), ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is not what this would write")
    args = parser.parse_args(argv)
    data = content()
    if args.check:
        if not TARGET.exists() or TARGET.read_bytes() != data:
            print(f"{TARGET} is stale: run scripts/gen_secret_detector.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_bytes(data)
    print(f"wrote {TARGET} ({len(json.loads(data)['rule'])} rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
