"""Write docs/schemas/<name>.json for every `--json` output listed in memtui/json_schemas.py.

    python scripts/json_schemas.py           # (re)generate the files
    python scripts/json_schemas.py --check   # exit 1 if a file is missing, stale or unlisted

A schema whose fields were removed or retyped while its version stayed the same is refused:
raise that output's `version` in memtui/json_schemas.py first (docs/cli-json.md, Versioning).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "docs" / "schemas"


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def fields(schema: dict) -> dict[str, str]:
    """`Object.field` -> the field's shape (without its title, description and default)."""
    out: dict[str, str] = {}
    objects = [("", schema), *((name, sub) for name, sub in schema.get("$defs", {}).items())]
    for name, obj in objects:
        for field, shape in obj.get("properties", {}).items():
            kept = {k: v for k, v in shape.items() if k not in ("title", "description", "default")}
            out[f"{name or '<top>'}.{field}"] = json.dumps(kept, sort_keys=True)
    return out


def breaking(old: dict, new: dict) -> list[str]:
    """The fields `new` removed or changed compared to `old`."""
    before, after = fields(old), fields(new)
    return sorted(name for name, shape in before.items() if after.get(name) != shape)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; write nothing")
    parser.add_argument("--dir", type=Path, default=SCHEMAS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from memtui.json_schemas import OUTPUTS, schema_for

    problems: list[str] = []
    wanted = set()
    for output in OUTPUTS:
        path = args.dir / f"{output.name}.json"
        wanted.add(path.name)
        schema = schema_for(output)
        text = render(schema)
        old_text = path.read_text(encoding="utf-8") if path.exists() else None
        if old_text == text:
            continue
        if old_text is not None:
            old = json.loads(old_text)
            changed = breaking(old, schema)
            if changed and old.get("$id") == schema["$id"]:
                problems.append(f"{path.name}: {', '.join(changed)} removed or changed without a new version "
                                f"(raise `version` of {output.name!r} in memtui/json_schemas.py)")
                continue
        if args.check:
            problems.append(f"{path.name}: {'missing' if old_text is None else 'stale'}; "
                            f"run python scripts/json_schemas.py")
            continue
        args.dir.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    for path in sorted(args.dir.glob("*.json")) if args.dir.exists() else ():
        if path.name not in wanted:
            problems.append(f"{path.name}: no output of that name in memtui/json_schemas.py")
    for problem in problems:
        print(f"json_schemas: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
