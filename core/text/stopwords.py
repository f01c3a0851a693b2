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
characters that stand alone as a token (的, 了, 吗...). Japanese: the stopwords-iso list's words of
one or two kana (これ, です, の, は), generated into function_words.py.

The other languages the threat scan reads are in function_words.py too (generated from
stopwords-iso): `foreign_function_words` ignores a language's words only in a message that reads
as that language, since many of them are English content words (`final`, `die`, `bin`). And a CJK
bigram that begins or ends with a function character (`function_characters`: a one-character
stopword that the stopwords-iso Chinese or Japanese list holds alone too) spans two words: 是通 in
什么是通货膨胀.
"""

from __future__ import annotations

from .function_words import CJK_SINGLES, JAPANESE, LATIN, NAMES

__all__ = ["DEFAULT_STOPWORDS", "PARTICLES", "english_words", "foreign_function_words", "function_characters"]

_ENGLISH = """
a an the this that these those there here it its it's itself
i me my mine myself we us our ours ourselves you your yours yourself yourselves
he him his she her hers they them their theirs
is am are was were be been being do does did doing done have has had having
will would shall should can could may might must need ought
and or but nor so yet if then else than as because while although though
of in on at to from by for with without about into onto over under up down out off
against between through during before after above below across along among around within via per
until upon toward towards
again further once also too very just only even still already
what which who whom whose when where why how whats hows
not no yes ok okay please thanks thank hi hello hey
all any both each few more most other some such same own
got let lets tell say said
write give show help explain use using used try find need want like
s t d ll re ve m don doesn didn isn aren wasn weren won wouldn shouldn couldn can't
one ones something anything ever really
"""

# Han function words and their bigrams; single characters that form a one-character token.
_CHINESE = """
的 了 吗 呢 吧 啊 呀 么 嘛 哦 是 在 和 与 及 或 也 都 就 还 又 把 被 给 让 从 对 向 为 我 你 他 她 它 这 那 哪 个 有 没 不 很 太
什么 怎么 怎样 怎么样 为什么 哪里 哪个 哪些 那个 这个 那些 这些 这样 那样 这里 那里
一下 一个 一些 可以 能不 不能 能否 是否 是不 不是 有没 没有 有什 么样 么办 怎么办 么做 怎么做
我们 你们 他们 她们 它们 咱们 我的 你的 他的 自己 大家
请问 请你 帮我 帮忙 麻烦 谢谢 你好 一点 一样 还是 或者 而且 但是 因为 所以 如果 然后 就是 还有 已经 现在
吗？ 的话 时候 应该 需要 知道 觉得 告诉 告诉我 一直 比较 非常 特别
写 用 想 要 找 解释 介绍 试试 看看 讲讲 说说 给我 显示
""".replace("吗？", "")

DEFAULT_STOPWORDS: frozenset[str] = frozenset(_ENGLISH.split()) | frozenset(
    word for word in _CHINESE.split() if len(word) <= 2
) | frozenset(JAPANESE.split())


def english_words() -> list[str]:
    """memtui's own English function words (the generator of function_words.py leaves them out of
    the other languages' lists)."""
    return _ENGLISH.split()


# A message reads as a language when it holds at least this many distinct function words of it
# that are not English, and more of them than English function and general words.
MIN_FOREIGN = 2
_latin: dict[str, frozenset[str]] | None = None
_any: frozenset[str] = frozenset()  # every language's words together: most messages hold fewer than two


def _languages() -> dict[str, frozenset[str]]:
    global _latin, _any
    if _latin is None:
        _latin = {language: frozenset(words.split()) for language, words in LATIN.items()}
        _any = frozenset().union(*_latin.values())
    return _latin


def foreign_function_words(tokens, english) -> tuple[frozenset[str], list[str]]:
    """The tokens to ignore as function words of a language other than English and Chinese that
    the message reads as, and the names of those languages (docs/ranking.md, "Stopwords"). A
    message reads as language L when it holds at least MIN_FOREIGN distinct function words of L,
    and more of them than of `english` (English function and general words) that L's list lacks:
    "la dosis de amoxicilina para un adulto" reads as Spanish, "what's the final total" does not,
    though `final` and `total` are in the Spanish list."""
    languages = _languages()
    words = _any.intersection(tokens)
    if len(words) < MIN_FOREIGN:
        return frozenset(), []
    words = {token for token in tokens if token[:1] < "\x80"}
    in_english = {word for word in words if word in english}
    ignored: set[str] = set()
    names = []
    for language, function in languages.items():
        found = function.intersection(words)
        if len(found) >= MIN_FOREIGN and len(found) > len(in_english - found):
            ignored |= found
            names.append(NAMES[language])
    return frozenset(ignored), names


_characters: dict[frozenset[str], frozenset[str]] = {}
_SINGLES = frozenset(CJK_SINGLES.split())


def function_characters(stopwords: frozenset[str]) -> frozenset[str]:
    """The CJK characters that are one-character entries of `stopwords` and of the stopwords-iso
    Chinese or Japanese list: a bigram beginning or ending with one spans two words."""
    found = _characters.get(stopwords)
    if found is None:
        found = _characters[stopwords] = frozenset(word for word in stopwords if len(word) == 1 and word in _SINGLES)
    return found

# Chinese grammatical particles: nearly always a word boundary, so a bigram holding one (年的 in
# 这一年的, 里的 in 家里的) spans two words and matches only by coincidence. The relevance gate
# treats such bigrams as weak evidence (docs/ranking.md); they still score.
PARTICLES: frozenset[str] = frozenset("的了吗呢吧啊呀嘛哦么")
