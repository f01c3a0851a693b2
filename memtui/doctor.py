"""`memtui doctor`: the store's health, each problem with the command that fixes it.

Problems come from `MemoryStore.health()` (corrupt files quarantined, invalid items, blocked
entries, a full store, an unwritable directory, a held lock) plus near-duplicate entries,
found cheaply and exactly: token sets compared only when their rarest tokens meet (prefix filtering).
"""

from __future__ import annotations

import math
import shlex
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from memtui_core import health_codes as warning_codes

if TYPE_CHECKING:
    from memtui_core.model import Health

__all__ = ["Duplicate", "Fix", "Problem", "Report", "diagnose", "near_duplicates"]

DUPLICATE_SIMILARITY = 0.7  # share of distinct tokens two texts have in common (Jaccard)
MAX_DUPLICATES = 20
MAX_CANDIDATES = 16  # comparisons per entry: keeps doctor linear on stores of near-identical notes


@dataclass
class Fix:
    command: str
    why: str = ""


@dataclass
class Problem:
    code: str  # quarantined, unreadable, invalid, blocked, full, unwritable, locked, duplicates, other
    message: str
    details: list[str] = field(default_factory=list)
    fixes: list[Fix] = field(default_factory=list)


@dataclass
class Duplicate:
    keep: str
    remove: str
    similarity: float


@dataclass
class Report:
    health: Health
    problems: list[Problem]
    duplicates: list[Duplicate]
    scan: str = ""  # what the write path's threat scan runs with (`threat_scan_status`)

    def as_dict(self) -> dict:
        data = self.health.model_dump(mode="json")
        data["ok"] = not self.problems
        data["problems"] = [asdict(p) for p in self.problems]
        data["near_duplicates"] = [asdict(d) for d in self.duplicates]
        data["threat_scan"] = self.scan
        return data

    def lines(self, style) -> list[str]:
        h = self.health
        counts = [f"{h.entries}/{h.max_entries} entries"]
        if h.invalid:
            counts.append(f"{len(h.invalid)} invalid")
        if h.blocked:
            counts.append(f"{len(h.blocked)} blocked")
        out = [
            f"{style.dim('store   ')} {h.path}" + ("" if h.exists else style.dim("  (not created yet)")),
            f"{style.dim('entries ')} {' · '.join(counts)}",
            f"{style.dim('backups ')} {('newest ' + h.last_backup) if h.last_backup else 'none yet'}",
            f"{style.dim('injected')} " + (f"{h.injected_share:.0%} of entries at least once in the injection log "
                                            f"({h.injections} injections)" if h.injected_share is not None
                                            else f"{h.injections} injections logged"),
            f"{style.dim('core    ')} {_core_line(h)}",
            f"{style.dim('access  ')} {'writable' if h.writable else style.red('not writable')} · "
            f"{style.yellow('locked by a writer') if h.locked else 'not locked'}",
            f"{style.dim('scan    ')} {self.scan}",
            "",
        ]
        if not self.problems:
            out.append(style.green("no problems found"))
            return out
        for problem in self.problems:
            out.append(style.red("! ") + style.bold(problem.message))
            out.extend(f"    {detail}" for detail in problem.details)
            width = max((len(fix.command) for fix in problem.fixes if fix.why), default=0)
            for fix in problem.fixes:
                note = f"  {style.dim(fix.why)}" if fix.why else ""
                out.append(f"    → {style.cyan(fix.command.ljust(width) if fix.why else fix.command)}{note}")
            out.append("")
        n = len(self.problems)
        out.append(f"{n} problem{'s' if n != 1 else ''} (exit status stays 0; --strict makes it 1)")
        return out


