"""BedsideBench as Inspect AI tasks, graded exactly per bedside-bench-grading-v1."""

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, BENCHMARKS
from bedside_bench.core.protocol import PROTOCOL_VERSION

__all__ = ["BENCHMARKS", "BENCHMARK_NAMES", "PROTOCOL_VERSION"]
