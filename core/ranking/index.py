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
from ..text.stopwords import languages as languages_words
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
        foreign, names = foreign_function_words(tokens, _English(stopwords, general))
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
            kinds[i] = next(name for name in names if token in languages_words()[name])
    if chained and edges and cjk:
        first_pass = list(kinds)
        for i, token in enumerate(tokens):
            if first_pass[i] is None and len(token) == 2 and (token[0] in edges or token[1] in edges) and (
                    token[0] >= "\x80" and _beside_function_word(tokens, i, first_pass, edges)):
                kinds[i] = "bigram"
    if why is not None:
        for token, kind in zip(tokens, kinds):
            if kind is not None:
                why.setdefault(token, kind)
    kept = [token for token, kind in zip(tokens, kinds) if kind is None]
    ignored = list(dict.fromkeys(token for token, kind in zip(tokens, kinds) if kind is not None))
    return (fold_inflections(kept, vocabulary, folded=folded) if vocabulary is not None else kept), ignored


def _edges(stopwords: Collection[str]) -> frozenset[str]:
    if EDGE_RULE == "off":
        return frozenset()
    return function_characters(stopwords if isinstance(stopwords, frozenset) else frozenset(stopwords))


class _English:
    """English function and general words, as `foreign_function_words` counts them: ASCII words
    of the stopwords or the general words."""

    __slots__ = ("stopwords", "general")

    def __init__(self, stopwords: Collection[str], general: Collection[str]) -> None:
        self.stopwords = stopwords
        self.general = general

    def __contains__(self, word: object) -> bool:
        return word in self.stopwords or word in self.general


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
    if token[0] in edges and i and dropped[i - 1] and len(tokens[i - 1]) == 2 and tokens[i - 1][1] == token[0]:
        return True
    after = i + 1
    return token[1] in edges and after < len(tokens) and bool(dropped[after]) and len(tokens[after]) == 2 and (
        tokens[after][0] == token[1])


def _function_bigram(tokens: Sequence[str], i: int, stopwords: Collection[str], edges: Collection[str] = ()) -> bool:
    """A CJK bigram that spans two words: one beginning or ending with a function character
    (`edges`, the "derived" rule), or both of whose characters belong to function words (么时 in
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


def _in_range(ids, n: int):
    """`ids` (postings, an array or a numpy array), checked to name documents 0..n-1 only: a saved
    index (store/derived.py) whose key and checksum hold may still not add up. IndexDamaged if not."""
    numpy = hasattr(ids, "min")
    if len(ids) and (int(ids.min() if numpy else min(ids)) < 0 or int(ids.max() if numpy else max(ids)) >= n):
        from ..errors import IndexDamaged

        raise IndexDamaged("the saved index's postings name entries the store does not hold")
    return ids


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
        self._recent: dict = {}  # the last queries' arrays (arrays.recent_query)

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
                ids = _in_range(self._ids[self._starts[slot] : self._starts[slot + 1]], self.n)
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
            known = self._df.get(term)  # counted from the ids array by arrays.QueryArrays, no posting list built
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
        numpy arrays, made on first use (arrays.py)."""
        parts = self._np
        if parts is None:
            import numpy as np

            ids = _in_range(np.frombuffer(self._ids, dtype=np.intc), self.n)
            parts = self._np = (ids, np.asarray(self._norm, dtype=np.float64))
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
        from .arrays import QueryArrays

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

        from .arrays import recent_query

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


def _best_first(scores: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(((doc_id, score) for doc_id, score in scores.items() if score > 0.0), key=lambda pair: (-pair[1], pair[0]))
