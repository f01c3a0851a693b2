"""`memtui doctor`: check the store and suggest fixes (the checks themselves are `memtui.doctor`).

    memtui doctor [--strict] [--json]     exit 0 even with warnings, unless --strict
"""

from __future__ import annotations

from memtui.cli.common import command_prefix, echo, emit_json, open_scoped, open_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    p = commands.add("doctor", "check the store and suggest fixes (exit 0 even with warnings, unless --strict)",
                     json=True)
    p.add_argument("--strict", action="store_true", help="exit 1 when any problem is found")
    p.set_defaults(handler=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from memtui.doctor import diagnose

    if args.dir is not None or getattr(args, "scope", None) is not None:
        report = diagnose(open_store(args), command_prefix(args))
    else:
        report = _both(open_scoped(args), command_prefix(args))
    if args.json:
        emit_json(report.as_dict())
    else:
        from memtui.render import Style

        echo(*report.lines(Style()))
    return 1 if args.strict and report.problems else 0


def _both(scoped, cmd: str):
    """The global store's report, with the project store's problems (each naming that store) and
    the entries both stores hold: a move cut short, or the same note written to each."""
    from memtui.doctor import Fix, Problem, diagnose

    report = diagnose(scoped.main, cmd)
    project = scoped.project
    if project is None:
        return report
    for problem in diagnose(project, f"{cmd} --scope project").problems:
        problem.message = f"project store {project.dir}: {problem.message}"
        report.problems.append(problem)
    pairs = scoped.duplicates()
    if pairs:
        from memtui.render import clean, truncate

        n = len(pairs)
        problem = Problem("scope-duplicates", f"{n} entr{'y is' if n == 1 else 'ies are'} in both the project and "
                                              f"the global store (the block shows each once, the project's copy)")
        for mine, theirs in pairs:
            problem.details.append(f"project {mine.id} = global {theirs.id}  {truncate(clean(mine.text), 40)}")
            problem.fixes.append(Fix(f"{cmd} --scope global rm {theirs.id}", "keep it in the project only"))
            problem.fixes.append(Fix(f"{cmd} --scope project rm {mine.id}", "or keep it global only"))
        report.problems.append(problem)
    return report
