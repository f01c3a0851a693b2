"""`memtui injections`, `memtui export` and `memtui import`: memory over time, and in and out.

    memtui injections                     past injections, newest last
    memtui injections --replay 12         injection 12 as it was, and what the same query injects today
    memtui export --format hermes -o MEMORY.md
    memtui import USER.md --dry-run       exactly what an import would add, refresh, cut, block or evict
"""

from __future__ import annotations

import sys

from memtui.cli.common import CliError, echo, emit_json, open_scoped, open_store, positive_int, text_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    from memtui_core.agents.transfer import EXPORT_FORMATS, IMPORT_FORMATS

    p = commands.add("injections", "past injections from the injection log: what was injected, and replays",
                     json=True)
    p.add_argument("--id", dest="entry_id", metavar="ID", help="only injections that included this entry")
    p.add_argument("--since", metavar="WHEN", help="only since: 2026-11-24, 3d, 12h or 30m ago")
    p.add_argument("--last", type=positive_int, default=None, metavar="N", help="only the newest N")
    p.add_argument("--show", type=positive_int, metavar="N", help="injection N: each entry as it was injected")
    p.add_argument("--replay", type=positive_int, metavar="N", help="injection N replayed against today's store")
    p.set_defaults(handler=cmd_injections)

    p = commands.add("export", "write the entries as json, jsonl, markdown, or hermes (a folder: MEMORY.md, USER.md)")
    p.add_argument("--format", dest="fmt", choices=EXPORT_FORMATS, default="json")
    p.add_argument("--kind", metavar="KIND", help="only this kind")
    p.add_argument("-o", "--output", metavar="FILE", help="write FILE (atomically, 0600); default stdout. hermes: "
                   "a FOLDER, created if missing, for USER.md (preferences) and MEMORY.md (the rest)")
    p.set_defaults(handler=cmd_export)

    p = commands.add("import", "add entries from a file (or a Hermes folder) through the normal write rules, "
                     "in one transaction", json=True)
    p.add_argument("file", metavar="FILE", help="a json or jsonl file, a Hermes MEMORY.md or USER.md, or a folder "
                   "holding them; or another store (a store folder, a postgresql:// URL), to move its entries here")
    p.add_argument("--format", dest="fmt", choices=IMPORT_FORMATS, default=None,
                   help="default: detected from the content")
    p.add_argument("--kind", metavar="KIND", help="give every entry this kind")
    p.add_argument("--dry-run", action="store_true", help="only print what would be added, refreshed, cut, "
                   "blocked or evicted")
    p.add_argument("--yes", action="store_true", help="confirm the eviction an import causes")
    p.set_defaults(handler=cmd_import)


# ---------------------------------------------------------------------------- injections


def parse_since(value: str, now: float) -> float:
    """`2026-11-24`, `2026-11-24T10:00`, or an age: `3d`, `12h`, `30m`."""
    import re
    from datetime import datetime

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([dhm])\s*", value)
    if m:
        return now - float(m.group(1)) * {"d": 86400, "h": 3600, "m": 60}[m.group(2)]
    try:
        return datetime.fromisoformat(value.strip()).timestamp()
    except ValueError:
        raise CliError(f"--since {value!r}: give a date (2026-11-24) or an age (3d, 12h, 30m)") from None


def cmd_injections(args: argparse.Namespace) -> int:
    import time

    from memtui_core.store.injections import explain_line, replay

    store = open_store(args)
    log = store.injection_log
    since = parse_since(args.since, time.time()) if args.since else None
    lines, skipped = log.read(since)
    for note in skipped[:5]:
        print(f"memtui: warning: injection log: skipped corrupt {note}", file=sys.stderr)
    if len(skipped) > 5:
        print(f"memtui: warning: injection log: {len(skipped) - 5} more corrupt lines skipped", file=sys.stderr)
    number = args.replay if args.replay is not None else args.show
    if number is not None:
        line = next((line for line in log.read()[0] if line["n"] == number), None)
        if line is None:
            raise CliError(f"no injection {number} in the log (`memtui injections` lists them)")
        if args.replay is not None:
            result = replay(store, line)
            return emit_json(_shaped("ReplayReport", result.as_dict())) if args.json else _print_replay(result)
        rows = explain_line(store, line)
        if args.json:
            return emit_json(_shaped("InjectionShown", {**_public(line), "entries": rows}))
        _print_line_head(line)
        _print_rows(rows)
        return 0
    if args.entry_id:
        wanted = text_arg(args.entry_id, "ID")
        lines = [line for line in lines if any(hit["id"] == wanted for hit in (*line["core"], *line["hits"]))]
    if args.last is not None:
        lines = lines[-args.last:]
    if args.json:
        return emit_json([_shaped("InjectionRecord", _public(line)) for line in lines])
    from memtui.render import Style, clean, local_time, table, terminal_width

    style = Style()
    if not log.enabled:
        echo(style.dim("the injection log is off (injection_log=0 or MEMTUI_INJECTION_LOG=off)"))
    if not lines:
        echo(style.dim(f"no injections logged{' match' if args.entry_id or since else ''} in {log.path}"))
        return 0
    rows = [[str(line["n"]), local_time(line["at"]), clean(line["actor"]), str(len(line["core"])),
             str(len(line["hits"])), " ".join(hit["id"] for hit in line["hits"]) or "-", clean(_query_cell(line))]
            for line in lines]
    echo(*table(["N", "TIME", "ACTOR", "CORE", "HITS", "IDS", "QUERY"], rows, width=terminal_width(), style=style,
                styles=[style.bold, style.dim, None, style.dim, None, style.dim, None]))
    return 0


