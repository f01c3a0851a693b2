"""Explain: ranked table with statuses, per-term breakdown, the exact block, reasons, limits, pinning."""

from __future__ import annotations

from textual.widgets import Input

from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore
from memtui.app import MemtuiApp
from memtui.screens.explain import ExplainScreen
from memtui.widgets.virtual_table import VirtualTable

from .helpers import reported_late, screen_text, shows, type_text, wait_for_text, wait_loaded, wait_until

# The ranking alone, for tests of explain, probes and the log that rank the seeded preference and
# correction like the others (the pinned core, on by default, would carry them): tests/tui/test_tui_core.py.
RANKING = Limits(core_budget=0)


async def open_explain(pilot, query: str) -> ExplainScreen:
    await pilot.press("w")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ExplainScreen)
    # `w` pins the entry selected in Browse (tested on its own); these tests start from the top row
    screen.pinned = screen._select_after = None
    await type_text(pilot, query)
    await wait_until(pilot, lambda: screen.explanation is not None and screen.explanation.query == query,
                     what=f"the explanation of {query!r}")
    return screen


def ranked_ids(screen: ExplainScreen) -> list[str]:
    return screen.query_one("#ranked", VirtualTable).keys


async def test_ranked_table_breakdown_and_block_match_the_core(seeded):
    query = "部署 dry-run"
    expected = seeded.store(core=False).explain(query)
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        assert ranked_ids(screen) == [row.id for row in expected.entries]  # every entry, in rank order
        text = screen_text(app)
        top = expected.entries[0]
        assert top.status == "injected" and f"{top.score:.3f}" in text
        assert "injected" in text and "no match" in text
        for term in top.terms:  # the per-term breakdown of the selected (top) entry
            assert term.term in text and f"{term.contribution:.3f}" in text and f"{term.idf:.3f}" in text
        assert f"{expected.used_chars}/2400" in text
        for line in expected.block.splitlines()[:3]:  # the block exactly as the agent gets it
            assert line.strip() in text
        assert "why: ranked #1" in text
        assert f"(doc length {top.doc_len:g})" in text and f"{top.doc_len:g}" == str(int(top.doc_len))  # not "7.0"

        await pilot.press("enter")  # from the query to the ranked table
        assert app.focused is screen.query_one("#ranked", VirtualTable)
        await pilot.press(*["down"] * (len(expected.entries) - 1))
        last = expected.entries[-1]
        assert last.status == "zero_score"
        why = screen.query_one("#why-entry")
        await wait_until(pilot, lambda: shows(why, last.reason), what="the reason it is not injected")


async def test_other_top_k_and_budget_values_cut_entries_with_a_reason(seeded):
    query = "部署"
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        hits = [row for row in screen.explanation.entries if row.score > 0]
        assert len(hits) == 2

        await pilot.press("tab")  # the top-k field
        assert app.focused is screen.query_one("#top-k", Input)
        await pilot.press("backspace")
        await type_text(pilot, "1")
        await wait_until(pilot, lambda: screen.explanation.top_k == 1, what="top-k 1")
        second = screen.explanation.for_id(hits[1].id)
        assert second.status == "cut_top_k"
        await pilot.press("enter")  # to the ranked table
        await pilot.press("down")
        why = screen.query_one("#why-entry")
        await wait_until(pilot, lambda: shows(why, second.reason), what="the cut top-k reason")
        assert "only the top 1" in second.reason
        assert "cut top-k" in screen_text(app)

        await pilot.press("t", "tab")  # top-k, then budget
        assert app.focused is screen.query_one("#budget", Input)
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        await type_text(pilot, "10")
        await wait_until(pilot, lambda: screen.explanation.budget == 10, what="budget 10")
        assert screen.explanation.entries[0].status == "cut_budget"
        await pilot.press("enter", "up")
        first = screen.explanation.entries[0]
        await wait_until(pilot, lambda: shows(why, first.reason), what="the cut budget reason")
        assert "cut budget" in screen_text(app)


async def test_pin_one_entry_and_compare_term_by_term(seeded):
    query = "部署 dry-run 测试"
    expected = seeded.store().explain(query)
    a, b = expected.entries[0], expected.entries[1]
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        await pilot.press("down", "space")  # from the query down to the ranked table, pin the top entry
        assert screen.pinned == a.id
        await pilot.press("down")
        await wait_for_text(pilot, "Why is A above B?")
        compared = screen.query_one("#why-compare")  # all of it, what is scrolled below the pane's edge too
        assert shows(compared, f"A is above B by {a.score - b.score:.3f}")
        assert shows(compared, f"{a.score - b.score:+.3f}")

        await pilot.press("up", "space")  # unpin
        assert screen.pinned is None


async def test_a_query_of_only_punctuation_has_no_searchable_terms(seeded):
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        await open_explain(pilot, "?!... --- ///")
        text = screen_text(app)
        assert "No searchable terms in this query" in text
        assert "nothing is injected" in text and "0/2400" in text


async def test_explain_follows_outside_writes(seeded):
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, "kubernetes")
        assert all(row.score == 0 for row in screen.explanation.entries)
        MemoryStore(seeded.dir, RANKING, actor="api").remember("fact", "Production runs on Kubernetes 1.29")
        await wait_until(pilot, lambda: screen.explanation.entries[0].status == "injected", timeout=3,
                         what="the new entry to be ranked")
        assert "Production runs on Kubernetes" in screen_text(app)


async def test_a_slow_older_explain_never_overwrites_a_newer_one(seeded):
    """Explains run in thread workers, which a newer request does not stop: an older one that
    reports last (an agent wrote meanwhile, so the same query was asked again) must not put the
    ranking from before the write back on the screen."""
    app = MemtuiApp(seeded.store(core=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, "kubernetes")
        before = screen.explanation.n
        app.store.explain, slowed = reported_late(app.store.explain)  # from the store as it is now
        screen.refresh_explain()  # the older request: before the write, and slow
        await wait_until(pilot, slowed.is_set, what="the slow explain to start")
        MemoryStore(seeded.dir, RANKING, actor="api").remember("fact", "Production runs on Kubernetes 1.29")
        await wait_until(pilot, lambda: screen.explanation.n == before + 1, timeout=5, what="the newer ranking")
        await slowed.report(pilot)  # the older request reports now, last
        assert screen.explanation.n == before + 1 and screen.explanation.entries[0].status == "injected"
        assert "Production runs on Kubernetes" in screen_text(app)


async def test_the_summary_leads_with_the_counts_so_a_badge_is_never_split_at_80_columns(seeded):
    """A long query's terms come after the status counts: at 80 columns "no match" and its count
    stay on one line, in front of the terms, instead of breaking after a row of chips."""
    query = "what is the capital of Australia and how do the deploy scripts handle a dry run"
    app = MemtuiApp(seeded.store())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        screen = await open_explain(pilot, query)
        summary = screen.query_one("#explain-summary")
        await wait_until(pilot, lambda: "no match" in screen_text(app), what="the summary's counts")
        lines = [line for line in screen_text(app).splitlines() if "no match" in line and "terms" in line]
        assert lines, "the counts and the terms start on one line"
        line = lines[0]
        assert line.index("no match") < line.index("terms")
        count = line.split("no match", 1)[1].split()[0]
        assert count.isdigit()
        assert summary.region.width <= 80
