"""A 20-turn agent loop in Chinese and English, as the README wires it: retrieve before each turn,
distil after it, with a distiller whose replies take every shape models send. Every memory the
distiller proposes is either in the store or reported; the block follows the user's language."""

from __future__ import annotations

import json

from memtui_core import MemoryStore, distill_memories, set_block
from memtui_core.ranking.inject import HEADER, HEADER_EN

TURNS = [
    ("不对，部署脚本应该先 dry-run，确认后再真正执行", "correction", "部署脚本默认先 dry-run，确认后再真正执行"),
    ("No, always deploy to staging before production", "correction", "Always deploy to staging before production"),
    ("以后回复都用中文，代码注释用英文，谢谢你记住这一点", "偏好", "回复用中文，代码注释用英文"),
    ("Please keep commit messages short and in the imperative mood", "preferences", "Commit messages are short and imperative"),
    ("数据库迁移之前要先备份生产库，上次就因为这个丢了数据", "经验", "数据库迁移前先备份生产库"),
    ("The test suite needs Postgres 16 running on port 5433 locally", "facts", "Tests need Postgres 16 on port 5433"),
    ("前端构建用 Vite，不要再用 webpack 了，应该全部迁移", "纠正", "前端构建用 Vite，不用 webpack"),
    ("We learned the hard way that the cache must be cleared after a schema change", "lessons",
     "Clear the cache after every schema change"),
    ("项目的 Python 版本固定为 3.11，不要升级到 3.12", "fact", "项目的 Python 版本固定为 3.11"),
    ("Never push directly to main; open a pull request even for one-line fixes", "correction",
     "Never push to main directly; always open a pull request"),
]
SHAPES = [
    lambda items: json.dumps(items, ensure_ascii=False),
    lambda items: "<think>the user said [x]; maybe [1]</think>\n" + json.dumps(items, ensure_ascii=False),
    lambda items: "```json\n" + json.dumps(items, ensure_ascii=False, indent=2) + "\n```\nKept [1] item.",
    lambda items: json.dumps(items, ensure_ascii=False)[:-1] + ",]",
    lambda items: json.dumps(items + [{"kind": "fact", "text": "cut off mid-"}], ensure_ascii=False)[:-8],
]


def test_twenty_turns_in_two_languages_lose_nothing(tmp_path):
    store = MemoryStore(tmp_path, lang="auto", actor="agent")
    system = "You are a coding agent."
    prompts: list[str] = []
    results = []
    for turn in range(20):
        user_text, kind, text = TURNS[turn % len(TURNS)]
        prompt = set_block(system, store.retrieve_block(user_text))
        prompts.append(prompt)
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": user_text},
                    {"role": "assistant", "content": "OK." if user_text.isascii() else "好的。"}]
        reply = SHAPES[turn % len(SHAPES)]([{"kind": kind, "text": text}])
        results.append(distill_memories(store, messages, user_text, False, lambda s, u, r=reply: r))
        assert prompt.count("=== Long-term memory") <= 1  # replaced, never accumulated

    stored = {e.text for e in store.entries()}
    assert stored == {text for _, _, text in TURNS}
    for result in results:
        assert result.errors == [] and result.added + result.refreshed == result.proposed == 1
        for dropped in result.dropped:  # only the cut-off tail of the truncated replies
            assert "cut off" in dropped.reason
    assert sum(len(r.dropped) for r in results) == 4
    assert {e.kind.value for e in store.entries()} == {"correction", "preference", "lesson", "fact"}

    # the second round sees the first round's memories, in the user's language
    chinese, english = prompts[10], prompts[11]
    assert HEADER in chinese and "- [纠正] 部署脚本默认先 dry-run，确认后再真正执行" in chinese
    assert HEADER_EN in english and "- [correction] Always deploy to staging before production" in english
