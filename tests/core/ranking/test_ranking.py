"""BM25 scoring (docs/ranking.md), checked against two independent implementations, and how hits are picked."""

from __future__ import annotations

import math
import random
import string
from collections import Counter

import bm25s
import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from memtui_core.kinds import Kind
from memtui_core.limits import Limits
from memtui_core.text.stopwords import DEFAULT_STOPWORDS
from memtui_core.ranking.index import Index, document_tokens, query_terms, split_query
from memtui_core.memory import MemoryStore
from memtui_core.text.tokenize import tokenize

# ---------------------------------------------------------------- a deterministic mixed corpus

ZH_WORDS = [
    "部署脚本", "默认", "先", "确认", "执行", "前端", "构建", "回复", "中文", "代码注释", "英文", "数据库",
    "迁移", "测试", "用户", "缓存", "日志", "端口", "配置", "依赖", "版本", "偏好", "经验", "不要", "以后",
    "服务器", "重启", "好", "用", "慢查询", "索引", "页面", "样式", "接口", "超时",
]
EN_WORDS = [
    "vite", "pnpm", "npm", "docker", "deploy", "dry", "run", "python", "pytest", "node", "cache",
    "redis", "postgres", "the", "use", "always", "never", "a", "x", "v2", "build", "lint", "ruff",
    "preference", "fact", "TypeScript", "README", "CI", "make", "test",
]
SEPARATORS = [" ", " ", "", "，", "。", "、", "-", "_", ", ", "; "]
KINDS = list(Kind)


def make_text(rng: random.Random) -> str:
    pieces = [rng.choice(ZH_WORDS if rng.random() < 0.55 else EN_WORDS) for _ in range(rng.randint(1, 24))]
    out = pieces[0]
    for piece in pieces[1:]:
        out += rng.choice(SEPARATORS) + piece
    return out


def make_corpus(size: int, seed: int = 20251130) -> list[tuple[Kind, str]]:
    rng = random.Random(seed)
    return [(rng.choice(KINDS), make_text(rng)) for _ in range(size)]


def make_queries(seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    queries = [
        "部署 部署",  # qtf 2
        "vite vite pnpm",  # qtf 2 next to qtf 1
        "前端用Vite",
        "偏好",
        "preference",
        "fact 事实 事实",
        "缓存 cache redis 缓存",
        "nothing-matches-zzqq",
        "TypeScript",
    ]
    for _ in range(60):
        words = [rng.choice(ZH_WORDS + EN_WORDS) for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.3:
            words.append(words[0])  # a repeated term
        queries.append(" ".join(words))
    return queries


def spec_document(text: str, kind: Kind) -> list[str]:
    """An entry's document, as docs/ranking.md defines it."""
    return tokenize(text) + tokenize(kind.label) + [kind.value]


def corpus_docs(corpus: list[tuple[Kind, str]]) -> list[list[str]]:
    return [spec_document(text, kind) for kind, text in corpus]


def write_store_file(directory, items: list[dict], **top) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "memory.json").write_bytes(orjson.dumps({"entries": items, **top}))


def corpus_items(corpus: list[tuple[Kind, str]]) -> list[dict]:
    return [
        {"id": f"{i:012x}", "kind": kind.value, "text": text, "source": "test", "ts": 1_700_000_000 + i}
        for i, (kind, text) in enumerate(corpus)
    ]


# ---------------------------------------------------------------- independent engines


def bm25s_engine(docs: list[list[str]]) -> bm25s.BM25:
    engine = bm25s.BM25(method="atire", idf_method="lucene", k1=1.2, b=0.75, dtype="float64")
    engine.index(docs, show_progress=False)
    return engine


def bm25s_scores(engine: bm25s.BM25, query_tokens: list[str], n: int) -> np.ndarray:
    if not query_tokens:
        return np.zeros(n)
    # get_scores maps each token occurrence to its id (unknown tokens are dropped) and adds one
    # column per occurrence, so a token twice in the query counts twice -- as docs/ranking.md says.
    return engine.get_scores(list(query_tokens))


class LuceneIdfBM25(BM25Okapi):
    """rank_bm25's Okapi scorer already uses the ATIRE term-frequency part,
    tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl)), and sums over every query token occurrence;
    only its idf differs (log((n − df + 0.5)/(df + 0.5)) with an epsilon floor). Replacing the idf
    with Lucene's ln(1 + (n − df + 0.5)/(df + 0.5)) makes it the formula of docs/ranking.md exactly."""

    def _calc_idf(self, nd):
        for word, df in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - df + 0.5) / (df + 0.5))


