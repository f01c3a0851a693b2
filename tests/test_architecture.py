"""The layout holds: the imports between modules point one way, and no module grows past a size
a reader can hold.

Every module of `core/` (installed as `memtui_core`) and `memtui/` is parsed, and every import in
it is collected: at the top, inside functions, and under `if TYPE_CHECKING:` alike, because each
is a dependency a reader has to follow (and a function-level import of a module that imports
you back is a cycle that only waits for the right call order). Imports made from a computed
string (`importlib.import_module(f"...")`) are not seen.

- No import cycles, in either package.
- In `core/`, the parts are layered: text -> shared -> safety -> ranking -> store -> memory ->
  agents. A module imports only its own part and the parts to its left; `memtui_core/__init__.py`
  (the public names) may import anything. A name taken from `memtui_core` itself counts as an
  import of the module that defines it (`_EXPORTS` in its __init__ says which), so the lazy public
  names are no way around the layers; its own few names (`__version__`) may be taken by anyone.
- `core/` never imports the app or the command (`memtui`) nor Textual.
- In `memtui/`, no command module imports the front door (`memtui.cli`), and no screen, dialog,
  widget or module they share imports the app (`memtui.app`).
- No module over 1,000 lines.

The layout and its arrows are drawn in docs/README.md.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = {"memtui_core": REPO / "core", "memtui": REPO / "memtui"}
MAX_LINES = 1_000

# core/'s parts from left to right: a module may import its own part and the parts before it.
SHARED = ("errors", "kinds", "limits", "model", "health_codes", "over_time_models", "lazy_re", "lang")
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("text", ("text",)),
    ("shared", SHARED),
    ("safety", ("safety",)),
    ("ranking", ("ranking",)),
    ("store", ("store",)),
    ("memory", ("memory", "scopes")),
    ("agents", ("agents",)),
]
# Packages core/ must never import.
NOT_IN_CORE = ("memtui", "textual")

@dataclass
class Module:
    name: str  # dotted, as imported: memtui_core.store.records
    path: Path
    relative: str  # the file, as the failure names it: core/store/records.py
    is_package: bool  # an __init__.py
    imports: dict[str, int] = field(default_factory=dict)  # module of the same package -> first line
    outside: dict[str, int] = field(default_factory=dict)  # any other module imported -> first line


def modules_of(package: str) -> dict[str, Module]:
    root = PACKAGES[package]
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        name = ".".join([package, *parts])
        found[name] = Module(name, path, path.relative_to(root.parent).as_posix(), is_package)
    facade = _lazy_exports(root / "__init__.py", package)
    for module in found.values():
        _collect_imports(module, found, facade)
    return found


def _lazy_exports(init: Path, package: str) -> dict[str, str]:
    """The names a package's __init__ hands out lazily (`_EXPORTS = {"MemoryStore": "memory", ...}`),
    each with the module that defines it: `from memtui_core import MemoryStore` depends on that
    module, not on the package's own few lines."""
    if not init.exists():
        return {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in targets) and node.value is not None:
                return {name: f"{package}.{module}" for name, module in ast.literal_eval(node.value).items()}
    return {}


def _collect_imports(module: Module, known: dict[str, Module], facade: dict[str, str]) -> None:
    """Every import in the module, wherever it sits, resolved to the module it loads."""
    tree = ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))
    here = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            top = source == module.name.split(".")[0]
            named = []  # what each name comes from: a submodule, the top package's lazy export, or the package
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    named.append(f"{source}.{alias.name}")
                elif top and alias.name in facade:
                    named.append(facade[alias.name])
                else:
                    named.append(source)
            targets = list(dict.fromkeys(named))
        for target in targets:
            if target in known:
                if target != module.name:
                    module.imports.setdefault(target, node.lineno)
            else:
                module.outside.setdefault(target, node.lineno)


def find_cycles(modules: dict[str, Module]) -> list[list[str]]:
    """One import cycle per group of modules that import each other (a strongly connected
    component), each as its modules in order with the first repeated at the end."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def connect(name: str) -> None:  # Tarjan's algorithm
        index[name] = low[name] = len(index)
        stack.append(name)
        for target in modules[name].imports:
            if target not in index:
                connect(target)
                low[name] = min(low[name], low[target])
            elif target in stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == name:
                    break
            if len(group) > 1:
                groups.append(group)

    for name in sorted(modules):
        if name not in index:
            connect(name)
    return [_cycle_in(modules, group) for group in sorted(groups, key=min)]


def _cycle_in(modules: dict[str, Module], group: set[str]) -> list[str]:
    """A shortest way from the group's first module back to itself, inside the group."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for name in frontier:
            for target in sorted(modules[name].imports):
                if target == start:
                    path = [name]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, start]
                if target in group and target not in came_from:
                    came_from[target] = name
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle in {sorted(group)}")


def describe_cycles(modules: dict[str, Module], cycles: list[list[str]]) -> str:
    lines = [f"{len(cycles)} import cycle(s) (move the shared piece down, or pass a callback up by parameter):"]
    for cycle in cycles:
        lines += [f"  {modules[a].relative}:{modules[a].imports[b]} imports {b}" for a, b in zip(cycle, cycle[1:])]
        lines.append("")
    return "\n".join(lines)


def layer_of(name: str) -> int | None:
    """The index of the core part a module belongs to; None for memtui_core/__init__.py."""
    parts = name.split(".")
    if len(parts) == 1:
        return None
    for index, (_title, members) in enumerate(LAYERS):
        if parts[1] in members:
            return index
    raise AssertionError(f"{name} belongs to no part of core/: put it in one and name it in LAYERS")


