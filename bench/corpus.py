"""Deterministic stores of mixed Chinese/English memories for benchmarks and scale tests."""

from __future__ import annotations

import random
from pathlib import Path

import orjson

from memtui_core.kinds import Kind

ZH = (
    "部署 脚本 默认 先 确认 后再 真正 执行 用户 偏好 回复 中文 代码 注释 英文 测试 覆盖 数据库 迁移 "
    "前端 构建 工具 缓存 失效 接口 超时 重试 日志 级别 配置 文件 环境 变量 容器 镜像 版本 依赖 "
    "升级 回滚 权限 检查 性能 瓶颈 索引 查询 分页 排序 过滤 格式 提交 信息 分支 合并 冲突 评审 "
    "文档 示例 命令 参数 默认值 错误 处理 异常 边界 情况 单元 集成 端到端 监控 告警 阈值 内存 "
    "泄漏 并发 锁 事务 幂等 队列 消息 消费者 生产者 定时 任务 备份 恢复 密钥 轮换 证书 过期"
).split()
EN = (
    "deploy script dry-run confirm before running user prefers replies chinese code comments english "
    "tests coverage database migration frontend build vite cache invalidation api timeout retry logging "
    "level config file environment variable docker image version dependency upgrade rollback permission "
    "check performance bottleneck index query pagination sort filter format commit message branch merge "
    "conflict review docs example command flag default error handling exception edge case unit integration "
    "monitoring alert threshold memory leak concurrency lock transaction idempotent queue consumer producer "
    "cron backup restore secret rotation certificate expiry postgres redis nginx kubernetes pytest ruff mypy"
).split()
PUNCT = ["，", "。", "；", ", ", ". ", " "]
QUERIES = [
    "部署脚本 dry-run",
    "用户偏好 中文回复",
    "database migration rollback",
    "前端构建 vite 缓存",
    "接口超时重试",
    "pytest coverage 单元测试",
    "证书过期 rotation",
    "并发 lock 事务",
]


def make_text(rng: random.Random, max_chars: int = 400) -> str:
    target = rng.randint(20, max_chars)
    parts: list[str] = []
    size = 0
    while size < target:
        word = rng.choice(ZH) if rng.random() < 0.6 else rng.choice(EN)
        parts.append(word)
        parts.append(rng.choice(PUNCT) if rng.random() < 0.3 else ("" if word in ZH else " "))
        size += len(word) + len(parts[-1])
    return "".join(parts)[:max_chars].strip() or "fallback text"


def make_entries(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    kinds = list(Kind)
    entries = []
    for i in range(count):
        entries.append(
            {
                "id": f"{i:012x}",
                "kind": rng.choice(kinds).value,
                "text": make_text(rng),
                "source": "bench",
                "ts": 1_760_000_000 + i,
            }
        )
    return entries


def write_store(directory: Path, count: int, seed: int = 7) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "memory.json"
    path.write_bytes(orjson.dumps({"entries": make_entries(count, seed)}, option=orjson.OPT_INDENT_2))
    return path


# ---------------------------------------------------------------------- the realistic corpus
# What real memories hold: fullwidth punctuation and letters, ￥ ％ ℃, emoji with their variation
# selector, URLs, paths, version numbers and digits; 20-400 characters, 60% Chinese-dominant.
# The vocabulary is large (synthetic Han words over ~500 common characters, numbered identifiers),
# so a long-running agent keeps meeting terms it has never queried before.

_HAN_CHARS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所"
    "民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日"
    "那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想"
    "已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指"
    "几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权"
    "收证改清美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温"
    "传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般"
    "史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆"
    "包火住调满县局照参红细引听该铁价严龙飞部署脚本缓存接口超时重试日志配置环境容器镜像版本依赖回滚权限性能瓶颈索引查询分页排序"
)
_EN_WORDS = (
    "deploy script dry-run confirm running user prefers replies chinese code comments english tests coverage "
    "database migration frontend build vite cache invalidation api timeout retry logging level config file "
    "environment variable docker image version dependency upgrade rollback permission check performance "
    "bottleneck index query pagination sort filter format commit message branch merge conflict review docs "
    "example command flag default error handling exception edge case unit integration monitoring alert "
    "threshold memory leak concurrency lock transaction idempotent queue consumer producer cron backup restore "
    "secret rotation certificate expiry postgres redis nginx kubernetes pytest ruff mypy grafana terraform "
    "ansible helm webpack eslint prettier typescript rust golang fastapi django flask celery kafka rabbitmq "
    "elasticsearch clickhouse sqlite mongodb graphql grpc protobuf oauth jwt csrf cors latency throughput "
    "sharding replica failover canary blue green feature toggle rollout hotfix regression flaky benchmark"
).split()
_FULLWIDTH_PUNCT = ["，", "。", "！", "？", "、", "：", "；", "（", "）", "“", "”", "「", "」", "…", "——", "《", "》"]
_SYMBOLS = ["￥", "％", "℃", "→", "≥", "±", "×", "©", "™", "°"]
_EMOJI = ["⚠️", "✅", "❌", "🚀", "🔥", "👍", "❤️", "☑️", "⭐", "📌", "🐛", "✏️"]
_FULLWIDTH_FORMS = ["ＡＰＩ", "ＯＫ", "１２３", "Ｖｉｔｅ", "ＳＱＬ", "２０２６", "ｐｙｔｅｓｔ", "ＩＤ"]
_TLDS = ["com", "io", "dev", "cn", "org"]


