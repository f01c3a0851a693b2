"""BM25 over the store: an inverted index built once per file state, queried many times.

Scoring (docs/ranking.md): idf = ln(1 + (n - df + 0.5) / (df + 0.5)); each query token occurrence adds
idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len / max(avg_len, 1))).

Keywords (docs/ranking.md) are a second field, BM25F-style: a keyword token counts `keyword_weight`
of a text token in both the term frequency and the document length, so an entry stuffed with
keywords pays for them in length and no keyword outweighs what the text says. And of the query
terms an entry holds only in its keywords, just the best `keyword_only_terms` count: keywords
bridge a synonym or the other language, they cannot make one entry match every topic.

The length-normalised term frequency of every posting is computed once per term, so a warm query
only multiplies and adds over the postings of its own terms. Big stores (VECTOR_MIN_DOCS and up)
do that with numpy when it is installed (the `fast` extra), imported only then.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Container, Iterable, Sequence

from itertools import accumulate, chain, groupby

from .keyword_field import KeywordField
from ..text.stopwords import PARTICLES, foreign_function_words, function_characters
from ..text.tokenize import tokenize

__all__ = ["Index", "VECTOR_MIN_DOCS", "document_tokens", "fold_inflections", "query_terms", "split_query"]

VECTOR_MIN_DOCS = 2000


def document_tokens(text: str, label: str, kind_value: str) -> list[str]:
    """The tokens an entry is indexed under: its text, its kind's label and its kind's name."""
    tokens = tokenize(text)
    tokens += tokenize(label)
    tokens.append(kind_value)
    return tokens


def fold_inflections(tokens: Sequence[str], vocabulary: Collection[str], stopwords: Collection[str] = (),
                     folded: dict[str, str] | None = None) -> list[str]:
    """Each English query word the store does not hold, replaced by a word the store does hold
    that has the same Snowball stem: "tests" finds "test", "dependencies" finds "dependency",
    "cached" finds "cache", "deploying" finds "deploy". Only ASCII words of 4+ letters; documents
    are never changed, so what a term row shows is the store's own word.

    The candidates are the stem with common English endings (a lookup each, so the cost does not
    grow with the store); the stemmer (PyStemmer, the Snowball project's) decides which of them
    are the same word. Among several, the one most entries hold wins. `folded`, when given,
    receives each query word folded and the store's form it became."""
    out = []
    stem = None
    for token in tokens:
        if len(token) > 3 and token[0] < "\x80" and not token.isdigit() and token not in vocabulary:
            if stem is None:
                stem = _stemmer().stemWord
            root = stem(token)
            best = None
            for form in _forms(root):
                if form != token and form in vocabulary and form not in stopwords and stem(form) == root:
                    rank = (_df(vocabulary, form), -len(form))
                    if best is None or rank > best[0]:
                        best = (rank, form)
            if best is not None:
                if folded is not None:
                    folded[token] = best[1]
                token = best[1]
        out.append(token)
    return out


# Endings that inflect or derive an English word from its Snowball stem; each candidate is
# checked by stemming it, so a wrong guess costs a lookup, never a wrong match.
_ENDINGS = ("", "e", "s", "es", "ed", "d", "ing", "er", "ers", "y", "ies", "ied", "ion", "ions", "ation",
            "ations", "ment", "ments", "ence", "ency", "ance", "al", "ity", "ize", "ized", "ise", "ised", "ly")


def _forms(root: str) -> list[str]:
    bases = [root]
    if root.endswith("i"):
        bases.append(root[:-1] + "y")  # "dependenci" <- "dependency"
    if len(root) > 2 and root[-1] == root[-2]:
        bases.append(root[:-1])
    forms = [base + ending for base in bases for ending in _ENDINGS]
    forms += [root + root[-1] + ending for ending in ("ed", "ing", "er")]  # "run" -> "running"
    return forms


def _df(vocabulary: Collection[str], term: str) -> int:
    df = getattr(vocabulary, "df", None)
    return df(term) if df is not None else 0


_STEMMER = None


def _stemmer():
    """The Snowball English stemmer, imported on first use (about 1 ms)."""
    global _STEMMER
    if _STEMMER is None:
        import Stemmer

        _STEMMER = Stemmer.Stemmer("english")
    return _STEMMER


def query_terms(tokens: Sequence[str]) -> dict[str, int]:
    """Unique query terms in first-seen order, each with how many times it occurs in the query."""
    return dict(Counter(tokens))


# Which characters end a CJK bigram that spans two words (docs/ranking.md, "Stopwords"): the
# profile's one-character stopwords that the stopwords-iso Chinese or Japanese list also holds
# alone; "derived": every bigram beginning or ending with one; "chained": only where the function
# character stands between a function word and the rest (measured: docs/ranking.md); "off": only
# bigrams both of whose characters are function words'.
EDGE_RULE = "chained"


def split_query(
    tokens: Sequence[str], stopwords: Collection[str], vocabulary: Collection[str] | None = None,
    folded: dict[str, str] | None = None, languages: bool = False, general: Collection[str] = (),
    why: dict[str, str] | None = None,
) -> tuple[list[str], list[str]]:
    """The query tokens that are scored (inflections folded to the store's words when a `vocabulary`
    is given; `folded` receives what became what), and the distinct ones ignored as function words.
    With `languages`, the function words of a language other than English and Chinese that the
    message reads as are ignored too (`stopwords.foreign_function_words`; `general`: the general
    words, counted as English). `why`, when given, receives each ignored token's kind: "stopword",
    "bigram" (a CJK bigram across a function character) or the name of its language."""
    if not stopwords:
        kept = list(tokens)
        return (fold_inflections(kept, vocabulary, folded=folded) if vocabulary is not None else kept), []
    foreign: Collection[str] = frozenset()
    names: list[str] = []
    if languages:
        english = _English(stopwords, general)
        foreign, names = foreign_function_words(tokens, english)
    edges = _edges(stopwords)
    chained = EDGE_RULE == "chained"
    kinds: list[str | None] = [None] * len(tokens)
    cjk = False
    for i, token in enumerate(tokens):
        if token in stopwords:
            kinds[i] = "stopword"
        elif len(token) == 2 and token[0] >= "\x80":
            cjk = True
            if _function_bigram(tokens, i, stopwords, () if chained else edges):
                kinds[i] = "stopword" if chained else "bigram"
        elif token in foreign:
            kinds[i] = next(name for name in names if token in _language_words(name))
    if chained and edges and cjk:
        first_pass = list(kinds)
        for i, token in enumerate(tokens):
            if first_pass[i] is None and len(token) == 2 and (token[0] in edges or token[1] in edges) and (
                    token[0] >= "\x80" and _beside_function_word(tokens, i, first_pass, edges)):
                kinds[i] = "bigram"
    dropped = [kind is not None for kind in kinds]
    if why is not None:
        for token, kind in zip(tokens, kinds):
            if kind is not None:
                why.setdefault(token, kind)
    kept = [token for token, drop in zip(tokens, dropped) if not drop]
    ignored = list(dict.fromkeys(token for token, drop in zip(tokens, dropped) if drop))
    return (fold_inflections(kept, vocabulary, folded=folded) if vocabulary is not None else kept), ignored


def _edges(stopwords: Collection[str]) -> frozenset[str]:
    if EDGE_RULE == "off":
        return frozenset()
    found = function_characters(stopwords if isinstance(stopwords, frozenset) else frozenset(stopwords))
    return found & PARTICLES if EDGE_RULE == "particles" else found


class _English:
    """English function and general words, as `foreign_function_words` counts them: ASCII words
    of the stopwords or the general words."""

    __slots__ = ("stopwords", "general")

    def __init__(self, stopwords: Collection[str], general: Collection[str]) -> None:
        self.stopwords = stopwords
        self.general = general

    def __contains__(self, word: object) -> bool:
        return word in self.stopwords or word in self.general


def _language_words(name: str) -> frozenset[str]:
    from ..text.function_words import NAMES
    from ..text.stopwords import _languages

    return next(words for code, words in _languages().items() if NAMES[code] == name)


def general_after_folding(general: Collection[str], folded: dict[str, str]) -> Collection[str]:
    """The general words, plus the store's forms that general words of the message were folded to:
    "name" folded to the store's "names" is as general as "name" (a good name for a coffee shop is
    not about the memory of sample names)."""
    forms = {form for word, form in folded.items() if word in general and form not in general}
    return general if not forms else frozenset(general) | forms


def _beside_function_word(tokens: Sequence[str], i: int, dropped: Sequence[str | None], edges: Collection[str]) -> bool:
    """A CJK bigram whose first character is a function character that follows a function word
    (是通 in 什么是通货膨胀: 么是 is one), or whose second character is one that precedes a function
    word: the function character stands alone between them and the content, so the bigram spans two
    words. `dropped`: what the stopwords ignore already, token by token."""
    token = tokens[i]
    if len(token) != 2 or token[0] < "\x80":
        return False
    if token[0] in edges and i and dropped[i - 1] and len(tokens[i - 1]) == 2 and tokens[i - 1][1] == token[0]:
        return True
    after = i + 1
    return token[1] in edges and after < len(tokens) and bool(dropped[after]) and len(tokens[after]) == 2 and (
        tokens[after][0] == token[1])


def _function_bigram(tokens: Sequence[str], i: int, stopwords: Collection[str], edges: Collection[str] = ()) -> bool:
    """A CJK bigram that spans two words: one beginning or ending with a function character
    (`edges`: 是通 in 什么是通货膨胀), or both of whose characters belong to function words (么时 in
    什么时候, between 什么 and 时候; 是什 in 这是什么). A character belongs to one if it is a
    one-character stopword, or the overlapping bigram before or after it is a stopword."""
    token = tokens[i]
    if len(token) != 2 or token[0] < "\x80":
        return False
    if token[0] in edges or token[1] in edges:
        return True
    before = tokens[i - 1] if i else ""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    first = token[0] in stopwords or (len(before) == 2 and before[1] == token[0] and before in stopwords)
    second = token[1] in stopwords or (len(after) == 2 and after[0] == token[1] and after in stopwords)
    return first and second


def build_parts(docs: Iterable[Sequence[str]]) -> tuple[list[str], array, array, list[int]]:
    """The full inverted index of `docs` in one pass, as compact arrays: the terms in first-seen
    order; for each term, where its run starts in `ids`; `ids`, each term's documents in store
    order with a document repeated once per extra occurrence (most terms occur once in a document,
    so 4 bytes per token carry both the postings and the term frequencies); and document lengths.
    A query with terms never asked before then costs its own postings, not a scan of the store,
    and no per-document dictionary is kept."""
    occurrences: dict[str, list[int]] = {}
    get = occurrences.get
    doc_lens: list[int] = []
    for doc_id, tokens in enumerate(docs):
        doc_lens.append(len(tokens))
        for term in tokens:
            bucket = get(term)
            if bucket is None:
                occurrences[term] = [doc_id]
            else:
                bucket.append(doc_id)
    starts = array("i", [0])
    starts.extend(accumulate(map(len, occurrences.values())))
    ids = array("i", chain.from_iterable(occurrences.values()))
    return list(occurrences), starts, ids, doc_lens


class Vocabulary:
    """The terms of an index: those of the texts and kinds, and of the keywords."""

    __slots__ = ("_text", "_keywords", "df")

    def __init__(self, text: dict[str, int], keywords: dict[str, list[int]], df=None) -> None:
        self._text = text
        self._keywords = keywords
        self.df = df  # entries holding a term (Index.df), for choosing among folded forms

    def __contains__(self, term: object) -> bool:
        return term in self._text or term in self._keywords

    def __iter__(self):
        yield from self._text
        yield from (term for term in self._keywords if term not in self._text)

    def __len__(self) -> int:
        return len(self._text) + sum(1 for term in self._keywords if term not in self._text)


class DocCounts:
    """How often each term occurs in one document, as a read-only mapping looked up term by term."""

    __slots__ = ("_index", "_doc_id")

    def __init__(self, index: Index, doc_id: int) -> None:
        self._index = index
        self._doc_id = doc_id

    def get(self, term: str, default: int = 0) -> int:
        return self._index.tf(term, self._doc_id) or default

    def __getitem__(self, term: str) -> int:
        return self._index.tf(term, self._doc_id)

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self._index.tf(term, self._doc_id) > 0


class Index(KeywordField):
    """Postings and lengths for a list of documents (each a list of tokens), and optionally the
    keywords of each document (a list of keywords, each a list of tokens)."""

    __slots__ = (
        "n", "avg_len", "doc_lens", "k1", "b", "keyword_weight", "keyword_only_terms", "keyword_part_weight",
        "_general",
        "_slot", "_starts", "_ids", "_want_vectors", "_vectorized", "_served", "_served_key", "_keywords",
        "_keyword_postings", "_postings", "_norm", "_tfn", "_vectors", "_vocabulary",
        "_df", "_keyword_matches", "_last_scores", "_np", "_recent",
    )

    def __init__(
        self,
        docs: Iterable[Sequence[str]] = (),
        k1: float = 1.2,
        b: float = 0.75,
        vectorized: bool | None = None,
        keywords: Iterable[Sequence[Sequence[str]]] | None = None,
        keyword_weight: float = 0.0,
        keyword_only_terms: int = 1,
        parts: tuple[list[str], array, array, Sequence[int]] | None = None,
        keyword_part_weight: float = 0.0,
        general_words: Collection[str] = (),
    ) -> None:
        terms, starts, ids, lengths = build_parts(docs) if parts is None else parts
        # The full inverted index (see `build_parts`): a term's slot, where its ids start in `_ids`.
        # (`terms` is a list, or a saved index's table of them, looked up without a dict: derived.TermTable)
        self._slot = dict(zip(terms, range(len(terms)))) if isinstance(terms, list) else terms
        self._starts = starts
        self._ids = ids
        doc_lens: list[float] = list(lengths)
        self.keyword_weight = keyword_weight
        self.keyword_only_terms = keyword_only_terms
        self.keyword_part_weight = keyword_part_weight
        self._general = general_words  # weak terms, which never make a part match (`_part_weak`)
        # Per document, its keywords as (distinct tokens, token counts); None when keywords are ignored.
        self._keywords: list[list[tuple[frozenset[str], Counter[str]]]] | None = None
        self._keyword_postings: dict[str, list[int]] = {}
        if keywords is not None and keyword_weight > 0.0:
            parsed_docs = []
            for doc_id, keyword_list in enumerate(keywords):
                if not keyword_list:  # most entries: nothing to add (an int plus 0.0 is the same number)
                    parsed_docs.append([])
                    continue
                parsed = [(frozenset(tokens), Counter(tokens)) for tokens in keyword_list if tokens]
                parsed_docs.append(parsed)
                doc_lens[doc_id] += keyword_weight * sum(len(tokens) for tokens in keyword_list)
                for term in set().union(*(distinct for distinct, _ in parsed)) if parsed else ():
                    self._keyword_postings.setdefault(term, []).append(doc_id)
            if self._keyword_postings:  # a store without any keyword ranks as plain BM25
                self._keywords = parsed_docs
        self.n = len(doc_lens)
        self.avg_len = sum(doc_lens) / self.n if self.n else 0.0
        self.doc_lens = doc_lens
        self.k1 = k1
        self.b = b
        denom = max(self.avg_len, 1.0)
        # The length-dependent part of each document's BM25 denominator.
        self._norm = [k1 * (1.0 - b + b * length / denom) for length in doc_lens]
        self._tfn: dict[str, tuple[list[int], list[float]]] = {}
        self._vectors: dict[str, tuple[object, object]] = {}
        self._postings: dict[str, list[tuple[int, int]]] = {}  # (doc_id, tf) lists, made on first use
        self._vocabulary: Vocabulary | None = None
        self._df: dict[str, int] = {}
        # term -> [(doc_id, occurrences in one-word keywords, [(words, occurrences) of longer keywords])]
        self._keyword_matches: dict[str, list[tuple[int, int, list[tuple[frozenset[str], int]]]]] = {}
        # numpy is the optional `fast` extra, imported only when first used. It pays for itself over
        # many queries of a big store, not for one: left to itself (`vectorized=None`) the index
        # answers its first query in pure Python, so a one-shot `memtui inject` never imports it.
        # Keyword matches depend on the whole query: stores with keywords score in pure Python.
        self._want_vectors = (self.n >= VECTOR_MIN_DOCS if vectorized is None else vectorized) and (
            self._keywords is None
        )
        self._vectorized: bool | None = None
        self._served = 1 if vectorized else 0  # queries answered (counted from 1 when told to vectorize)
        self._served_key: tuple[str, ...] | None = None
        self._last_scores: tuple[tuple[str, ...], object] | None = None
        self._np: tuple | None = None  # (ids, norms) as numpy arrays (`_numpy_parts`)
        self._recent: dict = {}  # the last queries' arrays (vector_pick)

    @property
    def vectorized(self) -> bool:
        """Whether queries after the first are scored with numpy arrays (imports numpy if so)."""
        if self._vectorized is None:
            self._vectorized = False
            if self._want_vectors:
                try:
                    import numpy  # noqa: F401
                except ImportError:  # score in pure Python
                    pass
                else:
                    self._vectorized = True
        return self._vectorized

    def _arrays(self, tokens: Sequence[str]) -> bool:
        """Whether this query is scored with numpy (see `vectorized`). Queries are counted, not
        calls: the gate asking `top` again for more hits of the same query is still the first query
        (a one-shot `memtui inject` whose gate looks further must not import numpy for it)."""
        key = tuple(tokens)
        if key != self._served_key:
            self._served_key = key
            self._served += 1
        return self._served > 1 and self._want_vectors and self.vectorized

    def posting(self, term: str) -> list[tuple[int, int]]:
        """(doc_id, tf) for every document whose text (and kind) holds `term`, in store order."""
        bucket = self._postings.get(term)
        if bucket is None:
            slot = self._slot.get(term)
            if slot is None:
                bucket = []
            else:
                ids = self._ids[self._starts[slot] : self._starts[slot + 1]]
                bucket = [(doc_id, len(list(run))) for doc_id, run in groupby(ids)]
            self._postings[term] = bucket
        return bucket

    @property
    def has_keywords(self) -> bool:
        """Whether keywords take part in scoring (some entry has one, and the weight is not 0)."""
        return self._keywords is not None

    @property
    def vocabulary(self) -> Vocabulary:
        """Every term of the store's texts, kinds and (when used) keywords, as a membership test
        over the index itself (no set of all terms is built)."""
        if self._vocabulary is None:
            self._vocabulary = Vocabulary(self._slot, self._keyword_postings, self.df)
        return self._vocabulary

    def counts(self, doc_id: int) -> DocCounts:
        """Term frequencies of a document's text and kind tokens, read from the postings of the
        terms asked about."""
        return DocCounts(self, doc_id)

    # ------------------------------------------------------------------ statistics

    def df(self, term: str) -> int:
        """Documents holding `term` in their text or their keywords."""
        extra = self._keyword_postings.get(term)
        if not extra:
            known = self._df.get(term)  # counted from the ids array by vector_pick, no posting list built
            return len(self.posting(term)) if known is None else known
        df = self._df.get(term)
        if df is None:
            df = self._df[term] = len({doc_id for doc_id, _ in self.posting(term)}.union(extra))
        return df

    def idf(self, term: str) -> float:
        return self.idf_of(self.df(term))

    def idf_of(self, df: int) -> float:
        """The idf of a term held by `df` documents."""
        return math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))

    def contribution(self, idf: float, tf: float, doc_id: int) -> float:
        """One occurrence of a query term in document `doc_id` holding it `tf` times (keyword
        occurrences counted at `keyword_weight`)."""
        if not tf:
            return 0.0
        return idf * (tf * (self.k1 + 1.0) / (tf + self._norm[doc_id]))

    def _part_weak(self, term: str) -> bool:
        """A term too weak to match a keyword of several words on its own (see `_weak`)."""
        return _weak(term, self._general)

    def holders(self, term: str) -> list[int]:
        """The documents whose text (or kind) holds `term`, in store order."""
        return self._term(term)[0]

    def tf(self, term: str, doc_id: int) -> int:
        slot = self._slot.get(term)
        if slot is None:
            return 0
        lo, hi = self._starts[slot], self._starts[slot + 1]
        return bisect_right(self._ids, doc_id, lo, hi) - bisect_left(self._ids, doc_id, lo, hi)

    # ------------------------------------------------------------------ scoring

    def _term(self, term: str) -> tuple[list[int], list[float]]:
        """Doc ids holding `term` and their saturated, length-normalised term frequencies."""
        cached = self._tfn.get(term)
        if cached is None:
            k1p1 = self.k1 + 1.0
            norm = self._norm
            bucket = self.posting(term)
            cached = ([d for d, _ in bucket], [tf * k1p1 / (tf + norm[d]) for d, tf in bucket])
            self._tfn[term] = cached
        return cached

    def _numpy_parts(self):
        """The postings' ids (a view of the array, not a copy) and each document's length norm, as
        numpy arrays, made on first use (vector_pick.py)."""
        parts = self._np
        if parts is None:
            import numpy as np

            parts = self._np = (np.frombuffer(self._ids, dtype=np.intc), np.asarray(self._norm, dtype=np.float64))
            if hasattr(self._slot, "index_prefixes"):  # a saved index's term table (derived.TermTable)
                self._slot.index_prefixes()
        return parts

    def _term_vector(self, term: str):
        """Doc ids holding `term` and idf * saturated tf for each, as numpy arrays."""
        cached = self._vectors.get(term)
        if cached is None:
            import numpy as np

            ids, weights = self._term(term)
            cached = (np.asarray(ids, dtype=np.int64), self.idf(term) * np.asarray(weights, dtype=np.float64))
            self._vectors[term] = cached
        return cached

    def scores(self, tokens: Sequence[str]) -> dict[int, float]:
        """Score of every document holding at least one query term (others score 0)."""
        if self._arrays(tokens):
            array = self._score_array(tokens)
            import numpy as np

            hits = np.flatnonzero(array)
            return dict(zip(hits.tolist(), array[hits].tolist()))
        return self._python_scores(tokens)

    def _python_scores(self, tokens: Sequence[str]) -> dict[int, float]:
        if self._keywords is not None:
            return self.term_scores(query_terms(tokens))[0]
        scores: dict[int, float] = {}
        get = scores.get
        for term, qtf in query_terms(tokens).items():
            if not self.posting(term):
                continue
            idf = self.idf(term)
            ids, weights = self._term(term)
            for doc_id, weight in zip(ids, weights):
                scores[doc_id] = get(doc_id, 0.0) + qtf * (idf * weight)
        return scores

    def _score_array(self, tokens: Sequence[str]):
        """Every document's score as a numpy array (read-only: the last one is kept, since the
        gate may ask `top` again for more hits of the same query)."""
        key = tuple(tokens)
        last = self._last_scores
        if last is not None and last[0] == key:
            return last[1]
        from .vector_pick import QueryArrays

        array = QueryArrays(self, query_terms(tokens)).scores  # all the terms' postings at once
        array.flags.writeable = False
        self._last_scores = (key, array)
        return array

    def ranked(self, tokens: Sequence[str]) -> list[tuple[int, float]]:
        """(doc_id, score) for every document scoring above 0: best first, ties in store order."""
        return _best_first(self.scores(tokens))

    def top(self, tokens: Sequence[str], k: int, excluded: Container[int] = ()) -> list[tuple[int, float]]:
        """The best `k` hits that are not in `excluded`, as `ranked` would order them."""
        if k <= 0:
            return []
        if not self._arrays(tokens):
            picked = []
            for doc_id, score in _best_first(self._python_scores(tokens)):
                if doc_id not in excluded:
                    picked.append((doc_id, score))
                    if len(picked) == k:
                        break
            return picked
        import numpy as np

        from .vector_pick import recent_query

        query = recent_query(self, query_terms(tokens))
        hits, scores = query.hits, query.values
        # `excluded` is asked only about the best hits, never iterated: whether an entry is excluded
        # (blocked) may take a threat scan. Candidates are every hit scoring at least the m-th best
        # score (ties included), ordered as `ranked` orders them; m grows until k are picked.
        want = k + 16
        while True:
            if want < len(hits):
                ordered = scores.copy()  # np.partition, without its wrapper's cost
                ordered.partition(len(hits) - want)
                chosen = (scores >= ordered[len(hits) - want]).nonzero()[0]
                candidates, values = hits[chosen], scores[chosen]
            else:
                candidates, values = hits, scores
            picked = []
            order = np.lexsort((candidates, -values))  # best first, ties in store order
            for doc_id, score in zip(candidates[order].tolist(), values[order].tolist()):
                if doc_id not in excluded:
                    picked.append((doc_id, score))
                    if len(picked) == k:
                        return picked
            if want >= len(hits):
                return picked
            want *= 4


