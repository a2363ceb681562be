"""`bedside-bench sweep`: the chosen benchmarks for several models in ONE Inspect `eval_set`,
then `bedside-bench report` on its log directory.

One module per job: `options` (what is asked, the tasks it makes), `shard` (which runs one of
N machines does), `lock` (one writer per log directory), `run` (eval_set and the report),
`recovery` (what killed runs leave behind), `command` (the command line). Private Inspect
names are imported only through `bedside_bench.inspect_private`. The package itself imports
nothing, so `bedside-bench sweep` parses its command line without importing Inspect.
"""
