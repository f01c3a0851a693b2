"""Words, scripts and sentence vectors: the tokenizer, the function-word lists, the general-word
list and the sentence model.

Pure functions over text and the tables they read. This part imports nothing else of memtui_core,
so every other part may use it. Internal: reach it through memtui_core's top-level names.
"""
