"""`memtui pin`, `unpin` and `core`: the pinned core, what is in every block whatever the message.

    memtui pin 0123456789ab              in every block from now on (last of the pinned entries)
    memtui pin 0123456789ab --position 1 first of the pinned entries (or move it there)
    memtui unpin 0123456789ab            only when relevant again (a preference: kept out by hand)
    memtui core                          the core in order, its budget, and what does not fit

docs/injection.md#the-pinned-core has the rules. What does not fit is never dropped silently: a
pin or an edit after which the core is over its budget says so on stderr.
"""

from __future__ import annotations

from memtui.cli.common import (PROG, CliError, add_lang_option, command_prefix, dump, echo, emit_json, open_holding, open_store,
                               positive_int, stderr, text_arg)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands

__all__ = ["register", "warn_core_left_out"]


def register(commands: Commands) -> None:
    p = commands.add("pin", "put an entry in every block (the pinned core), whatever the message", json=True)
    p.add_argument("id", metavar="ID")
    p.add_argument("--position", type=positive_int, default=None, metavar="N",
                   help="its place among the pinned entries, 1 first (default: last; a pinned entry stays "
                        "where it is); moves an entry pinned already")
    p.set_defaults(handler=cmd_pin)

    p = commands.add("unpin", "take an entry out of the pinned core: injected only when relevant", json=True)
    p.add_argument("id", metavar="ID")
    p.set_defaults(handler=cmd_unpin)

    p = commands.add("core", "the pinned core: what is in every block, in order, with its budget and what "
                             "does not fit", json=True)
    add_lang_option(p, "language the lines are measured in (their labels differ in length): zh, en or auto "
                       "(default: $MEMTUI_LANG, else zh)")
    p.set_defaults(handler=cmd_core)


def cmd_pin(args: argparse.Namespace) -> int:
    store = open_holding(args, text_arg(args.id, "ID"))
    entry_id = text_arg(args.id, "ID")
    before = store.get(entry_id)
    if store.limits.core_budget <= 0:
        stderr(f"{PROG}: warning: the {store.limits.profile_name} profile has no pinned core (core_budget 0): "
               "the pin is kept, and used under the default profile")
    entry = store.pin(entry_id, position=None if args.position is None else args.position - 1)
    left_out = warn_core_left_out(store, args)  # this pin, or one it pushed out
    if args.json:
        return emit_json(dump(entry))
    from memtui.render import Style, clean, truncate

    style = Style()
    report = store.core()
    order = [m.entry.id for m in report.entries if m.how == "pinned"] + [m.entry.id for m in report.pinned_left_out]
    place = f"{order.index(entry.id) + 1} of {len(order)} pinned" if entry.id in order else "pinned"
    if before.pinned and args.position is None:
        echo(f"{entry.id} is pinned already ({place})")
    else:
        verb = "moved" if before.pinned else "pinned"
        echo(f"{verb} {style.bold(entry.id)} ({entry.kind.value}) {truncate(clean(entry.text), 60)}")
        echo(style.dim(f"  in every block from now on: {place}; `{command_prefix(args)} core` shows the core")
             if entry.id not in left_out else style.yellow("  it does not fit the core's budget: see the warning"))
    return 0


def cmd_unpin(args: argparse.Namespace) -> int:
    store = open_holding(args, text_arg(args.id, "ID"))
    entry_id = text_arg(args.id, "ID")
    state = store.state()
    entry = store.unpin(entry_id)
    if args.json:
        return emit_json(dump(entry))
    changed = store.state() != state
    kept_out = store.storage.load().find(entry_id)
    by_hand = kept_out is not None and kept_out.pin is False
    if not changed:
        echo(f"{entry.id} is not in the pinned core" + (" (kept out by hand)" if by_hand else ""))
    elif by_hand:
        echo(f"unpinned {entry.id}: a {entry.kind.value} is in the core by default, so it is kept out by hand "
             f"(`{command_prefix(args)} pin {entry.id}` puts it back)")
    else:
        echo(f"unpinned {entry.id}: injected only when a message matches it")
    return 0


def cmd_core(args: argparse.Namespace) -> int:
    store = open_store(args)
    report = store.core()
    if args.json:
        return emit_json(dump(report))
    from memtui.render import Style, clean, table, terminal_width, truncate

    style = Style()
    if report.budget <= 0:
        echo(style.dim(f"the pinned core is off: the {store.limits.profile_name} profile has core_budget 0, so no "
                       "entry is in every block"))
        return 0
    rows = [[str(n), str(m.chars), m.entry.id, m.entry.kind.value, "pinned" if m.how == "pinned" else "by kind",
             clean(m.entry.text)] for n, m in enumerate(report.entries, start=1)]
    if rows:
        echo(*table(["#", "CHARS", "ID", "KIND", "WHY", "TEXT"], rows, align=">><<<<", width=terminal_width(),
                    style=style, styles=[None, style.dim, style.dim, style.cyan, None, None]))
    else:
        echo(style.dim("the pinned core is empty: nothing is pinned, and no entry of its kinds "
                       f"({', '.join(report.kinds) or 'none'}) is stored"))
    kinds = ", ".join(report.kinds) or "none: pins only"
    n = len(report.entries)
    echo(style.dim(f"{n} entr{'y' if n == 1 else 'ies'}, {report.used}/{report.budget} characters of lines, in every "
                   f"block (pins first, then {kinds} newest first)"))
    if report.left_out:
        pinned = report.pinned_left_out
        head = f"left out for the budget: {len(report.left_out)}"
        if pinned:
            head += f", {len(pinned)} of them pinned by hand"
        echo(style.yellow(head + " (retrieved only when a message matches them):"))
        for m in report.left_out:
            how = "pinned" if m.how == "pinned" else m.entry.kind.value
            echo(style.yellow(f"  {m.entry.id} ({how}, {m.chars} chars) {truncate(clean(m.entry.text), 60)}"))
    for entry in report.blocked:
        echo(style.red(f"pinned but blocked by the threat scan, so never injected: {entry.id} "
                       f"(`{command_prefix(args)} approve {entry.id}` if you trust it)"))
    if report.kept_out:
        echo(style.dim(f"kept out by hand: {' '.join(e.id for e in report.kept_out)} "
                       f"(`{command_prefix(args)} pin ID` puts one back)"))
    return 0


def warn_core_left_out(store, args: argparse.Namespace, ids: list[str] | None = None) -> set[str]:
    """After a write: which of `ids` (None: every entry pinned by hand) the pinned core leaves out
    for its budget, each said on stderr (never silent), with where to look. Returns those ids."""
    try:
        report = store.core()
    except Exception as error:  # the write is done; only the report failed
        raise CliError(f"the change is saved, but the pinned core could not be read: {error}") from None
    left = [m for m in report.left_out if m.entry.id in ids] if ids is not None else report.pinned_left_out
    for member in left:
        stderr(f"{PROG}: warning: the pinned core is over its budget ({report.used}/{report.budget} characters): "
               f"{member.entry.id} ({member.chars} characters) is left out of every block; "
               f"see `{command_prefix(args)} core`")
    return {m.entry.id for m in left}
