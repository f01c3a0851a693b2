"""The semantic floor: the veto on the words' picks that the semantic profile's meaning applies as its keep
bar (docs/ranking.md, "The semantic floor", "Meaning in a long-running process"); tests/core/test_meaning.py
has the admit bar and the stored vectors."""

from __future__ import annotations

import pytest

from memtui_core import Limits, MemoryStore
from memtui_core.ranking import semantic_floor
from memtui_core.text import semantic
from memtui_core.limits import SEMANTIC_ADMIT, SEMANTIC_FLOOR

needs_model = pytest.mark.skipif(semantic.status() != "ok", reason="the embedder is not available here")

MEMORIES = [
    ("fact", "The weekly client reports go out every Friday in English", ["report", "客户报告"]),
    ("preference", "回复一律用中文", ["language", "Chinese", "汉语"]),
    ("fact", "The project's Python version is 3.11", ["python", "版本"]),
    ("lesson", "Stripe webhooks must be verified with the signing secret before trusting the event",
     ["payment", "支付"]),
    ("fact", "我们的团队在杭州办公", ["Hangzhou", "office", "办公室"]),
    ("correction", "部署脚本默认先 dry-run，确认后再真正执行", ["deploy", "dry run"]),
    ("preference", "Use pytest with tmp_path for tests, never the real home folder", ["testing", "测试"]),
    ("fact", "The dog Biscuit needs his heartworm pill on the first of every month", ["pet", "狗"]),
]
# The words match these to one memory through one ordinary word; the meaning is elsewhere.
COINCIDENCES = {
    "What language is spoken in Brazil?": "回复一律用中文",
    "What's a report card in US schools?": "The weekly client reports go out every Friday in English",
}
# Messages each memory is relevant to: the floor keeps them, in English, Chinese and across both.
RELEVANT = {
    "when do the client reports go out?": "The weekly client reports go out every Friday in English",
    "用中文回答我": "回复一律用中文",
    "which python version does the project use": "The project's Python version is 3.11",
    "how do I verify a Stripe webhook": "Stripe webhooks must be verified with the signing secret before trusting the event",
    "我们在哪个城市办公": "我们的团队在杭州办公",
    "when is Biscuit's heartworm pill due": "The dog Biscuit needs his heartworm pill on the first of every month",
}
QUERIES = [*COINCIDENCES, *RELEVANT, "how should I write tests here", "What is the capital of Australia?",
           "部署之前要做什么", "the", "", "python python python", "杭州西湖有什么好玩的"]


@pytest.fixture(autouse=True)
def fresh_embedder(monkeypatch):
    """Each test sees the environment it sets, and an empty cache."""
    monkeypatch.delenv(semantic.ENV, raising=False)
    semantic._reset_for_tests()
    semantic_floor._reset_for_tests()
    yield
    semantic._reset_for_tests()
    semantic_floor._reset_for_tests()


# The ranking alone: the floor judges retrieved hits; the pinned core (which takes preferences and
# corrections out of retrieval) is off here, its rules are in test_pinned.py.
RANKING = {"core_budget": 0}


def seeded(directory, limits: Limits | None = None) -> MemoryStore:
    limits = limits if limits is not None else Limits(**RANKING)
    store = MemoryStore(directory, limits)
    for kind, text, keywords in MEMORIES:
        store.remember(kind, text, keywords=keywords)
    return MemoryStore(directory, limits)


def texts(hits) -> list[str]:
    return [hit.entry.text for hit in hits]


# ---------------------------------------------------------------- the limit and the profile


def test_the_semantic_profile_is_the_default_one_plus_the_floor():
    semantic_limits = Limits.semantic()
    assert semantic_limits.semantic_floor == SEMANTIC_FLOOR > 0
    assert semantic_limits.profile_name == "semantic" and Limits.profile("semantic") == semantic_limits
    assert semantic_limits.semantic_admit == SEMANTIC_ADMIT > SEMANTIC_FLOOR
    assert semantic_limits.replace(semantic_floor=0, semantic_admit=0) == Limits()
    assert semantic_limits.replace(semantic_floor=0).profile_name == "semantic"  # the admit bar alone is meaning too
    assert Limits().semantic_floor == 0 and Limits.nanohermes().semantic_floor == 0
    assert Limits().semantic_admit == 0 and Limits.nanohermes().semantic_admit == 0
    # switching keeps every other limit and resets the floor
    tuned = Limits(top_k=6).with_profile("semantic")
    assert tuned.top_k == 6 and tuned.profile_name == "semantic"
    assert tuned.with_profile("default") == Limits(top_k=6)
    assert tuned.with_profile("nanohermes") == Limits.nanohermes(top_k=6)
    assert Limits.nanohermes().with_profile("semantic") == Limits.semantic()


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, "0.8", None])
def test_a_bad_floor_is_a_one_line_error(bad):
    with pytest.raises(ValueError, match="semantic_floor"):
        Limits(semantic_floor=bad)


