"""bench/relevance_recall.py replays semantic recall, tried and not adopted (docs/ranking.md, "Tried
and not adopted"). Its figures must stay reproducible: with the rule off its picker is exactly the
semantic profile's choice, and with it on it adds only the rule's entry. A fake embedder stands in
for the model, so the cosines are known: every vector leans on one shared axis (cosine 0.75 between
texts with no token in common), the rest is the text's tokens hashed into the other axes; a message
in ALIASES is embedded as the text it names (cosine 1.0: the same meaning in other words)."""

from __future__ import annotations

import zlib

import pytest

from bench import relevance_recall as recall
from memtui_core import Limits, MemoryStore
from memtui_core.ranking import semantic_floor
from memtui_core.text import semantic
from memtui_core.text.tokenize import tokenize

numpy = pytest.importorskip("numpy")

MEMORIES = [
    ("fact", "The project's Python version is 3.11", ["python", "版本"]),
    ("preference", "Grandma prefers phone calls in Cantonese", ["family", "外婆"]),
    ("lesson", "mypy 报错先看 stubs 装没装", ["type check"]),
    ("fact", "缓存用 Redis，过期时间 10 分钟", ["cache"]),
]
ALIASES = {
    # no word (nor keyword) of the memory: only the meaning is shared
    "怎么跟老人家联系比较好": "Grandma prefers phone calls in Cantonese, family, 外婆",
}
SNAKES = "snakes lizards frogs turtles tortoises geckos iguanas chameleons skinks newts python zoo reptiles amphibians"  # python, but not the meaning
QUERIES = [SNAKES, "which python version?", "怎么跟老人家联系比较好", "mypy keeps failing", "what's the weather like",
           "redis 缓存多久过期", "the", ""]


class FakeE5:
    dim = semantic.DIMENSIONS

    def _vector(self, text: str):
        vector = numpy.zeros(self.dim, dtype=numpy.float32)
        for token in tokenize(ALIASES.get(text, text)):
            vector[1 + zlib.crc32(token.encode()) % (self.dim - 1)] += 1.0
        norm = numpy.linalg.norm(vector)
        if norm:
            vector /= norm
        vector[0] = 3.0 ** 0.5
        return vector / numpy.linalg.norm(vector)

    def query(self, texts):
        return numpy.stack([self._vector(t) for t in texts])

    def passage(self, texts):
        return numpy.stack([self._vector(t) for t in texts])


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv(semantic.ENV, raising=False)
    semantic._reset_for_tests()
    semantic_floor._reset_for_tests()
    monkeypatch.setattr(semantic, "_model", FakeE5())
    monkeypatch.setattr(semantic, "_status", "ok")
    store = MemoryStore(tmp_path, Limits(semantic_floor=recall.FLOOR_BEFORE_MEANING))  # the profile it ran on
    for kind, text, keywords in MEMORIES:
        store.remember(kind, text, keywords=keywords, source="test")
    yield store
    semantic._reset_for_tests()
    semantic_floor._reset_for_tests()


def _pick(store, setting):
    cosines = recall._cosines(store, QUERIES, True)
    turns = {q: recall.observe(store, q, c) for q, c in zip(QUERIES, cosines)}
    return lambda query: recall.choose(turns[query], setting, store.limits.top_k)


def _texts(store, ids):
    by_id = {e.id: e.text for e in store.entries()}
    return [by_id[i] for i in ids]


def test_the_fake_embedder_gives_the_cosines_the_tests_rely_on(store):
    cosines = dict(zip(QUERIES, recall._cosines(store, QUERIES, True)))
    by_text = {e.text: e.id for e in store.entries()}
    grandma = by_text["Grandma prefers phone calls in Cantonese"]
    assert cosines["怎么跟老人家联系比较好"][grandma] == pytest.approx(1.0, abs=1e-3)
    assert max(c for i, c in cosines["怎么跟老人家联系比较好"].items() if i != grandma) == pytest.approx(0.75, abs=1e-3)
    assert all(c < 0.88 for c in cosines["what's the weather like"].values())


def test_with_the_rule_off_the_picker_is_the_semantic_profiles_choice(store):
    pick = _pick(store, recall.Setting(None))
    assert any(store.search(q) for q in QUERIES)  # the floor keeps some hits of the words
    vetoed = store.explain(SNAKES).for_id(next(e.id for e in store.entries() if "Python" in e.text))
    assert vetoed.score > 0 and str(vetoed.status) == "below_threshold"  # and holds back one
    for query in QUERIES:
        assert pick(query) == [h.entry.id for h in store.search(query)], query


def test_recall_adds_the_memory_no_word_matched_when_its_meaning_is_close(store):
    assert store.search("怎么跟老人家联系比较好") == []  # the words find nothing
    pick = _pick(store, recall.Setting(0.88, 0.02, "empty", "zero"))
    assert _texts(store, pick("怎么跟老人家联系比较好")) == ["Grandma prefers phone calls in Cantonese"]
    assert pick("what's the weather like") == []  # nothing close enough
    # the words' choice stands: nothing is displaced, nothing added beside it in "empty" mode
    for query in ("which python version?", "mypy keeps failing", "redis 缓存多久过期"):
        assert pick(query) == [h.entry.id for h in store.search(query)], query


def test_recall_respects_its_threshold_and_margin(store):
    assert _pick(store, recall.Setting(1.01, 0.0, "empty", "zero"))("怎么跟老人家联系比较好") == []
    assert _pick(store, recall.Setting(0.88, 0.3, "empty", "zero"))("怎么跟老人家联系比较好") == []


def test_a_setting_is_parsed_from_the_command_line():
    assert recall.Setting.parse("0.88,0.0,empty,zero") == recall.Setting(0.88, 0.0, "empty", "zero")
    assert recall.Setting.parse("rrf,0.87") == recall.Setting(0.87, rrf=True)