def _core_line(h: Health) -> str:
    """The pinned core at a glance: what it holds, its budget, and what does not fit (by id)."""
    if h.core_budget <= 0:
        return "off (core_budget 0: no entry is in every block)"
    line = (f"{h.core_entries} entr{'y' if h.core_entries == 1 else 'ies'} in every block · "
            f"{h.core_used}/{h.core_budget} characters")
    left = h.core_left_out
    if left:
        shown = ", ".join(left[:6]) + (f" and {len(left) - 6} more" if len(left) > 6 else "")
        line += f" · {len(left)} left out for the budget ({shown}): retrieved by relevance only; `memtui core` lists them"
    return line


def near_duplicates(entries, threshold: float = DUPLICATE_SIMILARITY, limit: int = MAX_DUPLICATES) -> list[Duplicate]:
    """Pairs of entries whose token sets overlap by `threshold` or more (Jaccard), or whose dedupe
    keys are equal, most similar first. The longer text is the one to keep (the newer on a tie).

    Linear in the number of entries. Prefix filtering: with each token set ordered rarest token
    first, two sets that overlap by `threshold` share a token among the first
    `n - ceil(threshold * n) + 1` of each, so only entries sharing such a token are candidates;
    and each entry is compared with at most `MAX_CANDIDATES` of them (those sharing its rarest
    tokens, the nearest in the file first), so a store of near-identical template notes costs
    n * MAX_CANDIDATES comparisons, not n * n. Equal dedupe keys are always found."""
    import heapq

    from memtui_core.store.records import normalize
    from memtui_core.text.tokenize import tokenize

    sets = [frozenset(tokenize(entry.text)) for entry in entries]
    sizes = [len(tokens) for tokens in sets]
    df = Counter(token for tokens in sets for token in tokens)
    index: dict[str, list[int]] = defaultdict(list)

    def scored_pairs():
        seen_keys: dict[str, int] = {}
        for i, entry in enumerate(entries):
            key = normalize(entry.text)
            same = seen_keys.setdefault(key, i)
            if same != i:
                yield (-1.0, same, i)
            tokens = sets[i]
            if not tokens:
                continue
            prefix = sorted(tokens, key=lambda token: (df[token], token))[: len(tokens) - math.ceil(threshold * len(tokens) - 1e-9) + 1]
            candidates: dict[int, None] = {}
            for token in prefix:
                for j in reversed(index[token]):
                    candidates[j] = None
                    if len(candidates) >= MAX_CANDIDATES:
                        break
                if len(candidates) >= MAX_CANDIDATES:
                    break
            size = sizes[i]
            low, high = threshold * size, size / threshold  # a set outside these sizes cannot reach it
            for j in candidates:
                other = sizes[j]
                if other < low or other > high or j == same:
                    continue
                common = len(tokens & sets[j])
                similarity = common / (size + other - common)
                if similarity >= threshold:
                    yield (-similarity, j, i)
            for token in prefix:
                index[token].append(i)

    out = []
    for negative, i, j in heapq.nsmallest(limit, scored_pairs()):
        a, b = entries[i], entries[j]
        keep, remove = (a, b) if (len(a.text), a.ts) >= (len(b.text), b.ts) else (b, a)
        out.append(Duplicate(keep=keep.id, remove=remove.id, similarity=round(-negative, 3)))
    return out


def _excerpt(text: str, width: int = 48) -> str:
    from memtui.render import clean, truncate

    return truncate(clean(text), width)


# the warning codes diagnose() turns into problems of their own, with details and fixes
_EXPLAINED = {warning_codes.QUARANTINED, warning_codes.UNREADABLE, warning_codes.INVALID, warning_codes.BLOCKED,
              warning_codes.NEARLY_FULL, warning_codes.OVER_LIMIT, warning_codes.UNWRITABLE,
              warning_codes.CORE_OVER_BUDGET}