# ---------------------------------------------------------------- the veto


@needs_model
@pytest.mark.parametrize("query", list(COINCIDENCES))
def test_a_hit_sharing_only_a_word_is_vetoed_and_explain_says_why(tmp_path, query):
    default = seeded(tmp_path)
    assert texts(default.search(query)) == [COINCIDENCES[query]]  # the words pick it
    store = MemoryStore(tmp_path, Limits.semantic(**RANKING))
    assert store.search(query) == [] and store.retrieve_block(query) == ""
    explanation = store.explain(query)
    assert explanation.profile == "semantic" and explanation.semantic_floor == SEMANTIC_FLOOR
    assert explanation.semantic_note is None and explanation.block == ""
    row = next(row for row in explanation.entries if row.text == COINCIDENCES[query])
    assert row.status == "below_threshold" and row.rank is None
    assert row.cosine is not None and row.cosine < SEMANTIC_FLOOR
    assert row.reason == row.meaning == (f"held back: its words match but its meaning is far from the message "
                                         f"(cosine {row.cosine:.3f} < {SEMANTIC_FLOOR:.2f})")


@needs_model
@pytest.mark.parametrize("query", list(RELEVANT))
def test_a_relevant_hit_keeps_its_place_with_its_cosine(tmp_path, query):
    seeded(tmp_path)
    store = MemoryStore(tmp_path, Limits.semantic(**RANKING))
    assert texts(store.search(query)) == [RELEVANT[query]]
    row = next(row for row in store.explain(query).entries if row.text == RELEVANT[query])
    assert row.status == "injected" and row.rank == 1 and row.cosine >= SEMANTIC_FLOOR
    assert row.meaning.startswith("kept: its words match and its meaning is near the message")


@needs_model
def test_search_explain_and_the_block_agree_under_the_floor(tmp_path):
    seeded(tmp_path)
    store = MemoryStore(tmp_path, Limits.semantic(**RANKING, top_k=2))
    for query in QUERIES:
        hits = [hit.entry.id for hit in store.search(query)]
        explanation = store.explain(query)
        injected = [row.id for row in sorted(explanation.entries, key=lambda r: r.rank or 0) if row.status == "injected"]
        assert injected == hits, query
        assert explanation.block == store.retrieve_block(query), query
        judged = [row for row in explanation.entries if row.meaning and not row.meaning.startswith("not")]
        assert all(row.status in ("injected", "below_threshold", "cut_budget") for row in judged), query
        # the gate's hits are judged, and an entry sharing no word is only ever admitted
        assert all(row.score > 0 or row.meaning.startswith("admitted by meaning") for row in judged)


@needs_model
def test_a_vetoed_slot_goes_to_the_next_candidate(tmp_path):
    near, far = "部署脚本默认先 dry-run，确认后再真正执行", "The weekly client reports go out every Friday in English"
    query = "what should I do before running the deploy script"
    cosines = semantic_floor.judge(query, [0, 1], [far, near].__getitem__, 2, -1.0).cosines
    floor = (cosines[0] + cosines[1]) / 2
    assert cosines[0] < floor <= cosines[1]
    refilled = semantic_floor.judge(query, [0, 1], [far, near].__getitem__, 1, floor, refill=True)
    assert refilled.kept == [1] and refilled.vetoed == [0] and set(refilled.cosines) == {0, 1}
    empty = semantic_floor.judge(query, [0, 1], [far, near].__getitem__, 1, floor, refill=False)
    assert empty.kept == [] and empty.vetoed == [0] and set(empty.cosines) == {0}


@needs_model
def test_the_floor_looks_at_most_depth_times_top_k_candidates(tmp_path):
    query = "how do I verify a Stripe webhook"
    passages = [f"unrelated note number {n} about gardening" for n in range(20)]
    verdict = semantic_floor.judge(query, list(range(20)), passages.__getitem__, 2, 0.99)
    assert verdict.kept == [] and len(verdict.cosines) == semantic_floor.DEPTH * 2


