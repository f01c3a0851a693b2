"""The relevance evaluation: `python -m bench.relevance [--json] [--sweep] [--misses]`.

Set A: a store from bench/relevance_memories.json, the messages of bench/relevance_messages.json.
Set B: bench/relevance_set_b.json, written after the settings were chosen on set A.
Sets C, D and E: bench/relevance_set_c.json, relevance_set_d.json and relevance_set_e.json, written blind by someone who
never saw the ranking code or the other sets (docs/ranking.md, "The evaluation").
Each is replayed for three runs: the default profile with the memories' keywords, the default
profile on the texts alone, and the nanohermes profile (the original ranking). Per split (A dev:
the messages tuning looked at; A held-out: every third message of A; B: the second set) it prints:

- hit@4: relevant messages whose memory is injected;
- false recall: messages no memory is relevant to that inject anything;
- other entries per relevant turn: injected entries beside the expected one, on average;
- lexical hits kept: messages sharing a content word with their memory's text whose memory is injected;
- chars/turn: the block's characters per message, markers and header included (the pinned core and
  the retrieved entries: what the model reads every turn);
- core hits: relevant messages whose memory is in the block only through the pinned core.

A pinned entry that is the expected memory counts as a hit; the core is never a false recall and
never one of the other entries. Each profile runs with the pinned core (the default) and the
default and semantic ones also without it (`, no core`: `Limits.core_budget` 0, retrieval alone);
the original nanohermes profile has no core. `pooled` counts every message of every split once.

The "semantic" runs are the default in a long-running process (`Limits.semantic()`, docs/ranking.md
"Meaning in a long-running process"): every entry's vector is embedded when the store is built
(`MemoryStore.warm`), and each turn judges the words' hits by meaning and may admit one entry
sharing no word. `--set-file PATH` evaluates a further set of the
shape of relevance_set_b.json (named by its file's stem); `--sets A,E` (or `none`) picks the built-in ones.

`--sweep-core` prints the pinned core's budget against hit@4 and characters per turn (how
`Limits.core_budget` was chosen). The experiments below study retrieval: they rank with the pinned
core off (`Limits.core_budget` 0), as when their figures in docs/ranking.md were measured.

`--sweep` prints the dev-split figures over a grid of gate settings (how the defaults were chosen).
`--sweep-semantic` prints the semantic floor over a grid of floors on A-D (bench/relevance_semantic.py).
`--sweep-meaning` chooses meaning's keep and admit bars leaving one set out (bench/relevance_meaning.py).
`--sweep-common` and `--common-check T` replay the common-word experiment (bench/relevance_common.py).
`--sweep-recall` and `--recall-check SETTING` replay the semantic recall experiment (bench/relevance_recall.py).
`--sweep-keywords` and `--keywords-check SETTING` replay the keyword matching rules (bench/relevance_keywords.py).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


SETS = ("A", "B", "C", "D", "E")


EXTRA: dict[str, Path] = {}  # sets given with --set-file: name -> file


def load(name: str = "A") -> tuple[list[dict], list[dict]]:
    """The memories and messages of set A (each message tagged dev or held-out), of B-E, or of a
    file given with --set-file (the shape of relevance_set_b.json: memories, relevant, none)."""
    if name in ("B", "C", "D", "E") or name in EXTRA:
        path = EXTRA.get(name) or HERE / f"relevance_set_{name.lower()}.json"
        data = json.loads(path.read_text("utf-8"))
        memories = data["memories"]
        split = lambda i: name  # noqa: E731 - one split: all of it
    else:
        memories = json.loads((HERE / "relevance_memories.json").read_text("utf-8"))["memories"]
        data = json.loads((HERE / "relevance_messages.json").read_text("utf-8"))
        split = lambda i: "held-out" if i % 3 == 2 else "dev"  # noqa: E731
    messages = [dict(m, split=split(i)) for i, m in enumerate(data["relevant"])]
    messages += [{"text": t, "expect": [], "lexical": False, "split": split(i)} for i, t in enumerate(data["none"])]
    for message in messages:
        message.setdefault("lexical", False)
    return memories, messages


def add_set_file(path: str) -> str:
    """Register an extra set file for `load`; its name is the file's stem. One-line errors."""
    file = Path(path)
    try:
        data = json.loads(file.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"cannot read the set file {path}: {error}") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(key), list) for key in ("memories", "relevant", "none")):
        raise SystemExit(f"the set file {path} must be an object with lists 'memories', 'relevant' and 'none'")
    name = file.stem if file.stem not in SETS else f"{file.stem} ({file.name})"  # never a built-in set's name
    EXTRA[name] = file
    return name


