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
"""

from __future__ import annotations

__all__ = ["DEFAULT_STOPWORDS", "PARTICLES"]

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
)

# Chinese grammatical particles: nearly always a word boundary, so a bigram holding one (年的 in
# 这一年的, 里的 in 家里的) spans two words and matches only by coincidence. The relevance gate
# treats such bigrams as weak evidence (docs/ranking.md); they still score.
PARTICLES: frozenset[str] = frozenset("的了吗呢吧啊呀嘛哦么")
