"""The bottom layer: what every other layer shares and nothing here imports from above.

The benchmark table, the protocol's texts, the contracts that cross modules (and the names
logs store them under), the task and scorer options, answer conditions, the one seam to
Inspect's private names, and the plumbing every command shares (arguments, exit codes, the
entry-point guard, signals, whole-folder output).
"""