def built(sets, limits, tmp):
    """Each set's store, built in `tmp` twice, with its memories' keywords and on their texts alone:
    (set name, run ("keywords" or "texts"), with_keywords, store, ids, memories, messages)."""
    for set_name in sets:
        memories, messages = load(set_name)
        for with_keywords in (True, False):
            run = "keywords" if with_keywords else "texts"
            store, ids = build(Path(tmp) / f"{set_name}{run}", memories, with_keywords, limits)
            yield set_name, run, with_keywords, store, ids, memories, messages


def build(directory: Path, memories: list[dict], with_keywords: bool, limits) -> tuple[object, dict[str, str]]:
    from memtui_core import MemoryStore

    store = MemoryStore(directory, limits)
    ids = {}
    for memory in memories:
        keywords = memory["keywords"] if with_keywords else None
        ids[store.remember(memory["kind"], memory["text"], source="bench", keywords=keywords).entry.id] = memory["id"]
    store.warm()  # a long-running process's store: every entry's vector, when the profile ranks by meaning
    return store, ids


def block_pick(store, text: str) -> tuple[list[str], list[str], int]:
    """What `retrieve_block(text)` puts in the prompt, without logging it: the ids of the pinned
    core, the ids of the retrieved entries that fit, and the block's characters (markers and
    header included: what the model reads)."""
    from memtui_core.ranking.inject import render_lines

    lang = store.language(text)
    hits, core = store._turn(text, None, render=True, core_lang=lang)
    lines = core.lines if core is not None else ()
    records = [record for record, _score in hits]
    rendered = render_lines(records, store.limits.char_budget, lang, lines)
    in_core = [record.id for record in core.records] if core is not None else []
    return in_core, [record.id for record in records[: rendered.fitted]], len(rendered.block)


def measure(store, ids: dict[str, str], messages: list[dict], pick=None, block: bool = False) -> dict[str, float]:
    """The figures of one run; `pick(store, text)` replaces `store.search` (it returns entry ids).
    `block`: judge what the block carries instead (`block_pick`): the pinned core and the retrieved
    entries. A core entry that is the expected memory is a hit; the core is never a false recall
    and never counts among the other entries; its characters count in the turn's cost."""
    pick = pick or (lambda store, text: [h.entry.id for h in store.search(text)])
    relevant = [m for m in messages if m["expect"]]
    none = [m for m in messages if not m["expect"]]
    lexical = [m for m in relevant if m["lexical"]]
    hits = others = kept = recalled = chars = from_core = 0
    misses, noise = [], []

    def chosen(text: str) -> tuple[list[str], list[str]]:
        nonlocal chars
        if not block:
            return [], [ids[i] for i in pick(store, text)]
        in_core, retrieved, size = block_pick(store, text)
        chars += size
        return [ids[i] for i in in_core], [ids[i] for i in retrieved]

    for message in relevant:
        in_core, picked = chosen(message["text"])
        found = set(message["expect"]) & set(picked + in_core)
        hits += bool(found)
        from_core += bool(found) and not set(message["expect"]) & set(picked)
        others += len([p for p in picked if p not in message["expect"]])
        if message["lexical"] and found:
            kept += 1
        if not found:
            misses.append(message["text"])
    for message in none:
        _core, picked = chosen(message["text"])
        if picked:
            recalled += 1
            noise.append(f"{message['text']} -> {', '.join(picked)}")
    return {
        "hit@4": hits / len(relevant),
        "false_recall": recalled / len(none),
        "others_per_relevant_turn": others / len(relevant),
        "lexical_hits_kept": kept / len(lexical) if lexical else 1.0,
        "chars_per_turn": chars / len(messages) if block else None,
        "hits_from_core": from_core,
        "relevant": len(relevant), "none": len(none), "lexical": len(lexical),
        "misses": misses, "false_recalls": noise,
    }


