"""`memtui list` and `memtui add`: the entries as they are, and remembering a new one.

    memtui list --kind preference
    memtui add fact "前端用 Vite 构建" --keyword vite

A new entry goes through the store's write rules (near-duplicates, the threat scan, secrets,
eviction); what happened to it is said in one line each.
"""

from __future__ import annotations

from memtui.cli.common import (EVICT_WITHOUT_ASKING, CliError, command_prefix, confirm, dump, echo, emit_json,
                               emit_models, input_text, kind_cell, open_scoped, text_arg, text_cell, warn_cut)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    p = commands.add("list", "list the entries, in store order", json=True)
    p.add_argument("--kind", metavar="KIND", help="only this kind: preference, correction, lesson or fact")
    p.set_defaults(handler=cmd_list)

    p = commands.add("add", "remember one entry (a near-duplicate refreshes the existing one)", json=True)
    p.add_argument("kind", metavar="KIND", help="preference, correction, lesson or fact")
    p.add_argument("text", metavar="TEXT", help="the memory (`-` reads it from stdin)")
    p.add_argument("--source", default="cli", help="where it came from (default: cli)")
    p.add_argument("--keyword", action="append", default=None, metavar="K", dest="keywords",
                   help="a retrieval keyword (repeatable): a synonym or the other language's word; never shown "
                        "in the block")
    p.add_argument("--yes", action="store_true",
                   help=f"allow the add to evict more than {EVICT_WITHOUT_ASKING} entries (otherwise it asks on a "
                        f"terminal, and is refused without one)")
    p.set_defaults(handler=cmd_add)


def cmd_list(args: argparse.Namespace) -> int:
    scoped = open_scoped(args)
    listed = scoped.entries()
    if args.kind is not None:
        from memtui_core.kinds import Kind

        kind = Kind.require(text_arg(args.kind, "KIND"))
        listed = [(scope, entry) for scope, entry in listed if entry.kind is kind]
    entries = [entry for _scope, entry in listed]
    if args.json:
        from memtui_core.model import Entry

        return emit_models(entries, Entry)
    from memtui.render import Style, age, clean, table, terminal_width

    style = Style()
    if scoped.scoped:  # the project store and the global one: a column says which
        rows = [[entry.id, scope or "-", kind_cell(entry.kind), age(entry.ts), clean(entry.source) or "-",
                 text_cell(entry, style)] for scope, entry in listed]
        header = ["ID", "SCOPE", "KIND", "AGE", "SOURCE", "TEXT"]
        styles = [style.dim, style.dim, style.cyan, None, style.dim, None]
    else:
        rows = [[entry.id, kind_cell(entry.kind), age(entry.ts), clean(entry.source) or "-", text_cell(entry, style)]
                for entry in entries]
        header = ["ID", "KIND", "AGE", "SOURCE", "TEXT"]
        styles = [style.dim, style.cyan, None, style.dim, None]
    if rows:
        echo(*table(header, rows, width=terminal_width(), style=style, styles=styles))
    for scope, store in scoped.stores:
        total = len(store)
        shown = sum(1 for where, _e in listed if where == scope) if scoped.scoped or args.kind is not None else total
        shown = f"{shown} of {total}" if shown != total or args.kind is not None else f"{total}"
        where = f" in the {scope} store ({store.where})" if scoped.scoped else ""
        echo(style.dim(f"{shown} entries ({total}/{store.limits.max_entries}){where}"))
        invalid = len(store.invalid())
        if invalid:
            items = "1 invalid item in the file is" if invalid == 1 else f"{invalid} invalid items in the file are"
            echo(style.yellow(f"{items} kept but not listed; see `{command_prefix(args)} doctor`"))
    duplicates = scoped.duplicates()
    if duplicates:
        echo(style.yellow(f"{len(duplicates)} entr{'y is' if len(duplicates) == 1 else 'ies are'} in both stores, "
                          f"listed once; see `{command_prefix(args)} doctor`"))
    return 0


def _remember(args: argparse.Namespace, store, kind, text: str, source: str, keywords):
    """`store.remember`, asking first when it would evict more than a handful of entries."""
    from memtui_core.errors import EvictionRefused

    bound = None if args.yes else EVICT_WITHOUT_ASKING
    try:
        return store.remember(kind, text, source=source, keywords=keywords, max_evict=bound)
    except EvictionRefused as refused:
        raise_limit = f"`{command_prefix(args)} limits set max_entries={refused.held + 1}`"
        asked = confirm(f"this add would evict {refused.count} entries to stay within max_entries {refused.cap} "
                        f"(the store holds {refused.held}; each is kept in a removal backup). Evict them?")
        if asked is None:
            raise CliError(f"{refused}: pass --yes to allow it, or raise the limit with {raise_limit}") from None
        if not asked:
            raise CliError(f"nothing was written; to keep every entry, raise the limit with {raise_limit}") from None
    return store.remember(kind, text, source=source, keywords=keywords)


def cmd_add(args: argparse.Namespace) -> int:
    from memtui_core.errors import StoreUnwritable
    from memtui_core.kinds import Kind

    kind = Kind.require(text_arg(args.kind, "KIND"))
    text = input_text(args.text, "TEXT")
    source = text_arg(args.source, "--source", strict=True)
    keywords = [text_arg(k, "--keyword", strict=True) for k in args.keywords] if args.keywords is not None else None
    scoped = open_scoped(args, narrow=False)
    scope, store = scoped.write_store(kind, args.scope)
    try:
        result = _remember(args, store, kind, text, source, keywords)
    except StoreUnwritable as error:
        if scope != "project":
            raise
        raise CliError(f"the project store {store.dir} cannot be written ({error}); add it with --scope global, "
                       f"or make the folder writable") from None
    if result.truncated:
        warn_cut(store, result.original_length)
    if args.json:
        return emit_json(dump(result))
    from memtui.render import Style, clean, truncate

    style = Style()
    entry = result.entry
    evicted_ids = [old.id for old in result.evicted]
    where = f", {scope}" if scope is not None and (scoped.scoped or args.scope is not None) else ""
    if result.added:
        echo(f"added {style.bold(entry.id)} ({entry.kind.value}{where}) {truncate(clean(entry.text), 60)}")
    else:
        echo(f"already remembered as {style.bold(entry.id)} ({entry.kind.value}): refreshed its time; "
             f"text and kind kept")
        if entry.kind is not kind:
            echo(style.yellow(f"  you said {kind.value}; it stays {entry.kind.value} "
                              f"(`{command_prefix(args)} reclassify {entry.id} {kind.value}` to change it)"))
    if entry.id in evicted_ids:
        echo(style.yellow(f"  the store is full ({store.limits.max_entries}) of entries that are kept longer: "
                          f"it was evicted at once"))
    others = [old for old in result.evicted if old.id != entry.id]
    for old in others:
        echo(style.yellow(f"  evicted {old.id} ({old.kind.value}) to stay within {store.limits.max_entries}: "
                          f"{truncate(clean(old.text), 50)}"))
    if entry.id not in evicted_ids and "blocked" in entry.flags:
        categories = [f.split(":", 1)[1] for f in entry.flags if f.startswith("threat:")]
        echo(style.red(f"  blocked by the threat scan ({', '.join(categories) or 'flagged'}): stored, but never "
                       f"injected until approved (`{command_prefix(args)} approve {entry.id}`)"))
    elif result.added and "secret-redacted" in entry.flags:
        echo(style.yellow("  a secret in the text was replaced by [REDACTED:...]"))
    return 0
