"""`--shard K/N`: which (model, benchmark) runs one of N machines does.

The rule, the same on every machine given the same command line: list the runs with the
models sorted by name and, within a model, the benchmarks in registry order; number them from
0; run i belongs to shard (i mod N) + 1. The N shares are disjoint, together they are every
run, and their sizes differ by at most one. Sorting the models makes the split independent of
the order they were typed in; a different model or benchmark list is a different sweep.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bedside_bench.core.benchmarks import BENCHMARK_NAMES

SHARD_PATTERN = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count`, counted from 1 (1/1: the whole sweep)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: K must be between 1 and N")

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = SHARD_PATTERN.fullmatch(text)
        if not match:
            raise ValueError(f"shard {text!r} is not K/N, e.g. 2/3")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def whole(self) -> bool:
        return self.count == 1

    @property
    def tag(self) -> str:
        """A name for this shard in file names (`shard-2-of-3`)."""
        return f"shard-{self.index}-of-{self.count}"

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def all_runs(models: Sequence[str], benchmarks: Sequence[str]) -> list[tuple[str, str]]:
    """Every (model, benchmark) of a sweep in the order the shard rule numbers them."""
    ordered = [b for b in BENCHMARK_NAMES if b in benchmarks]
    return [(model, benchmark) for model in sorted(set(models)) for benchmark in ordered]


def shard_runs(
    models: Sequence[str], benchmarks: Sequence[str], shard: Shard
) -> list[tuple[str, str]]:
    """The (model, benchmark) runs that belong to `shard`."""
    runs = all_runs(models, benchmarks)
    return [run for i, run in enumerate(runs) if i % shard.count == shard.index - 1]
