"""What agents call: the memory tools in every SDK's format, the MCP server, distillation,
import and export, and probes.

Each takes a MemoryStore (memtui_core.memory), so this part sits on top of the engine and may import
any of it; nothing in the engine imports it. The public names are memtui_core's tool and distillation
functions.
"""
