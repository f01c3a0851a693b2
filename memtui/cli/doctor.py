"""`memtui doctor`: check the store and suggest fixes (the checks themselves are `memtui.doctor`).

    memtui doctor [--strict] [--json]     exit 0 even with warnings, unless --strict
"""

from __future__ import annotations

from memtui.cli.common import command_prefix, echo, emit_json, open_store

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

    store = open_store(args)
    report = diagnose(store, command_prefix(args))
    if args.json:
        emit_json(report.as_dict())
    else:
        from memtui.render import Style

        echo(*report.lines(Style()))
    return 1 if args.strict and report.problems else 0