def diagnose(store, cmd: str = "memtui") -> Report:
    """Health plus fixes. `cmd` is how to call memtui for the suggested commands (with --dir)."""
    health = store.health()
    storage = store.storage
    entries = store.entries()
    by_id = {entry.id: entry for entry in entries}
    problems: list[Problem] = []
    codes = set(health.codes())
    # every backup is read to know whether it is valid: only when a fix needs one (a recovery)
    backups = [b for b in store.backups() if b.valid] if health.quarantined or warning_codes.UNREADABLE in codes else []

    for q in health.quarantined:
        restored = f"; {q.restored_from} was restored in its place" if q.restored_from else "; no backup could be restored"
        problem = Problem("quarantined", f"a corrupt memory file was set aside: {q.path} ({q.error}){restored}")
        if q.restored_from and q.why:
            problem.details.append(f"why {q.restored_from}: {q.why}")
        if q.restored_from:
            problem.fixes.append(Fix(f"{cmd} list", "check the restored entries"))
            names = [b.name for b in backups]  # newest first
            older = names[names.index(q.restored_from) + 1:] if q.restored_from in names else []
            if older:
                problem.fixes.append(Fix(f"{cmd} restore --dry-run {older[0]}", "if entries are missing, compare an older backup"))
        elif backups:
            problem.fixes.append(Fix(f"{cmd} restore {backups[0].name}", "bring back the newest valid backup"))
        else:
            problem.fixes.append(Fix(f"less {shlex.quote(q.path)}", "recover what you can by hand; it is never overwritten"))
        problem.fixes.append(Fix(f"rm {shlex.quote(q.path)}", "when done, to clear this warning"))
        problems.append(problem)

    for warning in (w for w in health.warnings if w.code == warning_codes.UNREADABLE):
        problem = Problem("unreadable", warning.text)
        if not health.writable:
            problem.fixes.append(Fix(f"chmod u+rwx {shlex.quote(str(store.dir))}", "recovery needs to write; then run any memtui command"))
        if backups:
            problem.fixes.append(Fix(f"{cmd} restore {backups[0].name}", "the newest valid backup"))
        problems.append(problem)

    if health.invalid:
        n = len(health.invalid)
        problem = Problem("invalid", f"{n} item{'s' if n != 1 else ''} of memory.json {'are' if n != 1 else 'is'} "
                                     f"not a valid entry: kept as is, never searched or injected")
        for item in health.invalid:
            raw = item.raw.get("text") if isinstance(item.raw, dict) else None
            shown = f": {_excerpt(raw)}" if isinstance(raw, str) and raw.strip() else ""
            problem.details.append(f"item #{item.index}: {item.error}{shown}")
        problem.fixes.append(Fix(f"$EDITOR {shlex.quote(health.path)}", "fix or remove those items by hand"))
        problems.append(problem)

    if health.blocked:
        n = len(health.blocked)
        problem = Problem("blocked", f"{n} entr{'ies' if n != 1 else 'y'} blocked by the threat scan: "
                                     f"never injected until a person approves {'them' if n != 1 else 'it'}")
        for entry_id in health.blocked:
            entry = by_id.get(entry_id)
            if entry is not None:
                categories = ", ".join(f.split(":", 1)[1] for f in entry.flags if f.startswith("threat:")) or "flagged"
                problem.details.append(f"{entry_id} [{entry.kind.value}] {_excerpt(entry.text)}  ({categories})")
            problem.fixes.append(Fix(f"{cmd} approve {entry_id}", "if you trust it"))
            problem.fixes.append(Fix(f"{cmd} rm {entry_id}", "otherwise"))
        problems.append(problem)

    if codes & {warning_codes.NEARLY_FULL, warning_codes.OVER_LIMIT}:
        state = "over the limit" if warning_codes.OVER_LIMIT in codes else "nearly full"
        problem = Problem("full", f"the store is {state} ({health.entries}/{health.max_entries}): "
                                  f"new entries evict facts first, oldest first")
        problem.fixes.append(Fix(f"{cmd} list --kind fact", "review the facts and delete stale ones"))
        problems.append(problem)

    if warning_codes.UNWRITABLE in codes and store.location is not None:
        problem = Problem("unwritable", f"this database role cannot write to {store.where}: changes cannot be saved")
        problem.fixes.append(Fix("GRANT SELECT, INSERT, UPDATE, DELETE ON memtui_stores, memtui_audit, memtui_backups, "
                                 "memtui_files, memtui_keys TO <role>", "as the tables' owner, if this role should write"))
        problems.append(problem)
    elif warning_codes.UNWRITABLE in codes:
        problem = Problem("unwritable", f"the store directory {store.dir} is not writable: changes cannot be saved")
        problem.fixes.append(Fix(f"chmod u+rwx {shlex.quote(str(store.dir))}", "or run memtui as the directory's owner"))
        problems.append(problem)

    for warning in (w for w in health.warnings if w.code == warning_codes.CORE_OVER_BUDGET):
        problem = Problem("core-over-budget", warning.text)
        left = set(health.core_left_out)
        for entry in entries:
            if entry.pinned and entry.id in left:
                problem.details.append(f"{entry.id} [{entry.kind.value}] {_excerpt(entry.text)}  ({len(entry.text)} chars)")
                problem.fixes.append(Fix(f"{cmd} unpin {entry.id}", "if it need not be in every turn"))
        problem.fixes.append(Fix(f"{cmd} core", "see the core in order, with each line's characters"))
        problems.append(problem)

    if health.locked:
        problem = Problem("locked", f"another process holds the write lock {storage.lock_path}")
        problem.fixes.append(Fix(f"{cmd} doctor", "run again in a moment; writes wait for the lock, then fail cleanly"))
        problems.append(problem)

    for warning in health.warnings:
        if warning.code not in _EXPLAINED:
            problems.append(Problem(warning.code, warning.text, fixes=[Fix(warning.fix)] if warning.fix else []))

    duplicates = near_duplicates(entries)
    if duplicates:
        n = len(duplicates)
        problem = Problem("duplicates", f"{n} pair{'s' if n != 1 else ''} of near-duplicate entries: "
                                        f"merge each into one")
        for pair in duplicates:
            keep, remove = by_id[pair.keep], by_id[pair.remove]
            problem.details.append(f"{pair.similarity:.2f}  keep {keep.id} {_excerpt(keep.text, 36)}")
            problem.details.append(f"      drop {remove.id} {_excerpt(remove.text, 36)}")
            problem.fixes.append(Fix(f"{cmd} rm {remove.id}", f"keeps {keep.id} (edit it first if the other says more)"))
        problems.append(problem)
    return Report(health=health, problems=problems, duplicates=duplicates, scan=threat_scan_status())


