"""Distillation: the gate, the excerpt, the parser and the whole turn against a real store."""

from __future__ import annotations

import json
import pickle
import re
from types import SimpleNamespace

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui_core.agents.distill import (
    DISTILL_SYSTEM,
    DISTILL_USER_TEMPLATE,
    TRIGGER_WORDS,
    DistillResult,
    distill_memories,
    excerpt_from,
    omitted_line,
    parse_distill,
    worth_distilling,
)
from memtui_core.kinds import Kind
from memtui_core.limits import Limits
from memtui_core.memory import MemoryStore

OMITTED = re.compile(r"^\[… (\d+) messages omitted …\]$", re.M)


def user(text):
    return {"role": "user", "content": text}


def assistant(text, **extra):
    return {"role": "assistant", "content": text, **extra}


def tool(text):
    return {"role": "tool", "tool_call_id": "call_1", "content": text}


# ---------------------------------------------------------------- gate


def test_a_turn_with_tools_is_always_worth_distilling():
    assert worth_distilling("好", True)
    assert worth_distilling("", True)


@pytest.mark.parametrize("word", TRIGGER_WORDS)
def test_each_trigger_word_opens_the_gate_even_in_a_short_message(word):
    assert worth_distilling(f"  {word}  ", False)


def test_the_trigger_words_are_the_eight_of_the_spec():
    assert set(TRIGGER_WORDS) == {"不对", "错了", "不是", "不要", "别", "应该", "重新", "以后"}


def test_trigger_words_match_as_substrings_false_positives_accepted():
    assert worth_distilling("特别好", False)
    assert worth_distilling("是不是", False)


@pytest.mark.parametrize("text", ["继续", "好的", "收到", "ok", "", "   "])
def test_short_small_talk_is_not_worth_distilling(text):
    assert not worth_distilling(text, False)


def test_the_length_threshold_is_24_characters_of_trimmed_text():
    assert worth_distilling("这" * 24, False)
    assert not worth_distilling("这" * 23, False)
    assert not worth_distilling("   " + "x" * 23 + "\n\n", False)
    assert worth_distilling("x" * 24, False)


def test_a_missing_user_text_does_not_break_the_gate():
    assert not worth_distilling(None, False)
    assert worth_distilling(None, True)


# ---------------------------------------------------------------- excerpt: lines


def test_excerpt_writes_one_role_tagged_line_per_message():
    assert excerpt_from([user("  修一下构建  "), assistant("好的，已修复。")]) == (
        "[user] 修一下构建\n[assistant] 好的，已修复。\n"
    )


def test_excerpt_skips_system_and_developer_messages():
    messages = [
        {"role": "system", "content": "You are helpful."},
        {"role": "developer", "content": "Be terse."},
        user("hi there"),
    ]
    assert excerpt_from(messages) == "[user] hi there\n"