NO_CORE = ", no core"  # a run with the pinned core off (Limits.core_budget 0): retrieval alone


def runs(core: bool = True):
    """The runs: each profile with the pinned core (the default) and, for the default and semantic
    profiles with keywords, without it (`core=False`: only those; nanohermes never has one)."""
    from memtui_core import Limits

    off = {"core_budget": 0}
    with_core = [("default, keywords", Limits(), True), ("default, texts alone", Limits(), False),
                 ("nanohermes", Limits.nanohermes(), True),
                 ("semantic, keywords", Limits.semantic(), True), ("semantic, texts alone", Limits.semantic(), False)]
    without = [("default, keywords" + NO_CORE, Limits(**off), True),
               ("default, texts alone" + NO_CORE, Limits(**off), False),
               ("semantic, keywords" + NO_CORE, Limits.semantic(**off), True)]
    return with_core + without if core else without


def evaluate(limits_by_run=None, sets=SETS) -> dict[str, dict[str, dict]]:
    """Per run and split, the figures of the block each message gets (`measure(..., block=True)`)."""
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name in sets:
            memories, messages = load(set_name)
            for n, (name, limits, with_keywords) in enumerate(limits_by_run or runs()):
                store, ids = build(Path(tmp) / f"{set_name}{n}", memories, with_keywords, limits)
                splits = ("dev", "held-out") if set_name == "A" else (set_name,)
                for split in splits:
                    results.setdefault(name, {})[split if set_name != "A" else f"A {split}"] = measure(
                        store, ids, [m for m in messages if m["split"] == split], block=True)
    return results


def pooled(splits: dict[str, dict]) -> dict[str, float]:
    """The figures of every split of a run together, each message counting once."""
    rel = sum(f["relevant"] for f in splits.values())
    none = sum(f["none"] for f in splits.values())
    lex = sum(f["lexical"] for f in splits.values())
    turns = rel + none
    out = {
        "hit@4": sum(f["hit@4"] * f["relevant"] for f in splits.values()) / rel if rel else 0.0,
        "false_recall": sum(f["false_recall"] * f["none"] for f in splits.values()) / none if none else 0.0,
        "others_per_relevant_turn": sum(f["others_per_relevant_turn"] * f["relevant"] for f in splits.values()) / rel
        if rel else 0.0,
        "lexical_hits_kept": sum(f["lexical_hits_kept"] * f["lexical"] for f in splits.values()) / lex if lex else 1.0,
        "hits_from_core": sum(f.get("hits_from_core", 0) for f in splits.values()),
        "relevant": rel, "none": none, "lexical": lex,
    }
    charged = [f for f in splits.values() if f.get("chars_per_turn") is not None]
    out["chars_per_turn"] = (sum(f["chars_per_turn"] * (f["relevant"] + f["none"]) for f in charged) / turns
                             if charged and turns else None)
    return out


