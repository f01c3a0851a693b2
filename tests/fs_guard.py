"""Folders a test makes unwritable for a while (shared by the CLI, scope and setup tests)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest


@contextlib.contextmanager
def unwritable(directory: Path):
    """`directory` made so that nobody may write in it, for the body of the `with`: chattr +i as root
    (permission bits do not stop root), else mode 0555; the test is skipped where neither works."""
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode != 0:
            pytest.skip("running as root without chattr +i: cannot make a directory unwritable")
        try:
            yield directory
        finally:
            subprocess.run(["chattr", "-i", str(directory)], check=True)
    else:
        directory.chmod(0o555)
        try:
            yield directory
        finally:
            directory.chmod(0o755)