def _han_words(rng: random.Random, count: int) -> list[str]:
    return ["".join(rng.choice(_HAN_CHARS) for _ in range(rng.choice((2, 2, 2, 3, 4)))) for _ in range(count)]


def _vocabulary(seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed * 31 + 1)
    han = _han_words(rng, 6000)
    en = _EN_WORDS + [f"{rng.choice(_EN_WORDS)}{rng.randint(1, 999)}" for _ in range(3000)]
    return han, en


def _piece(rng: random.Random, han: list[str], en: list[str], chinese: bool) -> str:
    roll = rng.random()
    if roll < 0.04:
        return rng.choice(_EMOJI)
    if roll < 0.07:
        return f"{rng.randint(1, 999)}{rng.choice(_SYMBOLS)}"
    if roll < 0.09:
        return rng.choice(_FULLWIDTH_FORMS)
    if roll < 0.11:
        return f"https://{rng.choice(en)}.{rng.choice(_TLDS)}/{rng.choice(en)}/{rng.randint(1, 9999)}?q={rng.choice(en)}"
    if roll < 0.13:
        return f"/{rng.choice(('etc', 'var/log', 'home/dev', 'srv', 'opt'))}/{rng.choice(en)}/{rng.choice(en)}.{rng.choice(('py', 'json', 'yaml', 'log', 'conf'))}"
    if roll < 0.15:
        return f"v{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}"
    if roll < 0.17:
        return str(rng.randint(0, 10**rng.randint(1, 6)))
    return rng.choice(han) if (rng.random() < 0.8) == chinese else rng.choice(en)


def make_realistic_text(rng: random.Random, han: list[str], en: list[str], max_chars: int = 400) -> str:
    target = rng.randint(20, max_chars)
    chinese = rng.random() < 0.6
    parts: list[str] = []
    size = 0
    while size < target:
        piece = _piece(rng, han, en, chinese)
        roll = rng.random()
        sep = rng.choice(_FULLWIDTH_PUNCT) if roll < 0.25 else ("" if chinese and piece[0] >= "\u3400" else " ")
        parts.append(piece + sep)
        size += len(piece) + len(sep)
    text = "".join(parts)[:max_chars].strip()
    return text if len(text) >= 20 else (text + " 补充说明：fallback text").strip()


def make_realistic_entries(count: int, seed: int = 11) -> list[dict]:
    han, en = _vocabulary(seed)
    rng = random.Random(seed)
    kinds = list(Kind)
    return [
        {
            "id": f"{i:012x}",
            "kind": rng.choice(kinds).value,
            "text": make_realistic_text(rng, han, en),
            "source": "bench",
            "ts": 1_760_000_000 + i,
        }
        for i in range(count)
    ]


def write_realistic_store(directory: Path, count: int, seed: int = 11) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "memory.json"
    path.write_bytes(orjson.dumps({"entries": make_realistic_entries(count, seed)}, option=orjson.OPT_INDENT_2))
    return path


def fresh_queries(texts: list[str], count: int, seed: int = 5) -> list[str]:
    """`count` queries, each made of words taken from the store's own texts, no word used twice:
    every query brings terms the process has never been asked about (plus a little noise)."""
    import re

    rng = random.Random(seed)
    words = sorted({w for text in texts for w in re.findall(r"[A-Za-z][A-Za-z0-9]{2,}|[\u4e00-\u9fff]{2,4}", text)})
    rng.shuffle(words)
    queries, used = [], 0
    for i in range(count):
        picked = words[used : used + 3]
        used += 3
        if len(picked) < 3:  # a small store runs out of words: start over with a new order
            rng.shuffle(words)
            used = 0
            picked = words[:3]
        glue = ["请问", "what about", "关于", "how do we handle", "记得"][i % 5]
        queries.append(f"{glue} {picked[0]}，{picked[1]} 和 {picked[2]}？")
    return queries