def table(results: dict[str, dict[str, dict]], sets=SETS) -> str:
    width = max([11, *(len(split) for splits in results.values() for split in splits)])
    lines = [f"{'run':<32} {'split':<{width}} {'hit@4':>6} {'false recall':>13} {'others/turn':>12} "
             f"{'lexical kept':>13} {'chars/turn':>10} {'core hits':>9}"]

    def row(name: str, split: str, r: dict) -> str:
        chars = f"{r['chars_per_turn']:>10.0f}" if r.get("chars_per_turn") is not None else f"{'-':>10}"
        return (f"{name:<32} {split:<{width}} {r['hit@4']:>6.0%} {r['false_recall']:>13.0%} "
                f"{r['others_per_relevant_turn']:>12.2f} {r['lexical_hits_kept']:>13.0%} {chars} "
                f"{r.get('hits_from_core', 0):>9}")

    for name, splits in results.items():
        for split, r in splits.items():
            lines.append(row(name, split, r))
        if len(splits) > 1:
            lines.append(row(name, "pooled", pooled(splits)))
    for set_name in sets:
        memories, messages = load(set_name)
        relevant = [m for m in messages if m["expect"]]
        lines.append(f"set {set_name}: {len(memories)} memories; {len(relevant)} relevant messages "
                     f"({sum(m['lexical'] for m in relevant)} lexical), {len(messages) - len(relevant)} with no memory"
                     + {"A": "; held-out = every third message", "B": "; written after tuning",
                        "C": "; written blind by someone who never saw the ranking",
                        "D": "; written blind, first measured held out",
                        "E": "; written blind, measured held out before any tuning"}.get(
                         set_name, f"; from {EXTRA.get(set_name)}"))
    return "\n".join(lines)


CORE_BUDGETS = (0, 200, 300, 400, 500, 600, 800, 1000, 1200, 1600)


