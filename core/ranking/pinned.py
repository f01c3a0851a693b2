"""The pinned core: the entries in every block, whatever the message (docs/injection.md#the-pinned-core).

Two sources, in this order, within `Limits.core_budget` characters of lines:

1. the entries pinned by hand (`"pinned": true`), in the store's core order (`core_order`, then
   file order for a pin the list does not name): one that does not fit is left out and the next
   one tried, since each was asked for by name;
2. the policy: entries of `Limits.core_kinds` (preferences and corrections by default), newest
   first, less those kept out by hand (`"pinned": false`), until the first that does not fit.

A blocked entry is never in the core. What is left out is reported (`Core.left_out`, health's
`core-over-budget` warning, `memtui core`, the app's status bar), never dropped silently.

Records are duck-typed (id, kind, ts, text, `pin`), and reached by position, so a per-turn query
over an unparsed file (store/lean.py) parses only the entries the core walks through.
"""

from __future__ import annotations

from heapq import merge

from .inject import clean_text, core_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container, Sequence

    from ..limits import Limits

__all__ = ["Core", "candidates", "pick_core", "pinned_positions"]


def candidates(records: Sequence, order: Sequence[str]) -> tuple[list[int], dict[str, list[int]]]:
    """Where the core looks, by position: the entries pinned by hand in the core's order, and per
    kind the entries the policy may take (neither pinned nor kept out), newest first (the later
    in the file first on a tie). Independent of the limits, so a derived index keeps them."""
    by_kind: dict[str, list[int]] = {}
    for position, record in enumerate(records):
        if record.pin is None:
            by_kind.setdefault(record.kind.value, []).append(position)
    recent = {kind: sorted(positions, key=lambda p: (-records[p].ts, -p)) for kind, positions in by_kind.items()}
    return pinned_positions(records, order), recent


def pinned_positions(records: Sequence, order: Sequence[str]) -> list[int]:
    """The positions of the entries pinned by hand, in the core's `order` (a list of ids), then
    in file order for those it does not name."""
    rank = {entry_id: i for i, entry_id in enumerate(dict.fromkeys(order))}
    pinned = [(rank.get(record.id, len(rank)), position) for position, record in enumerate(records)
              if record.pin is True]
    pinned.sort()
    return [position for _rank, position in pinned]


class Core:
    """The core of one file state for one language: which entries, their lines, what was left out."""

    __slots__ = ("picked", "records", "lines", "used", "budget", "left_out", "blocked", "explicit", "complete")

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.picked: list[int] = []  # positions, in the core's order
        self.records: list = []  # the records at those positions
        self.lines: list[str] = []  # their lines in the block (`inject.core_line`)
        self.used = 0  # characters of those lines
        self.left_out: list[int] = []  # positions left out for the budget (pinned by hand first)
        self.blocked: list[int] = []  # pinned by hand, but blocked by the threat scan
        self.explicit: set[int] = set()  # the positions pinned by hand (in the core or not)
        self.complete = False  # left_out names every entry left out (else: those met before stopping)

    def __contains__(self, position: object) -> bool:
        return position in self.picked  # a handful of entries


def pick_core(
    records: Sequence,
    pins: Sequence[int],
    recent: dict[str, Sequence[int]],
    limits: Limits,
    lang: str,
    blocked: Container[int],
    complete: bool = False,
    learnt: list[int] | None = None,
) -> Core:
    """The core (see the module's docstring). `blocked`: the positions held back by the threat scan
    (asked only of the entries walked through). `complete`: walk every candidate to name all that
    is left out (doctor, `memtui core`); otherwise stop at the first auto entry that does not fit
    (a turn needs only what is in). `learnt`: positions whose `plain` rendering was worked out
    here are added to it (for the derived index)."""
    core = Core(limits.core_budget)
    budget = core.budget
    if budget <= 0:
        core.complete = True
        return core
    used = 0

    def line_of(position: int) -> str:
        record = records[position]
        if learnt is not None and getattr(record, "plain", True) is None:
            clean_text(record)
            learnt.append(position)
        return core_line(record, lang)

    for position in pins:
        core.explicit.add(position)
        if position in blocked:
            core.blocked.append(position)
            continue
        line = line_of(position)
        if used + len(line) > budget:
            core.left_out.append(position)
            continue
        core.picked.append(position)
        core.records.append(records[position])
        core.lines.append(line)
        used += len(line)
    lists = [recent.get(kind, ()) for kind in limits.core_kinds]
    lists = [positions for positions in lists if positions]
    if len(lists) > 1:
        walk = merge(*lists, key=lambda p: (-records[p].ts, -p))
    else:
        walk = iter(lists[0]) if lists else iter(())
    full = False
    for position in walk:
        if position in blocked:
            continue
        if not full:
            line = line_of(position)
            if used + len(line) <= budget:
                core.picked.append(position)
                core.records.append(records[position])
                core.lines.append(line)
                used += len(line)
                continue
            full = True
        core.left_out.append(position)
        if not complete:
            break
    else:
        core.complete = True
    core.used = used
    return core
