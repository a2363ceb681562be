"""What the written documents (summary, comparison, judges, review, estimate) share: their
model configuration, the benchmark name whose JSON Schema enum is the table in `core/benchmarks.py`,
an interval, and the bootstrap settings they record.

A benchmark name is checked against `core/benchmarks.py` when a document is built, never against a
committed schema file: a schema is generated from the models (`documents/schemas.py`), so an
eleventh benchmark needs a line in `core/benchmarks.py` and a regenerated schema, nothing else.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema

from bedside_bench.core import benchmarks


def known_benchmark(name: str) -> str:
    """`name` when `core/benchmarks.py` has it; else a ValueError naming the known ones."""
    benchmarks.get_benchmark(name)
    return name


# a benchmark's name: validated against the table, its schema enum read from it at definition
BenchmarkName = Annotated[
    str,
    AfterValidator(known_benchmark),
    WithJsonSchema({"type": "string", "enum": list(benchmarks.BENCHMARK_NAMES)}),
]

# a 95% interval [lo, hi]: the 2.5th and 97.5th percentiles of the bootstrap means
Interval = Annotated[
    list[float],
    Field(
        min_length=2,
        max_length=2,
        description="[lo, hi], 2.5th and 97.5th percentiles of the bootstrap means",
    ),
]


# a mean of case scores: every case score is in [0, 1] (points rubric clamped, weighted F1)
Share = Annotated[float, Field(ge=0, le=1)]


class Document(BaseModel):
    """A written JSON document or a part of one: immutable, no key it does not declare, and
    every key it always writes required by its schema."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_serialization_defaults_required=True
    )


class BootstrapSettings(Document):
    """How the intervals were computed (protocol section 5)."""

    resamples: int = Field(ge=1)
    seed: int = Field(ge=0)
    method: Literal["percentile"]
    overall: Literal["stratified"]

    @classmethod
    def of(cls, resamples: int, seed: int) -> BootstrapSettings:
        """The settings of a run of the protocol's bootstrap with these resamples and seed."""
        return cls(resamples=resamples, seed=seed, method="percentile", overall="stratified")
