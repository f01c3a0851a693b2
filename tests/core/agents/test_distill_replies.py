"""Model replies as they really come back: each bad shape is parsed, and nothing is lost silently."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memtui_core.agents.distill import distill_memories, parse_distill, parse_reply
from memtui_core.kinds import Kind
from memtui_core.memory import MemoryStore

TURN = [{"role": "user", "content": "部署脚本不对，应该先 dry-run 再执行"},
        {"role": "assistant", "content": "好的，以后先 dry-run。"}]
TWO = [(Kind.CORRECTION, "部署脚本默认先 dry-run，确认后再真正执行"), (Kind.PREFERENCE, "The user wants short answers")]
ARRAY = json.dumps([{"kind": k.value, "text": t} for k, t in TWO], ensure_ascii=False, indent=2)


def distil(tmp_path, reply):
    store = MemoryStore(tmp_path)
    return store, distill_memories(store, TURN, "不对", False, lambda system, user: reply)


def test_think_block_with_brackets_then_the_array(tmp_path):
    reply = "<think>The user said [x] and maybe [1, 2]; the array could be [{\"kind\": \"fact\"}]</think>\n" + ARRAY
    assert parse_distill(reply) == TWO
    store, result = distil(tmp_path, reply)
    assert (result.added, result.dropped, result.errors) == (2, [], [])


def test_fenced_json_followed_by_prose_with_a_bracketed_number(tmp_path):
    reply = f"Here are the memories:\n```json\n{ARRAY}\n```\nI kept two items [1] as asked; see note [2]."
    assert parse_distill(reply) == TWO
    assert distil(tmp_path, reply)[1].added == 2


def test_trailing_commas(tmp_path):
    reply = ('[{"kind": "correction", "text": "部署脚本默认先 dry-run，确认后再真正执行",},\n'
             ' {"kind": "preference", "text": "The user wants short answers",},\n]')
    assert parse_distill(reply) == TWO
    # a comma inside a text is not touched
    assert parse_distill('[{"kind": "fact", "text": "a ,] b ,} c",},]') == [(Kind.FACT, "a ,] b ,} c")]


def test_a_reply_cut_off_mid_array_keeps_the_complete_objects(tmp_path):
    reply = ARRAY.replace("]", "") .rstrip() + ',\n  {"kind": "lesson", "text": "半句话被截'
    assert parse_distill(reply) == TWO
    store, result = distil(tmp_path, reply)
    assert result.added == 2 and result.errors == []
    assert len(result.dropped) == 1 and "cut off" in result.dropped[0].reason and result.dropped[0].index == 3


def test_a_reply_cut_off_before_the_first_object_is_reported(tmp_path):
    store, result = distil(tmp_path, '[{"kind": "fact", "text": "never fini')
    assert result.added == 0 and store.entries() == []
    assert result.errors and result.dropped and "cut off" in result.dropped[0].reason


@pytest.mark.parametrize(("kind", "expected"), [
    ("偏好", Kind.PREFERENCE), ("preferences", Kind.PREFERENCE), ("纠正", Kind.CORRECTION),
    ("corrections", Kind.CORRECTION), ("经验", Kind.LESSON), ("lessons", Kind.LESSON), ("事实", Kind.FACT),
    ("facts", Kind.FACT), ("[偏好]", Kind.PREFERENCE), ("Lessons-Learned", Kind.LESSON), ("教训", Kind.LESSON),
])
def test_labels_and_plurals_are_kinds(kind, expected):
    assert parse_distill(json.dumps([{"kind": kind, "text": "x y z"}], ensure_ascii=False)) == [(expected, "x y z")]


def test_every_dropped_item_is_reported_with_its_reason(tmp_path):
    reply = json.dumps([
        {"kind": "fact", "text": "kept one"},
        {"kind": "fact"},
        {"kind": "fact", "text": "   "},
        {"kind": "fact", "text": 42},
        "a bare string",
        {"kind": "opinion", "text": "kept as a fact"},
    ])
    store, result = distil(tmp_path, reply)
    assert result.added == 2 and result.proposed == 2
    assert [(d.index, d.reason) for d in result.dropped] == [
        (2, "no text"), (3, "empty text"), (4, "text is not a string"), (5, "not an object")]
    assert result.dropped[3].raw == '"a bare string"'
    assert result.notes == ['item 2: kind "opinion" is not one of preference, correction, lesson, fact, stored as fact']
    assert {e.text for e in store.entries()} == {"kept one", "kept as a fact"}


def test_a_cut_text_is_reported_in_the_result(tmp_path):
    store, result = distil(tmp_path, json.dumps([{"kind": "fact", "text": "长" * 450}]))
    assert result.added == 1 and result.truncated == [store.entries()[0].id]


def test_alternative_text_keys_and_wrappers(tmp_path):
    assert parse_distill('{"items": [{"type": "preference", "content": "Use uv"}]}') == [(Kind.PREFERENCE, "Use uv")]


def test_no_json_at_all_is_an_error_not_a_silent_nothing(tmp_path):
    store, result = distil(tmp_path, "I did not find anything worth keeping.")
    assert result.added == 0 and result.errors == ["llm output is not JSON: 'I did not find anything worth keeping.'"]
    store, result = distil(tmp_path, "Nothing durable here: []")
    assert result.errors == [] and result.proposed == 0  # an empty array is a clean answer


def test_garbage_full_of_brackets_is_fast():
    started = time.perf_counter()
    for reply in ("[{" * 50_000, '{"' * 50_000, "[" * 100_000 + "]" * 100_000, '[{"a":' * 20_000):
        assert parse_distill(reply) == []
    assert time.perf_counter() - started < 5


# ---------------------------------------------------------------- properties

NOISE = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
ITEMS = st.lists(st.fixed_dictionaries({
    "kind": st.sampled_from(["preference", "correction", "lesson", "fact", "偏好", "facts"]),
    "text": st.text(min_size=1, max_size=40).filter(str.strip),
}), min_size=1, max_size=5)


@given(st.text())
@settings(max_examples=300)
def test_the_parser_never_raises_on_any_text(text):
    parsed = parse_reply(text)
    assert all(item.text for item in parsed.items)


@given(ITEMS, NOISE.filter(lambda s: not parse_reply(s).items and "<think" not in s.lower()), NOISE,
       st.booleans(), st.booleans())
@settings(max_examples=300)
@example([{"kind": "fact", "text": "a ,] b"}], '[{ "oops', "", False, False)
@example([{"kind": "fact", "text": "a ,] b"}], 'say "hi', "[1]", True, True)
@example([{"kind": "lesson", "text": "x"}], '{"a": 1} [] [1] {"', "[{", False, True)
def test_a_valid_array_in_noise_is_recovered(items, before, after, fenced, think):
    body = json.dumps(items, ensure_ascii=False, indent=1 if fenced else None)
    if fenced:
        body = f"```json\n{body}\n```"
    prefix = "<think>maybe [x] or [{\"kind\": 1}]</think>" if think else ""
    reply = prefix + before + "\n" + body + "\n" + after
    assert parse_distill(reply) == [(Kind.parse(i["kind"]), i["text"].strip()) for i in items]
