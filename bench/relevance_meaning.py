"""How meaning's bars were chosen: `python -m bench.relevance --sweep-meaning`.

The rule of core/ranking/meaning.py, replayed on sets A-E (and any --set-file set, reported but
never chosen on): the words' hits (default profile, the gate; as many as the engine judges, 3 × top_k),
each entry's cosine with each message, and `meaning.combine` over a grid of settings:

- keep bar (`Limits.semantic_floor`): 0 (off), 0.76-0.83;
- admit bar (`Limits.semantic_admit`): 0 (off), 0.84-0.92;
- at most 1 or top_k entries admitted a turn; admitted from the entries sharing no scored word
  ("wordless") or from every entry the words did not pick ("unpicked");
- each entry embedded as its text alone, its text then its keywords, or as the sum of its text's
  vector and its keywords' vector, normalised (keywords runs only).

The rule, fixed before the sweep ran: leave one set out. For each of A-E, on the other four pooled,
with keywords: among the settings whose other entries per relevant turn are at most the words'
+ 0.05 and whose lexical hits kept are at least the words' - 2 points, the one with the largest
hit@4 minus false recall (pooled rates; ties: fewer others). Its figures on the set left out are
reported. The shipped bars are the same rule on all five pooled. Texts alone are reported with it.
"""

from __future__ import annotations

import tempfile
from itertools import product
from pathlib import Path

KEEP = (0.0, 0.76, 0.78, 0.79, 0.80, 0.81, 0.82, 0.83)
ADMIT = (0.0, 0.84, 0.85, 0.86, 0.87, 0.88, 0.89, 0.90, 0.92)
ADMIT_MAX = (1, 4)
POOL = ("wordless", "unpicked")
PASSAGE = ("text", "text+keywords", "text vector+keywords vector")
SETS = ("A", "B", "C", "D", "E")


class Embeddings:
    """Every text's vector, kept in a file in the temporary folder between runs (query and passage
    sides apart)."""

    def __init__(self) -> None:
        import numpy as np

        self.path = Path(tempfile.gettempdir()) / "memtui-bench-embeddings.npz"
        self.known: dict[tuple[str, str], object] = {}
        if self.path.exists():
            data = np.load(self.path, allow_pickle=False)
            for side, text, row in zip(data["sides"].tolist(), data["texts"].tolist(), data["rows"]):
                self.known[(side, text)] = row
        self.added = False

    def get(self, texts: list[str], side: str):
        import numpy as np

        from memtui_core.text import semantic

        missing = [t for t in dict.fromkeys(texts) if (side, t) not in self.known]
        for start in range(0, len(missing), 16):
            chunk = missing[start:start + 16]
            rows = semantic.queries(chunk) if side == "query" else semantic.passages(chunk)
            if rows is None:
                raise SystemExit(f"the embedder is unavailable: {semantic.status()}")
            self.known.update({(side, t): row for t, row in zip(chunk, rows)})
            self.added = True
        return np.stack([self.known[(side, t)] for t in texts]) if texts else np.empty((0, 384), np.float32)

    def save(self) -> None:
        import numpy as np

        if not self.added:
            return
        keys = list(self.known)
        np.savez(self.path, sides=np.array([k[0] for k in keys]), texts=np.array([k[1] for k in keys]),
                 rows=np.stack([self.known[k] for k in keys]))


def replays(sets=SETS) -> dict:
    """Per (set, run): the store's ids and, per message, (its words' hits, the scored entries, each
    entry's cosine under each passage form)."""
    import numpy as np

    from bench.relevance import built
    from memtui_core import Limits
    from memtui_core.ranking.index import split_query
    from memtui_core.text.tokenize import tokenize

    embeddings = Embeddings()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name, run, with_keywords, store, ids, memories, messages in built(sets, Limits(core_budget=0), tmp):
            records = store._snap().records
            order = [r.id for r in records]
            passages = {"text": embeddings.get([r.text for r in records], "passage")}
            if with_keywords:
                passages["text+keywords"] = embeddings.get(
                    [r.text + (" " + ", ".join(r.keywords) if r.keywords else "") for r in records], "passage")
                # the text's vector (the threat scan's) plus a vector of the keywords alone, normalised
                words = embeddings.get([", ".join(r.keywords) if r.keywords else r.text for r in records], "passage")
                summed = passages["text"] + words
                passages["text vector+keywords vector"] = summed / np.linalg.norm(summed, axis=1, keepdims=True)
            queries = embeddings.get([m["text"] for m in messages], "query")
            index = store._snap(lean=False).index
            limits = store.limits
            blocked = {i for i, r in enumerate(records) if r.blocked}
            judged = []
            position = {entry_id: i for i, entry_id in enumerate(order)}
            for message, q in zip(messages, queries):
                hits = store.search(message["text"], top_k=3 * limits.top_k)
                lexical = [(position[h.entry.id], h.score) for h in hits]
                kept, _ = split_query(tokenize(message["text"]), limits.stopwords, index.vocabulary, None,
                                      bool(limits.language_stopwords), limits.general_words)
                scored = {d for d, s in index.scores(kept).items() if s > 0} if kept else set()
                cosines = {form: matrix @ q for form, matrix in passages.items()}
                judged.append((lexical, scored, cosines))
            out[(set_name, run)] = (store, ids, order, blocked, messages, judged)
    embeddings.save()
    return out


