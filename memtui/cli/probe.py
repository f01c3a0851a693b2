"""`memtui probe`: keep retrieval regression tests and run them.

    memtui probe add "部署怎么跑" --expect 0123456789ab     the query must inject this entry
    memtui probe add "What is the capital of Australia?" --expect-nothing
    memtui probe run [--json]                              exit 1 when any probe fails
    memtui probe list [--json]
    memtui probe rm ID

The probes live in `<store dir>/probes.json`; see docs/probes.md. Inside a project (docs/scopes.md)
the probes are the global store's (`--scope project`: the project's), and they rank over both
stores as one candidate set, as a turn there does; each expected entry is named with its store.
"""

from __future__ import annotations

from memtui.cli.common import PROG, echo, emit_json, open_scoped, open_store, query_arg, stderr, text_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands

HELP = "retrieval regression tests: a query and the entries it must inject, or nothing"


def register(commands: Commands) -> None:
    """`probe add|run|list|rm`: each action takes the store options and --json."""
    parser = commands.add("probe", HELP)
    actions = commands.under(parser.add_subparsers(dest="probe_command", metavar="ACTION", title="actions",
                                                   required=True))

    def action(name: str, help: str) -> argparse.ArgumentParser:
        return actions.add(name, help, json=True)

    p = action("add", "keep a probe: QUERY must inject the entries given, or nothing (a probe with the "
                      "same query is replaced)")
    p.add_argument("query", metavar="QUERY", help="the user's message (`-` reads it from stdin)")
    expectation = p.add_mutually_exclusive_group(required=True)
    expectation.add_argument("--expect", nargs="+", action="extend", metavar="ID",
                             help="entry ids the query must inject (several, or the option repeated)")
    expectation.add_argument("--expect-nothing", action="store_true", help="the query must inject no entry")
    p.set_defaults(handler=cmd_probe_add)

    p = action("run", "run every probe: hit rate, false recall and each failure with its reason "
                      "(exit 1 when any fails)")
    p.set_defaults(handler=cmd_probe_run)

    p = action("list", "the probes, in file order")
    p.set_defaults(handler=cmd_probe_list)

    p = action("rm", "delete a probe")
    p.add_argument("id", metavar="ID", help="a probe id, as `memtui probe list` shows it")
    p.set_defaults(handler=cmd_probe_rm)


def _stores(args: argparse.Namespace):
    """(the store whose probes.json the command uses, the stores a turn here reads): inside a project
    without --dir, the probes rank over the project store and the global one as one set."""
    if args.dir is not None:
        return open_store(args), None
    scoped = open_scoped(args, narrow=False)
    return scoped.store(getattr(args, "scope", None)), scoped


def _in(result, entry_id: str) -> str:
    """` (project)`: the store an expected entry is in, when the probes ran over two."""
    scope = result.scopes.get(entry_id)
    return f" ({scope})" if scope else ""


def _warn_about(args: argparse.Namespace, probe_file) -> None:
    """What reading probes.json found: a corrupt file moved aside now, or left aside earlier."""
    if probe_file.quarantined:
        stderr(f"{PROG}: warning: {probe_file.path} was corrupt ({probe_file.error}): moved it to "
               f"{probe_file.quarantined}; no probe was lost, fix that file and move it back")
    older = [name for name in probe_file.broken if name != probe_file.quarantined]
    if older:
        files = "file" if len(older) == 1 else "files"
        stderr(f"{PROG}: warning: {len(older)} corrupt probes {files} set aside in {probe_file.path} "
               f"(newest {older[-1]}); fix and move it back to probes.json, or delete it")
    for item in probe_file.invalid:
        stderr(f"{PROG}: warning: probes.json item {item.index} is not a probe ({item.error}); kept as it is, "
               f"not run")


def _expectation(probe, result=None) -> str:
    if probe.expects_nothing:
        return "nothing"
    return " ".join(entry_id + (_in(result, entry_id) if result is not None else "") for entry_id in probe.expect)


def _quoted(query: str, width: int = 60) -> str:
    from memtui.render import clean, truncate

    return "“" + truncate(clean(query), width) + "”"


