"""The threat scan and secrets: what in a memory's text could steer, fence-break or rob the agent.

`threats` is the scan's entry points (findings, redaction), `rule` one rule and how it matches,
`rule_data` the loader of the rule table, which is data (`rules/*.toml`: one file per category,
and `vocabulary.toml`, the word lists the rules share), `rule_index` the pre-check that picks the
rules a text could match, `decoders` the readings of encoded text, `quoted` the check for attacks
quoted as examples, `scan_views` the normalised views the rules read, `threat_model` and
`threat_model_semantic` the learned second and third opinions. Pure functions over text: may
import `text/` and the shared modules at the top of memtui_core (errors, kinds, limits, lazy_re),
never the store, ranking or agents. Internal: the public names are memtui_core.scan_text, Finding
and redact_secrets.
"""