def _picker(replay, keep, admit, admit_max, pool, passage, k=4):
    import numpy as np

    from memtui_core.ranking import meaning

    store, ids, order, blocked, messages, judged = replay
    by_text = {m["text"]: j for m, j in zip(messages, judged)}

    def pick(_store, text: str) -> list[str]:
        lexical, scored, cosines = by_text[text]
        values = cosines.get(passage, cosines["text"])
        known = np.ones(len(values), dtype=bool)
        choice = meaning.combine(lexical, values, known, k, keep, admit, blocked, scored, admit_max, pool)
        return [order[d] for d, _ in choice.picked]

    return pick


def figures(replay, setting) -> dict:
    from bench.relevance import measure

    store, ids, order, blocked, messages, judged = replay
    return measure(store, ids, messages, _picker(replay, *setting))


def pooled(results: list[dict]) -> dict:
    """The figures of several sets together, each message counting once (bench.relevance.pooled)."""
    from bench.relevance import pooled as pooled_splits

    return pooled_splits(dict(enumerate(results)))


def settings():
    for keep, admit, admit_max, pool, passage in product(KEEP, ADMIT, ADMIT_MAX, POOL, PASSAGE):
        if not admit and (admit_max, pool) != (1, "wordless"):
            continue  # without admission these change nothing
        yield keep, admit, admit_max, pool, passage


WORDS = (0.0, 0.0, 1, "wordless", "text")  # the words alone: nothing kept back, nothing admitted


def choose(grid: dict, train: list[str]) -> tuple:
    base = pooled([grid[(s, "keywords", WORDS)] for s in train])
    best, best_key = None, None
    for setting in settings():
        figs = pooled([grid[(s, "keywords", setting)] for s in train])
        if figs["others_per_relevant_turn"] > base["others_per_relevant_turn"] + 0.05 + 1e-9:
            continue
        if figs["lexical_hits_kept"] < base["lexical_hits_kept"] - 0.02 - 1e-9:
            continue
        key = (figs["hit@4"] - figs["false_recall"], -figs["others_per_relevant_turn"])
        if best_key is None or key > best_key:
            best, best_key = setting, key
    return best


def sweep(extra=()) -> str:
    sets = SETS + tuple(extra)
    data = replays(sets)
    grid = {}
    for (set_name, run), replay in data.items():
        for setting in settings():
            if run == "texts" and setting[4] != "text":
                continue
            grid[(set_name, run, setting)] = figures(replay, setting)
    lines = ["leave one set out (chosen on the other four of A-E, keywords):",
             f"{'set':<6} {'chosen (keep, admit, max, pool, passage)':<44} {'run':<9} {'hit@4':>12} "
             f"{'false recall':>14} {'others':>12} {'lexical kept':>14}"]

    def row(set_name, run, setting, label):
        words = grid[(set_name, run, WORDS)]
        figs = grid[(set_name, run, setting if run == "keywords" else setting[:4] + ("text",))]
        return (f"{set_name:<6} {label:<44} {run:<9} {words['hit@4']:>5.0%}->{figs['hit@4']:<5.0%} "
                f"{words['false_recall']:>6.0%}->{figs['false_recall']:<6.0%} "
                f"{words['others_per_relevant_turn']:>5.2f}->{figs['others_per_relevant_turn']:<5.2f} "
                f"{words['lexical_hits_kept']:>6.0%}->{figs['lexical_hits_kept']:<6.0%}")

    for held in SETS:
        chosen = choose(grid, [s for s in SETS if s != held])
        for run in ("keywords", "texts"):
            lines.append(row(held, run, chosen, str(chosen)))
    final = choose(grid, list(SETS))
    lines.append(f"chosen on all of A-E: {final}")
    for set_name in sets:
        for run in ("keywords", "texts"):
            lines.append(row(set_name, run, final, "(the shipped bars)"))
    for run in ("keywords", "texts"):
        setting = final if run == "keywords" else final[:4] + ("text",)
        words = pooled([grid[(s, run, WORDS)] for s in SETS])
        figs = pooled([grid[(s, run, setting)] for s in SETS])
        lines.append(f"A-E pooled, {run}: hit@4 {words['hit@4']:.1%} -> {figs['hit@4']:.1%}, false recall "
                     f"{words['false_recall']:.1%} -> {figs['false_recall']:.1%}, others "
                     f"{words['others_per_relevant_turn']:.2f} -> {figs['others_per_relevant_turn']:.2f}, lexical kept "
                     f"{words['lexical_hits_kept']:.1%} -> {figs['lexical_hits_kept']:.1%}")
    lines.append("")
    lines.append("A-E pooled, keywords, the chosen bars with each way of embedding an entry:")
    for passage in PASSAGE:
        setting = final[:4] + (passage,)
        figs = pooled([grid[(s, "keywords", setting)] for s in SETS])
        lines.append(f"  {passage:<28} hit@4 {figs['hit@4']:.1%}, false recall {figs['false_recall']:.1%}, others "
                     f"{figs['others_per_relevant_turn']:.2f}, lexical kept {figs['lexical_hits_kept']:.1%}")
    lines.append("")
    lines.append("A-E pooled, keywords, by keep and admit bar (max 1, unpicked, text):")
    for keep in KEEP:
        cells = []
        for admit in ADMIT:
            setting = (keep, admit, 1, "unpicked" if admit else "wordless", "text")
            figs = pooled([grid[(s, "keywords", setting)] for s in SETS])
            cells.append(f"{figs['hit@4']:.0%}/{figs['false_recall']:.0%}")
        lines.append(f"keep {keep:.2f}: " + "  ".join(f"{a:.2f} {c}" for a, c in zip(ADMIT, cells)))
    return "\n".join(lines)
