"""`memtui search` and `memtui explain`: the entries a query finds, and why each one is or is not
injected for it.

    memtui search "部署" --top-k 8
    memtui explain "部署 dry-run" --all --json
"""

from __future__ import annotations

from memtui.cli.common import (CliError, add_lang_option, dump, echo, emit_json, kind_cell, nonnegative_int,
                               open_scoped, query_arg, text_cell)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands

# explain builds one row per (entry, distinct query term): bounded so a pasted document cannot
# keep the command busy for minutes.
MAX_EXPLAIN_ROWS = 1_000_000


def register(commands: Commands) -> None:
    p = commands.add("search", "the best-matching entries for a query (blocked entries never appear)", json=True)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--top-k", type=nonnegative_int, default=None, metavar="N", help="at most N hits (default 4)")
    p.set_defaults(handler=cmd_search)

    p = commands.add("explain", "why each entry is or is not injected for a query", json=True)
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--top-k", type=nonnegative_int, default=None, metavar="N", help="entries injected (default 4)")
    p.add_argument("--budget", type=nonnegative_int, default=None, metavar="N",
                   help="characters of entry lines (default 2400)")
    p.add_argument("--all", action="store_true", help="also list the entries that contain no query term")
    add_lang_option(p)
    p.set_defaults(handler=cmd_explain)


def cmd_search(args: argparse.Namespace) -> int:
    scoped = open_scoped(args)
    found = scoped.search(query_arg(args.query), top_k=args.top_k)
    hits = [hit for _scope, hit in found]
    if args.json:
        return emit_json([dump(hit) for hit in hits])
    from memtui.render import Style, table, terminal_width

    style = Style()
    if not hits:
        echo(style.dim("no entry matches"))
        return 0
    if scoped.scoped:  # read from the project store and the global one: say which
        rows = [[str(i), f"{hit.score:.2f}", hit.entry.id, scope or "-", kind_cell(hit.entry.kind),
                 text_cell(hit.entry, style)] for i, (scope, hit) in enumerate(found, start=1)]
        echo(*table(["#", "SCORE", "ID", "SCOPE", "KIND", "TEXT"], rows, align="><<<<<", width=terminal_width(),
                    style=style, styles=[None, style.bold, style.dim, style.dim, style.cyan, None]))
        return 0
    rows = [[str(i), f"{hit.score:.2f}", hit.entry.id, kind_cell(hit.entry.kind), text_cell(hit.entry, style)]
            for i, hit in enumerate(hits, start=1)]
    echo(*table(["#", "SCORE", "ID", "KIND", "TEXT"], rows, align="><<<<", width=terminal_width(), style=style,
                styles=[None, style.bold, style.dim, style.cyan, None]))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from memtui_core.text.tokenize import tokenize

    store = open_scoped(args)
    query = query_arg(args.query)
    terms, entries = len(set(tokenize(query))), len(store)
    if terms * entries > MAX_EXPLAIN_ROWS:
        raise CliError(f"the query has {terms} distinct terms; explaining them for {entries} entries is too much "
                       f"(at most {MAX_EXPLAIN_ROWS:,} term rows): shorten it (search and inject take any size)")
    explanation = store.explain(query, top_k=args.top_k, budget=args.budget)
    if args.json:
        return emit_json(dump(explanation))
    from memtui.render import Style, explanation_lines, terminal_width

    echo(*explanation_lines(explanation, Style(), terminal_width(), show_all=args.all))
    return 0
