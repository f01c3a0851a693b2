"""The word lists kept as data (core/text/data/*.txt): read once, comments skipped, nothing else kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memtui_core.text import stopwords
from memtui_core.text.wordlists import DIRECTORY, read_words


def test_a_list_file_is_its_words_without_comments():
    words = read_words("stopwords.txt")
    lines = (Path(DIRECTORY) / "stopwords.txt").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith("#") for line in lines)
    assert not {word for word in words if word.startswith("#")}
    assert {"the", "please", "什么", "的"} <= words and "english:" not in words
    assert not [word for word in words if not word.isascii() and len(word) > 2]  # a query never has such a token


def test_the_stopwords_are_read_once_and_only_when_used():
    assert stopwords.DEFAULT_STOPWORDS is stopwords.DEFAULT_STOPWORDS
    code = ("import sys, memtui_core.text.stopwords as s; before = 'DEFAULT_STOPWORDS' in vars(s); "
            "s.DEFAULT_STOPWORDS; print(before, 'DEFAULT_STOPWORDS' in vars(s), len(s.DEFAULT_STOPWORDS))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "True", str(len(stopwords.DEFAULT_STOPWORDS))]
