"""The README is the page a newcomer reads in one sitting (issue 29): short, with the two commands
that install and run the app and the tests, and CI runs exactly the second one."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
MAX_LINES = 250  # details belong in docs/ (docs/README.md indexes them)


def _command_under(heading: str) -> str:
    start = README.index(f"\n## {heading}\n")
    match = re.compile(r"^```sh\n(.*?)\n```", re.S | re.M).search(README, start)
    assert match is not None, heading
    return match.group(1).strip()


def test_the_readme_is_short():
    assert len(README.splitlines()) <= MAX_LINES


def test_ci_runs_exactly_the_readmes_test_command():
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == [_command_under("Run the tests")]
    assert _command_under("Run the tests").endswith("python -m pytest")


def test_the_readme_opens_the_demo_and_shows_a_screenshot():
    assert _command_under("Try it").endswith("memtui --demo")
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README):
        assert (REPO / image).is_file(), image
    assert re.search(r"!\[[^\]]*\]\(screenshots/[\w-]+\.svg\)", README)
