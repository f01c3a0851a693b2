"""Limits declares every field with its type, so code that reads `limits.top_k` is type-checked."""

from __future__ import annotations

from memtui_core.limits import _FIELDS, Limits

TYPE_NAMES = {int: "int", float: "float", frozenset: "frozenset[str]", tuple: "tuple[str, ...]"}


def test_every_field_is_declared_with_its_type() -> None:
    declared = dict(Limits.__annotations__)
    assert list(declared) == list(_FIELDS), "declare the fields of Limits in the order of _FIELDS"
    for name, (typ, default, _why) in _FIELDS.items():
        assert declared[name] == TYPE_NAMES[typ], f"{name}: declared {declared[name]}, _FIELDS says {typ.__name__}"
        assert isinstance(getattr(Limits(), name), typ), name
        assert isinstance(default, typ) or (typ is float and isinstance(default, int)), name


def test_the_declarations_add_no_class_attributes() -> None:
    """Bare annotations only: a class-level value would shadow the slot of the same name."""
    for name in _FIELDS:
        assert type(Limits.__dict__[name]).__name__ == "member_descriptor", name
