"""What a newcomer tripped on in the app on the first day (issue 29), each pressed through with real keys."""

from __future__ import annotations

import pytest

from textual.widgets import Input

from memtui.app import MemtuiApp
from memtui.modals.confirm import ConfirmModal
from memtui.modals.edit import EditModal
from memtui.screens.browse import BrowseScreen

from .helpers import file_entries, file_entry, open_editor, screen_text, select, shows, type_text, wait_for_text, wait_loaded, wait_until

# ---------------------------------------------------------------- 1. edits are never lost without a word


async def test_escape_asks_before_dropping_a_change_to_the_keywords_alone(seeded):
    entry_id = seeded.id_of("部署脚本")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        editor = await open_editor(pilot, "dry-run")
        await pilot.press("tab")  # from the text to the keywords
        await wait_until(pilot, lambda: app.focused is editor.query_one("#edit-keywords", Input))
        await type_text(pilot, "deploy, rollout")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await wait_for_text(pilot, "Discard")
        assert shows(app.screen.query_one("#confirm-body"), f"loses your changes to {entry_id}")
        await pilot.press("n")  # keep editing: the keywords are still there
        await wait_until(pilot, lambda: app.screen is editor)
        assert editor.query_one("#edit-keywords", Input).value == "deploy, rollout"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: file_entry(seeded.dir, entry_id).get("keywords") == ["deploy", "rollout"],
                         what="the keywords saved")


async def test_quitting_with_unsaved_text_in_the_editor_asks_first(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        editor = await open_editor(pilot)
        await pilot.press("tab")
        await type_text(pilot, "先写测试再改代码")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await wait_for_text(pilot, "Quit without saving?")
        assert shows(app.screen.query_one("#confirm-body"), "Quitting now loses this new memory")
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is editor)
        assert app.is_running and editor.text == "先写测试再改代码"
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_until(pilot, lambda: app._exit_renderables is not None or not app.is_running, what="the app to quit")


async def test_quitting_with_nothing_typed_quits_at_once(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await open_editor(pilot)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not isinstance(app.screen, (EditModal, BrowseScreen)) or not app.is_running
                         or app.return_code is not None, what="the app to quit")
        assert not isinstance(app.screen, ConfirmModal)


# ---------------------------------------------------------------- 4. explain at 80×24 and at 120 columns


async def _explained(pilot, query: str):
    from memtui.screens.explain import ExplainScreen

    await pilot.press("w")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ExplainScreen), what="explain")
    screen = pilot.app.screen
    await type_text(pilot, query)
    await wait_until(pilot, lambda: screen.explanation is not None and screen.explanation.query == query,
                     what="the ranking")
    await pilot.press("enter")  # to the ranking: #1 is selected
    await pilot.pause(0.2)
    return screen


async def test_at_80x24_explain_shows_the_selected_entrys_breakdown(seeded):
    """Issue 29: at 80×24 only a few ranked rows fit and the per-term table was below the fold."""
    app = MemtuiApp(seeded.store(core=False))  # the correction it explains is ranked, not in the core
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("w")
        text = await wait_for_text(pilot, "statuses")
        # the legend and the query box's hint are whole, not cut at the edge
        assert "e.g. 部署 dry-run" in text
        for badge in ("injected", "cut top-k", "cut budget", "weak match", "no match", "blocked"):
            assert badge in text, badge
        await pilot.press("escape")
        await select(pilot, "dry-run")  # explain opens on the entry selected in Browse
        screen = await _explained(pilot, "deploy smoke 部署 dry-run")
        row = screen.selected_row()
        assert row is not None and row.rank == 1 and screen.pinned == row.id
        text = await wait_for_text(pilot, "contrib")
        lines = text.splitlines()
        assert len(lines) == 24
        # the table's heading and every query term's row are on screen, with the ranking above them
        assert any("term" in line and "×q" in line and "idf" in line for line in lines)
        for term in ("deploy", "smoke", "部署", "dry", "run"):
            assert any(line.lstrip().startswith(term + " ") for line in lines), text
        assert sum(1 for line in lines if " injected " in line or "no match" in line) >= 4  # ranked rows
        # the block is folded to its meter line; B opens it in the why pane's place, and closes it
        assert "Rendered block (B shows it)" in text and "=== Long-term memory" not in text
        await pilot.press("B")
        text = await wait_for_text(pilot, "=== Long-term memory")
        assert "contrib" not in text
        await pilot.press("B")
        await wait_for_text(pilot, "contrib")