def test_excerpt_skips_an_assistant_message_that_only_calls_tools():
    calls = [{"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]
    messages = [
        user("list files"),
        assistant("", tool_calls=calls),
        assistant(None, tool_calls=calls),
        assistant("   ", tool_calls=calls),
        tool("a.py b.py"),
        assistant("Two files."),
    ]
    assert excerpt_from(messages) == (
        "[user] list files\n[tool] [tool result] a.py b.py\n[assistant] Two files.\n"
    )


def test_an_assistant_message_with_text_and_tool_calls_is_kept():
    messages = [assistant("Let me look.", tool_calls=[{"id": "c"}])]
    assert excerpt_from(messages) == "[assistant] Let me look.\n"


def test_tool_results_get_the_tool_result_prefix():
    assert excerpt_from([tool("  exit 0  ")]) == "[tool] [tool result] exit 0\n"


def test_an_empty_tool_result_is_skipped():
    assert excerpt_from([tool("   "), tool(None)]) == ""


def test_list_content_contributes_only_its_text_parts():
    content = [
        {"type": "text", "text": "what is in"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 5000}},
        {"type": "input_audio", "input_audio": {"data": "zzz"}},
        {"type": "text", "text": "this picture?"},
    ]
    assert excerpt_from([user(content)]) == "[user] what is in\nthis picture?\n"


def test_each_message_is_cut_to_1200_characters():
    out = excerpt_from([user("长" * 5000)], max_chars=100_000)
    assert out == "[user] " + "长" * 1200 + "\n"


def test_the_tool_result_prefix_counts_towards_the_per_message_cut():
    out = excerpt_from([tool("y" * 5000)], max_chars=100_000)
    body = out[len("[tool] ") : -1]
    assert len(body) == 1200
    assert body == "[tool result] " + "y" * (1200 - len("[tool result] "))


def test_the_per_message_cut_is_a_parameter():
    assert excerpt_from([user("abcdef")], message_chars=3) == "[user] abc\n"


def test_a_body_is_trimmed_before_it_is_cut():
    assert excerpt_from([user("   " + "x" * 10)], message_chars=5) == "[user] xxxxx\n"


# ---------------------------------------------------------------- excerpt: robustness


class Exploding:
    """A message object whose every attribute access fails."""

    def __getattr__(self, name):
        raise RuntimeError("boom")


def test_excerpt_skips_whatever_is_not_a_usable_message():
    messages = [
        None,
        42,
        "just a string",
        ["a", "list"],
        {"content": "no role"},
        {"role": None, "content": "role is None"},
        {"role": "", "content": "role is empty"},
        {"role": 7, "content": "role is a number"},
        {"role": "user"},
        {"role": "user", "content": None},
        {"role": "user", "content": 42},
        {"role": "user", "content": {"text": "a dict is not content"}},
        {"role": "user", "content": [None, 3, {"type": "text"}, {"type": "text", "text": 5}]},
        Exploding(),
        user("the only real one"),
    ]
    assert excerpt_from(messages) == "[user] the only real one\n"


def test_excerpt_reads_message_objects_and_bare_string_parts():
    messages = [
        SimpleNamespace(role="assistant", content="from an SDK object", tool_calls=None),
        SimpleNamespace(role="user", content=[SimpleNamespace(type="text", text="object part"), "plain part"]),
    ]
    assert excerpt_from(messages) == "[assistant] from an SDK object\n[user] object part\nplain part\n"


def test_excerpt_of_nothing_is_empty():
    assert excerpt_from([]) == ""
    assert excerpt_from(None) == ""


def test_excerpt_accepts_any_iterable_and_keeps_what_a_broken_one_gave():
    def broken():
        yield user("first")
        raise OSError("stream lost")

    assert excerpt_from(m for m in [user("a"), user("b")]) == "[user] a\n[user] b\n"
    assert excerpt_from(broken()) == "[user] first\n"


# ---------------------------------------------------------------- excerpt: budget


def _lines(out):
    return out.splitlines(keepends=True)


def test_everything_is_kept_when_it_fits_exactly():
    messages = [user("x" * 43)] * 2  # each line: "[user] " (7) + 43 + "\n" (1) = 51
    out = excerpt_from(messages, max_chars=102)
    assert len(out) == 102
    assert not OMITTED.search(out)


def test_one_character_over_the_budget_switches_to_head_and_tail():
    messages = [user("x" * 43)] * 2 + [user("y")]
    out = excerpt_from(messages, max_chars=110)  # 51 + 51 + 9 = 111 > 110
    assert OMITTED.search(out)


def test_a_long_turn_keeps_its_goal_and_its_conclusion():
    messages = [{"role": "system", "content": "sys"}, user("目标：把部署脚本改成先 dry-run")]
    for i in range(20):
        messages.append(assistant("", tool_calls=[{"id": str(i)}]))
        messages.append(tool(f"output {i} " + "." * 1500))
    messages.append(assistant("结论：部署脚本默认先 dry-run，确认后再真正执行。"))

    out = excerpt_from(messages)

    lines = _lines(out)
    assert lines[0] == "[user] 目标：把部署脚本改成先 dry-run\n"
    assert lines[-1] == "[assistant] 结论：部署脚本默认先 dry-run，确认后再真正执行。\n"
    omitted = [line for line in lines if OMITTED.match(line.rstrip("\n"))]
    assert len(omitted) == 1
    n = int(OMITTED.match(omitted[0].rstrip("\n")).group(1))
    message_lines = [line for line in lines if line not in omitted]
    assert len(message_lines) + n == 22  # the user line, 20 tool results, the conclusion
    assert len(out) - len(omitted[0]) <= 6000


def test_the_omitted_line_names_how_many_message_lines_were_left_out():
    # 10 lines of 20 characters (newline included); budget 100 -> 50 + 50 -> 2 + 2 lines kept
    messages = [user(f"{i:02d}" + "z" * 10) for i in range(10)]
    out = excerpt_from(messages, max_chars=100)
    assert _lines(out) == [
        "[user] 00zzzzzzzzzz\n",
        "[user] 01zzzzzzzzzz\n",
        omitted_line(6),
        "[user] 08zzzzzzzzzz\n",
        "[user] 09zzzzzzzzzz\n",
    ]
    assert omitted_line(6) == "[… 6 messages omitted …]\n"


def test_the_half_budgets_count_each_line_with_its_newline():
    # each line is 17 characters with its newline, 16 without: three lines would fit a half
    # of 50 without the newlines (48) but not with them (51), so only two are kept per half
    messages = [user(f"{i:01d}" + "q" * 8) for i in range(9)]
    assert len(excerpt_from([messages[0]])) == 17
    out = excerpt_from(messages, max_chars=100)
    kept = [line for line in _lines(out) if line.startswith("[user]")]
    assert len(kept) == 4
    assert omitted_line(5) in out


def test_the_omitted_line_counts_against_neither_half():
    # 25-character lines fill each half of 100 exactly, so the excerpt is 100 + the omitted line
    messages = [user(f"{i}" + "w" * 16) for i in range(6)]
    assert len(excerpt_from([messages[0]])) == 25
    out = excerpt_from(messages, max_chars=100)
    assert len(out) == 100 + len(omitted_line(2))


def test_the_odd_character_of_the_budget_goes_to_the_tail():
    messages = [user("a" * 12), user("b" * 12), user("c" * 12), user("d" * 13)]  # 20, 20, 20, 21
    out = excerpt_from(messages, max_chars=41)  # head 20, tail 21
    assert _lines(out) == ["[user] " + "a" * 12 + "\n", omitted_line(2), "[user] " + "d" * 13 + "\n"]


def test_a_last_line_longer_than_its_half_is_cut_rather_than_lost():
    messages = [user("goal"), user("m" * 500), user("conclusion " + "!" * 200)]
    out = excerpt_from(messages, max_chars=120)
    lines = _lines(out)
    assert lines[0] == "[user] goal\n"
    assert lines[-1].startswith("[user] conclusion ")
    assert lines[-1].endswith("\n")
    assert len(lines[-1]) == 60
    assert omitted_line(1) in out


# ---------------------------------------------------------------- excerpt: properties

_texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
_messages = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {
                "role": st.sampled_from(["user", "assistant", "tool", "system", "developer", ""]),
                "content": st.one_of(
                    st.none(),
                    _texts,
                    st.lists(
                        st.one_of(
                            st.fixed_dictionaries({"type": st.just("text"), "text": _texts}),
                            st.fixed_dictionaries({"type": st.just("image_url")}),
                            _texts,
                            st.integers(),
                        ),
                        max_size=3,
                    ),
                    st.integers(),
                ),
            }
        ),
        st.none(),
        st.integers(),
        _texts,
    ),
    max_size=30,
)