def threat_scan_status() -> str:
    """One line: what a write's threat scan runs with, and why the semantic third opinion is off
    when it is (no embedder on this platform, MEMTUI_SEMANTIC=off, no weights for the embedder)."""
    from memtui_core.safety import threat_model_semantic
    from memtui_core.text.semantic import MODEL_ID

    state = threat_model_semantic.readiness()  # without loading the embedder: doctor stays fast
    if state == "ok":
        return f"rules + character model + semantic third opinion ({MODEL_ID}) on writes"
    return f"rules + character model on writes; semantic third opinion off: {state}"


def _output_model():
    """The shape of `memtui doctor --json` (`Report.as_dict`), for its JSON Schema."""
    from pydantic import create_model

    from memtui_core.model import Health

    health = {name: (info.annotation, info) for name, info in Health.model_fields.items()}
    return create_model(
        "DoctorOutput",
        __doc__="The store's health, plus each problem found with the commands that fix it.",
        **health,
        ok=(bool, ...),
        problems=(list[Problem], ...),
        near_duplicates=(list[Duplicate], ...),
        threat_scan=(str, ...),
    )


def __getattr__(name: str):
    if name == "DoctorOutput":  # built on first use: pydantic is not needed to run the checks
        model = globals()["DoctorOutput"] = _output_model()
        return model
    raise AttributeError(name)