def _query_cell(line: dict) -> str:
    if "q" in line:
        return line["q"] + (" …(cut)" if line.get("cut") else "")
    return f"(hash {line['qh']})"


def _shaped(model: str, data: dict) -> dict:
    """`data` as the model of its --json output prints it (every field, in the schema's shape)."""
    from memtui_core import over_time_models

    return getattr(over_time_models, model).model_validate(data).model_dump(mode="json")


def _public(line: dict) -> dict:
    return {key: line[key] for key in ("n", "at", "actor", "profile", "lang", "q", "qh", "cut", "hits", "core")
            if key in line}


def _print_line_head(line: dict) -> None:
    from memtui.render import clean, local_time

    echo(f"injection {line['n']} at {local_time(line['at'])} by {clean(line['actor'])} "
         f"(profile {clean(line['profile'])}): {clean(_query_cell(line))}")


def _print_rows(rows: list[dict], indent: str = "  ") -> None:
    from memtui.render import clean

    if not rows:
        echo(indent + "nothing was injected")
    for row in rows:
        text = row.get("text")
        shown = clean(text) if text is not None else "(text no longer kept anywhere)"
        echo(f"{indent}#{row['rank']} {row['id']} [{row.get('kind') or '?'}] score {row.get('score')} "
             f"{row.get('chars')} chars {row.get('status', '')}".rstrip() + f": {shown}")
        if row.get("today"):
            echo(f"{indent}   today: {clean(row['today'])}")


def _print_replay(result) -> int:
    _print_line_head(result.line)
    echo("then:")
    _print_rows(result.then)
    echo("today:")
    _print_rows(result.now)
    if result.same:
        echo("the same entries, in the same order, would be injected today")
    else:
        for label, ids in (("no longer injected", result.dropped), ("newly injected", result.added),
                           ("still injected", result.kept)):
            if ids:
                echo(f"{label}: {' '.join(ids)}")
    if result.note:
        echo(f"note: {result.note}")
    return 0


# ---------------------------------------------------------------------------- export and import


def cmd_export(args: argparse.Namespace) -> int:
    from memtui_core.agents.transfer import export_bytes, write_export, write_hermes

    store = open_store(args)
    kind = text_arg(args.kind, "KIND") if args.kind else None
    target = text_arg(args.output, "FILE") if args.output and args.output != "-" else None
    if args.fmt == "hermes":  # two files, MEMORY.md and USER.md: a folder, and what went where
        if target is None:
            raise CliError("the hermes format writes a folder holding MEMORY.md and USER.md: give -o FOLDER")
        for line in write_hermes(store, target, kind).lines():
            print(line, file=sys.stderr)
        return 0
    data = export_bytes(store, args.fmt, kind, file_name=target or "")
    if target is None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    path = write_export(store, data, target)
    count = len(store.storage.load().records)
    print(f"exported to {path} ({args.fmt}, {len(data):,} bytes, from a store of {count} entries)", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from memtui_core.agents.transfer import import_file

    scope, store, project = _import_target(args)
    kind = text_arg(args.kind, "KIND") if args.kind else None
    plan = import_file(store, text_arg(args.file, "FILE"), args.fmt, kind=kind, dry_run=args.dry_run,
                       allow_evict=args.yes)
    if args.json:
        return emit_json(_shaped("ImportReport", {**plan.as_dict(), "dry_run": args.dry_run, "scope": scope,
                                                  "store": store.where if scope else None}))
    from memtui.render import clean, plan_lines

    echo(*plan_lines(plan, args.dry_run))
    if scope is not None:  # inside a project, or --scope: say which store took them
        echo(f"{'into' if not args.dry_run else 'would go into'} the {scope} store ({clean(store.where)})"
             + ("; `memtui import FILE --scope project` imports into the project's" if scope == "global" and project
                else ""))
    return 0


def _import_target(args: argparse.Namespace):
    """(scope, the store an import adds to, whether a project store is here): `--dir` that store (no
    scope); `--scope` that scope's store (project: made at the git root, as any project write);
    else the global store, as before scopes, named as such inside a project."""
    if args.dir is not None:
        return None, open_store(args), False
    from memtui_core.kinds import Kind

    scoped = open_scoped(args, narrow=False)
    has_project = scoped.project is not None
    if getattr(args, "scope", None) is None:
        return ("global" if has_project else None), scoped.main, has_project
    scope, store = scoped.write_store(Kind.FACT, args.scope)
    return scope, store, has_project


__all__ = ["cmd_export", "cmd_import", "cmd_injections", "parse_since", "register"]
