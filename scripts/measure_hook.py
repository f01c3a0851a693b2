"""Measure `memtui hook claude-code` as Claude Code pays for it: a whole new process per prompt.

    .venv/bin/python scripts/measure_hook.py              # 30 runs each, medians and ratios
    .venv/bin/python scripts/measure_hook.py --check      # exit 1 if the hook is over 2x the baseline

Against `python -c "import orjson"` (the floor of any Python hook) and `memtui inject QUERY` (the
same ranking without the hook's JSON), interleaved after a warm-up, on the 500-entry store of
scripts/measure_inject.py. The hook is fed the JSON Claude Code sends on stdin: a UserPromptSubmit
with the same query, and a SessionStart; then the same two with a `cwd` inside a project whose
`.memtui/` store holds 100 more entries (docs/scopes.md: both stores read as one). Byte-code
caching is on, as in an installed package.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure_inject import QUERY, REPO, build_store, console_script  # noqa: E402

TARGET_RATIO = 2.0
PROJECT_ENTRIES = 100


def event(name: str, cwd: str, prompt: str | None = None) -> bytes:
    import orjson

    payload = {"session_id": "0b6f1d4e-2f7c-4d8a-9a51-3c2e8f0b7a11", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
               "hook_event_name": name}
    if prompt is not None:
        payload["prompt"] = prompt
    return orjson.dumps(payload)


def measure(runs: int) -> dict[str, float]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="memtui-measure-hook-") as tmp:
        store = Path(tmp) / "store"
        build_store(store)
        env["MEMTUI_DIR"] = str(store)
        project = Path(tmp) / "project"
        build_store(project / ".memtui", entries=PROJECT_ENTRIES, seed=11)
        (project / "src").mkdir()
        memtui = console_script()
        commands: dict[str, tuple[list[str], bytes | None]] = {
            "python -c 'import orjson'": ([sys.executable, "-c", "import orjson"], None),
            "memtui inject QUERY": ([memtui, "inject", QUERY], None),
            "memtui hook claude-code (prompt)": ([memtui, "hook", "claude-code"],
                                                 event("UserPromptSubmit", tmp, QUERY)),
            "memtui hook claude-code (start)": ([memtui, "hook", "claude-code"], event("SessionStart", tmp)),
            "hook (prompt, in a project)": ([memtui, "hook", "claude-code"],
                                            event("UserPromptSubmit", str(project / "src"), QUERY)),
            "hook (start, in a project)": ([memtui, "hook", "claude-code"],
                                           event("SessionStart", str(project / "src"))),
        }
        check = subprocess.run(commands["memtui hook claude-code (prompt)"][0], input=commands[
            "memtui hook claude-code (prompt)"][1], env=env, cwd=REPO, capture_output=True, check=True)
        if b"additionalContext" not in check.stdout or check.stderr:
            raise SystemExit(f"the hook printed no block: {check.stderr.decode()}")
        times: dict[str, list[float]] = {name: [] for name in commands}
        for round in range(runs + 3):
            for name, (command, data) in commands.items():
                start = time.perf_counter()
                subprocess.run(command, input=data, env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True)
                if round >= 3:  # the first rounds warm the caches
                    times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) for name, values in times.items()}
    return medians


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of each command (default 30, at least 20)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 when the hook is over {TARGET_RATIO:g}x")
    args = parser.parse_args(argv)
    runs = max(args.runs, 20)
    medians = measure(runs)
    base = medians["python -c 'import orjson'"]
    print(f"median wall time of {runs} runs each, interleaved (500-entry store, python {sys.version.split()[0]}):")
    for name, value in medians.items():
        print(f"  {name:36} {value * 1000:7.1f} ms   {value / base:5.2f}x")
    worst = max(value for name, value in medians.items() if "hook" in name) / base
    print(f"  target: the hook <= {TARGET_RATIO:g}x the baseline; worst {worst:.2f}x")
    return 1 if args.check and worst > TARGET_RATIO else 0


if __name__ == "__main__":
    sys.exit(main())