def sweep_core(sets=SETS, budgets=CORE_BUDGETS, with_keywords: bool = True) -> str:
    """The pinned core's budget against what it buys: per budget, the default profile's pooled
    hit@4, false recall, other entries and characters per turn over `sets`, and per set hit@4 and
    characters (how `Limits.core_budget` was chosen: docs/ranking.md, "The pinned core")."""
    from memtui_core import Limits

    figures: dict[int, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name in sets:
            memories, messages = load(set_name)
            store, ids = build(Path(tmp) / set_name, memories, with_keywords, Limits())
            for budget in budgets:
                limits = Limits(core_budget=budget)
                from memtui_core import MemoryStore

                figures.setdefault(budget, {})[set_name] = measure(MemoryStore(store.dir, limits), ids, messages,
                                                                   block=True)
    head = f"{'core_budget':>11} | {'hit@4':>6} {'FR':>5} {'others':>6} {'chars':>6} {'core hits':>9} | " + " ".join(
        f"{name + ' hit/chars':>14}" for name in sets)
    lines = [head]
    for budget in budgets:
        by_set = figures[budget]
        p = pooled(by_set)
        cells = " ".join(f"{f['hit@4']:>6.0%}/{f['chars_per_turn']:>6.0f}  " for f in by_set.values())
        lines.append(f"{budget:>11} | {p['hit@4']:>6.1%} {p['false_recall']:>5.0%} {p['others_per_relevant_turn']:>6.2f} "
                     f"{p['chars_per_turn']:>6.0f} {p['hits_from_core']:>9} | {cells}")
    return "\n".join(lines)


def why_missed(sets=SETS) -> str:
    """Why each relevant message misses its memory, by the expected entry's status in `explain`
    (default profile, with keywords and texts alone): whether any term is shared at all tells
    whether a lexical rule could ever find it."""
    from memtui_core import Limits

    labels = {"zero_score": "no term shared", "below_threshold": "held back by the gate",
              "cut_top_k": "ranked below top-k", "cut_budget": "cut by the budget", "blocked": "blocked by the scan"}
    lines = [f"{'run':<22} {'set':<11} {'misses':>6}  why (the expected entry's status)"]
    with tempfile.TemporaryDirectory() as tmp:
        for set_name in sets:
            memories, messages = load(set_name)
            relevant = [m for m in messages if m["expect"]]
            for with_keywords in (True, False):
                store, ids = build(Path(tmp) / f"{set_name}{with_keywords}", memories, with_keywords, Limits())
                ours = {theirs: mine for mine, theirs in ids.items()}
                counts: dict[str, int] = {}
                for message in relevant:
                    explanation = store.explain(message["text"])
                    statuses = [explanation.for_id(ours[i]).status.value for i in message["expect"]]
                    if "injected" in statuses or "pinned" in statuses:  # the pinned core carries it: a hit
                        continue
                    # the closest any expected entry came: shared a term beats sharing none
                    status = min(statuses, key=lambda st: st == "zero_score")
                    counts[status] = counts.get(status, 0) + 1
                run = "default, keywords" if with_keywords else "default, texts alone"
                why = ", ".join(f"{labels.get(k, k)} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
                lines.append(f"{run:<22} {set_name:<11} {sum(counts.values()):>6}  {why}")
    return "\n".join(lines)


def distill_keywords() -> str:
    """Sets C, D and E with the keywords written under each version of the distiller's keyword
    instruction (bench/relevance_distill_keywords.json; `shipped` is today's), default profile and
    semantic profile."""
    from memtui_core import Limits

    data = json.loads((HERE / "relevance_distill_keywords.json").read_text("utf-8"))
    lines = [f"{'run':<22} {'set, rule':<16} {'hit@4':>6} {'false recall':>13} {'others/turn':>12} {'lexical kept':>13} "
             f"{'keywords':>9}"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, limits in (("default, keywords", Limits()), ("semantic, keywords", Limits.semantic())):
            for set_name, by_rule in data["sets"].items():
                memories, messages = load(set_name)
                for rule, keywords in by_rule.items():
                    written = [dict(m, keywords=keywords[m["id"]]) for m in memories]
                    store, ids = build(Path(tmp) / f"{name[:3]}{set_name}{rule}", written, True, limits)
                    r = measure(store, ids, messages)
                    label = f"{set_name}, {rule}" + ("*" if rule == data["shipped"] else "")
                    lines.append(f"{name:<22} {label:<16} {r['hit@4']:>6.0%} {r['false_recall']:>13.0%} "
                                 f"{r['others_per_relevant_turn']:>12.2f} {r['lexical_hits_kept']:>13.0%} "
                                 f"{sum(map(len, keywords.values())):>9}")
    return "\n".join(lines)


def traditional(sets=SETS) -> str:
    """Each set with its memories' keywords, then its messages, turned into traditional Chinese by
    OpenCC (s2tw), the default profile with keywords, with and without the fold of the tokenizer
    (docs/ranking.md, "Tokens"): what a distiller writing the other script would cost. Needs
    `pip install opencc`."""
    import opencc

    from memtui_core import Limits
    from memtui_core.text import tokenize as tokenizer

    convert = opencc.OpenCC("s2tw").convert
    real = tokenizer.fold_han
    lines = [f"{'set':<6} {'variant':<24} {'fold':<5} {'hit@4':>6} {'false recall':>13} {'others/turn':>12}"]
    with tempfile.TemporaryDirectory() as tmp:
        for set_name in sets:
            memories, messages = load(set_name)
            variants = {
                "as written": (memories, messages),
                "keywords traditional": ([dict(m, keywords=[convert(k) for k in m.get("keywords", [])])
                                          for m in memories], messages),
                "messages traditional": (memories, [dict(m, text=convert(m["text"])) for m in messages]),
            }
            for name, (mems, msgs) in variants.items():
                for fold in (False, True):
                    tokenizer.fold_han = real if fold else (lambda run: run)
                    try:
                        store, ids = build(Path(tmp) / f"{set_name}{len(lines)}", mems, True, Limits())
                        r = measure(store, ids, msgs)
                    finally:
                        tokenizer.fold_han = real
                    lines.append(f"{set_name:<6} {name:<24} {'on' if fold else 'off':<5} {r['hit@4']:>6.1%} "
                                 f"{r['false_recall']:>13.1%} {r['others_per_relevant_turn']:>12.2f}")
    return "\n".join(lines)


SWEEP = {
    "keyword_weight": (0.3, 0.6, 1.0),
    "keyword_only_terms": (1, 2),
    "min_coverage": (0.0, 0.2, 0.3, 0.4, 0.5),
    "relative_floor": (0.0, 0.2, 0.3, 0.4, 0.5),
}


def sweep() -> str:
    from memtui_core import Limits

    memories, messages = load("A")
    dev = [m for m in messages if m["split"] == "dev"]
    out = [f"{'weight':>6} {'kw-only':>7} {'coverage':>8} {'floor':>6} | {'hit@4':>6} {'FR':>5} {'others':>6} "
           f"{'lex':>5} | texts: {'FR':>5} {'lex':>5}"]
    from memtui_core import MemoryStore

    with tempfile.TemporaryDirectory() as tmp:
        # One store with keywords and one without; each setting reads them with its own limits.
        keyworded, ids = build(Path(tmp) / "k", memories, True, Limits())
        plain, plain_ids = build(Path(tmp) / "t", memories, False, Limits())
        for weight in SWEEP["keyword_weight"]:
            for only in SWEEP["keyword_only_terms"]:
                for coverage in SWEEP["min_coverage"]:
                    for floor in SWEEP["relative_floor"]:
                        limits = Limits(keyword_weight=weight, keyword_only_terms=only, min_coverage=coverage,
                                        relative_floor=floor)
                        r = measure(MemoryStore(keyworded.dir, limits), ids, dev)
                        t = measure(MemoryStore(plain.dir, limits), plain_ids, dev)
                        out.append(f"{weight:>6} {only:>7} {coverage:>8} {floor:>6} | {r['hit@4']:>6.0%} "
                                   f"{r['false_recall']:>5.0%} {r['others_per_relevant_turn']:>6.2f} "
                                   f"{r['lexical_hits_kept']:>5.0%} | texts: {t['false_recall']:>5.0%} "
                                   f"{t['lexical_hits_kept']:>5.0%}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.relevance", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--sweep", action="store_true", help="the dev-split figures over a grid of gate settings")
    parser.add_argument("--sweep-common", action="store_true",
                        help="the common-word experiment over thresholds on A dev, B, C and D (needs wordfreq)")
    parser.add_argument("--common-check", type=float, metavar="T",
                        help="set E before and after the common-word rule at threshold T (needs wordfreq)")
    parser.add_argument("--sweep-semantic", action="store_true",
                        help="the semantic floor over a grid of floors, refilled or not, on A-D (how it was chosen)")
    parser.add_argument("--traditional", action="store_true",
                        help="each set with its keywords, then its messages, in traditional Chinese, with and "
                             "without the tokenizer's fold (needs opencc)")
    parser.add_argument("--sweep-meaning", action="store_true",
                        help="meaning's keep and admit bars over a grid, chosen leaving one of A-E out "
                             "(bench/relevance_meaning.py); any --set-file set is reported with the bars chosen")
    parser.add_argument("--semantic-cost", action="store_true",
                        help="the semantic floor's per-turn cost: new processes and a warm one (set A's store)")
    parser.add_argument("--sweep-recall", action="store_true",
                        help="the semantic recall experiment over a grid of settings on A-D (bench/relevance_recall.py)")
    parser.add_argument("--recall-check", metavar="SETTING",
                        help="the sets chosen with --sets (default: E) before and after recall at SETTING "
                             "('R,M,when,scope' or 'rrf,R')")
    parser.add_argument("--recall-ceiling", action="store_true",
                        help="where the memories the words miss stand by cosine, on A-D (why recall gains little)")
    parser.add_argument("--recall-cost", action="store_true",
                        help="what recall would pay in a new process: every entry's vector (36 and 500 entries)")
    parser.add_argument("--sweep-keywords", action="store_true",
                        help="keyword matching rules (part matches of several-word keywords) on A-D (bench/relevance_keywords.py)")
    parser.add_argument("--keywords-check", metavar="SETTING",
                        help="the sets chosen with --sets (default: E) with and without a keyword rule "
                             "('W,each|rarest|cjk,credit|nocredit|scaled,ONLY')")
    parser.add_argument("--set-file", action="append", default=[], metavar="PATH",
                        help="also evaluate this set (JSON of relevance_set_b.json's shape); repeatable")
    parser.add_argument("--sets", metavar="NAMES", help="the built-in sets to evaluate, e.g. 'A,E' or 'none' "
                                                       "(default: all)")
    parser.add_argument("--misses", action="store_true", help="also list the misses and false recalls")
    parser.add_argument("--distill-keywords", action="store_true",
                        help="sets C, D and E with keywords written under each version of the distiller's "
                             "keyword instruction (bench/relevance_distill_keywords.json; * marks today's)")
    parser.add_argument("--ceiling", action="store_true",
                        help="where lexical ranking stops: the gate's bars against false recall, keywords as text "
                             "against the keyword field, a learned gate (bench/relevance_ceiling.py); sets A-E and "
                             "any --set-file")
    parser.add_argument("--sweep-core", action="store_true",
                        help="the pinned core's budget against hit@4 and characters per turn, default profile "
                             "with keywords, on the sets chosen (how Limits.core_budget was chosen)")
    parser.add_argument("--why-missed", action="store_true",
                        help="per set, why the misses miss: no term shared, held back by the gate, below top-k")
    args = parser.parse_args(argv)
    if args.sweep:
        print(sweep())
        return 0
    if args.sweep_semantic:
        from bench import relevance_semantic

        print(relevance_semantic.sweep())
        return 0
    if args.sweep_recall:
        from bench import relevance_recall

        print(relevance_recall.sweep())
        return 0
    if args.recall_ceiling:
        from bench import relevance_recall

        print(relevance_recall.ceiling())
        return 0
    if args.recall_cost:
        from bench import relevance_recall

        print(relevance_recall.cost())
        return 0
    if args.sweep_keywords:
        from bench import relevance_keywords

        print(relevance_keywords.sweep())
        return 0
    if args.keywords_check:
        from bench import relevance_keywords

        chosen = ("E",) if args.sets is None else tuple(n.strip().upper() for n in args.sets.split(",") if n.strip())
        print(relevance_keywords.check(relevance_keywords.Setting.parse(args.keywords_check), chosen))
        return 0
    if args.recall_check:
        from bench import relevance_recall

        chosen = ("E",) if args.sets is None else tuple(n.strip().upper() for n in args.sets.split(",") if n.strip())
        print(relevance_recall.check(relevance_recall.Setting.parse(args.recall_check), chosen))
        return 0
    if args.distill_keywords:
        print(distill_keywords())
        return 0
    if args.semantic_cost:
        from bench import relevance_semantic

        print(relevance_semantic.cost())
        return 0
    sets = SETS if args.sets is None else tuple(
        name.strip().upper() for name in args.sets.split(",") if name.strip() and name.strip().lower() != "none")
    unknown = [name for name in sets if name not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}: choose among {', '.join(SETS)}")
    sets += tuple(add_set_file(path) for path in args.set_file)
    if not sets:
        parser.error("no set to evaluate")
    if args.traditional:
        print(traditional(sets))
        return 0
    if args.sweep_meaning:
        from bench import relevance_meaning

        print(relevance_meaning.sweep(name for name in sets if name not in SETS))
        return 0
    if args.sweep_common or args.common_check is not None:
        from bench import relevance_common

        print(relevance_common.sweep() if args.sweep_common else relevance_common.check(args.common_check))
        return 0
    if args.why_missed:
        print(why_missed(sets))
        return 0
    if args.sweep_core:
        print(sweep_core(sets))
        return 0
    if args.ceiling:
        from bench import relevance_ceiling

        print(relevance_ceiling.report(name for name in sets if name not in SETS))
        return 0
    results = evaluate(sets=sets)
    if args.json:
        for splits in results.values():
            if len(splits) > 1:
                splits["pooled"] = pooled(splits)
        print(json.dumps(results, ensure_ascii=False, indent=2))
        return 0
    print(table(results, sets))
    if args.misses:
        for name, splits in results.items():
            for split, figures in splits.items():
                print(f"\n{name}, {split}: misses: {figures['misses']}\n  false recalls: {figures['false_recalls']}")
    return 0


if __name__ == "__main__":
    # Run as `python -m bench.relevance`, this module is __main__; the replays import bench.relevance,
    # which must be this module, or they would not see the sets registered with --set-file.
    sys.modules.setdefault("bench.relevance", sys.modules[__name__])
    sys.exit(main())
