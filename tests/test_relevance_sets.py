"""The relevance evaluation's hand-written sets (bench/relevance*.json) are well formed: every
expected id names a memory of its set, every memory has a kind and keywords, and each set holds
messages with and without a relevant memory (docs/ranking.md, "The evaluation")."""

from __future__ import annotations

import pytest

from bench import relevance
from memtui_core.kinds import Kind


@pytest.mark.parametrize("name", relevance.SETS)
def test_a_relevance_set_is_well_formed(name):
    memories, messages = relevance.load(name)
    ids = [m["id"] for m in memories]
    assert len(ids) == len(set(ids)) >= 20
    assert all(Kind(m["kind"]) and m["text"].strip() and isinstance(m["keywords"], list) for m in memories)
    relevant = [m for m in messages if m["expect"]]
    assert len(relevant) >= 40 and len(messages) - len(relevant) >= 20
    assert all(set(m["expect"]) <= set(ids) and isinstance(m["lexical"], bool) for m in relevant)
    assert len({m["text"] for m in messages}) == len(messages)  # no message twice


# ---------------------------------------------------------------- the common-word experiment
# bench/relevance_common.py replays a rule that was tried and not adopted (docs/ranking.md); its
# figures must stay reproducible, so its picker is checked here on a small store, with hand-made
# frequency grades in place of the wordfreq data (which the tests do not install).

from bench.relevance_common import CommonRule  # noqa: E402
from memtui_core import MemoryStore  # noqa: E402

EN = {"python": 5.0, "version": 5.2, "gil": 3.0, "project": 5.3, "runs": 5.0}
ZH = {"缓存": 5.0, "穿透": 4.0, "分钟": 5.0}
QUERIES = ["explain Python's GIL", "which python?", "mypy keeps failing", "什么是缓存穿透", "缓存是什么",
           "the project's python version", "Redis 过期时间", "nothing here at all"]


@pytest.fixture
def store(tmp_path):
    store = MemoryStore(tmp_path)
    for kind, text in [("fact", "The project's Python version is 3.11"), ("lesson", "mypy 报错先看 stubs 装没装"),
                       ("fact", "缓存用 Redis，过期时间 10 分钟"), ("preference", "回复一律用中文"),
                       ("fact", "部署脚本在 deploy.sh 里")]:
        store.remember(kind, text, source="test")
    return store


def _texts(store, ids):
    by_id = {e.id: e.text for e in store.entries()}
    return [by_id[i] for i in ids]


def test_with_the_rule_off_the_picker_is_search(store):
    pick = CommonRule(None, EN, ZH).picker()
    for query in QUERIES:
        assert pick(store, query) == [h.entry.id for h in store.search(query)], query


def test_one_shared_common_word_is_held_back_when_the_message_has_another_word(store):
    pick = CommonRule(4.5, EN, ZH).picker()
    assert _texts(store, [h.entry.id for h in store.search("explain Python's GIL")]) == [
        "The project's Python version is 3.11"]  # what the default profile injects today
    assert pick(store, "explain Python's GIL") == []
    # 穿透 is a word of the message; 存穿 (across 缓存 and 穿透) is not, and alone would not count
    assert pick(store, "什么是缓存穿透") == []


def test_a_rare_word_a_fully_covered_message_and_fragments_still_inject(store):
    pick = CommonRule(4.5, EN, ZH).picker()
    assert _texts(store, pick(store, "mypy keeps failing")) == ["mypy 报错先看 stubs 装没装"]  # mypy is rare
    assert _texts(store, pick(store, "which python?")) == ["The project's Python version is 3.11"]
    assert _texts(store, pick(store, "缓存是什么")) == ["缓存用 Redis，过期时间 10 分钟"]  # 存是 is no word
    assert _texts(store, pick(store, "the project's python version")) == ["The project's Python version is 3.11"]
    # a threshold above the word's grade: python is not common enough to be held back
    assert _texts(store, CommonRule(5.1, EN, ZH).picker()(store, "explain Python's GIL")) == [
        "The project's Python version is 3.11"]


# ---------------------------------------------------------------- an extra set file (--set-file)


