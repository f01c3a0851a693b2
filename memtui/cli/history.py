"""`memtui backups`, `restore` and `audit`: the store's past, and going back to it.

    memtui backups                        newest first
    memtui restore NAME --dry-run         what a restore would add, remove and change
    memtui audit --id 0123456789ab --last 5
"""

from __future__ import annotations

import os

from memtui.cli.common import command_prefix, dump, echo, emit_json, open_store, positive_int, text_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands

AUDIT_OPS = ("add", "refresh", "edit", "reclassify", "delete", "evict", "approve", "restore", "quarantine", "import",
             "limits", "pin", "unpin")


def register(commands: Commands) -> None:
    p = commands.add("backups", "list the backups, newest first", json=True)
    p.set_defaults(handler=cmd_backups)

    p = commands.add("restore", "replace the store by a backup (the current file is backed up first)", json=True)
    p.add_argument("name", metavar="NAME", help="a backup name, as `memtui backups` lists it")
    p.add_argument("--dry-run", action="store_true", help="only show what would change")
    p.set_defaults(handler=cmd_restore)

    p = commands.add("audit", "the change history, oldest first", json=True)
    p.add_argument("--id", dest="entry_id", metavar="ID", help="only this entry")
    p.add_argument("--op", choices=AUDIT_OPS, metavar="OP", help="only this operation: " + ", ".join(AUDIT_OPS))
    p.add_argument("--last", type=positive_int, default=None, metavar="N", help="only the newest N events")
    p.set_defaults(handler=cmd_audit)


def cmd_backups(args: argparse.Namespace) -> int:
    store = open_store(args)
    backups = store.backups()
    if args.json:
        return emit_json([dump(backup) for backup in backups])
    from memtui.render import Style, age, local_time, size, table

    style = Style()
    if not backups:
        where = store.where if store.location is not None else store.storage.backups_dir
        echo(style.dim(f"no backups yet in {where} (one is made before every change)"))
        return 0
    rows = [[b.name, local_time(b.at), age(b.at), "-" if b.entries is None else str(b.entries), size(b.size),
             ("" if b.valid else "unreadable", style.red)] for b in backups]
    echo(*table(["NAME", "TIME", "AGE", "ENTRIES", "SIZE", ""], rows, align="<<>>><", style=style,
                styles=[style.bold, None, style.dim, None, style.dim, None]))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    store = open_store(args)
    name = os.path.basename(text_arg(args.name, "NAME").rstrip("/"))
    result = store.preview_restore(name) if args.dry_run else store.restore(name)
    if args.json:
        return emit_json(dump(result))
    if args.dry_run:
        head = f"restoring {result.name} would add {len(result.added)}, remove {len(result.removed)} " \
               f"and change {len(result.changed)} entries"
    else:
        head = f"restored {result.name}: {len(result.added)} added, {len(result.removed)} removed, " \
               f"{len(result.changed)} changed"
    lines = [head]
    for label, ids in (("added", result.added), ("removed", result.removed), ("changed", result.changed)):
        if ids:
            lines.append(f"  {label}: {' '.join(ids)}")
    if not args.dry_run and result.backup_of_current:
        lines.append(f"  the file before this restore was backed up as {result.backup_of_current}")
    elif args.dry_run:
        lines.append(f"  nothing was written; `{command_prefix(args)} restore {result.name}` does it")
    echo(*lines)
    return 0


def _audit_detail(event) -> str:
    from memtui.render import clean

    before = event.before or {}
    after = event.after or {}
    op = event.op.value
    note = f" ({event.note})" if event.note else ""
    if op == "edit" and before and after:
        if before.get("text") != after.get("text"):
            return clean(f"{before.get('text', '')} -> {after.get('text', '')}{note}")
        return clean(f"{before.get('kind')} -> {after.get('kind')}{note}")
    if op == "reclassify":
        return clean(f"{before.get('kind')} -> {after.get('kind')}{note}")
    if op == "restore":
        if event.note:
            return clean(event.note)
        groups = (("added", event.added), ("removed", event.removed), ("changed", event.changed))
        return ", ".join(f"{len(ids)} {word}" for word, ids in groups if ids is not None)
    entry = after or before
    text = entry.get("text") if isinstance(entry, dict) else None
    if text:
        return clean(f"[{entry.get('kind')}] {text}{note}")
    return clean(event.note or "")


def cmd_audit(args: argparse.Namespace) -> int:
    store = open_store(args)
    entry_id = text_arg(args.entry_id, "ID") if args.entry_id is not None else None
    events = store.audit(id=entry_id, op=args.op)
    if args.last is not None:
        events = events[-args.last:]
    if args.json:
        return emit_json([dump(event) for event in events])
    from memtui.render import Style, clean, local_time, table, terminal_width

    style = Style()
    if not events:
        echo(style.dim("no audit events" + (" match" if entry_id or args.op else " yet")))
        return 0
    op_style = {"delete": style.red, "evict": style.red, "quarantine": style.red, "add": style.green,
                "approve": style.yellow, "restore": style.magenta}
    rows = [[local_time(event.at), clean(event.actor), (event.op.value, op_style.get(event.op.value)),
             event.id or "-", _audit_detail(event)] for event in events]
    echo(*table(["TIME", "ACTOR", "OP", "ID", "DETAIL"], rows, width=terminal_width(), style=style,
                styles=[style.dim, None, None, style.dim, None]))
    return 0
