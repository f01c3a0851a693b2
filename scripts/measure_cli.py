"""Whole-process wall time of `memtui` commands, optionally against another checkout.

    python scripts/measure_cli.py [--entries 500] [--runs 30] [--against DIR] [-- COMMAND ...]

Runs each command as a fresh `python -m memtui` process on a generated store, alternating between
this checkout and `--against` (a tree extracted with `git archive`, for example), and prints the
median and the 10th-90th percentile spread in milliseconds. Without a command it measures
`list`, `search 部署`, `explain 部署` and `inject 部署 dry-run`, plus `python -c "import orjson"`
as the yardstick the inject budget is stated in. Output goes to a pipe, as from a script.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DEFAULT = [["list"], ["search", "部署"], ["explain", "部署"], ["inject", "部署 dry-run"]]


def tree_env(tree: Path, store: Path) -> dict[str, str]:
    """Run `tree`'s code: its folders first on the path, `memtui_core` linked to its core/."""
    link = tree / ".measure-path"
    link.mkdir(exist_ok=True)
    for name, target in (("memtui", tree / "memtui"), ("memtui_core", tree / "core")):
        if not (link / name).exists():
            (link / name).symlink_to(target)
    return {**os.environ, "PYTHONPATH": str(link), "MEMTUI_DIR": str(store)}


def once(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd="/")
    return (time.perf_counter() - start) * 1000


def summary(times: list[float]) -> str:
    times = sorted(times)
    low, high = (statistics.quantiles(times, n=10)[::8]) if len(times) >= 10 else (times[0], times[-1])
    return f"{statistics.median(times):7.1f}  ({low:.0f}-{high:.0f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=500)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.corpus import write_store

    commands = [args.command] if args.command else DEFAULT
    trees = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        write_store(store, args.entries)
        envs = {name: tree_env(tree, store) for name, tree in trees.items()}
        print(f"{args.entries} entries, {args.runs} runs each; median ms (p10-p90)")
        yardstick = [sys.executable, "-c", "import orjson"]
        times = [once(yardstick, envs["this"]) for _ in range(args.runs)]
        label = 'python -c "import orjson"'
        print(f"{label:<34} {summary(times)}")
        for command in commands:
            full = [sys.executable, "-m", "memtui", *command]
            results: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, env in envs.items():  # alternate, so load on the machine hits both alike
                    results[name].append(once(full, env))
            label = "memtui " + " ".join(command)
            print("  ".join([f"{label:<34}"] + [f"{name}: {summary(t)}" for name, t in results.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
