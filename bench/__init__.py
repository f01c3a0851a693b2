"""Benchmarks for memtui (run `python -m bench`)."""
