"""The repository documents itself: every rule it cites is in its own docs/, and every link holds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

# Pages of the index that other areas write; a link to one of them may wait for that page.
INDEX_PAGES = ("format.md", "ranking.md", "probes.md", "injection.md", "agents.md", "threat-scan.md", "storage.md",
               "memory-over-time.md", "app.md", "cli-json.md")

# References to documents that are not in the repository. Built from pieces so this file does
# not match itself.
OUTSIDE = [
    re.compile(r"\b" + "SP" + r"EC\b"),
    re.compile("sp" + r"ec\.md", re.IGNORECASE),
    re.compile("\u00a7"),  # the section sign, as in "see section-sign 5"
    re.compile(r"\bthe " + "sp" + r"ec\b", re.IGNORECASE),
    re.compile(r"(?<![\w.])" + "shared" + r"/"),
    re.compile(r"/" + "work" + r"/"),
    re.compile(r"\b" + "seeds" + r"/"),
    re.compile("STY" + r"LE\.md"),
]


def tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    files = []
    for name in names.decode().split("\0"):
        path = REPO / name
        if not name or not path.is_file() or path.suffix in (".png", ".svg", ".jpg", ".gif", ".ico"):
            continue
        files.append(path)
    return files


def test_nothing_refers_to_a_document_outside_the_repository():
    found = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for pattern in OUTSIDE:
                if pattern.search(line):
                    found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:120]}")
    assert found == []


def test_the_pattern_list_catches_what_it_is_for():
    for line in ("see " + "SP" + "EC \u00a75", "(SP" + "EC)", "\u00a72", "as the sp" + "ec says", "/wo" + "rk/x",
                 "shar" + "ed/SP" + "EC.md",
                 "read seeds" + "/000.txt"):
        assert any(p.search(line) for p in OUTSIDE), line
    for line in ("spec = importlib.util.spec_from_file_location(x)", "inspect the spectrum", "docs/format.md#dedupe"):
        assert not any(p.search(line) for p in OUTSIDE), line


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets on common renderers."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", text, flags=re.MULTILINE)}


def test_slugs():
    assert slug("File format") == "file-format"
    assert slug("The `memtui` command and its JSON") == "the-memtui-command-and-its-json"
    assert slug("Why numpy is optional") == "why-numpy-is-optional"


def markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def check_target(source: Path, target: str, problems: list[str]) -> None:
    path_part, _, anchor = target.partition("#")
    path = (source.parent / path_part).resolve() if path_part else source
    if not path.exists():
        problems.append(f"{source.relative_to(REPO)}: {target}: no such file")
        return
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        problems.append(f"{source.relative_to(REPO)}: {target}: no such section")


def test_every_link_in_the_docs_and_readme_resolves():
    problems: list[str] = []
    links = 0
    for source in markdown_files():
        text = re.sub(r"```.*?```", "", source.read_text(encoding="utf-8"), flags=re.DOTALL)
        for match in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = match.group(1)
            if re.match(r"[a-z]+:", target):
                continue  # an absolute URL
            links += 1
            check_target(source, target, problems)
    assert links > 40
    assert problems == []


def test_every_docs_reference_in_code_and_tests_resolves():
    problems: list[str] = []
    references = 0
    for path in tracked_text_files():
        if path.suffix not in (".py", ".toml", ".tcss", ".sh") and path.name != "run":
            continue
        for match in re.finditer(r"docs/([\w./-]+\.(?:md|json))(#[\w-]+)?", path.read_text(encoding="utf-8")):
            references += 1
            check_target(REPO / "README.md", "docs/" + match.group(1) + (match.group(2) or ""), problems)
    assert references >= 20
    assert problems == []


def test_the_index_lists_every_page():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w-]+\.md)\)", index))
    assert set(INDEX_PAGES) <= linked
    for page in DOCS.glob("*.md"):
        if page.name != "README.md":
            assert page.name in linked, f"docs/{page.name} is not linked from docs/README.md"


@pytest.mark.parametrize("page", ["format.md", "cli-json.md", "README.md"])
def test_the_pages_of_this_area_exist_and_say_something(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    assert len(text) > 2000 and text.startswith("# ")