# ---------------------------------------------------------------- cost: batched and cached


@needs_model
def test_the_passage_cache_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(semantic_floor, "PASSAGE_CACHE", 3)
    passages = [f"note {n}: the release train leaves on Tuesdays" for n in range(5)]
    semantic_floor.judge("when does the release train leave", list(range(5)), passages.__getitem__, 5, -1.0)
    assert semantic_floor.cached()[0] == 3


def test_texts_alone_embed_without_keywords():
    assert semantic_floor.passage_text("a", ["b", "c"], True) == "a b, c"
    assert semantic_floor.passage_text("a", ["b", "c"], False) == "a"
    assert semantic_floor.passage_text("a", [], True) == "a"


# ---------------------------------------------------------------- without the embedder


def test_without_the_embedder_the_words_rank_alone_and_explain_says_so(tmp_path, monkeypatch):
    default = seeded(tmp_path)
    monkeypatch.setenv(semantic.ENV, "off")
    semantic._reset_for_tests()
    store = MemoryStore(tmp_path, Limits.semantic(**RANKING))
    for query in QUERIES:
        assert texts(store.search(query)) == texts(default.search(query)), query
        assert store.retrieve_block(query) == default.retrieve_block(query), query
    explanation = store.explain("What language is spoken in Brazil?")
    assert explanation.semantic_note == (f"meaning not used: embeddings unavailable "
                                         f"(turned off by {semantic.ENV}); ranked by words alone")
    assert all(row.cosine is None and row.meaning is None for row in explanation.entries)
    assert [row.status for row in explanation.entries] == [
        row.status for row in default.explain("What language is spoken in Brazil?").entries]


def test_the_default_and_nanohermes_profiles_never_embed(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("embedded without the semantic floor")

    monkeypatch.setattr(semantic, "passages", refuse)
    monkeypatch.setattr(semantic, "queries", refuse)
    seeded(tmp_path)
    for limits in (Limits(), Limits.nanohermes()):  # the core on: it never embeds either
        store = MemoryStore(tmp_path, limits)
        for query in QUERIES:
            store.search(query)
            store.retrieve_block(query)
            explanation = store.explain(query)
            assert explanation.semantic_note is None and explanation.semantic_floor == explanation.semantic_admit == 0
            assert all(row.cosine is None and row.meaning is None for row in explanation.entries)


# ---------------------------------------------------------------- any message


@needs_model
def test_for_any_message_the_floor_only_removes_and_refills_from_the_gates_hits(tmp_path_factory):
    """Meaning keeps the gate's hits in the words' order, holds back those under the keep bar, and
    adds at most one entry sharing no word with the message, at the end."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    directory = tmp_path_factory.mktemp("store")
    seeded(directory)
    default = MemoryStore(directory, Limits(**RANKING, top_k=2))
    store = MemoryStore(directory, Limits.semantic(**RANKING, top_k=2))
    words = st.sampled_from(["python", "version", "client", "reports", "中文", "回复", "language", "dog", "pill",
                             "杭州", "办公", "deploy", "部署", "tests", "the", "what", "Brazil", "stripes", "webhook"])
    messages = st.one_of(st.lists(words, max_size=6).map(" ".join), st.text(max_size=40))

    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(messages)
    def check(message):
        candidates = [hit.entry.id for hit in default.search(message, top_k=semantic_floor.DEPTH * 2)]
        picked = [hit.entry.id for hit in store.search(message)]
        explanation = store.explain(message)
        by_id = {row.id: row for row in explanation.entries}
        admitted = [entry_id for entry_id in picked if by_id[entry_id].meaning.startswith("admitted by meaning")]
        assert len(admitted) <= 1 and picked[len(picked) - len(admitted):] == admitted  # at most one, last
        for entry_id in admitted:
            assert by_id[entry_id].score == 0 and by_id[entry_id].cosine >= store.limits.semantic_admit
        kept = [entry_id for entry_id in picked if entry_id not in admitted]
        assert len(picked) <= 2 and set(kept) <= set(candidates)
        assert kept == [entry_id for entry_id in candidates if entry_id in kept]  # the words' order
        for entry_id in candidates[: candidates.index(kept[-1]) + 1 if kept else len(candidates)]:
            row = by_id[entry_id]
            assert row.cosine is not None  # every candidate walked past was judged
            assert (row.cosine >= store.limits.semantic_floor) == (entry_id in kept)
            if entry_id not in kept:
                assert row.status == "below_threshold" and "cosine" in row.reason

    check()
