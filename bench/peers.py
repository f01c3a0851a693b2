"""The peers, fed the very tokens our index sees: bm25s, rank_bm25 and SQLite FTS5.

FTS5 gets each document's tokens joined by spaces (its unicode61 tokenizer then splits on the
spaces only, since our tokens hold no separators), and a query is the OR of its quoted terms,
ranked by FTS5's own bm25(); on disk it is a file in the store's directory.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def fts5_build(docs: list[list[str]], path: Path | str = ":memory:") -> sqlite3.Connection:
    if path != ":memory:" and Path(path).exists():
        Path(path).unlink()
    db = sqlite3.connect(str(path))
    db.execute("CREATE VIRTUAL TABLE m USING fts5(body, tokenize='unicode61 remove_diacritics 0')")
    db.executemany("INSERT INTO m(rowid, body) VALUES (?, ?)", ((i, " ".join(d)) for i, d in enumerate(docs)))
    db.commit()
    return db


def fts5_match(tokens: list[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(tokens))


def fts5_query(db: sqlite3.Connection, tokens: list[str], k: int = 4) -> list[int]:
    if not tokens:
        return []
    rows = db.execute("SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT ?", (fts5_match(tokens), k))
    return [row[0] for row in rows]


def bm25s_build(docs: list[list[str]]):
    import bm25s

    retriever = bm25s.BM25(method="atire", idf_method="lucene", k1=1.2, b=0.75, dtype="float64")
    retriever.index(docs, show_progress=False)
    return retriever


def bm25s_query(retriever, tokens: list[str], k: int = 4) -> list[int]:
    import numpy as np

    scores = retriever.get_scores(tokens)
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])].tolist()


def rank_bm25_build(docs: list[list[str]]):
    from rank_bm25 import BM25Okapi

    return BM25Okapi(docs, k1=1.2, b=0.75)


def rank_bm25_query(okapi, tokens: list[str], k: int = 4) -> list[int]:
    import numpy as np

    return np.argsort(-okapi.get_scores(tokens))[:k].tolist()
