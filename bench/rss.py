"""Peak RSS of one process holding a store ready to answer: `python -m bench.rss WHO DIR`.

WHO is `ours` (MemoryStore + two queries, the derived index saved next to the file as any
earlier turn leaves it), `ours-derive` (the same in a copy of the folder without the index: the
process that parses the whole file and derives the index), `bm25s`, `rank_bm25`, `fts5-memory`
or `fts5-disk` (each indexing the same tokens), or `baseline` (python + orjson + the file parsed).
Prints the peak resident set size in MiB: VmHWM of /proc/self/status on Linux (getrusage's
ru_maxrss would carry the high-water mark of the parent that spawned us), else ru_maxrss.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path


WHO = ("ours", "ours-derive", "bm25s", "rank_bm25", "fts5-memory", "fts5-disk", "baseline")


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in WHO or not (Path(sys.argv[2]) / "memory.json").is_file():
        sys.exit(f"usage: python -m bench.rss {{{','.join(WHO)}}} DIR  (DIR holds a memory.json)")
    who, directory = sys.argv[1], Path(sys.argv[2])
    query = "部署脚本 dry-run 缓存"
    if who == "baseline":
        import orjson

        orjson.loads((directory / "memory.json").read_bytes())
    elif who in ("ours", "ours-derive"):
        from memtui_core import Limits, MemoryStore

        if who == "ours-derive":
            import shutil
            import tempfile

            directory = Path(tempfile.mkdtemp(prefix="memtui-rss-"))
            shutil.copy(Path(sys.argv[2]) / "memory.json", directory / "memory.json")
        store = MemoryStore(directory, Limits(max_entries=10**7))
        store.retrieve_block(query)
        store.retrieve_block("证书 rotation 新词")
        if who == "ours-derive":
            shutil.rmtree(directory, ignore_errors=True)
    else:
        import orjson

        from bench import peers
        from memtui_core.ranking.index import document_tokens
        from memtui_core.kinds import Kind
        from memtui_core.text.tokenize import tokenize

        entries = orjson.loads((directory / "memory.json").read_bytes())["entries"]
        docs = []
        for e in entries:
            kind = Kind(e["kind"])
            docs.append(document_tokens(e["text"], kind.label, kind.value))
        del entries
        tokens = tokenize(query)
        if who == "bm25s":
            peers.bm25s_query(peers.bm25s_build(docs), tokens)
        elif who == "rank_bm25":
            peers.rank_bm25_query(peers.rank_bm25_build(docs), tokens)
        elif who == "fts5-memory":
            db = peers.fts5_build(docs)
            del docs
            peers.fts5_query(db, tokens)
        elif who == "fts5-disk":
            db = peers.fts5_build(docs, directory / "fts5.db")
            del docs
            peers.fts5_query(db, tokens)
        else:
            raise SystemExit(f"unknown: {who}")
    print(f"{peak_mib():.1f}")


def peak_mib() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