# ---------------------------------------------------------------------- the relevance gate


def _kind_terms() -> frozenset[str]:
    from ..kinds import Kind

    return frozenset(term for kind in Kind for term in document_tokens("", kind.label, kind.value))


KIND_TERMS = _kind_terms()


# The parts every web address has: an entry holding a URL holds them whatever it is about.
URL_PARTS = frozenset({"http", "https", "www"})


def _weak(term: str, general: Collection[str] = ()) -> bool:
    """A term that alone says nothing about which memory is relevant (see `Gate`)."""
    if term[:1] >= "\u3000":  # CJK: a lone character, a bigram across a particle (年的, 里的), a general word (关于)
        return len(term) == 1 or term[0] in PARTICLES or term[1] in PARTICLES or term in KIND_TERMS or term in general
    return term.isdigit() or term in KIND_TERMS or term in general or term in URL_PARTS


class Gate:
    """Which ranked hits are relevant enough to inject (docs/ranking.md, "The gate").

    Coverage: the share of the query's idf mass that the terms an entry holds carry; only terms
    the store knows (df > 0) count, since a word no memory holds says nothing about which one is
    relevant. Weak terms are left out of that mass unless the query holds nothing else: numbers
    (`15`, `8080`: versions, counts, ports or dates of anything), the kinds' names (`fact`,
    `偏好`: every entry of a kind holds them) and general words (`name`, `way`, `work`, `year`,
    `关于`: `Limits.general_words`, and the store's forms that folding turned them into). So "a fun fact about octopuses" does not inject facts and
    "a good name for a cat" does not inject the memory about `__name__`, while a query of just
    `偏好` still lists preferences. A message of nothing but weak terms ("what's 15% of 80")
    passes only an entry that holds every one of them: one shared number is a coincidence.
    Relative floor: a hit scoring below this share of the best hit's score.
    """

    __slots__ = ("index", "terms", "idf", "mass", "best", "min_coverage", "relative_floor", "via_keywords",
                 "required", "all_weak", "weak", "_coverage", "_shared")

    def __init__(self, index: Index, terms: dict[str, int], min_coverage: float, relative_floor: float,
                 best: float, via_keywords: dict[int, dict[str, tuple[int, int, float, float]]] | None = None,
                 general: Collection[str] = (), shared: dict | None = None) -> None:
        self.index = index
        self.via_keywords = via_keywords or {}
        self.terms = terms
        self.idf = {term: index.idf(term) for term in terms if index.df(term)}
        self.weak = {term for term in terms if _weak(term, general)}
        self.all_weak = bool(terms) and len(self.weak) == len(terms)
        if not self.all_weak:
            self.idf = {term: idf for term, idf in self.idf.items() if term not in self.weak}
        self.mass = sum(qtf * self.idf[term] for term, qtf in terms.items() if term in self.idf)
        self.best = best
        self.min_coverage = min_coverage
        self.relative_floor = relative_floor
        self.required = min_coverage
        self._coverage: dict[int, float] = {}
        # what judging hits needs that depends only on the query (shared by the gates of one `pick`)
        self._shared = shared if shared is not None else {}

    def settle(self, ranked: Iterable[tuple[int, float]]) -> bool:
        """Lower the coverage required to the best any hit reaching the relative floor has, when
        none reaches `min_coverage`: when a long message spreads over several memories, the ones
        covering the most are still relevant, and only weaker ones are held back. `ranked` is
        (doc_id, score) best first; returns True once a hit reaching `min_coverage` was seen
        (nothing further can change the bar)."""
        if self.min_coverage <= 0.0 or self.all_weak:
            return True
        floor = self.relative_floor * self.best
        best = 0.0
        for doc_id, score in ranked:
            if score < floor:
                break
            best = max(best, self.coverage(doc_id))
            if best >= self.min_coverage:
                return True
        if best > 0.0:  # when no hit holds a real term of the message, none passes
            self.required = min(self.min_coverage, best)
        return False

    @property
    def active(self) -> bool:
        return self.min_coverage > 0.0 or self.relative_floor > 0.0

    def coverage(self, doc_id: int) -> float:
        cached = self._coverage.get(doc_id)
        if cached is not None:
            return cached
        if not self.mass:
            return 0.0
        if not self.via_keywords and self.index._vectorized:
            held = float(self._held_array()[doc_id])
        else:
            # A term counts if the text holds it or a keyword the query holds (the keyword-only cap
            # bounds the score, not what the entry is about).
            held = 0.0
            for term, qtf in self.terms.items():
                if term in self.idf:
                    held += qtf * self.idf[term] * self._share(doc_id, term)
        self._coverage[doc_id] = held / self.mass
        return self._coverage[doc_id]

    def _holds(self, doc_id: int, term: str) -> bool:
        return self._share(doc_id, term) > 0.0

    def _share(self, doc_id: int, term: str) -> float:
        """How much of `term` the entry holds for coverage: 1 in its text or a keyword matched
        whole; a keyword matched only in part counts as `KeywordField.part_covers` says."""
        if doc_id in self._holders(term):
            return 1.0
        matched = self.via_keywords.get(doc_id, {}).get(term)
        if matched is None:
            return 0.0
        share = matched[3]
        if share >= 1.0 or self.index.part_covers == "full":
            return 1.0
        return share if self.index.part_covers == "scaled" else 0.0

    def _holders(self, term: str) -> frozenset[int]:
        """The documents whose text holds `term`: made once per query term (and shared by the
        gates of one `pick`) from the postings the scoring read already, so judging a hit costs a
        set lookup per term, not a search of the postings (a long query judges hundreds of hits)."""
        holders = self._shared.get(term)
        if holders is None:
            holders = self._shared[term] = frozenset(self.index.holders(term))
        return holders

    def _held_array(self):
        """Per document, the mass of the counted terms its text holds, as a numpy array made from
        the postings of the query's terms (a vectorized index): added term by term in the query's
        order, so each sum is the very one `coverage` adds up in pure Python."""
        held = self._shared.get(None)
        if held is None:
            import numpy as np

            held = np.zeros(self.index.n, dtype=np.float64)
            for term, qtf in self.terms.items():
                if term in self.idf:
                    held[self.index._term_vector(term)[0]] += qtf * self.idf[term]
            self._shared[None] = held
        return held

    def reason(self, doc_id: int, score: float) -> str | None:
        """Why this hit is held back, in plain words; None if it passes."""
        if self.min_coverage > 0.0 and self.all_weak:
            missing = [term for term in self.terms if term not in self.idf or not self._holds(doc_id, term)]
            if missing:
                return (f"the message holds only numbers, kinds' names or general words, and this entry lacks "
                        f"{', '.join(missing)}: sharing one of those is a coincidence, not a match")
            return None
        if self.min_coverage > 0.0:
            share = self.coverage(doc_id)
            if share == 0.0:
                shared = [term for term in self.terms if term in self.weak and self._holds(doc_id, term)]
                if shared:
                    return (f"it shares only {', '.join(shared)} with the message: numbers, kinds' names and "
                            f"general words alone are a coincidence, not a match")
            if share < self.required - 1e-12:
                held, bar = _shares(share, self.required)
                needed = (f"at least {bar} is needed" if self.required >= self.min_coverage else
                          f"no entry reaches {self.min_coverage:.0%} and the best hold {bar}")
                return (f"the query terms it holds carry {held} of the query's weight (idf); "
                        f"{needed}, so it is too weak a match to inject")
        if self.relative_floor > 0.0 and score < self.relative_floor * self.best:
            return (f"its score {score:.2f} is below {self.relative_floor:.0%} of the best hit's {self.best:.2f}, "
                    f"so it is a weak tail beside a much better match")
        return None