async def test_at_120_columns_the_ranked_texts_get_room(seeded):
    """Issue 29: at 120 columns the text column was about 20 cells while the right pane took 60."""
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        screen = await _explained(pilot, "main branch protected review")
        text = await wait_for_text(pilot, "contrib")
        # the ranked row itself shows 30 cells of the text, at least (it showed about 20)
        assert shows(screen.query_one("#ranked"), "The main branch is protected: m")
        assert "=== Long-term memory" in text  # a tall terminal shows the block as it is


# ---------------------------------------------------------------- 6. keys typed in the same burst as n or /


async def test_text_typed_in_the_same_burst_as_n_lands_in_the_new_memory(seeded):
    """Issue 29: the keys after `n` were lost or ran as shortcuts (q quits, d deletes, w switches)."""
    before = file_entries(seeded.dir)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await type_text(pilot, "nquick draft with words")  # one burst, as a fast typist or a paste of keys
        await wait_until(pilot, lambda: isinstance(app.screen, EditModal), what="the editor")
        editor = app.screen
        await wait_until(pilot, lambda: editor.text == "quick draft with words", what="the typed text")
        assert editor.kind.value == "fact" and app.is_running
    assert file_entries(seeded.dir) == before


async def test_text_typed_in_the_same_burst_as_slash_lands_in_the_filter(seeded):
    from memtui.widgets.entry_table import EntryTable

    before = file_entries(seeded.dir)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await type_text(pilot, "/dry-run")  # d deletes, y confirms, u, n adds: if they ran as keys
        table = app.screen.query_one(EntryTable)
        await wait_until(pilot, lambda: app.screen.query_one("#filter", Input).value == "dry-run", what="the filter")
        await wait_until(pilot, lambda: table.row_count == 1, what="the one matching row")
        assert isinstance(app.screen, BrowseScreen)
    assert file_entries(seeded.dir) == before


# ---------------------------------------------------------------- 5. cut or confusing at 80 columns


async def test_at_80_columns_the_headers_fit_and_the_counters_show(seeded):
    from memtui_core.memory import MemoryStore

    agent = MemoryStore(seeded.dir, actor="agent")
    agent.retrieve_block("部署 dry-run")  # one injection
    agent.injection_log.flush()
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("a")
        text = await wait_for_text(pilot, "events")
        assert f"{len(app.history.events)} of {len(app.history.events)} events" in text  # the audit counter
        await pilot.press("b")
        text = await wait_for_text(pilot, "r restores the selected backup")
        help_line = next(line for line in text.splitlines() if "r restores" in line)
        assert "backed up first." in help_line  # one line, not three
        await pilot.press("i")
        text = await wait_for_text(pilot, "1 injection in the last")
        assert "1 injections" not in text
        lines = text.splitlines()
        # the detail is under the list, the width of the screen: its heading is one line
        heading = next(line for line in lines if "injection 1" in line)
        assert "by agent" in heading
        assert "score" in text and "for" in text and not any(line.lstrip().startswith(",") for line in lines)


async def test_the_add_dialog_names_the_kinds_in_the_users_language(seeded, monkeypatch):
    from memtui_core.memory import MemoryStore

    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await open_editor(pilot)
        labels = [str(button.label) for button in app.screen.query("#edit-kind RadioButton")]
        assert labels == ["preference", "correction", "lesson", "fact"]
    app = MemtuiApp(MemoryStore(seeded.dir, lang="zh"))  # a store set to Chinese: the Chinese names
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await open_editor(pilot)
        labels = [str(button.label) for button in app.screen.query("#edit-kind RadioButton")]
        assert labels == ["偏好", "纠正", "经验", "事实"]