@settings(database=None, max_examples=300, deadline=None)
@given(messages=_messages, max_chars=st.integers(min_value=0, max_value=3000), per=st.integers(0, 400))
def test_excerpt_stays_within_budget_plus_the_omitted_line(messages, max_chars, per):
    out = excerpt_from(messages, max_chars=max_chars, message_chars=per)
    found = OMITTED.findall(out)
    extra = len(omitted_line(int(found[-1]))) if found else 0
    assert len(out) <= max_chars + extra


@settings(database=None, max_examples=200, deadline=None)
@given(messages=_messages)
def test_excerpt_always_keeps_the_end_of_the_turn(messages):
    full = excerpt_from(messages, max_chars=10**9)
    out = excerpt_from(messages)
    if len(full) <= 6000:
        assert out == full
    else:
        assert out.endswith(_lines(full)[-1])
        assert out.startswith(_lines(full)[0])


# ---------------------------------------------------------------- parser


def test_parse_a_bare_array():
    assert parse_distill('[{"kind":"lesson","text":"构建前先清缓存"}]') == [(Kind.LESSON, "构建前先清缓存")]


def test_parse_fenced_json():
    reply = '```json\n[\n  {"kind": "preference", "text": "回复用中文"}\n]\n```'
    assert parse_distill(reply) == [(Kind.PREFERENCE, "回复用中文")]


def test_parse_prose_before_and_after_the_array():
    reply = '好的，这是提炼结果：\n[{"kind":"correction","text":"不要用 sudo pip"}]\n希望有帮助。'
    assert parse_distill(reply) == [(Kind.CORRECTION, "不要用 sudo pip")]


