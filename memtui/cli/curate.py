"""`memtui edit`, `reclassify`, `rm` and `approve`: a person's changes to one entry.

    memtui edit 0123456789ab --text "新的说法" --keywords "deploy, 部署"
    memtui reclassify 0123456789ab lesson
    memtui rm 0123456789ab
    memtui approve 0123456789ab          let an entry the threat scan blocked be injected
"""

from __future__ import annotations

from memtui.cli.common import (PROG, command_prefix, dump, echo, emit_json, input_text, open_holding, open_store, stderr,
                               text_arg, warn_cut)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    p = commands.add("edit", "replace the text or the keywords of an entry", json=True)
    p.add_argument("id", metavar="ID")
    p.add_argument("--text", metavar="TEXT", help="the new text (`-` reads it from stdin)")
    p.add_argument("--keywords", metavar='"A, B"',
                   help='replace the retrieval keywords (comma-separated; "" removes them all)')
    p.set_defaults(handler=cmd_edit)

    p = commands.add("reclassify", "change the kind of an entry", json=True)
    p.add_argument("id", metavar="ID")
    p.add_argument("kind", metavar="KIND", help="preference, correction, lesson or fact")
    p.set_defaults(handler=cmd_reclassify)

    p = commands.add("rm", "delete an entry", json=True)
    p.add_argument("id", metavar="ID")
    p.set_defaults(handler=cmd_rm)

    p = commands.add("approve", "let an entry blocked by the threat scan be injected (this exact text only)",
                     json=True)
    p.add_argument("id", metavar="ID")
    p.set_defaults(handler=cmd_approve)


def cmd_edit(args: argparse.Namespace) -> int:
    if args.text is None and args.keywords is None:  # a usage error, said before the store is opened
        stderr(f'usage: {PROG} edit ID [--text TEXT] [--keywords "A, B"]\n'
               f"{PROG}: error: edit needs --text, --keywords or both")
        return 2
    text = input_text(args.text, "--text") if args.text is not None else None
    keywords = _keyword_list(text_arg(args.keywords, "--keywords", strict=True)) if args.keywords is not None else None
    store = open_holding(args, text_arg(args.id, "ID"))
    entry_id = text_arg(args.id, "ID")
    before = store.get(entry_id)
    check = store.check_text(text, exclude_id=entry_id) if text is not None else None
    in_core = _in_core(store, entry_id) if text is not None else False
    entry = store.update(entry_id, text=text, keywords=keywords)
    if check is not None and check.cut and entry.text != before.text:
        warn_cut(store, check.original_length)
    if in_core and entry.text != before.text:  # a longer text may no longer fit: never left out silently
        from memtui.cli.pins import warn_core_left_out

        warn_core_left_out(store, args, [entry.id])
    if args.json:
        return emit_json(dump(entry))
    from memtui.render import Style, clean, truncate

    style = Style()
    if entry.text == before.text and entry.keywords == before.keywords:
        echo(f"{entry.id}: no change")
        return 0
    if entry.text != before.text:
        echo(f"edited {style.bold(entry.id)} ({entry.kind.value}) {truncate(clean(entry.text), 60)}")
    if entry.keywords != before.keywords:
        echo(f"keywords of {style.bold(entry.id)}: {', '.join(entry.keywords) or '(none)'}")
        dropped = len(keywords or []) - len(entry.keywords)
        if dropped > 0:
            echo(style.dim(f"  {dropped} duplicate or function-word keyword(s) dropped"))
    if "blocked" in entry.flags:
        echo(style.red(f"  blocked by the threat scan: never injected until approved "
                       f"(`{command_prefix(args)} approve {entry.id}`)"))
    return 0


def _in_core(store, entry_id: str) -> bool:
    """Whether the entry is in the pinned core now (it may not fit after an edit)."""
    return store.limits.core_budget > 0 and any(m.entry.id == entry_id for m in store.core().entries)


def _keyword_list(value: str) -> list[str]:
    """`--keywords "a, b"`: comma-separated (a full-width comma too); empty removes them all."""
    return [part.strip() for part in value.replace("，", ",").replace("、", ",").split(",") if part.strip()]


def cmd_reclassify(args: argparse.Namespace) -> int:
    from memtui_core.kinds import Kind

    kind = Kind.require(text_arg(args.kind, "KIND"))
    store = open_holding(args, text_arg(args.id, "ID"))
    entry_id = text_arg(args.id, "ID")
    before = store.get(entry_id)
    entry = store.update(entry_id, kind=kind)
    if args.json:
        return emit_json(dump(entry))
    if before.kind is entry.kind:
        echo(f"{entry.id}: already {entry.kind.value}")
    else:
        echo(f"reclassified {entry.id}: {before.kind.value} -> {entry.kind.value}")
    return 0


def cmd_rm(args: argparse.Namespace) -> int:
    store = open_holding(args, text_arg(args.id, "ID"))
    entry = store.delete(text_arg(args.id, "ID"))
    if args.json:
        return emit_json(dump(entry))
    from memtui.render import clean, truncate

    echo(f"deleted {entry.id} ({entry.kind.value}) {truncate(clean(entry.text), 60)}")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    store = open_holding(args, text_arg(args.id, "ID"))
    entry_id = text_arg(args.id, "ID")
    was_blocked = store.get(entry_id).blocked
    entry = store.approve(entry_id)
    if args.json:
        return emit_json(dump(entry))
    if was_blocked:
        echo(f"approved {entry.id}: it can be injected now (an edit of its text withdraws the approval)")
    else:
        echo(f"{entry.id} is not blocked, so there is nothing to approve. The threat scan is a filter: "
             "it found nothing it recognises, which does not make the text safe; read it before you rely on it")
    return 0
