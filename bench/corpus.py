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
