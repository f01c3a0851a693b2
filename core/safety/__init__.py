"""The threat scan and secrets: what in a memory's text could steer, fence-break or rob the agent.

`threats` is the engine (rules, findings, redaction), `scan_views` the normalised views the rules
read, `threat_model` and `threat_model_semantic` the learned second and third opinions. Pure
functions over text: may import `text/` and the shared modules at the top of memtui_core
(errors, kinds, limits, lazy_re), never the store, ranking or agents. Internal: the public names
are memtui_core.scan_text, Finding and redact_secrets.
"""
