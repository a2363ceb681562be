"""`--shard K/N`: which (model, benchmark) runs one of N machines does.

The rule, the same on every machine given the same command line: list the runs with the
models sorted by name and, within a model, the benchmarks in registry order; number them from
0; run i belongs to shard (i mod N) + 1. The N shares are disjoint, together they are every
run, and their sizes differ by at most one. Sorting the models makes the split independent of
the order they were typed in; a different model or benchmark list is a different sweep.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.safe_text import printable

SHARD_PATTERN = re.compile(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*")  # ASCII digits only


# no array job of any scheduler has more tasks than this
MAX_ARRAY_TASKS = 1_000_000


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count`, counted from 1 (1/1: the whole sweep)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count > MAX_ARRAY_TASKS:
            raise ValueError(
                f"shard {self.index}/{self.count}: N must be at most {MAX_ARRAY_TASKS:,} (no "
                "array job of any scheduler has more tasks)"
            )
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


# --------------------------------------------------------------------------------------------
# `--shard auto`: the share from the array job the machine runs in

AUTO = "auto"
AUTO_PATTERN = re.compile(r"\s*auto\s*(?:/\s*([0-9]+)\s*)?")

# what each engine sets in every task of an array job (docs/sweep.md, "Array jobs")
KUBERNETES_INDEX = "JOB_COMPLETION_INDEX"
SLURM_ID = "SLURM_ARRAY_TASK_ID"
SLURM_COUNT = "SLURM_ARRAY_TASK_COUNT"
SLURM_MIN = "SLURM_ARRAY_TASK_MIN"
SLURM_MAX = "SLURM_ARRAY_TASK_MAX"
SLURM_STEP = "SLURM_ARRAY_TASK_STEP"
AWS_BATCH_INDEX = "AWS_BATCH_JOB_ARRAY_INDEX"
AWS_BATCH_SIZE = "AWS_BATCH_JOB_ARRAY_SIZE"
INDEX_VARIABLES = {
    KUBERNETES_INDEX: "a Kubernetes Indexed Job",
    SLURM_ID: "a SLURM job array",
    AWS_BATCH_INDEX: "an AWS Batch array job",
}


class ShardEnvironmentError(ValueError):
    """`--shard auto` found no array job, or values that do not make one share: one line."""


@dataclass(frozen=True)
class AutoShard:
    """`--shard auto` (or `auto/N`, the size given explicitly): resolved from the
    environment once the command runs (`scheduler_shard`)."""

    count: int | None = None

    @classmethod
    def parse(cls, text: str) -> AutoShard | None:
        """`auto` or `auto/N`; None for any other text (then it is K/N or wrong)."""
        match = AUTO_PATTERN.fullmatch(text)
        if not match:
            return None
        count = None if match.group(1) is None else int(match.group(1))
        if count is not None and not 1 <= count <= MAX_ARRAY_TASKS:
            raise ValueError(
                f"shard {text.strip()!r}: N must be from 1 to {MAX_ARRAY_TASKS:,} (no array job "
                "of any scheduler has more tasks)"
            )
        return cls(count)

    def __str__(self) -> str:
        return AUTO if self.count is None else f"{AUTO}/{self.count}"


def _whole_number(environ: Mapping[str, str], name: str) -> int:
    """A scheduler's variable as a whole number of ASCII digits (`str.isdigit` also takes
    full-width and other digits), at most `MAX_ARRAY_TASKS`."""
    text = environ[name].strip()
    if not text.isascii() or not text.isdigit() or int(text) > MAX_ARRAY_TASKS:
        raise ShardEnvironmentError(
            f"{name}={printable(environ[name], 40)!r} is not a whole number from 0 to "
            f"{MAX_ARRAY_TASKS:,}"
        )
    return int(text)


def _sized(index: int, size: int, explicit: int | None, source: str) -> Shard:
    """Shard index+1 of `size`, checked against an explicit size and against itself."""
    if explicit is not None and explicit != size:
        raise ShardEnvironmentError(
            f"--shard auto/{explicit} contradicts {source}, which has {size} tasks"
        )
    if size < 1 or index >= size:
        raise ShardEnvironmentError(f"{source}: index {index} is not below the size {size}")
    return Shard(index + 1, size)


def _kubernetes(environ: Mapping[str, str], explicit: int | None) -> Shard:
    index = _whole_number(environ, KUBERNETES_INDEX)
    source = f"Kubernetes Indexed Job ({KUBERNETES_INDEX}={index})"
    if explicit is None:
        # the pod sees its index only: the Job's spec.completions reaches no variable
        raise ShardEnvironmentError(
            f"{source} does not say how many shards there are: give --shard auto/N "
            "with N the Job's spec.completions"
        )
    return _sized(index, explicit, explicit, source)


def _slurm(environ: Mapping[str, str], explicit: int | None) -> Shard:
    missing = [n for n in (SLURM_COUNT, SLURM_MIN, SLURM_MAX) if n not in environ]
    if missing:
        raise ShardEnvironmentError(
            f"SLURM job array ({SLURM_ID}={environ[SLURM_ID]}) without {', '.join(missing)}: "
            "give --shard K/N"
        )
    task, count, low, high = (
        _whole_number(environ, n) for n in (SLURM_ID, SLURM_COUNT, SLURM_MIN, SLURM_MAX)
    )
    step = _whole_number(environ, SLURM_STEP) if SLURM_STEP in environ else 1
    source = (
        f"SLURM job array ({SLURM_ID}={task}, {SLURM_COUNT}={count}, {SLURM_MIN}={low}, "
        f"{SLURM_MAX}={high}" + (f", {SLURM_STEP}={step}" if SLURM_STEP in environ else "") + ")"
    )
    # the task ids must be low, low+step, ..., high: then a task's place in that list is its
    # share, the same on every task. Any other list (`--array=1,2,7`) has no such rule.
    evenly_spaced = step >= 1 and count >= 1 and high - low == step * (count - 1)
    if not evenly_spaced or not low <= task <= high or (task - low) % step:
        raise ShardEnvironmentError(
            f"{source} is not an evenly spaced range of task ids holding this task: "
            "give --shard K/N"
        )
    return _sized((task - low) // step, count, explicit, source)


def _aws_batch(environ: Mapping[str, str], explicit: int | None) -> Shard:
    index = _whole_number(environ, AWS_BATCH_INDEX)
    source = f"AWS Batch array job ({AWS_BATCH_INDEX}={index}"
    if AWS_BATCH_SIZE in environ:
        size = _whole_number(environ, AWS_BATCH_SIZE)
        return _sized(index, size, explicit, f"{source}, {AWS_BATCH_SIZE}={size})")
    if explicit is None:
        raise ShardEnvironmentError(
            f"{source}) does not say how many shards there are ({AWS_BATCH_SIZE} is not "
            "set): give --shard auto/N with N the array size"
        )
    return _sized(index, explicit, explicit, f"{source})")


_ENGINES = {KUBERNETES_INDEX: _kubernetes, SLURM_ID: _slurm, AWS_BATCH_INDEX: _aws_batch}


def scheduler_shard(auto: AutoShard, environ: Mapping[str, str]) -> tuple[Shard, str]:
    """This task's share of an array job, and the sentence saying where it came from.

    Kubernetes Indexed Jobs, SLURM job arrays and AWS Batch array jobs each set an index in
    every task (`INDEX_VARIABLES`); the size comes from the engine where it says it (SLURM,
    AWS Batch's `AWS_BATCH_JOB_ARRAY_SIZE`) or from `auto/N`. Raises `ShardEnvironmentError`
    (one line) when none is found, more than one is, or their values do not make one share:
    a wrong share would run some runs twice and others never."""
    found = [name for name in INDEX_VARIABLES if environ.get(name, "").strip()]
    if not found:
        raise ShardEnvironmentError(
            f"--shard {auto}: no array job found (none of {', '.join(INDEX_VARIABLES)} is "
            "set); give --shard K/N"
        )
    if len(found) > 1:
        engines = " and ".join(f"{INDEX_VARIABLES[n]} ({n})" for n in found)
        raise ShardEnvironmentError(
            f"--shard {auto}: found {engines}; which one this task belongs to is unclear: "
            "give --shard K/N"
        )
    try:
        shard = _ENGINES[found[0]](environ, auto.count)
    except ShardEnvironmentError as ex:
        raise ShardEnvironmentError(f"--shard {auto}: {ex}") from None
    return shard, f"shard {shard} from {INDEX_VARIABLES[found[0]]}"
