"""`memtui scopes`, `memtui init-project` and `memtui move`: the project store beside the global one.

    memtui scopes                   which stores a command here reads, and how many entries each holds
    memtui init-project [DIR]       make DIR/.memtui/ (default: the git root, else this folder) a project store
    memtui move ID global           move an entry to the other scope (an audited add, then an audited delete)

docs/scopes.md says what a scope is and where a write goes.
"""

from __future__ import annotations

from memtui.cli.common import SCOPE_NAMES, CliError, echo, open_scoped, text_arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    p = commands.add("scopes", "the stores read here: the project store (.memtui/ in this project) and the global one")
    p.set_defaults(handler=cmd_scopes)

    p = commands.add("init-project", "make a project store: DIR/.memtui/ (default: the git root, else this folder)")
    p.add_argument("folder", nargs="?", default=None, metavar="DIR", help="the project's root folder")
    p.set_defaults(handler=cmd_init_project)

    p = commands.add("move", "move an entry to the project or the global store (added there, then deleted here)")
    p.add_argument("id", metavar="ID")
    p.add_argument("to", choices=SCOPE_NAMES, metavar="SCOPE", help="project or global")
    p.set_defaults(handler=cmd_move)


def cmd_scopes(args: argparse.Namespace) -> int:
    scoped = open_scoped(args)
    for scope, store in scoped.stores:
        name = scope or "--dir"
        count = len(store) if store.state() is not None else 0
        echo(f"{name:8} {store.where}  ({count} entries)")
    if scoped.project is None and args.dir is None:
        echo("no project store here: `memtui init-project` makes one at the git root")
    duplicates = scoped.duplicates()
    if duplicates:
        echo(f"{len(duplicates)} entr{'y is' if len(duplicates) == 1 else 'ies are'} in both stores (shown once); "
             f"`memtui doctor` lists them")
    return 0


def cmd_init_project(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from memtui_core.scopes import PROJECT_FOLDER, ScopeError, find_project, git_root, working_folder
    from memtui_core.store.folder import StoreFolder

    if args.dir is not None:
        raise CliError("--dir names one store, which has no scopes: init-project takes the project's folder as DIR")
    if args.folder is not None:
        root = working_folder(text_arg(args.folder, "DIR"))
    else:
        root = git_root(None) or working_folder(None)
    folder = root / PROJECT_FOLDER
    if os.path.isdir(folder):
        echo(f"{folder} is already a project store")
        return 0
    found = find_project(root)
    if found is not None and Path(found).parent != root:
        echo(f"note: {found} is a project store above this one; commands under {root} will use the new one")
    try:
        StoreFolder(folder).ensure_dir()  # 0700, as every store folder
    except ScopeError:
        raise
    echo(f"made the project store {folder}: commands run under {root} read it beside the global store")
    echo("entries about this project (facts, lessons, corrections) go there; preferences stay global")
    return 0


def cmd_move(args: argparse.Namespace) -> int:
    scoped = open_scoped(args, narrow=False)
    if not scoped.stores[0][0]:
        raise CliError("--dir names one store, which has no scopes: move needs the project and the global store")
    entry_id = text_arg(args.id, "ID")
    received = scoped.move(entry_id, args.to, person=True)  # a person at the command line: an approval is made again
    from memtui.render import clean, truncate

    moved = received.entry
    kept = "" if moved.id == entry_id else f" as {moved.id} (that store holds {entry_id} already)"
    echo(f"moved {entry_id} to the {args.to} store{kept} ({moved.kind.value}) {truncate(clean(moved.text), 50)}")
    echo(f"  {_carried(received)}")
    return 0


def _carried(received) -> str:
    """What a person decided about the entry that the move kept (the pin, the approval)."""
    said = ["pinned in the core there" if received.pinned else "not pinned"]
    if received.approved is True:
        said.append("approved again there (audited)")
    elif received.approved is False:
        said.append("blocked there until approved (memtui approve)")
    return "; ".join(said)
