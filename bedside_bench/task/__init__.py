"""The Inspect tasks: the ten benchmarks (generated from the benchmark table), the judge check,
the physician solver, and how a task function takes its options."""