@pytest.fixture(scope="module")
def corpus():
    return make_corpus(300)


@pytest.fixture(scope="module")
def docs(corpus):
    return corpus_docs(corpus)


@pytest.fixture(scope="module")
def queries():
    return make_queries()


def our_scores(index: Index, query_tokens: list[str]) -> np.ndarray:
    scores = np.zeros(index.n)
    for doc_id, score in index.scores(query_tokens).items():
        scores[doc_id] = score
    return scores


# ---------------------------------------------------------------- the corpus is what it should be


def test_corpus_is_mixed_and_queries_repeat_tokens(docs, queries):
    assert len(docs) == 300
    tokens = [t for doc in docs for t in doc]
    assert any("\u4e00" <= t[0] <= "\u9fff" for t in tokens)
    assert any(t.isascii() and t.isalpha() for t in tokens)
    repeated = [q for q in queries if any(c == 2 for c in query_terms(tokenize(q)).values())]
    assert len(repeated) >= 10


def test_document_tokens_are_text_label_and_kind():
    # BM25 ignores order, so the store may index a bag; its contents are fixed by docs/ranking.md.
    assert Counter(document_tokens("前端用Vite", "偏好", "preference")) == Counter(
        ["前端", "端用", "vite", "偏好", "preference"]
    )
    assert Counter(document_tokens("a", "事实", "fact")) == Counter(["事实", "fact"])


def test_store_documents_equal_the_spec_documents(corpus, docs):
    for (kind, text), doc in zip(corpus, docs):
        assert Counter(document_tokens(text, kind.label, kind.value)) == Counter(doc), text


_doc_chars = st.one_of(
    st.sampled_from(string.ascii_letters + string.digits + string.punctuation + " _é"),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x4E20),
    st.characters(min_codepoint=0x3040, max_codepoint=0x3050),
    st.sampled_from("\U00020000\U0002fa1f\U0002fa20\uac00\ud7af\ud7b0\u3000，。"),
    st.characters(exclude_categories=("Cs",)),
)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_doc_chars, max_size=50), st.sampled_from(list(Kind)))
def test_document_tokens_hold_the_tokens_of_the_text(text, kind):
    assert Counter(document_tokens(text, kind.label, kind.value)) == Counter(spec_document(text, kind))


# ---------------------------------------------------------------- scores equal bm25s and rank_bm25


def test_scores_equal_bm25s(docs, queries):
    index = Index(docs, k1=1.2, b=0.75)
    engine = bm25s_engine(docs)
    nonzero = 0
    for query in queries:
        tokens = tokenize(query)
        expected = bm25s_scores(engine, tokens, len(docs))
        got = our_scores(index, tokens)
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9, err_msg=query)
        nonzero += int((expected > 0).sum())
    assert nonzero > 1000  # the comparison is not vacuous


def test_vectorized_scoring_equals_bm25s(docs, queries):
    # Big stores score with arrays; the numbers must not change.
    index = Index(docs, k1=1.2, b=0.75, vectorized=True)
    engine = bm25s_engine(docs)
    for query in queries:
        tokens = tokenize(query)
        got = our_scores(index, tokens)
        np.testing.assert_allclose(got, bm25s_scores(engine, tokens, len(docs)), rtol=0, atol=1e-9, err_msg=query)


