"""Explain in the app shows the relevance rules: ignored function words, keyword matches, the gate's
status, and the nanohermes profile switched on from the command palette."""

from __future__ import annotations

from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
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


async def switch_profile(pilot, screen: ExplainScreen, name: str, typed: str | None = None,
                         timeout: float = 3.0) -> None:
    """Switch the ranking profile from the command palette, as a person would, and wait for explain to rerun."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await type_text(pilot, typed or f"Ranking profile: {name}")
    await wait_for_text(pilot, f"Ranking profile: {name}")
    await pilot.press("enter")
    await wait_until(pilot, lambda: pilot.app.store.limits.profile_name == name, what="the profile switch")
    await wait_until(pilot, lambda: screen.explanation is not None and screen.explanation.profile == name,
                     timeout=timeout, what=f"explain to rerun with the {name} profile")


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
        await switch_profile(pilot, screen, "nanohermes", typed="Ranking profile")
        assert screen.explanation.ignored == []
        assert screen.explanation.for_id(ids["nginx"]).status != "below_threshold"
        assert not [row for row in screen.explanation.entries if row.status == "below_threshold"]
        assert "profile nanohermes" in screen_text(app)
        expected = MemoryStore(store.dir, Limits.nanohermes()).explain(query)
        assert [row.id for row in screen.explanation.entries] == [row.id for row in expected.entries]


async def test_command_palette_switches_to_the_semantic_profile_and_explain_shows_the_cosine(tmp_path):
    import pytest

    from memtui_core.text import semantic
    from memtui_core.limits import SEMANTIC_FLOOR

    if semantic.status() != "ok":
        pytest.skip("the embedder is not available here")
    store = MemoryStore(tmp_path / "s", actor="api")
    # a fact: ranked by the words (a preference would be in the pinned core, whatever the message)
    language = store.remember("fact", "回复一律用中文", keywords=["language", "Chinese", "汉语"]).entry.id
    store.remember("fact", "The project's Python version is 3.11", keywords=["python", "版本"])
    query = "What language is spoken in Brazil?"
    assert store.explain(query).for_id(language).status == "injected"  # the words alone inject it
    app = MemtuiApp(store)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        await switch_profile(pilot, screen, "semantic", timeout=30)  # the model loads once
        row = screen.explanation.for_id(language)
        assert row.status == "below_threshold" and row.cosine < SEMANTIC_FLOOR
        assert "profile semantic" in screen_text(app) and "weak match" in screen_text(app)
        await select(pilot, screen, language)
        why = screen.query_one("#why-entry")
        await wait_until(pilot, lambda: shows(why, f"cosine {row.cosine:.3f} < {SEMANTIC_FLOOR:.2f}"),
                         what="the semantic floor's reason")
        assert shows(why, "its meaning is far from the message")
        assert shows(why, "meaning: held back: its words match")  # the rule of meaning, on its own line
        # back to the default profile: the words alone inject it again
        await switch_profile(pilot, screen, "default")
        assert screen.explanation.for_id(language).status == "injected"
        assert screen.explanation.for_id(language).cosine is None


async def test_the_semantic_profile_without_the_embedder_says_so_in_explain(tmp_path, monkeypatch):
    from memtui_core.text import semantic

    monkeypatch.setenv(semantic.ENV, "off")
    semantic._reset_for_tests()
    try:
        store = MemoryStore(tmp_path / "s", Limits.semantic(), actor="api")
        language = store.remember("fact", "回复一律用中文", keywords=["language", "Chinese"]).entry.id
        query = "What language is spoken in Brazil?"
        app = MemtuiApp(store)
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_loaded(pilot)
            screen = await open_explain(pilot, query)
            assert screen.explanation.for_id(language).status == "injected"
            assert "turned off by MEMTUI_SEMANTIC" in screen.explanation.semantic_note
            await wait_until(pilot, lambda: "turned off by MEMTUI_SEMANTIC" in screen_text(app),
                             what="the one-line note in the summary")
    finally:
        semantic._reset_for_tests()
