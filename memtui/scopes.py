"""The app over a project store and the global one (memtui_core.scopes): what Browse lists, the
state the app polls, and which store each write runs on. app.py calls these; the screens see only
the snapshot's `scopes` (entry id -> project or global)."""

from __future__ import annotations

from typing import Any

from memtui_core.memory import MemoryStore

from .writes import Add, EntryWrite, Move, Write, WriteRefused, _Batch

__all__ = ["cycle_log_scope", "events_shown", "for_the_app", "history", "listing", "log_store", "log_title", "state",
           "target"]


def for_the_app(scoped: Any):
    """The pair of stores with actor `tui`, or None when there are not two (one store: no scopes)."""
    if scoped is None or not scoped.scoped:
        return None
    from memtui_core.scopes import Scoped

    return Scoped([(scope, one if one.actor == "tui" else MemoryStore(one.dir, one.limits, actor="tui", lang=one.lang))
                   for scope, one in scoped.stores], scoped.cwd)


def state(store: MemoryStore, scoped: Any) -> object:
    """The cheap change token the app polls (Storage.change_token): the store's, or both stores'."""
    if scoped is None:
        return store.storage.change_token()
    return tuple(one.storage.change_token() for _scope, one in scoped.stores)


def listing(store: MemoryStore, scoped: Any) -> tuple[list, dict[str, str], dict[str, int], dict]:
    """(entries, their scopes, eviction places, usage from the injection logs) for the snapshot;
    with scopes, an entry both stores hold is listed once (the project's copy)."""
    from memtui_core.store.injections import usage

    if scoped is None:
        entries, scopes = store.entries(), {}
        stores = [store]
    else:
        listed = scoped.entries()
        entries = [entry for _scope, entry in listed]
        scopes = {entry.id: scope or "" for scope, entry in listed}
        stores = [one for _scope, one in scoped.stores]
    eviction: dict[str, int] = {}
    used: dict = {}
    for one in stores:
        eviction.update({entry.id: place for place, entry in enumerate(one.eviction_order(), start=1)})
        used.update(usage(one.injection_log.read()[0]))
    return entries, scopes, eviction, used


def target(scoped: Any, write: Write) -> Any:
    """What a write runs on: the store holding its entry (a new entry: where its kind goes,
    docs/scopes.md; an entry gone meanwhile: the global store, which says so as a conflict); a
    move runs on the pair. Marked entries in both stores are refused: one scope at a time."""
    if getattr(write, "scope", None):  # an undo or a restore on the screen of one scope's logs
        return scoped.store(write.scope)
    if isinstance(write, Move):
        return scoped
    if isinstance(write, EntryWrite):
        from memtui_core.errors import EntryNotFound

        try:
            return scoped.locate(write.entry_id)[1]
        except EntryNotFound:
            return scoped.main
    if isinstance(write, Add):
        return scoped.write_store(write.kind)[1]
    if isinstance(write, _Batch):
        holders = {id(one): one for one in (scoped.locate(entry.id)[1] for entry in write.entries)}
        if len(holders) > 1:
            raise WriteRefused("the marked entries are in both the project and the global store: act on one scope "
                               "at a time (g shows one scope)")
        return next(iter(holders.values()))
    return scoped.main


# ---------------------------------------------------------------------------- each scope's logs
# The Audit, Backups and Injections screens show one store's logs at a time: the app's `log_scope`
# (the global store's until `g` on one of them switches it; one switch for the three screens).


def history(store: MemoryStore, scoped: Any):
    """The slower half of a load (messages.StoreHistory): the store's health and audit events; with
    scopes, each store's events too (`by_scope`), and the events of an entry from both stores (an
    entry moved keeps its id, so its history shows where it was and where it went)."""
    from .messages import StoreHistory

    health, events = store.health(), store.audit()
    by_scope = {"global": events}
    if scoped is not None:
        for scope, one in scoped.stores:
            if scope and scope != "global":
                by_scope[scope] = one.audit()
    everything = sorted((event for found in by_scope.values() for event in found), key=lambda event: event.at) \
        if len(by_scope) > 1 else events
    by_id: dict[str, list] = {}
    for event in everything:
        for entry_id in event.touched_ids():
            by_id.setdefault(entry_id, []).append(event)
    return StoreHistory(health, events, by_id, by_scope if scoped is not None else {})


def log_store(app: Any) -> MemoryStore:
    """The store whose audit log, backups and injection log the screens show now."""
    scoped = app.scoped
    if scoped is None or app.log_scope == "global":
        return app.store
    return scoped.store(app.log_scope)


def events_shown(app: Any) -> list:
    """The audit events of `log_store`, oldest first ([] before the first load)."""
    history = app.history
    if history is None:
        return []
    return history.by_scope.get(app.log_scope, history.events) if app.scoped is not None else history.events


def log_title(app: Any, title: str) -> str:
    """A log screen's title, naming the scope when there are two ("Audit · project")."""
    return f"{title} · {app.log_scope}" if app.scoped is not None else title


def cycle_log_scope(app: Any) -> None:
    """`g` on a log screen: the other store's logs (project, global, project…); every log screen follows."""
    if app.scoped is None:
        return
    scopes = [scope for scope, _one in app.scoped.stores]
    app.log_scope = scopes[(scopes.index(app.log_scope) + 1) % len(scopes)] if app.log_scope in scopes else scopes[0]
    app.history = app.history  # the screens redraw from it (the status bar, the audit list, the backups)