@pytest.mark.parametrize("vectorized", [False, True])
def test_top_is_ranked_order_without_excluded(docs, queries, vectorized):
    index = Index(docs, vectorized=vectorized)
    reference = Index(docs, vectorized=False)
    excluded = frozenset(range(0, len(docs), 7))
    for query in queries:
        tokens = tokenize(query)
        ranked = [pair for pair in reference.ranked(tokens) if pair[0] not in excluded]
        for k in (1, 4, 10):
            top = index.top(tokens, k, excluded)
            assert [d for d, _ in top] == [d for d, _ in ranked[:k]], (query, k)
            assert [s for _, s in top] == pytest.approx([s for _, s in ranked[:k]], abs=1e-9)


def test_queries_asked_in_turn_each_get_their_own_scores(docs, queries):
    # The vectorized index keeps the last query's score array (the gate asks `top` again for more
    # hits): another query, or the first one again, must never be answered from the wrong array.
    index = Index(docs, vectorized=True)
    reference = Index(docs, vectorized=False)
    asked = [tokenize(q) for q in queries[:6]]
    for tokens in asked + asked[::-1] + [asked[0], asked[0][:1], asked[0]]:
        assert [d for d, _ in index.top(tokens, 5)] == [d for d, _ in reference.ranked(tokens)[:5]]
        assert index.scores(tokens) == pytest.approx(reference.scores(tokens), abs=1e-9)


def test_top_breaks_ties_at_the_cut_in_store_order():
    # Eight equal documents: whichever way scores are computed, the first k in store order win.
    docs = [["alpha", "fact"]] * 8 + [["beta", "fact"]]
    for vectorized in (False, True):
        index = Index(docs, vectorized=vectorized)
        assert [d for d, _ in index.top(["alpha"], 3)] == [0, 1, 2]
        assert [d for d, _ in index.top(["alpha"], 3, {1})] == [0, 2, 3]


def test_scores_equal_rank_bm25_with_lucene_idf(docs, queries):
    index = Index(docs, k1=1.2, b=0.75)
    engine = LuceneIdfBM25(docs, k1=1.2, b=0.75)
    for query in queries:
        tokens = tokenize(query)
        got = our_scores(index, tokens)
        np.testing.assert_allclose(got, engine.get_scores(tokens), rtol=0, atol=1e-9, err_msg=query)


def test_repeated_query_token_counts_twice(docs):
    index = Index(docs)
    once = index.scores(["部署"])
    twice = index.scores(["部署", "部署"])
    assert once and set(once) == set(twice)
    for doc_id, score in once.items():
        assert twice[doc_id] == pytest.approx(2 * score, rel=1e-12)


def test_index_statistics_by_hand():
    docs = [["aa", "bb"], ["aa"], ["cc", "cc", "cc"]]
    index = Index(docs, k1=1.2, b=0.75)
    assert index.n == 3
    assert index.avg_len == pytest.approx(2.0)
    assert index.df("aa") == 2 and index.df("cc") == 1 and index.df("zz") == 0
    idf_aa = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert index.idf("aa") == pytest.approx(idf_aa, rel=1e-15)

    def contribution(idf, f, length):
        return idf * f * 2.2 / (f + 1.2 * (1 - 0.75 + 0.75 * length / 2.0))

    scores = index.scores(["aa", "cc"])
    assert set(scores) == {0, 1, 2}
    assert scores[0] == pytest.approx(contribution(idf_aa, 1, 2), rel=1e-12)
    assert scores[1] == pytest.approx(contribution(idf_aa, 1, 1), rel=1e-12)
    idf_cc = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    assert scores[2] == pytest.approx(contribution(idf_cc, 3, 3), rel=1e-12)
    assert index.tf("cc", 2) == 3 and index.tf("cc", 0) == 0


def test_average_length_below_one_is_treated_as_one():
    # max(avg_len, 1) in the length normalisation: two empty documents and one of length 1
    index = Index([[], [], ["zz"]], k1=1.2, b=0.75)
    assert index.avg_len == pytest.approx(1 / 3)
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 1 * 2.2 / (1 + 1.2 * (1 - 0.75 + 0.75 * 1 / 1.0))
    assert index.scores(["zz"]) == {2: pytest.approx(expected, rel=1e-12)}


def test_empty_index_scores_nothing():
    index = Index([])
    assert index.n == 0 and index.avg_len == 0.0
    assert index.scores(["aa"]) == {} and index.ranked(["aa"]) == []


