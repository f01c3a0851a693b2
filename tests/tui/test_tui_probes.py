"""Probes and the curation loop in the app: real keys, asserted on the screen and on the files."""

from __future__ import annotations

import orjson
from textual.widgets import Input

from memtui_core.agents.probes import add_probe, load_probes, probes_path, run_probes
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.modals.confirm import ConfirmModal
from memtui.modals.keywords import KeywordsModal
from memtui.screens.explain import ExplainScreen
from memtui.screens.help import HelpScreen
from memtui.screens.probes import ProbesScreen
from memtui.widgets.virtual_table import VirtualTable

from .helpers import (audit_events, file_entry, open_editor, reported_late, screen_text, shows, type_text, wait_for_text,
                      wait_loaded, wait_until)
from .test_tui_explain import open_explain as open_explain_on

BRIEF = "回答尽量简短，先给结论"

# The ranking alone, for tests of explain, probes and the log that rank the seeded preference and
# correction like the others (the pinned core, on by default, would carry them): tests/tui/test_tui_core.py.
RANKING = Limits(core_budget=0)


def probe_run(directory):
    """`memtui probe run` in a real process, as a CI job or a hook runs it."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "memtui", "--dir", str(directory), "probe", "run"],
                          capture_output=True, text=True, timeout=60)

QUERY = "be concise"  # the memory says it in Chinese: no term of this English query is in its text


async def open_explain(pilot, query: str) -> ExplainScreen:
    screen = await open_explain_on(pilot, query)
    await pilot.press("enter")  # into the ranked table
    return screen


async def open_probes(pilot, app) -> ProbesScreen:
    """The probes screen (P), once its first run has reached it."""
    await wait_loaded(pilot)
    await pilot.press("P")
    await wait_until(pilot, lambda: isinstance(app.screen, ProbesScreen) and app.screen.last_run is not None,
                     what="the probes screen's first run")
    return app.screen


async def select_row(pilot, screen: ExplainScreen, entry_id: str) -> None:
    table = screen.query_one("#ranked", VirtualTable)
    await pilot.press("home")
    for _ in range(len(table.keys)):
        if table.selected_key() == entry_id:
            return
        await pilot.press("down")
    assert table.selected_key() == entry_id, "the entry is not in the ranking"


async def test_a_failing_probe_passes_after_a_keyword_is_added_from_explain(seeded):
    brief = seeded.id_of(BRIEF)
    store = seeded.store(core=False)
    # kept out of the pinned core by hand, so every process (the CLI's too) must retrieve it
    seeded.store().unpin(brief)
    add_probe(store, QUERY, [brief])
    before = run_probes(store)
    assert before.failed == 1 and before.results[0].misses[0].status == "zero_score"
    failing = probe_run(seeded.dir)
    assert failing.returncode == 1 and f"{brief} zero_score: no query term appears in it" in failing.stdout

    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, QUERY)
        assert screen.explanation.for_id(brief).status == "zero_score"
        await select_row(pilot, screen, brief)
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, KeywordsModal), what="the keywords dialog")
        box = app.screen.query_one("#keywords-input", Input)
        assert box.value == "concise"  # the query's missing term; "be" is a function word, not offered
        assert "adds: concise" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: (file_entry(seeded.dir, brief) or {}).get("keywords") == ["concise"],
                         what="the keyword on disk")
        # the entry's new rank and status show at once, on the same screen
        await wait_until(pilot, lambda: screen.explanation is not None
                         and screen.explanation.for_id(brief).status == "injected", what="the new status")
        assert screen.query_one("#ranked", VirtualTable).selected_key() == brief
        assert shows(screen.query_one("#why-entry"), "why: ranked #1")

    event = audit_events(seeded.dir)[-1]
    assert (event["op"], event["actor"], event["id"]) == ("edit", "tui", brief)
    assert event["after"]["keywords"] == ["concise"] and "keywords" not in event["before"]
    after = run_probes(MemoryStore(seeded.dir, RANKING))
    assert (after.passed, after.failed) == (1, 0)
    ran = probe_run(seeded.dir)  # and the command a CI job would run agrees
    assert ran.returncode == 0 and "1 of 1 probes pass" in ran.stdout


async def test_keywords_dialog_shows_the_guards_and_escape_saves_nothing(seeded):
    brief = seeded.id_of(BRIEF)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, QUERY)
        await select_row(pilot, screen, brief)
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, KeywordsModal))
        await pilot.press("end")  # the suggestion is selected: typing would replace it, so append
        await type_text(pilot, ", Concise, the, brief")
        text = await wait_for_text(pilot, "dropped as duplicates: Concise")
        assert "only function words or nothing searchable: the" in text and "adds: concise, brief" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ExplainScreen))
    assert "keywords" not in file_entry(seeded.dir, brief)


async def test_explain_saves_the_query_as_a_probe(seeded):
    deploy = seeded.id_of("部署脚本")
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, "部署 dry-run")
        await select_row(pilot, screen, deploy)
        await pilot.press("s")
        await wait_until(pilot, lambda: probes_path(seeded.store()).exists(), what="probes.json")
        await wait_until(pilot, lambda: any("it passes now" in n.message for n in app._notifications),
                         what="the notice")
        await pilot.press("slash")
        await pilot.press("ctrl+a", "ctrl+k")
        await type_text(pilot, "zebra giraffe")
        await wait_until(pilot, lambda: screen.explanation.query == "zebra giraffe")
        await pilot.press("enter", "S")
        await wait_until(pilot, lambda: len(load_probes(seeded.store()).probes) == 2, what="the second probe")
    raw = orjson.loads(probes_path(seeded.store()).read_bytes())["probes"]
    assert [(p["query"], p["expect"]) for p in raw] == [("部署 dry-run", [deploy]), ("zebra giraffe", "nothing")]


async def test_probes_screen_follows_outside_changes_and_deletes(seeded):
    deploy, brief = seeded.id_of("部署脚本"), seeded.id_of(BRIEF)
    store = seeded.store(core=False)
    kept, _ = add_probe(store, "部署 dry-run", [deploy])
    failing, _ = add_probe(store, QUERY, [brief])
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_probes(pilot, app)
        text = screen_text(app)
        assert "1 of 2 pass" in text and "pass" in text and "FAIL" in text and "hit rate 1/2 (50%)" in text
        await pilot.press("down")  # the failing probe: its reason is explain's
        # the status by the name the app gives it everywhere, not the internal zero_score (issue 29)
        await wait_until(pilot, lambda: shows(screen.query_one("#probe-why"), f"expected {brief} no match"),
                         what="the failing probe's reason")
        assert shows(screen.query_one("#probe-why"), "no query term appears in it")
        assert "zero_score" not in screen_text(app)

        MemoryStore(seeded.dir, RANKING, actor="cli").delete(deploy)  # another process deletes the expected entry
        await wait_until(pilot, lambda: screen.last_run is not None and screen.last_run.failed == 2, timeout=5,
                         what="the live rerun")
        await pilot.press("home")
        text = await wait_for_text(pilot, "0 of 2 pass")
        assert shows(screen.query_one("#probe-why"), "the entry was deleted by cli")

        add_probe(MemoryStore(seeded.dir, RANKING), "zebra", None)  # probes.json changed outside: shown too
        await wait_for_text(pilot, "1 of 3 pass", timeout=5)

        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_until(pilot, lambda: kept.id not in [p.id for p in load_probes(seeded.store(core=False)).probes],
                         what="the probe deleted from the file")
        await wait_for_text(pilot, "1 of 2 pass")

        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        keys = app.screen.query_one("#help-keys")
        assert shows(keys, "Probes (P)") and shows(keys, "Keep this query as a probe")


async def test_probes_screen_opens_a_failing_query_in_explain(seeded):
    brief = seeded.id_of(BRIEF)
    add_probe(seeded.store(), QUERY, [brief])
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await open_probes(pilot, app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ExplainScreen), what="explain")
        screen = app.screen
        await wait_until(pilot, lambda: screen.explanation is not None and screen.explanation.query == QUERY)
        await wait_until(pilot, lambda: screen.query_one("#ranked", VirtualTable).selected_key() == brief,
                         what="the expected entry selected")
        await pilot.press("K")  # straight on: the ranking has the focus, not the query box
        await wait_until(pilot, lambda: isinstance(app.screen, KeywordsModal), what="the keywords dialog")
        assert app.screen.query_one("#keywords-input", Input).value == "concise"


async def break_the_deploy_probe(pilot, probe):
    """The editor on the deploy lesson, its text changed so that it loses every term of `probe`'s
    query ("部署 dry-run"), once the editor warns that the change breaks the probe."""
    await wait_loaded(pilot)
    modal = await open_editor(pilot, "部署脚本")
    await pilot.press("f7", "backspace")
    await type_text(pilot, "上线前先跑冒烟测试")
    await wait_for_text(pilot, f"breaks probe {probe.id}", timeout=5)
    return modal


async def test_editor_edits_keywords_and_warns_before_breaking_a_probe(seeded):
    deploy = seeded.id_of("部署脚本")
    probe, _ = add_probe(seeded.store(core=False), "部署 dry-run", [deploy])
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await break_the_deploy_probe(pilot, probe)
        assert shows(modal.query_one("#edit-warnings"), f"it expects {deploy}, which would not be injected (no match)")
        assert not shows(modal.query_one("#edit-warnings"), "zero_score")
        modal.query_one("#edit-keywords", Input).focus()
        await type_text(pilot, "deploy, 部署, Deploy, the")
        await wait_for_text(pilot, "dropped as duplicates: Deploy")
        assert shows(modal.query_one("#edit-warnings"), "only function words or nothing searchable: the")
        await wait_until(pilot, lambda: not modal.probe_breaks, timeout=5, what="the warning to go: 部署 is back")
        assert f"breaks probe {probe.id}" not in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: file_entry(seeded.dir, deploy)["text"] == "上线前先跑冒烟测试", what="the save")
    saved = file_entry(seeded.dir, deploy)
    assert saved["keywords"] == ["deploy", "部署"]
    assert run_probes(MemoryStore(seeded.dir, RANKING)).failed == 0


async def test_probes_screen_reruns_when_the_ranking_profile_changes(seeded):
    probe, _ = add_probe(seeded.store(), "What is the capital of Australia?", None)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_probes(pilot, app)
        assert screen.last_run.passed == 1  # "is", "the", "of" are ignored: nothing is injected
        await pilot.press("ctrl+p")
        await type_text(pilot, "Ranking profile nanohermes")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.last_run.failed == 1, timeout=5, what="the rerun under nanohermes")
        await wait_for_text(pilot, "profile nanohermes")
        assert shows(screen.query_one("#probe-why"), "injected")
        await pilot.press("enter")  # into explain, on the entry injected against the probe's expectation
        await wait_until(pilot, lambda: isinstance(app.screen, ExplainScreen), what="explain")
        explain = app.screen
        await wait_until(pilot, lambda: explain.query_one("#ranked", VirtualTable).selected_key()
                         == screen.last_run.results[0].misses[0].id, what="the injected entry selected")
        await pilot.press("K")
        await wait_until(pilot, lambda: isinstance(app.screen, KeywordsModal), what="the keywords dialog")
        assert shows(app.screen.query_one("#keywords-context"), "this ranking profile ignores keywords")


async def test_the_editor_warns_when_a_new_memory_would_break_a_probe(seeded):
    probe, _ = add_probe(seeded.store(), "斑马线", None)
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        modal = await open_editor(pilot)
        await type_text(pilot, "过斑马线前要减速")
        await wait_for_text(pilot, f"breaks probe {probe.id}", timeout=5)
        assert shows(modal.query_one("#edit-warnings"), "it expects nothing and this new memory would be injected")
        await pilot.press("ctrl+s")  # a warning, not a block
        await wait_until(pilot, lambda: len(MemoryStore(seeded.dir)) == len(seeded.ids) + 1, what="the add")
    assert run_probes(MemoryStore(seeded.dir)).failed == 1


async def test_an_empty_probe_list_says_how_to_add_one_in_full_at_80_columns(tmp_path):
    from memtui.app import MemtuiApp
    from memtui_core import MemoryStore

    store = MemoryStore(tmp_path / "s")
    store.remember("fact", "the api listens on port 8080")
    app = MemtuiApp(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("P")
        await pilot.pause()
        screen = app.screen
        rows = screen.probe_list.render_line(0).text + screen.probe_list.render_line(1).text
        assert "No probes yet; the detail pane says how to add one." in rows
        why = str(screen.query_one("#probe-why").render())
        assert "memtui probe add QUERY --expect ID" in why.replace("\n", " ")


async def test_the_editors_probe_warning_follows_the_newest_check(seeded, monkeypatch):
    """The editor's probe check runs in a thread worker too: an older check that reports after a
    newer one (same draft, the probe since removed) must not bring the warning back."""
    import memtui_core.agents.probes as probes_module
    from memtui_core.agents.probes import remove_probe

    deploy = seeded.id_of("部署脚本")
    probe, _ = add_probe(seeded.store(core=False), "部署 dry-run", [deploy])
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await break_the_deploy_probe(pilot, probe)
        slow_once, slowed = reported_late(probes_module.would_break)
        monkeypatch.setattr(probes_module, "would_break", slow_once)
        modal.checks._check_probes()  # the older check: the probe still there, and reported late
        await wait_until(pilot, slowed.is_set, what="the slow check to answer")
        remove_probe(seeded.store(core=False), probe.id)  # removed meanwhile (the probes screen, or the CLI)
        modal.checks._check_probes()  # the newer check: nothing left to break
        await wait_until(pilot, lambda: not modal.probe_breaks, timeout=5, what="the warning to go")
        await slowed.report(pilot)  # the older check reports now, last
        assert not modal.probe_breaks and f"breaks probe {probe.id}" not in screen_text(app)


async def test_a_slow_older_run_never_overwrites_a_newer_one(seeded, monkeypatch):
    """Runs are thread workers; a newer run does not stop an older one, which still reports. The
    screen shows only the newest run's result: an older, slower run that reports last (probes.json
    or the memories changed meanwhile) must not put stale counts back on the screen."""
    import memtui_core.agents.probes as probes_module

    brief = seeded.id_of(BRIEF)
    add_probe(seeded.store(core=False), "zebra", None)
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_probes(pilot, app)
        await wait_for_text(pilot, "1 of 1 pass")

        slow_once, slowed = reported_late(probes_module.run_probes)
        monkeypatch.setattr(probes_module, "run_probes", slow_once)
        runs = screen.runs
        screen.action_run()  # the older run: one probe, and slow
        await wait_until(pilot, slowed.is_set, what="the slow run to start")
        add_probe(MemoryStore(seeded.dir, RANKING), QUERY, [brief])  # a second probe, which fails
        screen.action_run()  # the newer run reports first
        await wait_for_text(pilot, "1 of 2 pass")
        await slowed.report(pilot)  # the older run reports now, last
        assert screen.runs == runs + 1  # the newer run reached the screen, the older one was dropped
        assert "1 of 2 pass" in screen_text(app) and screen.last_run.failed == 1