def cmd_probe_add(args: argparse.Namespace) -> int:
    from memtui_core.agents.probes import ProbeFile, add_probe, load_probes, run_probes

    query = query_arg(args.query)
    expect = None if args.expect_nothing else [text_arg(value, "ID") for value in args.expect]
    store, scoped = _stores(args)
    _warn_about(args, load_probes(store))  # a corrupt file is moved aside and said so before the write
    probe, outcome = add_probe(store, query, expect, scoped=scoped)
    result = run_probes(store, ProbeFile(path="", probes=[probe]), scoped=scoped).results[0]
    if args.json:
        return emit_json({"outcome": outcome, "probe": probe.model_dump(mode="json"),
                          "result": result.model_dump(mode="json")})
    from memtui.render import Style

    style = Style()
    verb = {"added": "added", "updated": "updated", "unchanged": "already kept as"}[outcome]
    echo(f"{verb} probe {style.bold(probe.id)}: {_quoted(probe.query)} must inject {_expectation(probe, result)}")
    if result.passed:
        echo(style.green("  it passes now"))
    else:
        echo(style.yellow("  it fails now (`memtui probe run` shows this every time until it passes):"))
        echo(*_miss_lines(result, style))
    return 0


def _miss_lines(result, style) -> list[str]:
    from memtui.render import clean, truncate

    lines = []
    for miss in result.misses:
        where = f" #{miss.rank}" if miss.rank else ""
        text = f"  {truncate(clean(miss.text), 40)}" if miss.text else ""
        lines.append(f"    {miss.id}{_in(result, miss.id)}{where} {style.yellow(miss.status)}: {clean(miss.reason)}"
                     + style.dim(text))
    return lines


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def cmd_probe_run(args: argparse.Namespace) -> int:
    from memtui_core.agents.probes import load_probes, run_probes

    store, scoped = _stores(args)
    probe_file = load_probes(store)
    _warn_about(args, probe_file)
    run = run_probes(store, probe_file, scoped=scoped)
    if args.json:
        emit_json(run.model_dump(mode="json"))
        return 0 if run.ok else 1
    from memtui.render import Style

    style = Style()
    total = run.passed + run.failed
    if not total:
        echo(style.dim(f"no probes in {probe_file.path} (`memtui probe add QUERY --expect ID` keeps one)"))
        return 0 if run.ok else 1
    summary = (f"{run.passed} of {total} probes pass · hit rate {_ratio(run.hits, run.expected)} · "
               f"false recall {_ratio(run.recalled, run.nothing_probes)}")
    if run.others_per_probe is not None:
        summary += f" · {run.others_per_probe:.2f} other entries per probe beside the expected ones"
    echo(style.bold(summary) if run.failed == 0 else style.red(summary))
    for result in run.results:
        if result.passed:
            continue
        echo(f"FAIL {style.bold(result.probe.id)} {_quoted(result.probe.query)} must inject "
             f"{_expectation(result.probe, result)}")
        echo(*_miss_lines(result, style))
    return 0 if run.ok else 1


def cmd_probe_list(args: argparse.Namespace) -> int:
    from memtui_core.agents.probes import load_probes

    store = open_store(args)
    probe_file = load_probes(store)
    _warn_about(args, probe_file)
    if args.json:
        return emit_json([probe.model_dump(mode="json") for probe in probe_file.probes])
    from memtui.render import Style, age, clean, table, terminal_width

    style = Style()
    rows = [[probe.id, age(probe.ts), _expectation(probe), clean(probe.query)] for probe in probe_file.probes]
    if rows:
        echo(*table(["ID", "AGE", "EXPECT", "QUERY"], rows, width=terminal_width(), style=style,
                    styles=[style.bold, style.dim, style.cyan, None]))
    echo(style.dim(f"{len(rows)} probes in {probe_file.path}"))
    return 0


def cmd_probe_rm(args: argparse.Namespace) -> int:
    from memtui_core.agents.probes import load_probes, remove_probe

    store = open_store(args)
    _warn_about(args, load_probes(store))
    probe = remove_probe(store, text_arg(args.id, "ID"))
    if args.json:
        return emit_json(probe.model_dump(mode="json"))
    echo(f"deleted probe {probe.id}: {_quoted(probe.query)} (it expected {_expectation(probe)})")
    return 0