# ---------------------------------------------------------------- the store ranks with the same numbers


@pytest.fixture(scope="module")
def big_store(tmp_path_factory, corpus):
    directory = tmp_path_factory.mktemp("ranking") / "store"
    write_store_file(directory, corpus_items(corpus))
    store = MemoryStore(directory, Limits.nanohermes())
    assert len(store.entries()) == len(corpus)
    assert not any(e.blocked for e in store.entries())
    return store


@pytest.fixture(scope="module")
def default_store(big_store):
    return MemoryStore(big_store.dir, Limits(min_coverage=0, relative_floor=0))


@pytest.mark.parametrize("profile", ["nanohermes", "default"])
def test_store_search_scores_equal_bm25s(big_store, default_store, corpus, docs, queries, profile):
    # nanohermes scores every query token, exactly as the original ranking; the default profile
    # scores the same BM25 over the query without its function words (its gate switched off here).
    store = big_store if profile == "nanohermes" else default_store
    engine = bm25s_engine(docs)
    ids = [f"{i:012x}" for i in range(len(corpus))]
    for query in queries:
        tokens = tokenize(query)
        if profile == "default":
            tokens, _ignored = split_query(tokens, DEFAULT_STOPWORDS)
            assert not set(tokens) & DEFAULT_STOPWORDS
        expected = bm25s_scores(engine, tokens, len(docs))
        hits = store.search(query, top_k=len(corpus))
        positions = [ids.index(hit.entry.id) for hit in hits]
        # every document with a positive score is a hit, and no other
        assert set(positions) == {i for i in range(len(docs)) if expected[i] > 0}, query
        for hit, position in zip(hits, positions):
            assert hit.score == pytest.approx(expected[position], abs=1e-9)
        # best first; equal scores in store order
        keys = [(-hit.score, position) for hit, position in zip(hits, positions)]
        assert keys == sorted(keys), query


def test_search_returns_top_k_best(big_store):
    all_hits = big_store.search("部署 缓存 vite", top_k=1000)
    assert len(all_hits) > 10
    assert big_store.search("部署 缓存 vite", top_k=3) == all_hits[:3]
    assert big_store.search("部署 缓存 vite") == all_hits[:4]  # top_k defaults to 4
    assert big_store.search("部署 缓存 vite", top_k=0) == []


# ---------------------------------------------------------------- kind labels, zero scores, ties


@pytest.fixture
def kinds_store(tmp_path):
    items = [
        {"id": "a00000000001", "kind": "preference", "text": "回复用中文", "ts": 1},
        {"id": "a00000000002", "kind": "fact", "text": "前端用 Vite 构建", "ts": 2},
        {"id": "a00000000003", "kind": "preference", "text": "Use pnpm, never npm", "ts": 3},
        {"id": "a00000000004", "kind": "lesson", "text": "部署脚本默认先 dry-run", "ts": 4},
        {"id": "a00000000005", "kind": "correction", "text": "不要直接改生产数据库", "ts": 5},
        {"id": "a00000000006", "kind": "preference", "text": "代码注释用英文", "ts": 6},
        {"id": "a00000000007", "kind": "fact", "text": "CI runs on Python 3.11", "ts": 7},
    ]
    write_store_file(tmp_path / "store", items)
    return MemoryStore(tmp_path / "store")


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("偏好", Kind.PREFERENCE),
        ("preference", Kind.PREFERENCE),
        ("纠正", Kind.CORRECTION),
        ("correction", Kind.CORRECTION),
        ("经验", Kind.LESSON),
        ("lesson", Kind.LESSON),
        ("事实", Kind.FACT),
        ("fact", Kind.FACT),
    ],
)
def test_kind_label_finds_every_entry_of_that_kind(kinds_store, query, kind):
    hits = kinds_store.search(query, top_k=100)
    expected = {e.id for e in kinds_store.entries() if e.kind is kind}
    assert {hit.entry.id for hit in hits} == expected
    assert len(expected) >= 1


