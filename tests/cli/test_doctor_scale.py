"""doctor's near-duplicate search stays linear: each entry is compared with a bounded number of
candidates, and equal dedupe keys are found however far apart they are."""

from __future__ import annotations

from types import SimpleNamespace

from memtui.doctor import MAX_CANDIDATES, MAX_DUPLICATES, near_duplicates


def _entry(i: int, text: str):
    return SimpleNamespace(id=f"{i:012x}", text=text, ts=i)


def test_template_notes_cost_a_bounded_number_of_comparisons_and_exact_pairs_still_win(monkeypatch):
    topics = ["deploy pipeline", "build cache", "release notes", "database migration", "code review"]
    def word(i: int) -> str:
        return "k" + "".join("abcdefghij"[int(d)] for d in str(i))

    entries = [_entry(i, f"note {word(i)} about the {topics[i % 5]} for service {word(i % 50)}") for i in range(3000)]
    entries.append(_entry(3000, "Note kbg about the build cache, for service kbg!"))  # entry 16, reworded
    compared = 0
    real_and = frozenset.__and__

    class Counting(frozenset):
        def __and__(self, other):
            nonlocal compared
            compared += 1
            return real_and(self, other)

    import memtui.doctor as doctor

    monkeypatch.setattr(doctor, "frozenset", Counting, raising=False)
    pairs = near_duplicates(entries)
    assert compared <= len(entries) * MAX_CANDIDATES
    assert len(pairs) == MAX_DUPLICATES
    assert (pairs[0].similarity, {pairs[0].keep, pairs[0].remove}) == (1.0, {f"{16:012x}", f"{3000:012x}"})
