"""The JSON Schema of every `--json` output, generated from the models that produce it.

Each output is one `Output(...)` line in `OUTPUTS`: its name (the schema file is
`docs/schemas/<name>.json`), the model it prints (`"module:Name"`, a list of them with
`many=True`), its schema version, and a command line that produces it, which the tests run to
validate real output against the schema. docs/cli-json.md explains the rules; to add a command's
output, add its line here and run `python scripts/json_schemas.py`.

Versioning: a schema's version is part of its `$id` (`urn:memtui:json:<name>:v<version>`).
It goes up when a field is removed or renamed, or changes type or meaning; adding a field does
not change it (consumers ignore fields they do not know). `scripts/json_schemas.py` refuses to
write a breaking change without a new version.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["OUTPUTS", "Output", "by_name", "schema_for"]

DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Output:
    name: str
    model: str  # "module:Name": what the command dumps with model_dump(mode="json")
    example: tuple[str, ...]  # a command line producing it ({id}, {blocked}, {backup} are filled in)
    many: bool = False  # a JSON array of `model`
    version: int = 1
    title: str = ""

    @property
    def id(self) -> str:
        return f"urn:memtui:json:{self.name}:v{self.version}"


OUTPUTS: tuple[Output, ...] = (
    Output("list", "memtui_core.model:Entry", ("list",), many=True, title="memtui list --json"),
    Output("add", "memtui_core.model:RememberResult", ("add", "fact", "CI 跑在 Python 3.11 上"),
           title="memtui add --json"),
    Output("search", "memtui_core.model:Hit", ("search", "部署"), many=True, title="memtui search --json"),
    Output("explain", "memtui_core.model:Explanation", ("explain", "部署 dry-run"), version=2,
           title="memtui explain --json"),
    Output("entry", "memtui_core.model:Entry", ("edit", "{id}", "--text", "新的文字"),
           title="memtui edit | reclassify | rm | approve | pin | unpin --json: the entry after the change (rm: as "
                 "deleted)"),
    Output("backups", "memtui_core.model:Backup", ("backups",), many=True, title="memtui backups --json"),
    Output("restore", "memtui_core.model:RestoreResult", ("restore", "{backup}", "--dry-run"),
           title="memtui restore [--dry-run] --json"),
    Output("audit", "memtui_core.model:AuditEvent", ("audit",), many=True, title="memtui audit --json"),
    # v2: `warnings` are {code, text, fix} objects instead of strings
    Output("doctor", "memtui.doctor:DoctorOutput", ("doctor",), version=2, title="memtui doctor --json"),
    Output("limits", "memtui.cli.limits_models:LimitsOutput", ("limits",),
           title="memtui limits [set NAME=VALUE | unset NAME] --json: the limits in force and the store's own"),
    Output("injections", "memtui_core.over_time_models:InjectionRecord", ("injections",), many=True,
           title="memtui injections --json: past injections, oldest first"),
    Output("injection", "memtui_core.over_time_models:InjectionShown", ("injections", "--show", "1"),
           title="memtui injections --show N --json: one injection, each entry as it was then"),
    Output("replay", "memtui_core.over_time_models:ReplayReport", ("injections", "--replay", "1"),
           title="memtui injections --replay N --json: a past injection's query against today's store"),
    Output("core", "memtui_core.model:CoreReport", ("core",),
           title="memtui core --json: the pinned core in order, its budget, and what does not fit"),
    Output("import", "memtui_core.over_time_models:ImportReport",
           ("import", "tests/cli/data/memories.jsonl", "--dry-run"), title="memtui import FILE [--dry-run] --json"),
)

# Commands whose --json prints an output registered under another name.
COMMAND_OUTPUT = {"edit": "entry", "reclassify": "entry", "rm": "entry", "approve": "entry", "pin": "entry",
                  "unpin": "entry"}


def by_name(name: str) -> Output:
    for output in OUTPUTS:
        if output.name == name:
            return output
    raise KeyError(name)


def _model(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def schema_for(output: Output) -> dict[str, Any]:
    """The schema of `output`, as docs/schemas/<name>.json holds it."""
    from pydantic import TypeAdapter
    from pydantic.json_schema import GenerateJsonSchema

    class AlwaysPresent(GenerateJsonSchema):
        # model_dump writes every field, defaults included: to a reader, each one is required.
        def field_is_required(self, field, total):  # type: ignore[no-untyped-def]
            return True

    model = _model(output.model)
    schema = TypeAdapter(list[model] if output.many else model).json_schema(
        mode="serialization", schema_generator=AlwaysPresent
    )
    head = {"$schema": DIALECT, "$id": output.id, "title": output.title or f"memtui {output.name} --json"}
    head["description"] = (
        f"Version {output.version} of this output's shape. Fields may be added without a new version; "
        "removing, renaming or retyping one makes a new version. See docs/cli-json.md."
    )
    schema.pop("title", None)
    schema.pop("description", None)
    return {**head, **schema}


def cmd_schema(args) -> int:
    """`memtui schema [NAME]`: one output's schema (its file in docs/schemas/), or the list of them."""
    import json
    import sys

    if args.name is None:
        name_width = max(len(output.name) for output in OUTPUTS)
        id_width = max(len(output.id) for output in OUTPUTS)
        for output in OUTPUTS:
            sys.stdout.write(f"{output.name:<{name_width}}  {output.id:<{id_width}}  {output.title}\n")
        return 0
    sys.stdout.write(json.dumps(schema_for(by_name(args.name)), indent=2, ensure_ascii=False) + "\n")
    return 0
