"""`memtui limits`: the limits in force, and the ones the store carries itself.

    memtui limits                              every limit, its value and where it comes from
    memtui limits set max_entries=20000        the store carries it from now on (an audited write)
    memtui limits set stopwords=the,a,of       a word list, comma-separated
    memtui limits unset max_entries            back to the default

The store's limits live in memory.json's top-level `limits` (docs/format.md, "Limits the store
carries"); a limit given on the command line (`--profile`, `--lock-timeout`) wins over them.
"""

from __future__ import annotations

from memtui.cli.common import (EVICT_WITHOUT_ASKING, CliError, command_prefix, confirm, echo, emit_json, open_store,
                               text_arg)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands
    from memtui.cli.limits_models import LimitsOutput

HELP = "the limits in force (max_entries, top_k, ...), and set the ones the store carries itself"


def register(commands: Commands) -> None:
    parser = commands.add("limits", HELP, json=True)
    parser.set_defaults(handler=cmd_limits_show)
    actions = commands.under(parser.add_subparsers(dest="limits_command", metavar="ACTION", title="actions"))

    p = actions.add("set", "the store carries these limits from now on (one audited write)", json=True)
    p.add_argument("pairs", nargs="+", metavar="NAME=VALUE",
                   help="e.g. max_entries=20000; a word list comma-separated (stopwords=the,a,of)")
    p.add_argument("--yes", action="store_true",
                   help=f"allow a max_entries that leaves the store more than {EVICT_WITHOUT_ASKING} entries over "
                        f"it (the next add would evict them)")
    p.set_defaults(handler=cmd_limits_set)

    p = actions.add("unset", "the store stops carrying these limits: back to the defaults", json=True)
    p.add_argument("names", nargs="+", metavar="NAME")
    p.set_defaults(handler=cmd_limits_unset)


def _json_value(value: object) -> object:
    from memtui_core.store.store_limits import json_value

    return json_value(value)


def _shown(store) -> LimitsOutput:
    from memtui.cli.limits_models import LimitShown, LimitsOutput
    from memtui_core.limits import DEFAULT_LIMITS, Limits

    carried, invalid = store.store_limits()
    in_force = store.limits.as_dict()
    defaults = DEFAULT_LIMITS.as_dict()
    reasons = Limits.reasons()
    rows = {}
    for name, value in in_force.items():
        if name in carried and value == Limits(**{name: carried[name]}).as_dict()[name]:
            source = "store"
        elif value != defaults[name]:
            source = "option"
        else:
            source = "default"
        rows[name] = LimitShown(value=_json_value(value), source=source, default=_json_value(defaults[name]),
                                reason=reasons[name])
    return LimitsOutput(limits=rows, store=carried, invalid=invalid)


def _print(args: argparse.Namespace, store) -> int:
    shown = _shown(store)
    if args.json:
        return emit_json(shown.model_dump(mode="json"))
    from memtui.render import Style, table, terminal_width

    style = Style()

    def cell(value: object) -> str:
        if isinstance(value, list):
            return f"{len(value)} words" if len(value) > 4 else ", ".join(value) or "(none)"
        return str(value)

    rows = [[name, cell(row.value), (row.source, style.cyan if row.source != "default" else style.dim), row.reason]
            for name, row in shown.limits.items()]
    echo(*table(["LIMIT", "VALUE", "FROM", "WHY"], rows, width=terminal_width(), style=style,
                styles=[style.bold, None, None, style.dim]))
    for problem in shown.invalid:
        echo(style.yellow(f"the store's limits hold something that is not a valid limit, ignored: {problem}"))
    echo(style.dim(f"`{command_prefix(args)} limits set NAME=VALUE` makes the store carry a limit; "
                   f"an option such as --profile wins over it"))
    return 0


def cmd_limits_show(args: argparse.Namespace) -> int:
    return _print(args, open_store(args))


def cmd_limits_set(args: argparse.Namespace) -> int:
    from memtui_core.store.store_limits import parse_value

    changes: dict[str, object] = {}
    for pair in args.pairs:
        name, sep, value = text_arg(pair, "NAME=VALUE", strict=True).partition("=")
        if not sep or not name.strip():
            raise CliError(f"{pair!r} is not NAME=VALUE (for example max_entries=20000)")
        changes[name.strip()] = parse_value(name.strip(), value.strip())
    store = open_store(args)
    cap = changes.get("max_entries")
    if isinstance(cap, int) and not args.yes:
        held = len(store)
        over = held + 1 - cap
        if over > EVICT_WITHOUT_ASKING:
            question = (f"with max_entries {cap}, the next add would evict {over} of the {held} entries (each kept "
                        f"in a removal backup). Set it?")
            asked = confirm(question)
            if asked is None:
                raise CliError(f"max_entries {cap} would leave the store {held - cap} entries over it, so the next add "
                               f"would evict {over}; nothing was written: pass --yes to set it anyway")
            if not asked:
                raise CliError("nothing was written")
    store.set_limits(changes)
    return _print(args, store)


def cmd_limits_unset(args: argparse.Namespace) -> int:
    names = [text_arg(name, "NAME", strict=True).strip() for name in args.names]
    store = open_store(args)
    store.set_limits(unset=names)
    return _print(args, store)


__all__ = ["cmd_limits_set", "cmd_limits_show", "cmd_limits_unset", "register"]
