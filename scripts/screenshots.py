"""Regenerate screenshots/*.svg from the demo store, by driving the real app headless.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--size 120x36]

Each picture is the app as a person would see it after the keys listed next to it.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rich.cells import cell_len  # noqa: E402

from memtui_core.limits import Limits  # noqa: E402
from memtui_core.memory import MemoryStore  # noqa: E402
from memtui.app import MemtuiApp  # noqa: E402
from memtui.demo import create_demo_store  # noqa: E402
from memtui.widgets.entry_table import EntryTable  # noqa: E402
from memtui.widgets.virtual_table import VirtualTable  # noqa: E402

DEMO_DIR = Path(tempfile.gettempdir()) / "memtui-demo"

# Fonts a reader is likely to have, CJK ones included: a picture shows Chinese as text, not boxes,
# on macOS (PingFang), Windows (Microsoft YaHei), and Linux (Noto CJK, WenQuanYi, Source Han).
FONT_STACK = (
    '"Fira Code", "DejaVu Sans Mono", Menlo, Consolas, "Noto Sans Mono CJK SC", "Noto Sans CJK SC", '
    '"Source Han Sans SC", "WenQuanYi Micro Hei Mono", "WenQuanYi Micro Hei", "PingFang SC", '
    '"Hiragino Sans GB", "Microsoft YaHei", "Sarasa Mono SC", monospace'
)
_TEXT = re.compile(r'<text class="([^"]+)" x="([0-9.]+)" y="([0-9.]+)" textLength="([0-9.]+)" clip-path="([^"]+)">([^<]*)</text>')


def fix_svg(svg: str) -> str:
    """Make a screenshot independent of the reader's fonts.

    Textual's export places each styled run at its cell, but inside a run the glyphs follow the
    font: a fallback font's spaces or a CJK glyph of another width shift what follows (numbers off
    by a cell, columns running together), and a CJK run is given half its width. Here every run is
    cut at spaces and at changes between narrow and wide characters, and each piece is placed at
    its own cell with its exact width; the font list names CJK fonts for the reader's system.
    """
    svg = svg.replace("font-family: Fira Code, monospace;", f"font-family: {FONT_STACK};")
    cell = None
    for match in _TEXT.finditer(svg):
        text = html.unescape(match.group(6)).replace("\xa0", " ")
        if text and cell_len(text) == len(text):
            cell = float(match.group(4)) / len(text)
            break
    if cell is None:
        return svg

    def split(match: re.Match) -> str:
        cls, x, y, _length, clip, raw = match.groups()
        text = html.unescape(raw).replace("\xa0", " ")
        out, start = [], float(x)
        for piece in re.findall(r" +|[^ ]+", text):
            for run in _width_runs(piece):
                width = cell_len(run)
                if not run.startswith(" "):
                    body = html.escape(run, quote=False)
                    out.append(f'<text class="{cls}" x="{start:g}" y="{y}" textLength="{width * cell:g}" '
                               f'lengthAdjust="spacingAndGlyphs" clip-path="{clip}">{body}</text>')
                start += width * cell
        return "".join(out)

    return _TEXT.sub(split, svg)


def _width_runs(text: str) -> list[str]:
    """`text` cut where it changes between one-cell and two-cell characters."""
    runs: list[str] = []
    for char in text:
        wide = cell_len(char) > 1
        if runs and (cell_len(runs[-1][-1]) > 1) == wide and not wide:
            runs[-1] += char
        else:
            runs.append(char)  # every wide character on its own: each exactly two cells
    return runs


async def settle(pilot, seconds: float = 0.4) -> None:
    await pilot.pause(seconds)
    await pilot.pause()


async def wait_loaded(pilot) -> None:
    app = pilot.app
    for _ in range(200):
        if app.snapshot is not None and app.history is not None:
            break
        await pilot.pause(0.02)
    await settle(pilot, 0.2)


def entry_with(store: MemoryStore, needle: str) -> str:
    return next(e.id for e in store.entries() if needle in e.text)


async def explain_from(pilot, app: MemtuiApp, store: MemoryStore, needle: str, query: str) -> None:
    """Explain `query`, opened from Browse on the entry whose text holds `needle`."""
    app.screen.query_one(EntryTable).select_id(entry_with(store, needle))
    await settle(pilot, 0.2)
    await pilot.press("w")
    await settle(pilot, 0.2)
    await pilot.press(*query)
    await settle(pilot, 0.6)


async def explain_deploy(pilot, app: MemtuiApp, store: MemoryStore) -> None:
    """Explain "部署 dry-run 测试", opened from Browse on the pinned deploy correction."""
    await explain_from(pilot, app, store, "部署脚本默认先", "部署 dry-run 测试")


async def shoot(out: Path, size: tuple[int, int]) -> list[Path]:
    if DEMO_DIR.exists():
        shutil.rmtree(DEMO_DIR)
    store = create_demo_store(DEMO_DIR)
    store.limits = Limits.semantic()  # as `memtui --demo` ranks: by meaning
    saved: list[Path] = []

    def save(app: MemtuiApp, name: str) -> None:
        path = out / f"{name}.svg"
        path.write_text(fix_svg(app.export_screenshot()), encoding="utf-8")
        saved.append(path)

    # probes a person keeps (one passes; one expects a memory the query misses), and a few turns
    # an agent took, so the probes and injections screens have something to show
    from memtui_core.agents.probes import add_probe

    add_probe(store, "部署脚本怎么跑", [entry_with(store, "部署脚本默认先")])
    add_probe(store, "What is the capital of Australia?", None)
    add_probe(store, "which language should replies be in", [store.entries()[0].id])
    for query in ("部署脚本怎么跑", "数据库连接池满了怎么办", "How do I center a div in CSS?"):
        store.retrieve_block(query)

    app = MemtuiApp(store, demo=True)
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        # browse: the entry a person corrected, with its history
        app.screen.query_one(EntryTable).select_id(entry_with(store, "staging.internal"))
        await settle(pilot)
        save(app, "browse")

        # space: three entries marked for one bulk action
        await pilot.press("space", "space", "space")
        await settle(pilot)
        save(app, "browse-marked")
        await pilot.press("escape")  # clears the marks
        await settle(pilot, 0.2)
        app.screen.query_one(EntryTable).select_id(entry_with(store, "staging.internal"))
        await settle(pilot, 0.2)

        # e: the editor, with the live dedupe warning
        await pilot.press("e")
        await settle(pilot, 0.2)
        await pilot.press("f7", "backspace")
        from textual import events

        app.post_message(events.Paste("Staging 地址是 staging.internal.example.com，不要再用 stage.example.com"))
        await settle(pilot)
        await pilot.press("f7", "backspace")
        app.post_message(events.Paste("回答尽量简短，先给结论再给理由"))
        await settle(pilot)
        save(app, "edit")
        await pilot.press("escape")
        await settle(pilot, 0.2)
        await pilot.press("y")  # yes, discard what was typed
        await settle(pilot, 0.2)

        # ?: every key
        await pilot.press("question_mark")
        await settle(pilot)
        save(app, "help")
        await pilot.press("escape")
        await settle(pilot, 0.2)

        # w: explain a query, opened on the entry selected in Browse (pinned), then compare it with #2
        await explain_deploy(pilot, app, store)
        save(app, "explain")
        await pilot.press("enter", "down")  # to the ranked table (#1 is pinned), select #2
        await settle(pilot)
        save(app, "explain-compare")
        await pilot.press("escape")
        await settle(pilot, 0.2)

        # b: backups, the one before the accidental delete selected
        await pilot.press("b")
        await settle(pilot, 0.6)
        table = app.screen.query_one("#backup-list")
        names = [b.name for b in store.backups()]
        restore_event = next(e for e in store.audit() if str(e.op) == "restore")
        target = next((n for n in names if n in (restore_event.note or "")), names[1])
        table.move_cursor(row=names.index(target), animate=False)
        await settle(pilot, 0.6)
        save(app, "backups")
        await pilot.press("escape")
        await settle(pilot, 0.2)

        # a: the audit log, on the person's edit
        await pilot.press("a")
        await settle(pilot, 0.4)
        screen = app.screen
        edit_index = next(i for i, e in enumerate(screen.shown) if str(e.op) == "edit" and e.actor == "tui")
        screen.query_one("#audit-table", VirtualTable).cursor_row = edit_index
        await settle(pilot)
        save(app, "audit")
        await pilot.press("escape")
        await settle(pilot, 0.2)

        # P: the probes, pass and fail with explain's reason
        await pilot.press("P")
        await settle(pilot, 1.0)
        save(app, "probes")
        await pilot.press("escape")
        await settle(pilot, 0.2)

        # i: the injections the agent's turns made
        await pilot.press("i")
        await settle(pilot, 1.0)
        save(app, "injections")

    # a narrow terminal with a full-length Chinese entry
    long_text = ("长期记忆的难点不在“存”，而在“下一次用得上”：检索要准，注入要省，淘汰要有依据。" * 12)[:400]
    MemoryStore(DEMO_DIR, actor="cli").remember("lesson", long_text, source="cli")
    app = MemtuiApp(MemoryStore(DEMO_DIR, Limits.semantic()), demo=True)  # as `memtui --demo` ranks
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(EntryTable).select_id(entry_with(store, "长期记忆的难点"))
        await settle(pilot)
        save(app, "browse-narrow")

        # explain at 80×24: the ranking, and under it the selected entry's terms, one by one
        await explain_deploy(pilot, app, store)
        await pilot.press("enter")  # to the ranking: #1, the entry opened from Browse, is selected
        await settle(pilot)
        save(app, "explain-narrow")

    # a conflict: the entry changed on disk while it was being edited
    app = MemtuiApp(MemoryStore(DEMO_DIR, Limits.semantic()), demo=True)  # as `memtui --demo` ranks
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        entry_id = entry_with(store, "PostgreSQL 15")
        app.screen.query_one(EntryTable).select_id(entry_id)
        await settle(pilot, 0.2)
        await pilot.press("e")
        await settle(pilot, 0.2)
        await pilot.press("end", *" 备库在上海")
        MemoryStore(DEMO_DIR, actor="cli").update(entry_id, text="数据库是 PostgreSQL 16，连接池用 pgbouncer")
        await settle(pilot, 1.5)
        await pilot.press("ctrl+s")
        await settle(pilot, 0.6)
        save(app, "conflict")

    # a light theme: browse and explain
    app = MemtuiApp(MemoryStore(DEMO_DIR, Limits.semantic()), demo=True)  # as `memtui --demo` ranks
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        app.theme = "textual-light"
        app.screen.query_one(EntryTable).select_id(entry_with(store, "staging.internal"))
        await settle(pilot)
        save(app, "browse-light")
        await explain_from(pilot, app, store, "PostgreSQL", "数据库 部署")
        await pilot.press("enter")
        await settle(pilot, 0.3)
        save(app, "explain-light")

    # an empty store
    with tempfile.TemporaryDirectory() as empty:
        app = MemtuiApp(MemoryStore(Path(empty) / "memtui"))
        async with app.run_test(size=size) as pilot:
            await wait_loaded(pilot)
            save(app, "empty")
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "screenshots")
    parser.add_argument("--size", default="120x36", help="terminal size, WIDTHxHEIGHT")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    for path in asyncio.run(shoot(args.out, (width, height))):
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)


if __name__ == "__main__":
    main()