# ---------------------------------------------------------------------------- the checks


@pytest.mark.parametrize("package", ["memtui_core", "memtui"])
def test_no_import_cycles(package):
    modules = modules_of(package)
    cycles = find_cycles(modules)
    assert not cycles, describe_cycles(modules, cycles)


def test_core_parts_import_only_to_their_left():
    modules = modules_of("memtui_core")
    wrong = []
    for module in modules.values():
        mine = layer_of(module.name)
        if mine is None:
            continue  # memtui_core/__init__.py: the public names of every part
        for target, line in sorted(module.imports.items()):
            theirs = layer_of(target)
            # None: memtui_core's own names (__version__); its lazy exports were followed to their module
            if theirs is not None and theirs > mine:
                wrong.append(f"  {module.relative}:{line} ({LAYERS[mine][0]}) imports {target} "
                             f"({LAYERS[theirs][0]})")
    order = " -> ".join(title for title, _members in LAYERS)
    assert not wrong, f"core/'s parts import only to their left ({order}):\n" + "\n".join(wrong)


def test_core_never_imports_the_app_or_textual():
    wrong = [f"  {module.relative}:{line} imports {target}"
             for module in modules_of("memtui_core").values()
             for target, line in sorted(module.outside.items())
             if target.split(".")[0] in NOT_IN_CORE]
    assert not wrong, "the engine stands alone; the app and the command stand on it:\n" + "\n".join(wrong)


def test_the_app_and_the_command_are_never_imported_by_their_parts():
    # The front door calls each command module's register(); the app hands its screens, dialogs and
    # widgets what they need (node.AppParts types what they reach through self.app).
    wrong = []
    for module in modules_of("memtui").values():
        for top, parts in (("memtui.cli", ("memtui.cli.",)), ("memtui.app", ("memtui.screens", "memtui.modals",
                                                                            "memtui.widgets", "memtui.node",
                                                                            "memtui.messages", "memtui.writes"))):
            if module.name.startswith(parts) and top in module.imports:
                wrong.append(f"  {module.relative}:{module.imports[top]} imports {top}")
    assert not wrong, "pass what a part needs down to it, instead of importing the module above:\n" + "\n".join(wrong)


@pytest.mark.parametrize("package", ["memtui_core", "memtui"])
def test_no_module_is_over_the_size_limit(package):
    long = []
    for module in modules_of(package).values():
        lines = len(module.path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            long.append(f"  {module.relative}: {lines} lines")
    assert not long, f"split these by what they do (at most {MAX_LINES:,} lines a module):\n" + "\n".join(long)


# ---------------------------------------------------------------------------- the checker itself


def _fake_package(tmp_path: Path, files: dict[str, str]) -> dict[str, Module]:
    root = tmp_path / "fake"
    for relative, source in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(source, encoding="utf-8")
    PACKAGES["fake"] = root
    try:
        return modules_of("fake")
    finally:
        del PACKAGES["fake"]


def test_the_checker_sees_function_level_type_checking_and_parent_imports(tmp_path):
    modules = _fake_package(tmp_path, {
        "__init__.py": "",
        "cli/__init__.py": "from fake.cli.common import helper\n\ndef build():\n    from fake.cli import probe\n",
        "cli/common.py": "def helper(): ...\n",
        "cli/probe.py": "def run():\n    from fake.cli import build\n",  # the front door, imported back
        "app.py": "from .screens import browse\n",
        "screens/__init__.py": "",
        "screens/browse.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from ..app import App\n",
        "plain.py": "import os\nfrom . import app\n",
    })
    assert set(modules["fake.cli"].imports) == {"fake.cli.common", "fake.cli.probe"}
    assert set(modules["fake.cli.probe"].imports) == {"fake.cli"}
    assert set(modules["fake.screens.browse"].imports) == {"fake.app"}
    assert set(modules["fake.plain"].imports) == {"fake.app"} and "os" in modules["fake.plain"].outside
    cycles = find_cycles(modules)
    assert cycles == [["fake.app", "fake.screens.browse", "fake.app"], ["fake.cli", "fake.cli.probe", "fake.cli"]]
    message = describe_cycles(modules, cycles)
    assert "fake/screens/browse.py:3 imports fake.app" in message and "fake/cli/probe.py:2 imports fake.cli" in message


def test_the_checker_follows_lazy_public_names_to_their_module(tmp_path):
    modules = _fake_package(tmp_path, {
        "__init__.py": '__version__ = "1"\n_EXPORTS = {"Store": "memory", "scan": "safety.threats"}\n',
        "memory.py": "from fake import scan, __version__\n",
        "safety/__init__.py": "",
        "safety/threats.py": "def f():\n    from .. import Store\n",
    })
    assert set(modules["fake.memory"].imports) == {"fake.safety.threats", "fake"}
    assert set(modules["fake.safety.threats"].imports) == {"fake.memory"}
    assert find_cycles(modules) == [["fake.memory", "fake.safety.threats", "fake.memory"]]


def test_the_checker_passes_a_package_without_cycles(tmp_path):
    modules = _fake_package(tmp_path, {
        "__init__.py": "",
        "low.py": "import os\n",
        "mid.py": "from .low import x\n",
        "top.py": "def f():\n    from fake import mid, low\n",
    })
    assert find_cycles(modules) == []
    assert set(modules["fake.top"].imports) == {"fake.mid", "fake.low"}
