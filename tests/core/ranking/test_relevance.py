"""Query hygiene, the relevance gate, plural folding, whole-keyword matches and the profiles."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui_core.kinds import Kind
from memtui_core.limits import DEFAULT_LIMITS, Limits
from memtui_core.model import Status
from memtui_core.ranking.index import document_tokens, fold_inflections, split_query
from memtui_core.text.stopwords import DEFAULT_STOPWORDS
from memtui_core.memory import MemoryStore
from memtui_core.text.tokenize import tokenize

# The ranking alone: these tests are about which entries a message retrieves, so the pinned core
# (which takes preferences and corrections out of retrieval) is off; its rules: test_pinned.py.
RANKING = Limits(core_budget=0)


def write(directory, items):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": items}))


def item(n, kind, text, **extra):
    return {"id": f"{n:012x}", "kind": kind, "text": text, "source": "t", "ts": n, **extra}


def store_of(directory, *rows):
    """A memory.json of (kind, text) or (kind, text, extra fields) rows, numbered from 1."""
    write(directory, [item(n, row[0], row[1], **(row[2] if len(row) > 2 else {})) for n, row in enumerate(rows, 1)])
    return directory


@pytest.fixture
def store_dir(tmp_path):
    return store_of(tmp_path / "s",
                    ("fact", "The capital of the staging config is in config/staging.yaml"),
                    ("preference", "回复一律用中文，代码注释保持英文"),
                    ("lesson", "Run the test suite with pytest -x before a release"),
                    ("fact", "The API server listens on port 8080 behind nginx",
                     {"keywords": ["reverse proxy", "端口", "backend"]}),
                    ("fact", "Postgres 15 holds the staging database; migrations live in db/migrations"),
                    ("correction", "什么时候都不要直接改生产数据库"))


# ---------------------------------------------------------------- limits and profiles


def test_limits_carry_relevance_settings_with_reasons():
    reasons = Limits.reasons()
    for name in ("stopwords", "fold_inflections", "keyword_weight", "keyword_only_terms", "min_coverage",
                 "relative_floor", "max_keywords", "max_keyword_chars"):
        assert reasons[name], name
    assert DEFAULT_LIMITS.stopwords == DEFAULT_STOPWORDS
    assert hash(Limits()) == hash(Limits()) and Limits() == Limits()
    with pytest.raises(AttributeError):
        Limits().stopwords = frozenset()  # type: ignore[misc]


def test_stopwords_are_overridable_and_compared_as_sets():
    custom = Limits(stopwords=["The", "of"])
    assert custom.stopwords == frozenset({"the", "of"})
    assert custom != Limits() and custom.replace(top_k=3).stopwords == custom.stopwords
    assert Limits(stopwords=()).stopwords == frozenset()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [({"stopwords": "the"}, "collection of words"), ({"stopwords": [1]}, "collection of words"),
     ({"min_coverage": 1.5}, "at most 1"), ({"relative_floor": -0.1}, "positive"),
     ({"fold_inflections": 2}, "0 or 1"), ({"max_keywords": 0}, "positive")],
)
def test_bad_relevance_limits_are_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        Limits(**overrides)


def test_nanohermes_profile_is_the_original_ranking():
    nano = Limits.nanohermes()
    assert nano.stopwords == frozenset() and nano.keyword_weight == 0 and nano.fold_inflections == 0
    assert nano.min_coverage == 0 and nano.relative_floor == 0
    assert nano.profile_name == "nanohermes" and Limits().profile_name == "default"
    assert Limits.profile("nanohermes") == nano and Limits.profile("default") == Limits()
    assert Limits.nanohermes(top_k=2).top_k == 2
    with pytest.raises(ValueError, match="unknown profile"):
        Limits.profile("fast")


# ---------------------------------------------------------------- stopwords


def test_function_words_alone_match_nothing(store_dir):
    store = MemoryStore(store_dir, RANKING)
    assert store.search("what is the capital of Australia?") != []  # "capital" is a real match
    assert store.search("what is the answer to this?") == []
    assert store.search("这是什么意思呢") == []
    assert store.retrieve_block("Can you tell me what it is?") == ""
    nano = MemoryStore(store_dir, Limits.nanohermes())
    assert nano.search("what is the answer to this?") != []  # the original matches on "the", "is"


def test_chinese_function_bigrams_are_ignored(store_dir):
    store = MemoryStore(store_dir, RANKING)
    explanation = store.explain("什么时候可以部署")
    assert "什么" in explanation.ignored and "可以" in explanation.ignored
    row = explanation.for_id(f"{6:012x}")  # holds 什么 only as a function word
    assert row.status == Status.ZERO_SCORE


def test_explain_says_a_term_was_ignored_and_why(store_dir):
    explanation = MemoryStore(store_dir, RANKING).explain("the staging database")
    assert explanation.ignored == ["the"] and explanation.profile == "default"
    row = explanation.for_id(f"{5:012x}")
    by_term = {t.term: t for t in row.terms}
    assert by_term["the"].ignored and "function word" in by_term["the"].ignored
    assert by_term["the"].tf == 1 and by_term["the"].contribution == 0.0
    assert by_term["database"].ignored is None and by_term["database"].contribution > 0
    assert row.score == pytest.approx(sum(t.contribution for t in row.terms))


def test_only_function_words_gives_a_plain_reason(store_dir):
    row = MemoryStore(store_dir, RANKING).explain("what is the").entries[0]
    assert row.status == Status.ZERO_SCORE and "only function words" in row.reason


def test_default_scores_are_bm25_over_the_query_without_stopwords(store_dir):
    store = MemoryStore(store_dir, RANKING.replace(min_coverage=0, relative_floor=0, fold_inflections=0, keyword_weight=0))
    entries = store.entries()
    docs = [document_tokens(e.text, e.kind.label, e.kind.value) for e in entries]
    engine = bm25s.BM25(method="atire", idf_method="lucene", k1=1.2, b=0.75, dtype="float64")
    engine.index(docs, show_progress=False)
    for query in ("the staging database", "the test of the API server", "什么时候 部署", "这是什么"):
        tokens, _ignored = split_query(tokenize(query), DEFAULT_STOPWORDS)
        assert not set(tokens) & DEFAULT_STOPWORDS
        expected = np.asarray(engine.get_scores(tokens)) if tokens else np.zeros(len(docs))
        hits = {h.entry.id: h.score for h in store.search(query, top_k=10)}
        assert set(hits) == {entries[i].id for i in range(len(docs)) if expected[i] > 0}, query
        for i, entry in enumerate(entries):
            if entry.id in hits:
                assert hits[entry.id] == pytest.approx(expected[i], abs=1e-9)


# ---------------------------------------------------------------- the gate


def test_weak_tail_is_held_back_with_its_own_status(store_dir):
    store = MemoryStore(store_dir, RANKING)
    query = "pytest release staging"
    explanation = store.explain(query)
    statuses = {row.id: row.status for row in explanation.entries}
    held = [row for row in explanation.entries if row.status == Status.BELOW_THRESHOLD]
    assert held, statuses
    for row in held:
        assert row.rank is None and row.score > 0
        assert "query's weight" in row.reason or "best hit" in row.reason
        assert row.text not in explanation.block
    injected = [row.id for row in explanation.entries if row.status == Status.INJECTED]
    assert [h.entry.id for h in store.search(query)] == injected
    # the original injects every hit up to top_k
    nano = MemoryStore(store_dir, Limits.nanohermes()).explain(query)
    assert not [row for row in nano.entries if row.status == Status.BELOW_THRESHOLD]
    assert len([row for row in nano.entries if row.status == Status.INJECTED]) > len(injected)


def test_coverage_gate_holds_back_an_entry_matching_a_minor_term(tmp_path):
    write(tmp_path / "s", [item(i, "fact", f"note {i} about yaml files") for i in range(1, 8)]
          + [item(9, "lesson", "Kubernetes rollouts need a readiness probe")])
    store = MemoryStore(tmp_path / "s", RANKING)
    explanation = store.explain("kubernetes readiness probe yaml")
    top = explanation.entries[0]
    assert top.id == f"{9:012x}" and top.status == Status.INJECTED
    minor = explanation.for_id(f"{1:012x}")
    assert minor.status == Status.BELOW_THRESHOLD and "query's weight" in minor.reason
    assert [h.entry.id for h in store.search("kubernetes readiness probe yaml")] == [top.id]
    # with the gate off, the minor matches fill the top 4
    ungated = MemoryStore(tmp_path / "s", RANKING.replace(min_coverage=0, relative_floor=0))
    assert len(ungated.search("kubernetes readiness probe yaml")) == 4


def _percents(reason):
    import re

    return [float(number) for number in re.findall(r"(\d+(?:\.\d+)?)%", reason)]


def test_a_share_just_below_the_bar_never_reads_as_the_bar(tmp_path):
    # an entry whose share is a hair under min_coverage: rounded, both would print the same percent
    write(tmp_path / "s", [item(1, "fact", "note about yaml files"), item(2, "lesson", "readiness probe for pods")])
    query = "kubernetes readiness probe yaml"
    ungated = MemoryStore(tmp_path / "s", RANKING.replace(min_coverage=0, relative_floor=0))
    held_idf = sum(t.idf for t in ungated.explain(query).for_id(f"{1:012x}").terms if t.tf and not t.ignored)
    total = sum(t.idf for t in ungated.explain(query).entries[0].terms if t.df and not t.ignored)
    coverage = held_idf / total
    store = MemoryStore(tmp_path / "s", RANKING.replace(min_coverage=coverage + 1e-5, relative_floor=0))
    share = store.explain(query).for_id(f"{1:012x}")
    assert share.status == Status.BELOW_THRESHOLD, share.reason
    held, bar = _percents(share.reason)
    assert held < bar and held <= coverage * 100


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1), st.floats(0.0001, 1))
def test_shares_below_the_bar_always_print_below_it(share, bar):
    from memtui_core.ranking.gate import _shares

    held, needed = (float(text.rstrip("%")) for text in _shares(share, bar))
    assert held <= share * 100 + 1e-6  # rounded down: never claims more than the entry holds
    if share < bar - 1e-9:
        assert held < needed


def test_relative_floor_reason_names_the_best_score(tmp_path):
    write(tmp_path / "s", [item(1, "fact", "alpha beta gamma delta"), item(2, "fact", "gamma and many other words "
                                                                                    "here to make it long enough")])
    store = MemoryStore(tmp_path / "s", RANKING.replace(min_coverage=0, relative_floor=0.9))
    row = store.explain("alpha beta gamma").for_id(f"{2:012x}")
    assert row.status == Status.BELOW_THRESHOLD and "best hit" in row.reason


# ---------------------------------------------------------------- plurals and whole keywords


def test_bigrams_made_of_function_words_are_ignored():
    kept, ignored = split_query(tokenize("什么时候可以部署这是什么"), DEFAULT_STOPWORDS)
    assert kept == ["以部", "部署"]  # 署这 ends with 这, a function character
    assert {"什么", "么时", "时候", "候可", "可以", "这是", "是什", "署这"} <= set(ignored)


def test_plural_folding_finds_the_stores_form():
    vocabulary = {"test", "messages", "dependency", "class"}
    assert fold_inflections(["tests", "message", "dependencies", "classes", "pytest", "zzzs"], vocabulary) == [
        "test", "messages", "dependency", "class", "pytest", "zzzs"]
    assert fold_inflections(["tests"], {"tests", "test"}) == ["tests"]  # a word the store holds is kept


def test_plural_folding_never_lands_on_a_function_word_or_a_bare_stem():
    """"notes" is not "not", "bus" has no singular "bu", and only sibilant endings take -es."""
    from memtui_core.text.stopwords import DEFAULT_STOPWORDS

    vocabulary = {"not", "bu", "note", "match", "box", "class", "tim"}
    assert fold_inflections(["notes", "bus", "matches", "boxes", "classes", "times"], vocabulary, DEFAULT_STOPWORDS) == [
        "note", "bus", "match", "box", "class", "times"]
    assert fold_inflections(["notes"], {"not"}, DEFAULT_STOPWORDS) == ["notes"]


@pytest.mark.parametrize("query_word,store_word", [
    ("cached", "cache"), ("caching", "cache"), ("deploying", "deploy"), ("deployed", "deploy"),
    ("migrations", "migration"), ("running", "run"), ("configured", "configuration"), ("reports", "reported"),
])
def test_inflections_fold_to_the_stores_form(query_word, store_word):
    assert fold_inflections([query_word], {store_word, "unrelated"}) == [store_word]


@pytest.mark.parametrize("query_word,store_word", [
    ("universe", "university"), ("news", "new"), ("general", "generate"), ("stream", "streams2"),
    ("organ", "organization"), ("pest", "pytest"),
])
def test_different_words_with_a_shared_prefix_stay_apart(query_word, store_word):
    assert fold_inflections([query_word], {store_word}) == [query_word]


def test_among_several_forms_the_one_most_entries_hold_wins(tmp_path):
    write(tmp_path / "s", [item(1, "fact", "deployment notes"), item(2, "fact", "deploy script"),
                           item(3, "fact", "deploy on friday")])
    store = MemoryStore(tmp_path / "s", RANKING)
    assert [t.term for t in store.explain("deploying").entries[0].terms] == ["deploy"]


@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12), max_size=8),
       st.sets(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12), max_size=20))
@settings(max_examples=200, deadline=None)
def test_folding_only_ever_lands_on_a_store_word_with_the_same_stem(tokens, vocabulary):
    import Stemmer

    stem = Stemmer.Stemmer("english").stemWord
    folded = fold_inflections(tokens, vocabulary)
    assert len(folded) == len(tokens)
    for before, after in zip(tokens, folded):
        assert after == before or (after in vocabulary and before not in vocabulary and stem(after) == stem(before))


def test_plural_folding_in_the_store_and_explain(store_dir):
    store = MemoryStore(store_dir, RANKING)
    hits = store.search("which tests")
    assert hits and hits[0].entry.id == f"{3:012x}"
    assert [t.term for t in store.explain("which tests").for_id(f"{3:012x}").terms if t.tf] == ["test"]
    assert MemoryStore(store_dir, Limits.nanohermes()).search("which tests") == []


def test_a_keyword_of_several_words_needs_most_of_them(store_dir):
    store = MemoryStore(store_dir, RANKING)
    assert store.search("reverse a linked list") == []
    hits = store.search("is there a reverse proxy")
    assert hits and hits[0].entry.id == f"{4:012x}"
    row = store.explain("is there a reverse proxy").for_id(f"{4:012x}")
    assert {t.term for t in row.terms if t.from_keywords} == {"reverse", "proxy"}


def test_nanohermes_ignores_keywords_in_the_file(store_dir):
    nano = MemoryStore(store_dir, Limits.nanohermes())
    assert nano.search("backend") == [] and nano.search("端口") == []
    assert MemoryStore(store_dir, RANKING).search("backend")[0].entry.id == f"{4:012x}"


# ---------------------------------------------------------------- explain agrees with retrieval


ZH = ["部署", "脚本", "前端", "构建", "中文", "数据库", "测试", "缓存", "日志", "端口", "什么", "可以", "一下"]
EN = ["deploy", "vite", "pnpm", "docker", "the", "tests", "test", "cache", "port", "of", "release", "proxy"]


@pytest.fixture(scope="module")
def random_store(tmp_path_factory):
    rng = random.Random(11)
    items = []
    for n in range(1, 61):
        words = [rng.choice(ZH + EN) for _ in range(rng.randint(1, 10))]
        keywords = [rng.choice(ZH + EN) + (" " + rng.choice(EN) if rng.random() < 0.3 else "")
                    for _ in range(rng.randint(0, 4))]
        items.append(item(n, rng.choice([k.value for k in Kind]), " ".join(words), keywords=keywords))
    directory = tmp_path_factory.mktemp("rel") / "s"
    write(directory, items)
    return MemoryStore(directory, RANKING.replace(char_budget=100_000))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(ZH + EN + ["what", "is", "kubernetes"]), min_size=1, max_size=7))
def test_explain_injects_exactly_what_search_returns(random_store, words):
    query = " ".join(words)
    explanation = random_store.explain(query)
    injected = sorted((row for row in explanation.entries if row.status == Status.INJECTED), key=lambda r: r.rank)
    hits = random_store.search(query)
    assert [row.id for row in injected] == [h.entry.id for h in hits]
    for row, hit in zip(injected, hits):
        assert row.score == pytest.approx(hit.score, abs=1e-9)
        assert row.score == pytest.approx(sum(t.contribution for t in row.terms), abs=1e-9)


def test_an_entry_matching_only_on_a_number_is_held_back(tmp_path):
    write(tmp_path / "s", [item(1, "fact", "iOS support starts at 15.0"), item(2, "fact", "The API listens on port 8080"),
                           item(3, "fact", "Flutter apps are built with flutter build")])
    store = MemoryStore(tmp_path / "s", RANKING)
    explanation = store.explain("flutter build takes 15 minutes")
    assert explanation.for_id(f"{1:012x}").status == Status.BELOW_THRESHOLD  # only "15" matches
    assert [h.entry.id for h in store.search("flutter build takes 15 minutes")] == [f"{3:012x}"]
    assert store.search("8080")[0].entry.id == f"{2:012x}"  # a query of numbers alone still finds them
    assert store.search("port 8080")[0].entry.id == f"{2:012x}"


def test_chinese_request_words_are_ignored_like_the_english_ones():
    for word in ("解释", "介绍", "给我"):
        assert word in DEFAULT_STOPWORDS
    for word in ("explain", "write", "use"):
        assert word in DEFAULT_STOPWORDS
    kept, _ = split_query(tokenize("解释一下什么是区块链"), DEFAULT_STOPWORDS)
    assert "解释" not in kept and "区块" in kept


def test_a_long_message_spread_over_memories_still_gets_the_best_covered_ones(tmp_path):
    # Five content words, each held by a different entry: none covers 30% of the message, yet the
    # message is about them; the best-covered entries pass, weaker ones are held back.
    write(tmp_path / "s", [item(1, "fact", "alpha beta notes"), item(2, "fact", "gamma notes"),
                           item(3, "fact", "delta notes"), item(4, "fact", "epsilon notes"),
                           item(5, "fact", "zeta notes")])
    store = MemoryStore(tmp_path / "s", RANKING.replace(relative_floor=0))
    query = "alpha gamma delta epsilon zeta omega"
    explanation = store.explain(query)
    assert not [row for row in explanation.entries if row.status == Status.BELOW_THRESHOLD]
    hits = store.search(query)
    assert hits and len(hits) == 4  # every entry covers the same share: all tie, top_k of them pass
    ungated = MemoryStore(tmp_path / "s", RANKING.replace(min_coverage=0.9, relative_floor=0))
    assert len(ungated.search(query)) == 4  # the bar is never above what the best entries hold


def test_below_the_best_coverage_when_no_entry_reaches_the_bar(tmp_path):
    write(tmp_path / "s", [item(1, "fact", "kafka topics and consumer groups"), item(2, "fact", "kafka brokers"),
                           item(3, "fact", "retention policy"), item(4, "fact", "grafana dashboards")])
    store = MemoryStore(tmp_path / "s", RANKING.replace(relative_floor=0, min_coverage=0.9))
    explanation = store.explain("kafka consumer groups retention grafana alerts")
    first = explanation.for_id(f"{1:012x}")
    assert first.status == Status.INJECTED
    weaker = explanation.for_id(f"{4:012x}")
    assert weaker.status == Status.BELOW_THRESHOLD and "no entry reaches 90%" in weaker.reason


@pytest.mark.parametrize("query", ["tell me a fun fact about octopuses", "what's your preference, tea or coffee?",
                                   "any lessons from the 2008 crisis?", "我有个偏好想问问"])
def test_a_kind_named_in_passing_injects_nothing(store_dir, query):
    store = MemoryStore(store_dir, RANKING)
    assert store.search(query) == [] and store.retrieve_block(query) == ""
    held = [row for row in store.explain(query).entries if row.score > 0]
    assert held and all(row.status == Status.BELOW_THRESHOLD for row in held)
    assert MemoryStore(store_dir, Limits.nanohermes()).search(query) != []  # the original injects them


@pytest.mark.parametrize("query", ["what's 15% of 80", "15 + 8080 = ?", "偏好 8080"])
def test_a_message_of_numbers_needs_every_number(store_dir, query):
    # "15" and "8080" are each held by an entry; a message of nothing but numbers (and kinds'
    # names) is a coincidence unless one entry holds all of them.
    store = MemoryStore(store_dir, RANKING)
    assert store.search(query) == []
    held = [row for row in store.explain(query).entries if row.score > 0]
    assert held and all(row.status == Status.BELOW_THRESHOLD for row in held)
    assert all("only numbers, kinds' names or general words" in row.reason for row in held)


@pytest.mark.parametrize("query,expected", [("8080", 4), ("port 8080", 4), ("15", 5), ("8080 事实", 4)])
def test_a_message_of_numbers_an_entry_holds_all_of_finds_it(store_dir, query, expected):
    store = MemoryStore(store_dir, RANKING)
    assert [h.entry.id for h in store.search(query)] == [f"{expected:012x}"]


def test_general_words_are_the_maintained_list():
    """core/text/data/general_words.txt is generated from stopwords-iso; regenerate it when the package moves."""
    import importlib.util
    import sys
    from pathlib import Path

    from memtui_core.text.general_words import GENERAL_WORDS

    script = Path(__file__).resolve().parents[3] / "scripts" / "gen_general_words.py"
    spec = importlib.util.spec_from_file_location("gen_general_words", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_general_words"] = module
    spec.loader.exec_module(module)
    assert GENERAL_WORDS == frozenset(module.words())
    assert module.TARGET.read_text(encoding="utf-8") == module.render(module.words())  # as generated, not edited
    assert {"name", "way", "work", "year"} <= GENERAL_WORDS
    assert not {"py", "sh", "ts", "ci", "pr"} & GENERAL_WORDS  # two-letter entries (country codes) are left out
    assert {"关于", "对于", "结果", "本地"} <= GENERAL_WORDS  # the Chinese list's two-character words
    assert not [w for w in GENERAL_WORDS if not w.isascii() and len(w) != 2]  # 上 alone is part of 上海


@pytest.fixture
def named_store(tmp_path):
    return store_of(tmp_path / "n", ("preference", "日志不要用 print，统一用 logging 模块，logger 名取 __name__。"),
                    ("fact", "Work laptop: ThinkPad X1 Carbon, Fedora 41"),
                    ("fact", "My cat is a 4-year-old tabby called Sesame"))


@pytest.mark.parametrize("query", ["what's a good name for a sourdough starter?", "how do noise-cancelling headphones work?",
                                   "What year did the Berlin Wall fall?"])
def test_an_entry_sharing_only_general_words_is_held_back(named_store, query):
    store = MemoryStore(named_store, RANKING)
    assert store.search(query) == []
    held = [row for row in store.explain(query).entries if row.score > 0]
    assert held and all(row.status == Status.BELOW_THRESHOLD and "it shares only" in row.reason for row in held)
    assert MemoryStore(named_store, RANKING.replace(general_words=[])).search(query) != []  # the list is what holds them


@pytest.mark.parametrize("query,expected", [("which logger name should I use", 1), ("my work laptop is slow", 2),
                                            ("how old is my cat this year", 3)])
def test_a_general_word_beside_a_topic_still_counts(named_store, query, expected):
    hits = MemoryStore(named_store, RANKING).search(query)
    assert hits and hits[0].entry.id == f"{expected:012x}"


@pytest.fixture
def folded_store(tmp_path):
    return store_of(tmp_path / "f", ("lesson", "VCF sample names must match the hospital's LIMS IDs exactly"),
                    ("fact", "正在写的论文是关于 ctDNA 低频变异检测的，目标期刊 Briefings in Bioinformatics"),
                    ("fact", "The cluster runs Slurm on CentOS 7"))


@pytest.mark.parametrize("query,shared", [("What's a good name for a coffee shop? cozy vibe", "names"),
                                          ("写一首关于秋天的五言绝句", "关于")])
def test_a_general_word_stays_general_when_folded_and_in_chinese(folded_store, query, shared):
    """"name" finds the store's "names" by folding, and is still only a general word; 关于 ("about")
    is a general Chinese word as "about" is an English one. Neither carries a match alone."""
    store = MemoryStore(folded_store, RANKING)
    assert store.search(query) == []
    held = [row for row in store.explain(query).entries if row.score > 0]
    assert held and all(f"it shares only {shared} " in row.reason for row in held)
    assert MemoryStore(folded_store, RANKING.replace(general_words=[])).search(query) != []  # the list is what holds them


@pytest.mark.parametrize("query,expected", [("which sample name format does the LIMS want?", 1),
                                            ("ctDNA 那篇论文写到哪了", 2)])
def test_a_folded_or_chinese_general_word_beside_a_topic_still_counts(folded_store, query, expected):
    hits = MemoryStore(folded_store, RANKING).search(query)
    assert hits and hits[0].entry.id == f"{expected:012x}"


@pytest.fixture
def everyday_store(tmp_path):
    return store_of(tmp_path / "e", ("lesson", "有一次回填三年的 SCADA 数据没加 LIMIT，把磁盘写满了，回填要按月分批。"),
                    ("lesson", "给风机 ID 做 join 前要先 trim，厂商导出的 CSV 里 ID 末尾经常带空格。"),
                    ("fact", "家里的猫叫豆包，是只橘猫，对鸡肉过敏。"),
                    ("fact", "Grafana dashboards are at https://grafana.windops.internal/d/fleet"))


@pytest.mark.parametrize("query,shared", [
    ("帮我润色一下这段话：感谢大家这一年的辛苦付出，我们明年继续加油！", "年的"),  # a bigram across 的
    ("JavaScript 里 == 和 === 有什么区别？", "里"),  # a lone character between English words
    ("如何理解 Rust 里的所有权和借用？", "里的"),
    ("How does HTTPS certificate pinning work?", "https"),  # every URL holds it
])
def test_word_boundary_bigrams_lone_characters_and_url_parts_are_coincidences(everyday_store, query, shared):
    store = MemoryStore(everyday_store, RANKING)
    assert store.search(query) == []
    held = [row for row in store.explain(query).entries if row.score > 0]
    assert held and all(row.status == Status.BELOW_THRESHOLD for row in held)
    assert any(f"it shares only {shared} " in row.reason for row in held)
    assert MemoryStore(everyday_store, Limits.nanohermes()).search(query) != []


def test_a_bigram_across_a_function_character_beside_a_function_word_is_ignored(tmp_path):
    """是通 in 什么是通货膨胀 spans 是 and 通货: it is not scored at all (explain says why), where the
    original ranking matches it to a memory holding 是通 in 这是通知."""
    directory = store_of(tmp_path / "f", ("fact", "这是通知：周五下午三点全楼停电，服务器提前关机。"))
    store = MemoryStore(directory)
    query = "什么是通货膨胀？"
    assert store.search(query) == []
    explanation = store.explain(query)
    assert "是通" in explanation.ignored and all(row.score == 0 for row in explanation.entries)
    row = next(row for entry in explanation.entries for row in entry.terms if row.term == "是通")
    assert "begins or ends with a function character" in row.ignored
    assert MemoryStore(directory, Limits.nanohermes()).search(query) != []
    # the function characters are the profile's one-character stopwords that stopwords-iso holds alone too
    assert "是通" in MemoryStore(directory, Limits(stopwords=["是", "什么"])).explain(query).ignored
    assert "是通" not in MemoryStore(directory, Limits(stopwords=["什么"])).explain(query).ignored


@pytest.mark.parametrize("query,expected", [("回填数据要注意什么", 1), ("CSV 里的 ID 要 trim 吗", 2), ("猫能吃鸡肉吗", 3),
                                            ("grafana 的地址是什么", 4), ("家里的猫叫什么", 3)])
def test_the_same_characters_beside_a_real_match_still_count(everyday_store, query, expected):
    hits = MemoryStore(everyday_store, RANKING).search(query)
    assert hits and hits[0].entry.id == f"{expected:012x}"


def test_a_kind_name_with_a_topic_finds_the_topic(store_dir):
    store = MemoryStore(store_dir, RANKING)
    assert [h.entry.id for h in store.search("what lessons about pytest")] == [f"{3:012x}"]
    assert {h.entry.kind.value for h in store.search("偏好", top_k=10)} == {"preference"}


def test_a_big_store_picks_what_explain_would_inject(tmp_path):
    # Past VECTOR_MIN_DOCS the gate looks at the best few hits first and more only when needed;
    # explain judges every hit. They must agree.
    from memtui_core.ranking.index import VECTOR_MIN_DOCS

    rng = random.Random(5)
    words = ZH + EN + ["kafka", "grafana", "helm", "rollout", "v2"]
    write(tmp_path / "big", [item(n, "fact", " ".join(rng.choices(words, k=rng.randint(2, 14))))
                             for n in range(1, VECTOR_MIN_DOCS + 120)])
    store = MemoryStore(tmp_path / "big", RANKING.replace(char_budget=100_000))
    assert store._snap().index.vectorized
    for query in ("部署 脚本 kafka", "grafana helm rollout v2 cache", "the tests of the release", "端口", "zzz"):
        injected = sorted((r for r in store.explain(query).entries if r.status == Status.INJECTED), key=lambda r: r.rank)
        assert [h.entry.id for h in store.search(query)] == [r.id for r in injected], query
