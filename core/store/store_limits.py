"""The limits a store carries itself: the top-level `limits` object of memory.json.

`Limits` given at call time used to be the only place a limit lived, so a store built through the
API with `max_entries=20000` was cut back to 500 by the next `memtui add`, which could not raise
the cap (9,507 entries evicted in the fault run that found it). Now memory.json may hold

    {"entries": [...], "limits": {"max_entries": 20000}}

and every client reading the store applies it. Any `Limits` field can be carried -- the list is
`Limits`' own, not one kept here, so a field added there is carried too -- with JSON values (a
word list for the word-set fields). The original 4-field format stays readable: readers that know
only `entries` never look at another key, and memtui keeps unknown top-level keys as they are.

Precedence, field by field: a limit the caller sets to something other than its default (an API
`Limits(...)`, a CLI option such as `--profile` or `--lock-timeout`) wins; otherwise the store's;
otherwise the default. A carried value that is not a valid limit (a typo'd name, a negative cap)
is ignored and reported (`limits-invalid`), never fatal.

Changing the store's limits is a write like any other (`MemoryStore.set_limits`, limits_write.py): under the lock,
backed up, and logged as one `limits` event whose `before` and `after` are the object as it was
and as it becomes, so recovery replays it and `memtui audit` shows it.
"""

from __future__ import annotations

from ..limits import DEFAULT_LIMITS, Limits

__all__ = ["LIMITS_KEY", "adopt", "carried", "effective", "json_value", "parse_value"]

LIMITS_KEY = "limits"


def _defaults() -> dict:
    return DEFAULT_LIMITS.as_dict()


def carried(top: dict) -> tuple[dict, list[str]]:
    """The limits the document's top level carries that are valid (name: value as Limits takes
    it), and one line per carried item that is not."""
    raw = top.get(LIMITS_KEY) if isinstance(top, dict) else None
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [f"the store's {LIMITS_KEY} is not an object"]
    known = _defaults()
    valid: dict = {}
    errors: list[str] = []
    for name, value in raw.items():
        if name not in known:
            errors.append(f"{name!r} is not a limit")
            continue
        try:
            Limits(**{name: value})
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
            continue
        valid[name] = value
    return valid, errors


def effective(base: Limits, store: dict) -> Limits:
    """`base` (the caller's limits) with the store's carried limits in place of every field the
    caller left at its default."""
    if not store:
        return base
    defaults = _defaults()
    mine = base.as_dict()
    chosen = {name: value for name, value in store.items() if mine[name] == defaults[name]}
    return base.replace(**chosen) if chosen else base


def json_value(value: object) -> object:
    """A limit's value as the store keeps it in JSON (a word set as a sorted list)."""
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def parse_value(name: str, text: str) -> object:
    """A limit's value from text (`memtui limits set name=value`), by the type of its default:
    a number, or a comma-separated list of words for a collection. ValueError if it is neither a
    limit nor a valid value for it."""
    defaults = _defaults()
    if name not in defaults:
        raise ValueError(f"{name!r} is not a limit (see `memtui limits`)")
    default = defaults[name]
    if isinstance(default, bool):
        value: object = text.strip().lower() in ("1", "true", "yes", "on")
    elif isinstance(default, int):
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"limit {name} must be a whole number, got {text!r}") from None
    elif isinstance(default, float):
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"limit {name} must be a number, got {text!r}") from None
    elif isinstance(default, (set, frozenset, tuple, list)):
        value = [word.strip() for word in text.split(",") if word.strip()]
    elif isinstance(default, str):
        value = text
    else:  # a field of another type: its JSON
        import orjson

        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = text
    Limits(**{name: value})  # ValueError with the reason when it is not a valid value
    return value


def adopt(storage, doc) -> None:
    """Work out the limits in force for `doc` (the caller's, with the store's own in place of
    defaults) and give them to `storage`, its backups and its audit log."""
    if doc is storage._adopted:
        return
    storage.carried, storage.carried_errors = carried(getattr(doc, "top", None) or {})
    storage.limits = effective(storage.base_limits, storage.carried)
    storage.backups.limits = storage.audit.limits = storage.limits
    storage._adopted = doc