# ---------------------------------------------------------------- 6. the small ones


async def test_browse_shows_an_entrys_keywords(seeded):
    from memtui_core.memory import MemoryStore

    entry_id = seeded.id_of("部署脚本")
    MemoryStore(seeded.dir, actor="cli").update(entry_id, keywords=["deploy", "rollout"])
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await select(pilot, "dry-run")
        detail = app.screen.query_one("#detail-body")
        await wait_until(pilot, lambda: shows(detail, "keywords deploy, rollout"), what="the keywords")
        await select(pilot, "Vite")
        await wait_until(pilot, lambda: shows(detail, "keywords none"), what="no keywords, said")


async def test_a_backup_diff_names_a_keyword_change_and_a_backup_taken_now_is_just_now(seeded):
    from textual.widgets import DataTable

    from memtui_core.memory import MemoryStore

    entry_id = seeded.id_of("部署脚本")
    MemoryStore(seeded.dir, actor="cli").update(entry_id, keywords=["deploy", "rollout"])
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("b")
        table = app.screen.query_one("#backup-list", DataTable)
        await wait_until(pilot, lambda: table.row_count > 0, what="the backups")
        preview = app.screen.query_one("#preview-body")
        # the newest backup was taken just before the keyword change
        await wait_until(pilot, lambda: shows(preview, "keywords deploy, rollout → none"), what="the keyword change")
        assert not shows(preview, "details differ")
        assert shows(preview, "(just now)") and not shows(preview, "now ago")


async def test_explains_find_box_is_cleared_when_the_screen_is_left(seeded):
    from memtui.screens.explain import ExplainScreen

    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await _explained(pilot, "部署")
        await pilot.press("f")
        await type_text(pilot, "冒烟")
        find = screen.query_one("#ranked-find", Input)
        await wait_until(pilot, lambda: screen.ranked.row_count == 1, what="the find")
        await pilot.press("enter", "escape")  # back to the ranking, then to Browse
        await wait_until(pilot, lambda: isinstance(app.screen, BrowseScreen))
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, ExplainScreen))
        await wait_until(pilot, lambda: find.value == "", what="the find box emptied")
        await wait_until(pilot, lambda: screen.ranked.row_count == len(seeded.ids), what="every entry ranked again")


async def test_escape_in_the_audit_search_clears_it_and_stays(seeded):
    from memtui.screens.audit import AuditScreen

    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AuditScreen))
        screen = app.screen
        await pilot.press("slash")
        await type_text(pilot, "Vite")
        await wait_until(pilot, lambda: len(screen.shown) == 1, what="the search")
        await pilot.press("escape")
        await wait_until(pilot, lambda: len(screen.shown) == len(app.history.events), what="the search cleared")
        assert isinstance(app.screen, AuditScreen) and app.focused is screen.audit_table
        await pilot.press("escape")  # from the table: back to Browse
        await wait_until(pilot, lambda: isinstance(app.screen, BrowseScreen))


async def test_the_screenshot_command_saves_somewhere_and_says_where(seeded, tmp_path, monkeypatch):
    """Issue 29: without ~/Downloads the palette's Screenshot failed without saying why."""
    home = tmp_path / "home"
    home.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.chdir(here)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await wait_loaded(pilot)
        await pilot.press("ctrl+p")
        await type_text(pilot, "Screenshot")
        await wait_for_text(pilot, "Save an SVG")
        await pilot.press("enter")
        await wait_until(pilot, lambda: list(here.glob("*.svg")), timeout=5, what="the screenshot")
        await wait_for_text(pilot, "Saved to")
    [svg] = here.glob("*.svg")
    assert svg.read_text().startswith("<svg") and (svg.stat().st_mode & 0o777) == 0o600


