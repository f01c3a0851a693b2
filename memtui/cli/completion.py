"""`memtui completion SHELL`: a tab-completion script, generated from the command's own parser.

    eval "$(memtui completion bash)"                 # bash, for this shell
    memtui completion zsh > ~/.zfunc/_memtui         # zsh, with ~/.zfunc on $fpath

The script is static shell code: completing a word never starts Python, so `memtui inject`
and every other command pay nothing for it. shtab is imported only by this command.
"""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.cli.common import Commands

SHELLS = ("bash", "zsh", "tcsh")

# shtab's file and directory completers, per shell (the values of shtab.FILE and shtab.DIRECTORY,
# written out so that building the parser never imports shtab).
_DIRECTORY = {"bash": "_shtab_compgen_dirs", "zsh": "_files -/", "tcsh": "d"}
_FILE = {"bash": "_shtab_compgen_files", "zsh": "_files", "tcsh": "f"}


def register(commands: Commands) -> None:
    p = commands.add("completion", "print a shell completion script: eval \"$(memtui completion bash)\"")
    p.add_argument("shell", choices=SHELLS, metavar="SHELL", help=", ".join(SHELLS))
    root = commands.root  # the script covers every command: handed over here, never imported back
    p.set_defaults(handler=lambda args: cmd_completion(args, root))


def _annotate(parser: argparse.ArgumentParser) -> None:
    """What to offer where argparse alone cannot tell: directories for --dir, the four kinds for
    KIND (the parser also accepts aliases, so it has no `choices` of its own)."""
    from memtui_core.kinds import Kind

    kinds = [kind.value for kind in Kind]
    for action in parser._actions:
        if "--dir" in action.option_strings:
            action.complete = _DIRECTORY  # type: ignore[attr-defined]
        elif action.metavar == "KIND" and action.choices is None:
            action.choices = kinds
        elif action.metavar == "FILE":
            action.complete = _FILE  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _annotate(sub)


def cmd_completion(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """The script for `parser`, the whole `memtui` parser (given by `register`)."""
    import shtab

    _annotate(parser)
    script = shtab.complete(parser, shell=args.shell)
    sys.stdout.write(script if script.endswith("\n") else script + "\n")
    sys.stdout.flush()
    return 0
