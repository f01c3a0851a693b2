"""Property tests: dedupe against a reference of docs/format.md#dedupe, the file parser on arbitrary input,
and the fence on arbitrary entry text."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui_core.ranking.inject import BLOCK_END, BLOCK_START, render_lines
from memtui_core.kinds import Kind
from memtui_core.limits import DEFAULT_LIMITS
from memtui_core.store.records import Corrupt, Record, _check, parse_document
from memtui_core.memory import MemoryStore, normalize

PUNCTUATION = "，。！？；：、,.!?;:()（）「」\"'“”【】…—-·*#`>~"
ALPHABET = st.sampled_from(list("abcXYZ019 前端构建部署好あア가é_\n\t") + list(PUNCTUATION))
texts = st.text(ALPHABET, min_size=1, max_size=24)
relaxed = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def reference_normalize(text: str) -> str:
    return "".join(ch for ch in text.lower() if not ch.isspace() and ch not in PUNCTUATION)


def reference_match(existing: list[str], new: str) -> int | None:
    """Index of the first existing text the new one dedupes against (docs/format.md#dedupe)."""
    key = reference_normalize(new)
    for index, text in enumerate(existing):
        old = reference_normalize(text)
        if old == key:
            return index
        if len(key.encode()) >= 12 and key in old:
            return index
        if len(old.encode()) >= 12 and old in key:
            return index
    return None


@relaxed
@given(texts)
def test_normalize_matches_the_spec(text):
    assert normalize(text) == reference_normalize(text)


NEVER_WRITTEN = "/nonexistent/memtui-property-tests"


@relaxed
@given(st.lists(texts, min_size=1, max_size=6), texts)
def test_dedupe_picks_the_first_match_in_store_order(existing, new):
    records = [Record(f"{i:012x}", Kind.FACT, text) for i, text in enumerate(existing)]
    store = MemoryStore(NEVER_WRITTEN, limits=DEFAULT_LIMITS)  # only _find_duplicate is used: nothing is read or written
    found = store._find_duplicate(records, normalize(new))
    expected = reference_match(existing, new)
    assert (None if found is None else int(found.id, 16)) == expected


@relaxed
@given(texts, st.sampled_from(["", " ", "。", "!", "  \n"]), st.booleans())
def test_case_whitespace_and_punctuation_never_make_a_new_entry(text, noise, upper):
    variant = (text.upper() if upper else text) + noise
    if reference_normalize(text) and reference_normalize(variant) == reference_normalize(text):
        assert reference_match([text], variant) == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
entry_like = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(["0123456789ab", "abc", "", "FFFFFFFFFFFF"]) | json_values,
        "kind": st.sampled_from(["fact", "pref", "lesson-learned", "bogus", ""]) | json_values,
        "text": texts | json_values,
        "source": st.sampled_from(["auto", "tool", ""]) | json_values,
        "ts": st.integers(0, 2**40) | json_values,
        "flags": st.lists(st.text(max_size=8), max_size=3) | json_values,
        "extra": json_values,
    },
)


@relaxed
@given(st.binary(max_size=200))
def test_arbitrary_bytes_parse_or_raise_corrupt(data):
    try:
        parse_document(data)
    except Corrupt as error:
        assert "\n" not in str(error)


@relaxed
@given(st.lists(entry_like | json_values, max_size=8), st.dictionaries(st.sampled_from(["version", "meta"]), json_values))
def test_any_entries_list_loads_and_survives_a_write_unchanged(entries, top):
    document = {"entries": entries, **top}
    doc = parse_document(json.dumps(document, ensure_ascii=False).encode())  # any integer, as JSON allows
    assert len(doc.items) == len(entries)  # nothing dropped: valid or kept verbatim
    again = parse_document(doc.to_bytes())
    assert [r.id for r in again.records] == [r.id for r in doc.records]
    assert [r.to_json() for r in again.records] == [r.to_json() for r in doc.records]
    assert [item.raw for _, item in again.invalid] == [item.raw for _, item in doc.invalid] == [
        raw for raw in entries if _check(raw)[0] is None]
    assert {k: v for k, v in json.loads(doc.to_bytes()).items() if k != "entries"} == top


@relaxed
@given(st.lists(st.text(min_size=1, max_size=60), min_size=1, max_size=6), st.integers(0, 300))
def test_whatever_the_entries_say_the_block_has_one_fence_and_one_line_each(bodies, budget):
    records = [Record(f"{i:012x}", Kind.LESSON, body) for i, body in enumerate(bodies)]
    rendered = render_lines(records, budget)
    if not rendered.fitted:
        assert rendered.block == ""
        return
    block = rendered.block
    assert block.startswith(BLOCK_START + "\n") and block.endswith("\n\n" + BLOCK_END)
    assert block.count(BLOCK_START) == 1 and block.count(BLOCK_END) == 1
    body = block[len(BLOCK_START) + 1 : -len(BLOCK_END) - 2]
    lines = body.splitlines()
    assert sum(line.startswith("- [") for line in lines) == rendered.fitted
    assert len(lines) == 2 + rendered.fitted  # header, blank line, one line per entry
    assert rendered.used_chars <= budget