def _shares(share: float, bar: float) -> tuple[str, str]:
    """`share` and `bar` as percentages, rounded down, with as many decimals as it takes for a
    share below the bar to read below it: 29.96% against a 30% bar is "29%", never "30%", and
    18.01% against a best of 18.05% is "18.01%" against "18.05%"."""
    for digits in range(4):
        scale = 10 ** digits
        low = math.floor(share * 100 * scale + 1e-9) / scale
        high = math.floor(bar * 100 * scale + 1e-9) / scale
        if low < high or share >= bar or digits == 3:
            return f"{low:.{digits}f}%", f"{high:.{digits}f}%"
    raise AssertionError("unreachable")


def pick(
    index: Index,
    tokens: Sequence[str],
    k: int,
    excluded: Container[int],
    stopwords: Collection[str],
    min_coverage: float = 0.0,
    relative_floor: float = 0.0,
    fold: bool = False,
    general: Collection[str] = (),
    languages: bool = False,
) -> list[tuple[int, float]]:
    """The hits to inject: the best `k` not excluded whose match passes the gate."""
    folded: dict[str, str] = {}
    kept, _ignored = split_query(tokens, stopwords, index.vocabulary if fold else None, folded, languages, general)
    general = general_after_folding(general, folded)
    if not (min_coverage > 0.0 or relative_floor > 0.0):
        return index.top(kept, k, excluded)
    if k <= 0:
        return []
    terms = query_terms(kept)
    if index.has_keywords:  # python scoring, stores within max_entries: rank every hit
        scores, via_keywords = index.term_scores(terms)
        ranked = sorted(((d, s) for d, s in scores.items() if s > 0.0 and d not in excluded),
                        key=lambda pair: (-pair[1], pair[0]))
        return _gated(index, terms, ranked, k, min_coverage, relative_floor, via_keywords, True, general)[0]
    if index._arrays(kept):  # a big store past its first query: judged over arrays, in bulk
        from .vector_pick import pick_arrays

        return pick_arrays(index, terms, k, excluded, min_coverage, relative_floor, general)
    # Without keywords, look at the best few hits first (cheap on a big store), and more only if
    # the gate needs them.
    size = max(8 * k, 32)
    shared: dict = {}
    while True:
        ranked = index.top(kept, size, excluded)
        picked, certain = _gated(index, terms, ranked, k, min_coverage, relative_floor, {}, len(ranked) < size,
                                 general, shared)
        if certain:
            return picked
        size *= 4


def _gated(
    index: Index,
    terms: dict[str, int],
    ranked: list[tuple[int, float]],
    k: int,
    min_coverage: float,
    relative_floor: float,
    via_keywords: dict[int, dict[str, tuple[int, int, float, float]]],
    exhaustive: bool,
    general: Collection[str] = (),
    shared: dict | None = None,
) -> tuple[list[tuple[int, float]], bool]:
    """The first `k` of `ranked` (best first) that pass the gate, and whether that is certain:
    `ranked` held every hit that matters (it is `exhaustive`, or reaches below the floor) or
    already gave `k` hits under a settled bar."""
    if not ranked:
        return [], True
    gate = Gate(index, terms, min_coverage, relative_floor, ranked[0][1], via_keywords, general, shared)
    complete = exhaustive or ranked[-1][1] < relative_floor * gate.best
    if not gate.settle(ranked) and not complete:
        return [], False
    picked = []
    for doc_id, score in ranked:
        if gate.reason(doc_id, score) is None:
            picked.append((doc_id, score))
            if len(picked) == k:
                return picked, True
    return picked, complete


def _best_first(scores: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(((doc_id, score) for doc_id, score in scores.items() if score > 0.0), key=lambda pair: (-pair[1], pair[0]))
