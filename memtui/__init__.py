"""memtui: the terminal app and the `memtui` command over the headless memory core (`core`).

Kept empty on purpose: `memtui inject` runs before every agent turn and must not pay for imports
it does not use. The app, the MCP server and the human-readable output are imported on demand.
"""

__version__ = "0.1.0"
