"""Explain in the app shows the relevance rules: ignored function words, keyword matches, the gate's
status, and the nanohermes profile switched on from the command palette."""

from __future__ import annotations

from memtui_core.limits import Limits
from memtui_core.store import MemoryStore
from memtui.app import MemtuiApp
from memtui.screens.explain import ExplainScreen
from memtui.widgets.virtual_table import VirtualTable

from .helpers import screen_text, shows, type_text, wait_for_text, wait_loaded, wait_until
from .test_tui_explain import open_explain


def relevance_store(directory) -> tuple[MemoryStore, dict[str, str]]:
    store = MemoryStore(directory, actor="api")
    ids = {
        "nginx": store.remember("fact", "The API server listens on port 8080 behind nginx",
                                keywords=["backend", "后端"]).entry.id,
        "yaml": store.remember("fact", "Config files are yaml, one per service").entry.id,
    }
    for n in range(5):
        store.remember("fact", f"note {n} about a yaml detail number {n}")
    return store, ids


async def select(pilot, screen: ExplainScreen, entry_id: str) -> None:
    table = screen.query_one("#ranked", VirtualTable)
    if pilot.app.focused is not table:
        await pilot.press("enter")  # from the query to the ranked table
    current = table.keys.index(screen.selected_row().id)
    steps = table.keys.index(entry_id) - current
    await pilot.press(*(["down"] * steps if steps > 0 else ["up"] * -steps))
    await wait_until(pilot, lambda: screen.selected_row() is not None and screen.selected_row().id == entry_id,
                     what="the row to be selected")


async def test_explain_screen_shows_ignored_terms_keyword_matches_and_the_gate(tmp_path):
    store, ids = relevance_store(tmp_path / "s")
    query = "where is the backend config yaml"
    expected = store.explain(query)
    held = [row for row in expected.entries if row.status == "below_threshold"]
    assert held and "the" in expected.ignored
    app = MemtuiApp(store)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        text = screen_text(app)
        assert "weak match" in text  # the gate's badge in the table and the summary
        await select(pilot, screen, ids["nginx"])
        terms = screen.query_one("#why-terms")
        await wait_until(pilot, lambda: shows(terms, "keyword ×1"), what="the keyword mark on the backend row")
        assert shows(terms, "ignored: function word")
        await select(pilot, screen, held[0].id)
        why = screen.query_one("#why-entry")
        await wait_until(pilot, lambda: shows(why, held[0].reason[:40]), what="the gate's reason")


async def test_command_palette_switches_to_the_nanohermes_profile(tmp_path):
    store, ids = relevance_store(tmp_path / "s")
    query = "where is the backend config yaml"
    app = MemtuiApp(store)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await type_text(pilot, "Ranking profile")
        await wait_for_text(pilot, "Ranking profile: nanohermes")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.store.limits.profile_name == "nanohermes", what="the profile switch")
        await wait_until(pilot, lambda: screen.explanation is not None and screen.explanation.profile == "nanohermes",
                         what="explain to rerun with nanohermes")
        assert screen.explanation.ignored == []
        assert screen.explanation.for_id(ids["nginx"]).status != "below_threshold"
        assert not [row for row in screen.explanation.entries if row.status == "below_threshold"]
        assert "profile nanohermes" in screen_text(app)
        expected = MemoryStore(store.dir, Limits.nanohermes()).explain(query)
        assert [row.id for row in screen.explanation.entries] == [row.id for row in expected.entries]
