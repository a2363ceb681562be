"""`bedside-bench demo`: the whole job on one machine without a key. The provider doubles
(`bedside_bench.doubles`) answer a two-provider sweep of every benchmark, on the public release
when it is at hand and else on the synthetic release shipped with the package; then the report.
Every output says it is a demo.

`release` (which cases), `run` (the doubles, the eval set, the report, the environment kept as
it was), `command` (the command line). The package itself imports nothing, so `bedside-bench
demo` parses its command line without importing Inspect.
"""