def test_parse_an_object_wrapping_memories():
    reply = '{"memories": [{"kind": "fact", "text": "The API lives in api/"}]}'
    assert parse_distill(reply) == [(Kind.FACT, "The API lives in api/")]


def test_parse_an_object_wrapping_entries():
    reply = 'Result: {"entries": [{"kind": "lesson", "text": "Pin numpy below 2"}]}'
    assert parse_distill(reply) == [(Kind.LESSON, "Pin numpy below 2")]


def test_memories_wins_over_entries_and_a_non_list_memories_falls_back():
    both = {"memories": [{"kind": "fact", "text": "m"}], "entries": [{"kind": "fact", "text": "e"}]}
    assert parse_distill(orjson.dumps(both).decode()) == [(Kind.FACT, "m")]
    odd = {"memories": "none", "entries": [{"kind": "fact", "text": "e"}]}
    assert parse_distill(orjson.dumps(odd).decode()) == [(Kind.FACT, "e")]


def test_an_object_without_memories_or_entries_gives_nothing():
    assert parse_distill('{"foo": "bar"}') == []
    assert parse_distill('{"memories": {"kind": "fact", "text": "not a list"}}') == []


def test_unknown_or_missing_kind_becomes_fact_and_aliases_are_understood():
    items = [
        {"kind": "weird", "text": "a"},
        {"text": "b"},
        {"kind": None, "text": "c"},
        {"kind": 3, "text": "d"},
        {"kind": " Pref ", "text": "e"},
        {"kind": "lesson_learned", "text": "f"},
        {"kind": "feedback", "text": "g"},
    ]
    assert parse_distill(orjson.dumps(items).decode()) == [
        (Kind.FACT, "a"),
        (Kind.FACT, "b"),
        (Kind.FACT, "c"),
        (Kind.FACT, "d"),
        (Kind.PREFERENCE, "e"),
        (Kind.LESSON, "f"),
        (Kind.CORRECTION, "g"),
    ]


def test_items_without_usable_text_and_non_objects_are_skipped():
    items = [
        {"kind": "fact"},
        {"kind": "fact", "text": ""},
        {"kind": "fact", "text": "   "},
        {"kind": "fact", "text": 42},
        {"kind": "fact", "text": ["a"]},
        "a bare string",
        17,
        None,
        [{"kind": "fact", "text": "nested"}],
        {"kind": "fact", "text": "  kept, trimmed  "},
    ]
    assert parse_distill(orjson.dumps(items).decode()) == [(Kind.FACT, "kept, trimmed")]


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "I could not find anything durable.",
        "[{\"kind\": \"fact\", \"text\": ",
        "{not json}",
        "[1, 2, 3]",
        "42",
        '"just a string"',
        "null",
        "[" * 100_000 + "]" * 100_000,
        "]garbage[",
    ],
)
def test_garbage_gives_an_empty_list(reply):
    assert parse_distill(reply) == []


def test_an_empty_array_gives_an_empty_list():
    assert parse_distill("[]") == []


def test_an_unparsable_bracket_span_falls_back_to_the_brace_span():
    reply = 'Here [are] the results: {"memories": [{"kind": "preference", "text": "Use uv"}]}'
    assert parse_distill(reply) == [(Kind.PREFERENCE, "Use uv")]


@pytest.mark.parametrize("value", [None, 42, 3.5, ["[]"], {"memories": []}, object()])
def test_parse_never_raises_on_non_text(value):
    assert parse_distill(value) == []


def test_a_number_beyond_64_bits_does_not_spoil_the_reply():
    reply = '[{"kind": "fact", "text": "big", "n": 18446744073709551616}]'
    assert parse_distill(reply) == [(Kind.FACT, "big")]


def test_parse_accepts_utf8_bytes():
    assert parse_distill('[{"kind":"fact","text":"字节"}]'.encode()) == [(Kind.FACT, "字节")]


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(database=None, max_examples=500, deadline=None)
@given(text=st.text())
def test_parse_never_raises_on_arbitrary_text(text):
    result = parse_distill(text)
    assert isinstance(result, list)
    for kind, body in result:
        assert isinstance(kind, Kind)
        assert isinstance(body, str) and body.strip() == body and body


@settings(database=None, max_examples=300, deadline=None)
@given(value=_json_values, prefix=st.text(max_size=20), suffix=st.text(max_size=20))
def test_parse_never_raises_on_arbitrary_json_in_prose(value, prefix, suffix):
    result = parse_distill(prefix + json.dumps(value, ensure_ascii=False) + suffix)
    assert all(isinstance(kind, Kind) and body for kind, body in result)


