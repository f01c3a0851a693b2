"""A fresh clone installs, plain and editable, into a project that has its own `core` package.

Slow (it builds a virtualenv and installs the dependencies from the package registry for each
mode), so it runs with `-m slow`; scripts/check_install.py is the same check by hand.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import REPO


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("mode", ["plain", "editable"])
def test_a_fresh_clone_installs_beside_a_project_core(mode, tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "check_install.py"), "--mode", mode,
                           "--keep", str(tmp_path)], capture_output=True, text=True, timeout=1700)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout and "all install checks passed" in done.stdout
