"""The function words a query ignores: the one list the default profile uses (`Limits.stopwords`).

A query term that is one of these is dropped before scoring, because it appears in nearly every
message and says nothing about which memory is relevant ("what is the ...", "怎么...一下").
Documents are indexed unchanged, so the statistics of every other term (df, idf, lengths) stay
those of the plain BM25 and the nanohermes profile (no stopwords) ranks exactly as the original.

English: articles, pronouns, auxiliaries, prepositions, conjunctions, question words, and the
politeness, filler and request words of a message ("please", "just", "write", "explain", "use"):
they say what to do with a topic, never which topic. Words that name a topic
("version", "file", "test") are never here. Chinese: the tokenizer makes overlapping bigrams of a
run of Han characters, so the list holds the bigrams of function words (什么, 怎么, 一下, 可以,
我们...), the request words matching the English ones (解释, 介绍, 给我, 写, 用...), and the single
characters that stand alone as a token (的, 了, 吗...).

The list is data, core/text/data/stopwords.txt, read once, when first used (every turn of the
default profile uses it: `Limits` takes it as its default).
"""

from __future__ import annotations

from .wordlists import read_words

__all__ = ["DEFAULT_STOPWORDS", "PARTICLES"]

# Chinese grammatical particles: nearly always a word boundary, so a bigram holding one (年的 in
# 这一年的, 里的 in 家里的) spans two words and matches only by coincidence. The relevance gate
# treats such bigrams as weak evidence (docs/ranking.md); they still score.
PARTICLES: frozenset[str] = frozenset("的了吗呢吧啊呀嘛哦么")


def __getattr__(name: str) -> frozenset[str]:
    if name == "DEFAULT_STOPWORDS":
        words = globals()[name] = read_words("stopwords.txt")
        return words
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
