"""Word lists kept as data (core/text/data/*.txt), read the first time a list is used.

A list file holds words separated by white space; a line that starts with `#` is a comment.
"""

from __future__ import annotations

import os

__all__ = ["read_list", "read_words"]

DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def read_words(name: str) -> frozenset[str]:
    """The words of core/text/data/`name`."""
    return frozenset(read_list(name))


def read_list(name: str) -> list[str]:
    """The words of core/text/data/`name`, in the file's order."""
    with open(os.path.join(DIRECTORY, name), encoding="utf-8") as file:
        return [word for line in file if not line.startswith("#") for word in line.split()]
