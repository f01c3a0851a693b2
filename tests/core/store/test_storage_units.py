"""The units Storage is built from, each on its own."""

from __future__ import annotations

import errno
import os

import pytest

import memtui_core.store.fileio as fileio
from memtui_core.store.backup_files import BackupName


def test_write_all_raises_instead_of_spinning_on_a_write_that_makes_no_progress(tmp_path, monkeypatch):
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT, 0o600)
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    try:
        with pytest.raises(OSError) as caught:
            fileio.write_all(fd, b"data")
    finally:
        os.close(fd)
    assert caught.value.errno == errno.EIO


@pytest.mark.parametrize("name", ["memory.json", "memory-2026.json", "memory-20261130T101010.123456Z.json.tmp", None, 3])
def test_only_backup_names_parse(name):
    assert BackupName.parse(name) is None


def test_backup_names_order_by_stamp_then_suffix():
    names = ["memory-20261130T101010.123456Z-2.json", "memory-20261130T101010.123456Z.json",
             "memory-20261201T000000.000000Z.json"]
    ordered = sorted(names, key=BackupName.parse, reverse=True)
    assert ordered == [names[2], names[0], names[1]]