def test_entries_scoring_zero_are_not_hits(kinds_store):
    hits = kinds_store.search("vite", top_k=100)
    assert [hit.entry.text for hit in hits] == ["前端用 Vite 构建"]
    assert all(hit.score > 0 for hit in hits)
    assert kinds_store.search("kubernetes", top_k=100) == []
    assert kinds_store.search("a", top_k=100) == []  # no tokens at all
    assert kinds_store.search("", top_k=100) == []


def test_ties_keep_store_order(tmp_path):
    # Same tokens in different orders score the same; ids and timestamps run against store order.
    items = [
        {"id": "ffffffffffff", "kind": "fact", "text": "alpha beta gamma", "ts": 30},
        {"id": "111111111111", "kind": "lesson", "text": "unrelated words here", "ts": 20},
        {"id": "aaaaaaaaaaaa", "kind": "fact", "text": "gamma beta alpha", "ts": 10},
        {"id": "000000000000", "kind": "fact", "text": "beta alpha gamma", "ts": 5},
    ]
    write_store_file(tmp_path / "s", items)
    hits = MemoryStore(tmp_path / "s").search("beta", top_k=10)
    assert [hit.entry.id for hit in hits] == ["ffffffffffff", "aaaaaaaaaaaa", "000000000000"]
    assert hits[0].score == hits[1].score == hits[2].score > 0


# ---------------------------------------------------------------- blocked entries


@pytest.fixture
def blocked_store(tmp_path):
    items = [
        {"id": "b00000000001", "kind": "fact", "text": "deploy deploy deploy", "ts": 1,
         "flags": ["blocked", "threat:override"]},
        {"id": "b00000000002", "kind": "fact", "text": "deploy with the script", "ts": 2},
        {"id": "b00000000003", "kind": "lesson", "text": "deploy only after review of the diff", "ts": 3},
        {"id": "b00000000004", "kind": "fact", "text": "deploy on fridays is fine for docs", "ts": 4},
        {"id": "b00000000005", "kind": "fact", "text": "tests run in ci", "ts": 5},
    ]
    write_store_file(tmp_path / "store", items)
    return MemoryStore(tmp_path / "store"), items


def expected_deploy_order(items):
    """Non-blocked entries holding "deploy", best first by bm25s over *all* documents."""
    docs = [spec_document(i["text"], Kind(i["kind"])) for i in items]
    expected = bm25s_scores(bm25s_engine(docs), tokenize("deploy"), len(docs))
    order = sorted((i for i in range(len(items)) if expected[i] > 0 and i != 0), key=lambda i: (-expected[i], i))
    return expected, [items[i]["id"] for i in order]


def test_blocked_entry_counts_in_n_and_df_but_is_never_a_hit(blocked_store):
    store, items = blocked_store
    expected, order = expected_deploy_order(items)
    assert expected[0] == expected.max()  # unflagged, the blocked entry would rank first
    assert len(order) == 3

    hits = store.search("deploy", top_k=100)
    assert [hit.entry.id for hit in hits] == order
    for hit in hits:
        position = int(hit.entry.id[-1]) - 1
        assert hit.score == pytest.approx(expected[position], abs=1e-9)


def test_blocked_entry_takes_no_top_k_slot(blocked_store):
    store, items = blocked_store
    _, order = expected_deploy_order(items)
    assert [hit.entry.id for hit in store.search("deploy", top_k=2)] == order[:2]
    assert [hit.entry.id for hit in store.search("deploy", top_k=1)] == order[:1]
    block = store.retrieve_block("deploy")
    assert "deploy deploy deploy" not in block
    assert "deploy with the script" in block


def test_blocked_entry_in_explain(blocked_store):
    store, _ = blocked_store
    explanation = store.explain("deploy", top_k=2)
    assert explanation.n == 5
    row = explanation.for_id("b00000000001")
    assert row.status == "blocked" and row.rank is None and row.score > 0
    assert [r.df for r in row.terms] == [4]  # the blocked entry is one of the four holding "deploy"


