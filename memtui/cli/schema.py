"""`memtui schema [NAME]`: the JSON Schema of a --json output (the outputs and their schemas are
`memtui.json_schemas`, shared with scripts/json_schemas.py and the tests)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memtui.cli.common import Commands


def register(commands: Commands) -> None:
    from memtui.json_schemas import OUTPUTS, cmd_schema

    p = commands.add("schema", "the JSON Schema of a --json output (docs/schemas/); without NAME, list them")
    p.add_argument("name", nargs="?", choices=[o.name for o in OUTPUTS], metavar="NAME",
                   help=", ".join(o.name for o in OUTPUTS))
    p.set_defaults(handler=cmd_schema)
