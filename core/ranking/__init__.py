"""Ranking, explain and injection: BM25 over the entries (`index`), the gate, the keywords field,
the semantic floor, the explanation of a query, and the fenced block that carries the picks.

Pure over the entries it is given: may import `text/`, `safety/` and the shared modules, never the
store (it does not know where the entries live) or the agents. Internal: the public names are
memtui_core.render_block, set_block, BLOCK_START and BLOCK_END, and MemoryStore's methods.
"""