def test_ranks_in_explain_count_only_the_hits_that_can_be_injected(blocked_store):
    # The blocked entry scores highest, yet the best unblocked hit is rank 1 and is injected with
    # top_k=1: rank <= top_k is exactly "within top_k", as search and retrieve_block pick.
    store, items = blocked_store
    _, order = expected_deploy_order(items)
    explanation = store.explain("deploy", top_k=1)
    ranked = sorted((row for row in explanation.entries if row.rank is not None), key=lambda row: row.rank)
    assert [row.id for row in ranked] == order and [row.rank for row in ranked] == [1, 2, 3]
    assert [str(row.status) for row in ranked] == ["injected", "cut_top_k", "cut_top_k"]
    assert explanation.for_id("b00000000001").score > ranked[0].score
    assert ranked[0].text in explanation.block and explanation.block.count("\n- [") == 1
    assert [h.entry.id for h in store.search("deploy", top_k=1)] == [ranked[0].id]


def test_big_store_scores_equal_bm25s(tmp_path):
    from memtui_core.ranking.index import VECTOR_MIN_DOCS

    corpus = make_corpus(VECTOR_MIN_DOCS + 50, seed=99)
    write_store_file(tmp_path / "big", corpus_items(corpus))
    store = MemoryStore(tmp_path / "big", Limits.nanohermes())
    docs = corpus_docs(corpus)
    engine = bm25s_engine(docs)
    for query in make_queries(seed=3)[:25]:
        expected = bm25s_scores(engine, tokenize(query), len(docs))
        hits = store.search(query, top_k=len(docs))
        assert len(hits) == int((expected > 0).sum()), query
        positions = [int(hit.entry.id, 16) for hit in hits]
        np.testing.assert_allclose([h.score for h in hits], expected[positions], rtol=0, atol=1e-9)
        keys = [(-hit.score, position) for hit, position in zip(hits, positions)]
        assert keys == sorted(keys), query
        assert store.search(query, top_k=4) == hits[:4]


def test_gate_coverage_is_the_same_whether_the_index_is_vectorized(docs, queries):
    # A vectorized index judges hits from one array of held mass per query; the sums must be the
    # very ones the pure-Python judgement adds up, so the gate lets the same hits through.
    from memtui_core.ranking.gate import Gate

    plain, vector = Index(docs, vectorized=False), Index(docs, vectorized=True)
    assert vector.vectorized and not plain.vectorized
    for query in queries:
        terms = query_terms(tokenize(query))
        ranked = plain.ranked(tokenize(query))
        if not ranked:
            continue
        a = Gate(plain, terms, 0.5, 0.2, ranked[0][1])
        b = Gate(vector, terms, 0.5, 0.2, ranked[0][1])
        for doc_id in range(len(docs)):
            assert a.coverage(doc_id) == b.coverage(doc_id), (query, doc_id)


def test_a_gate_looking_further_is_still_the_first_query_and_stays_off_numpy():
    # A one-shot `memtui inject` answers its query in pure Python. When the gate asks `top` for more
    # hits of that same query, that is not a second query: numpy is not even looked for.
    from memtui_core.ranking.index import VECTOR_MIN_DOCS
    from memtui_core.ranking.pick import pick

    words = ["alpha", "beta", "gamma"]
    docs = [[words[i % 3], f"filler{i % 97}", "fact"] for i in range(VECTOR_MIN_DOCS + 300)]
    asked = []

    class Counting(Index):
        def top(self, tokens, k, excluded=()):
            asked.append(k)
            return super().top(tokens, k, excluded)

    index = Counting(docs)
    hits = pick(index, ["alpha", "beta", "gamma"], 4, (), frozenset(), min_coverage=0.5, relative_floor=0.2)
    assert len(asked) >= 2 and len(hits) == 4  # the gate looked further than its first ask
    assert index._vectorized is None  # whether numpy is there was never asked
    reference = Index(docs, vectorized=False)
    assert hits == pick(reference, ["alpha", "beta", "gamma"], 4, (), frozenset(), min_coverage=0.5,
                        relative_floor=0.2)
    pick(index, ["alpha", "filler3"], 4, (), frozenset(), min_coverage=0.5, relative_floor=0.2)  # a second query
    assert index._vectorized is not None
