"""Measure `memtui inject QUERY` as a whole process against `python -c "import orjson"` (docs/performance.md).

    .venv/bin/python scripts/measure_inject.py            # 30 runs each, prints medians and ratios
    .venv/bin/python scripts/measure_inject.py --runs 50 --check   # exit 1 if a ratio is over 3

The store is built once in a temporary directory: 500 entries of up to 400 mixed Chinese and
English characters. Each command runs `--runs` times, interleaved, after a warm-up; the wall
time of each process is measured from the outside (spawn to exit) and the medians compared.

Byte-code caching is left on for the child processes (PYTHONDONTWRITEBYTECODE is removed from
their environment), as in an installed package; `--no-bytecode-cache` keeps the caller's setting.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO = 3.0
QUERY = "部署脚本 dry-run 前端构建用 Vite，测试用 pytest"

_HAN = "部署脚本默认先确认后再真正执行回复用中文代码注释英文前端构建测试数据库迁移日志配置服务器缓存接口文档用户偏好项目约定目录结构"
_WORDS = ("deploy dry-run vite pytest docker compose config cache api schema migration review branch "
          "release python rust typescript lint format commit tests logging server client").split()
_KINDS = ("preference", "correction", "lesson", "fact")


def mixed_text(rng: random.Random, limit: int = 400) -> str:
    parts: list[str] = []
    size = rng.randint(20, limit)
    while sum(len(p) + 1 for p in parts) < size:
        if rng.random() < 0.6:
            parts.append("".join(rng.choice(_HAN) for _ in range(rng.randint(2, 8))))
        else:
            parts.append(rng.choice(_WORDS))
    return " ".join(parts)[:limit].strip()


def build_store(directory: Path, entries: int = 500, seed: int = 7) -> Path:
    """A memory.json with `entries` entries, written directly in the file format of docs/format.md."""
    import orjson

    rng = random.Random(seed)
    now = int(time.time())
    items = [
        {
            "id": f"{i:012x}",
            "kind": rng.choice(_KINDS),
            "text": mixed_text(rng),
            "source": "auto",
            "ts": now - rng.randint(0, 90 * 86400),
        }
        for i in range(entries)
    ]
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "memory.json"
    path.write_bytes(orjson.dumps({"entries": items}, option=orjson.OPT_INDENT_2))
    return path


def console_script() -> str:
    found = Path(sys.executable).with_name("memtui")
    if found.exists():
        return str(found)
    which = shutil.which("memtui")
    if which is None:
        raise SystemExit("the memtui console script is not installed next to this Python or on PATH")
    return which


def wall_times(commands: dict[str, list[str]], runs: int, env: dict[str, str], warmup: int = 3) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(warmup):
        for command in commands.values():
            subprocess.run(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - start)
    return times


def measure(runs: int = 30, bytecode_cache: bool = True) -> dict[str, float]:
    """Median wall seconds of each command, and the two ratios to the orjson baseline."""
    env = dict(os.environ)
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="memtui-measure-") as tmp:
        store = Path(tmp) / "store"
        build_store(store)
        commands = {
            "python -c 'import orjson'": [sys.executable, "-c", "import orjson"],
            "memtui inject QUERY": [console_script(), "--dir", str(store), "inject", QUERY],
            "python -m memtui inject QUERY": [sys.executable, "-m", "memtui", "--dir", str(store), "inject", QUERY],
        }
        check = subprocess.run(commands["memtui inject QUERY"], env=env, cwd=REPO, capture_output=True, check=True)
        if not check.stdout.startswith("=== Long-term memory".encode()):
            raise SystemExit("the measured command printed no block; the store or the query is wrong")
        times = wall_times(commands, runs, env)
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["python -c 'import orjson'"]
    medians["ratio console script"] = medians["memtui inject QUERY"] / base
    medians["ratio python -m"] = medians["python -m memtui inject QUERY"] / base
    return medians


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="runs of each command (default 30, at least 20)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 when a ratio is over {TARGET_RATIO:g}")
    parser.add_argument("--no-bytecode-cache", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as it is")
    args = parser.parse_args(argv)
    runs = max(args.runs, 20)
    result = measure(runs, bytecode_cache=not args.no_bytecode_cache)
    print(f"median wall time of {runs} runs each (500-entry store, python {sys.version.split()[0]}):")
    for name in ("python -c 'import orjson'", "memtui inject QUERY", "python -m memtui inject QUERY"):
        print(f"  {name:32} {result[name] * 1000:7.1f} ms")
    worst = max(result["ratio console script"], result["ratio python -m"])
    print(f"  ratio (console script)           {result['ratio console script']:7.2f}x")
    print(f"  ratio (python -m memtui)         {result['ratio python -m']:7.2f}x   target <= {TARGET_RATIO:g}x")
    return 1 if args.check and worst > TARGET_RATIO else 0


if __name__ == "__main__":
    sys.exit(main())