# ---------------------------------------------------------------- the prompt


def test_the_system_prompt_asks_for_what_the_parser_reads():
    prompt = DISTILL_SYSTEM.lower()
    for needle in ("json array", "preference", "correction", "lesson", "fact", "200 characters", "[]"):
        assert needle in prompt
    assert "secret" in prompt
    assert "language of the conversation" in prompt
    # docs/agents.md: one self-contained sentence each, durable across future unrelated sessions,
    # near-duplicates merged
    assert "self-contained sentence" in prompt
    assert "future, unrelated sessions" in prompt
    assert "merge near-duplicates" in prompt


def test_the_user_template_holds_the_excerpt_verbatim():
    excerpt = "[user] use {braces} and %s safely\n"
    assert excerpt in DISTILL_USER_TEMPLATE.format(excerpt=excerpt)


# ---------------------------------------------------------------- the whole turn


class FakeLLM:
    def __init__(self, reply="[]", error=None):
        self.reply = reply
        self.error = error
        self.calls = []

    def __call__(self, system, user_prompt):
        self.calls.append((system, user_prompt))
        if self.error is not None:
            raise self.error
        return self.reply


TURN = [
    {"role": "system", "content": "You are a coding assistant."},
    user("部署脚本不对，应该先 dry-run 再执行"),
    assistant("好的，我改成默认先 dry-run，确认后再真正执行。"),
]
REPLY = orjson.dumps(
    [
        {"kind": "correction", "text": "部署脚本默认先 dry-run，确认后再真正执行"},
        {"kind": "preference", "text": "The user wants answers in Chinese"},
    ]
).decode()


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path)


def test_distill_writes_each_proposed_memory_with_source_auto(store):
    llm = FakeLLM(REPLY)

    result = distill_memories(store, TURN, "部署脚本不对，应该先 dry-run 再执行", False, llm)

    assert result.added == 2
    assert (result.added, result.proposed, result.refreshed, result.skipped, result.errors) == (2, 2, 0, None, [])
    entries = store.entries()
    assert [(e.kind, e.text, e.source) for e in entries] == [
        (Kind.CORRECTION, "部署脚本默认先 dry-run，确认后再真正执行", "auto"),
        (Kind.PREFERENCE, "The user wants answers in Chinese", "auto"),
    ]


def test_distill_calls_the_model_once_with_our_prompt_and_the_excerpt(store):
    llm = FakeLLM(REPLY)
    distill_memories(store, TURN, "部署脚本不对", False, llm)

    assert len(llm.calls) == 1
    system, prompt = llm.calls[0]
    assert system == DISTILL_SYSTEM
    assert prompt == DISTILL_USER_TEMPLATE.format(excerpt=excerpt_from(TURN))
    assert "[user] 部署脚本不对，应该先 dry-run 再执行" in prompt
    assert "You are a coding assistant." not in prompt


def test_distilling_the_same_memories_again_refreshes_instead_of_adding(store):
    distill_memories(store, TURN, "不对", False, FakeLLM(REPLY))
    again = distill_memories(store, TURN, "不对", False, FakeLLM(REPLY))
    assert (again.added, again.refreshed, again.added) == (0, 2, 0)
    assert len(store.entries()) == 2


def test_distill_uses_the_store_excerpt_limits(tmp_path):
    store = MemoryStore(tmp_path, limits=Limits(excerpt_chars=200, excerpt_message_chars=50))
    turn = [user("goal " + "g" * 300)] + [tool("t" * 300) for _ in range(10)] + [assistant("the end")]
    llm = FakeLLM("[]")
    distill_memories(store, turn, "goal", True, llm)
    expected = excerpt_from(turn, max_chars=200, message_chars=50)
    assert llm.calls[0][1] == DISTILL_USER_TEMPLATE.format(excerpt=expected)
    assert "[assistant] the end" in expected


def test_an_incomplete_turn_is_not_distilled(store):
    llm = FakeLLM(REPLY)
    result = distill_memories(store, TURN, "部署脚本不对", True, llm, completed=False)
    assert llm.calls == []
    assert (result.added, result.skipped) == (0, "incomplete turn")
    assert store.entries() == []


def test_a_turn_the_gate_rejects_is_not_distilled(store):
    llm = FakeLLM(REPLY)
    result = distill_memories(store, [user("好的"), assistant("嗯")], "好的", False, llm)
    assert llm.calls == []
    assert (result.added, result.skipped) == (0, "nothing worth distilling")
    assert store.entries() == []