async def test_the_export_dialog_writes_a_hermes_folder_and_says_what_went_where(seeded, tmp_path):
    """Issue 29 (item 3) in the app: a folder path exports both Hermes files."""
    from .helpers import run_command

    folder = tmp_path / "hermes"
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await wait_loaded(pilot)
        await run_command(pilot, "Export memories")
        await wait_for_text(pilot, "a folder ending in / for Hermes")
        await type_text(pilot, f"{folder}/")
        await pilot.press("enter")
        await wait_for_text(pilot, "USER.md: 1 entry: 1 preference")
    assert (folder / "USER.md").read_text() == "回答尽量简短，先给结论\n"
    assert "Lesson: " not in (folder / "MEMORY.md").read_text() and "经验：部署前先跑冒烟测试" in (folder / "MEMORY.md").read_text()


# ---------------------------------------------------------------- wrapping: no line starts with a comma

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from memtui.widgets.wrap import NO_START, wrap_lines  # noqa: E402

CJK = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
WORD = st.text(st.sampled_from("abcdefghij-"), min_size=1, max_size=12)
MARK = st.sampled_from(sorted(NO_START))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(CJK, WORD, st.just(" ")), min_size=1, max_size=40).flatmap(
    lambda pieces: st.tuples(st.just(pieces), st.lists(MARK, min_size=len(pieces), max_size=len(pieces)),
                             st.lists(st.booleans(), min_size=len(pieces), max_size=len(pieces)))),
       st.integers(min_value=6, max_value=40))
def test_wrapped_text_never_starts_a_line_with_a_closing_mark_and_loses_nothing(parts, width):
    """Issue 29: an injection's text, wrapped, showed a line starting with `，`."""
    from rich.cells import cell_len

    pieces, marks, with_mark = parts
    text = "".join(piece + (mark if on and piece != " " else "") for piece, mark, on in zip(pieces, marks, with_mark))
    lines = wrap_lines(text, width)
    assert "".join("".join(lines).split()) == "".join(text.split())  # nothing lost, only breaks added
    assert all(cell_len(line) <= width for line in lines)
    assert not any(line[:1] in NO_START for line in lines[1:] if line), lines


async def test_the_injections_screen_never_starts_a_line_with_a_comma(seeded):
    from memtui_core.memory import MemoryStore

    agent = MemoryStore(seeded.dir, actor="agent")
    agent.retrieve_block("部署 dry-run")
    agent.injection_log.flush()
    for width in (80, 86, 100, 120):
        app = MemtuiApp(seeded.store())
        async with app.run_test(size=(width, 30)) as pilot:
            await wait_loaded(pilot)
            await pilot.press("i")
            await wait_for_text(pilot, "dry-run")
            from .helpers import widget_text

            lines = widget_text(app.screen.query_one("#injections-detail-body")).splitlines()
            assert not any(line.strip()[:1] in ("，", ",") for line in lines), (width, "\n".join(lines))


@pytest.mark.parametrize("opener", ["n", "/"])
@pytest.mark.parametrize("seed", range(12))
async def test_keys_typed_ahead_keep_their_order_however_the_burst_is_split(seeded, opener, seed):
    """A terminal hands the app a burst in pieces: some keys arrive before the box has the focus
    (and come back to be forwarded), some after (and go straight to the box). The ones forwarded
    used to be overtaken: "quick draft" became "qicku draft" or "cquk diraft"."""
    import asyncio
    import random

    from textual import events
    from textual.keys import _character_to_key

    typed = "quick draft: deploy with care"
    pauses = random.Random(seed)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        for character in opener + typed:
            event = events.Key(_character_to_key(character), character)
            event.set_sender(app)
            app.post_message(event)
            for _ in range(pauses.choice([0, 0, 0, 1, 2, 5, 20])):  # the app runs a little meanwhile
                await asyncio.sleep(0)
        if opener == "n":
            await wait_until(pilot, lambda: isinstance(app.screen, EditModal), what="the editor")
            box = app.screen
            await wait_until(pilot, lambda: len(box.text) == len(typed), what="the text")
            assert box.text == typed
        else:
            box = app.screen.query_one("#filter", Input)
            await wait_until(pilot, lambda: len(box.value) == len(typed), what="the filter")
            assert box.value == typed and isinstance(app.screen, BrowseScreen)