def _tiny_set(path):
    import json

    path.write_text(json.dumps({
        "memories": [
            {"id": "zh", "kind": "preference", "text": "回复一律用中文", "keywords": ["language", "Chinese", "汉语"]},
            {"id": "py", "kind": "fact", "text": "The project's Python version is 3.11", "keywords": ["python"]},
        ],
        "relevant": [{"text": "用中文回答我", "expect": ["zh"], "lexical": True},
                     {"text": "which python version does the project use", "expect": ["py"]}],
        "none": ["What language is spoken in Brazil?", "How do I center a div in CSS?"],
    }, ensure_ascii=False), "utf-8")
    return path


def test_an_extra_set_file_is_evaluated_for_every_run(tmp_path, capsys):
    import json

    path = _tiny_set(tmp_path / "relevance_set_f.json")
    assert relevance.main(["--sets", "none", "--set-file", str(path), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert set(results) == {"default, keywords", "default, texts alone", "nanohermes", "semantic, keywords",
                            "semantic, texts alone", "default, keywords, no core", "default, texts alone, no core",
                            "semantic, keywords, no core"}
    for run in results.values():
        assert list(run) == ["relevance_set_f"] and run["relevance_set_f"]["relevant"] == 2
    assert results["default, keywords"]["relevance_set_f"]["hit@4"] == 1.0
    assert relevance.main(["--sets", "none", "--set-file", str(path)]) == 0
    assert f"set relevance_set_f: 2 memories; 2 relevant messages (1 lexical), 2 with no memory; from {path}" in (
        capsys.readouterr().out)


@pytest.mark.parametrize("content, message", [
    ("{not json", "cannot read the set file"),
    ('{"memories": []}', "must be an object with lists 'memories', 'relevant' and 'none'"),
])
def test_a_bad_set_file_is_a_one_line_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, "utf-8")
    with pytest.raises(SystemExit, match=message):
        relevance.main(["--sets", "none", "--set-file", str(path)])
    with pytest.raises(SystemExit, match="cannot read the set file"):
        relevance.main(["--set-file", str(tmp_path / "missing.json")])


def test_unknown_built_in_sets_are_refused(capsys):
    with pytest.raises(SystemExit):
        relevance.main(["--sets", "A,Q"])
    assert "unknown set(s) Q" in capsys.readouterr().err


def test_the_keyword_replay_with_part_matches_off_is_the_default_profile():
    from bench.relevance_keywords import Setting, measure_sets, pooled
    from memtui_core import Limits

    # the block without the pinned core (the replay ranks by search): the same figures, and its cost
    default = relevance.evaluate([("default, keywords", Limits(core_budget=0), True)], sets=("B",))[
        "default, keywords"]["B"]
    replay = measure_sets(Setting(), ("B",))["B"]
    cost = ("chars_per_turn", "hits_from_core")
    assert {key: value for key, value in replay.items() if key not in cost} == {
        key: value for key, value in default.items() if key not in cost}
    assert default["chars_per_turn"] > 0 and default["hits_from_core"] == 0
    assert pooled({"B": replay}, ("B",))["hit@4"] == default["hit@4"]
    assert Setting.parse("0.5,rarest,scaled,2") == Setting(0.5, "rarest", "scaled", 2)
    with pytest.raises(SystemExit):
        Setting.parse("0.5,sometimes,credit,1")


def test_why_missed_sorts_every_miss_by_the_expected_entrys_status(tmp_path, capsys):
    """--why-missed counts each miss once, under the expected entry's status, and no hit: the
    keyword 汉语 turns one miss of the texts-alone run into a hit."""
    import json

    path = tmp_path / "relevance_set_w.json"
    path.write_text(json.dumps({
        "memories": [
            {"id": "w1", "kind": "fact", "text": "Reply in Chinese to every message", "keywords": ["汉语"]},
            {"id": "w2", "kind": "fact", "text": "The cat is allergic to chicken", "keywords": ["猫"]},
        ],
        "relevant": [
            {"text": "Reply to my message in Chinese please", "expect": ["w1"], "lexical": True},
            {"text": "what should I feed my pet", "expect": ["w2"], "lexical": False},
            {"text": "请用汉语跟我交流", "expect": ["w1"], "lexical": False},
        ],
        "none": ["What is the capital of Australia?"],
    }, ensure_ascii=False), "utf-8")
    assert relevance.main(["--sets", "none", "--set-file", str(path), "--why-missed"]) == 0
    keywords, texts = capsys.readouterr().out.splitlines()[1:]
    assert keywords.startswith("default, keywords") and keywords.split()[3] == "1"
    assert keywords.endswith("no term shared 1")  # the pet message; 汉语 is found through its keyword
    assert texts.startswith("default, texts alone") and texts.split()[4] == "2"
    assert texts.endswith("no term shared 2")


def test_the_distill_keyword_lists_cover_their_sets_and_the_new_rule_is_the_distillers():
    """bench/relevance_distill_keywords.json: one list per memory of each set under each rule, and
    the shipped rule (and no other) is word for word the keyword instruction core/agents/distill.py gives
    the model, so the replay measures what distillation asks for."""
    import json

    from memtui_core.agents.distill import DISTILL_SYSTEM

    data = json.loads((relevance.HERE / "relevance_distill_keywords.json").read_text("utf-8"))
    assert data["shipped"] in data["rules"] and len(data["rules"]) >= 2
    for set_name, by_rule in data["sets"].items():
        memories, _ = relevance.load(set_name)
        for rule, keywords in by_rule.items():
            assert set(keywords) == {m["id"] for m in memories}, (set_name, rule)
            assert all(isinstance(k, str) and k.strip() for ks in keywords.values() for k in ks)
    prompt = " ".join(DISTILL_SYSTEM.split())
    for name, rule in data["rules"].items():
        assert (" ".join(rule.split()) in prompt) == (name == data["shipped"]), name


def test_the_ceiling_replay_counts_what_the_default_profile_injects(tmp_path):
    """bench/relevance_ceiling.py: its figures with every hit kept are the default profile's, and
    keywords appended to the text are a different store from the keyword field."""
    import json

    from bench import relevance_ceiling as ceiling
    from memtui_core import Limits

    path = tmp_path / "relevance_set_k.json"
    path.write_text(json.dumps({
        "memories": [
            {"id": "k1", "kind": "preference", "text": "Reply in Chinese to every message", "keywords": ["汉语", "reply language"]},
            {"id": "k2", "kind": "fact", "text": "The cat is allergic to chicken", "keywords": ["猫", "pet food"]},
            {"id": "k3", "kind": "lesson", "text": "Run the migrations before deploying the API", "keywords": ["schema"]},
        ],
        "relevant": [
            {"text": "Reply to my message in Chinese please", "expect": ["k1"], "lexical": True},
            {"text": "what food should I buy for my pet", "expect": ["k2"], "lexical": False},
            {"text": "请用汉语跟我交流", "expect": ["k1"], "lexical": False},
            {"text": "the schema changed, can I deploy?", "expect": ["k3"], "lexical": True},
        ],
        "none": ["what is the capital of Australia", "how do cats purr", "food trucks near the station"],
    }), encoding="utf-8")
    name = relevance.add_set_file(str(path))
    memories, messages = relevance.load(name)
    store, ids = relevance.build(tmp_path / "store", memories, True, Limits(core_budget=0))  # retrieval alone
    default = relevance.measure(store, ids, messages)
    rows = ceiling.hits_of(store, ids, messages)
    assert all(len(r["features"]) == len(ceiling.FEATURES) for r in rows if r["hit"] is not None)
    hits, relevant, recalls, none, others = ceiling.figures_of({name: rows}, lambda _name, _row: True)
    assert (hits / relevant, recalls / none, others / relevant) == (
        default["hit@4"], default["false_recall"], default["others_per_relevant_turn"])
    # keeping nothing injects nothing
    assert ceiling.figures_of({name: rows}, lambda _name, _row: False)[::2] == (0, 0, 0)
    # as text, "pet food" matches on "food" alone (the field needs most of its words): one false
    # recall more ("food trucks near the station"), beside "how do cats purr", which both make
    report = ceiling.naive((name,))
    field, text = (line for line in report.splitlines() if line.startswith(name))
    assert " 1/3 " in field and " 2/3 " in text
    relevance.EXTRA.pop(name)