def test_a_turn_with_nothing_to_excerpt_does_not_call_the_model(store):
    llm = FakeLLM(REPLY)
    result = distill_memories(store, [{"role": "system", "content": "x"}], "帮我看看", True, llm)
    assert llm.calls == []
    assert result.skipped == "empty excerpt"


def test_a_failing_model_is_reported_not_raised(store):
    llm = FakeLLM(error=TimeoutError("read timed out\nafter 30s"))
    result = distill_memories(store, TURN, "不对", False, llm)
    assert result.added == 0
    assert result.skipped is None
    assert result.errors == ["llm failed: TimeoutError: read timed out"]
    assert store.entries() == []


def test_garbage_from_the_model_is_reported_not_raised(store):
    result = distill_memories(store, TURN, "不对", False, FakeLLM("Sorry, I can't help with that."))
    assert result.added == 0
    assert len(result.errors) == 1 and "not JSON" in result.errors[0]
    assert store.entries() == []


@pytest.mark.parametrize("reply", [None, 42, {"memories": []}])
def test_a_model_returning_no_text_is_reported(store, reply):
    result = distill_memories(store, TURN, "不对", False, FakeLLM(reply))
    assert result.added == 0 and len(result.errors) == 1


def test_an_empty_array_is_a_clean_no_op(store):
    result = distill_memories(store, TURN, "不对", False, FakeLLM("[]"))
    assert (result.added, result.proposed, result.errors, result.skipped) == (0, 0, [], None)


def test_unknown_kinds_from_the_model_are_stored_as_facts(store):
    reply = '[{"kind": "insight", "text": "CI runs on Python 3.11 only"}]'
    distill_memories(store, TURN, "不对", False, FakeLLM(reply))
    assert [(e.kind, e.text) for e in store.entries()] == [(Kind.FACT, "CI runs on Python 3.11 only")]


class FlakyStore:
    """A real store whose writes fail for one text, as a full disk would."""

    def __init__(self, store, failing_text):
        self.store = store
        self.limits = store.limits
        self.failing_text = failing_text

    def remember(self, kind, text, source="tool"):
        if text == self.failing_text:
            raise OSError(28, "No space left on device")
        return self.store.remember(kind, text, source=source)


def test_one_failing_write_does_not_stop_the_others(store):
    reply = orjson.dumps(
        [
            {"kind": "fact", "text": "first fact about the repo layout"},
            {"kind": "lesson", "text": "this one hits a full disk"},
            {"kind": "preference", "text": "third, a preference for short answers"},
        ]
    ).decode()
    result = distill_memories(FlakyStore(store, "this one hits a full disk"), TURN, "不对", False, FakeLLM(reply))
    assert (result.added, result.proposed) == (2, 3)
    assert len(result.errors) == 1
    assert result.errors[0].startswith("remember lesson failed: OSError")
    assert [e.text for e in store.entries()] == [
        "first fact about the repo layout",
        "third, a preference for short answers",
    ]


def test_a_store_that_cannot_even_be_read_is_reported(tmp_path):
    class Broken:
        @property
        def limits(self):
            raise PermissionError("denied")

    result = distill_memories(Broken(), TURN, "不对", False, FakeLLM(REPLY))
    assert result.added == 0 and result.errors


def test_distill_result_is_a_plain_value():
    result = DistillResult(added=3, proposed=4, refreshed=1)
    assert result.added == 3 and not isinstance(result, int)
    assert result == DistillResult(added=3, proposed=4, refreshed=1, errors=[])
    assert result != DistillResult(added=3, proposed=4, refreshed=1, errors=["llm failed: X"])
    assert result != 3  # two different results never both equal a number
    assert "added=3" in repr(result)
    assert pickle.loads(pickle.dumps(result)) == result


def test_distill_reports_what_it_added_refreshed_and_why_it_failed(store):
    added = distill_memories(store, TURN, "不对", False, FakeLLM(REPLY))
    assert (added.added, added.refreshed, added.errors, added.dropped) == (2, 0, [], [])
    again = distill_memories(store, TURN, "不对", False, FakeLLM(REPLY))  # both are refreshes now
    assert (again.added, again.refreshed) == (0, 2)
    failed = distill_memories(store, TURN, "不对", False, FakeLLM(error=RuntimeError("down")))
    assert failed.added == 0 and failed.errors == ["llm failed: RuntimeError: down"]
