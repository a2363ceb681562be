"""The estimate of a sweep as a typed document: what `sweep --estimate --json` prints and what
it keeps in `LOG_DIR/estimate-<created_at>.json` for the report to set beside the actual
figures.

Every estimate is kept in a file of its own, never replaced: an estimate made after a run
(which finds nothing left to do, all zeros) must not erase the one that run started from, so
the report can compare each run with the estimate made before it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

ESTIMATE_FORMAT = "bedside-bench-estimate-v1"
ESTIMATE_FILE = "estimate.json"  # one estimate per directory, as kept before: read, not written
# `estimate-2026-12-02T07-15-00.json` (`-2`, `-3`, ... for more in the same second): not an
# Inspect log name (those start with the timestamp), so neither eval_set nor a reader of logs
# takes one for a log
ESTIMATE_PREFIX = "estimate-"


class Tokenizer(BaseModel):
    """Which tokenizer counted a model's input, and whether it is the provider's own."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)

    name: str
    approximate: bool


class CostRange(BaseModel):
    """USD: expected, and the low and high ends of the stated uncertainty (docs/estimate.md)."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)

    low: float
    expected: float
    high: float
    answer: float = Field(description="expected cost of the answers")
    judge: float = Field(description="expected cost of the judging")
    batch: bool = Field(description="priced at the batch rates")


class OutputBasis(BaseModel):
    """Where an output-token figure comes from: earlier logs (with how many samples) or the
    stated prior."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)

    source: str  # "logs" or "prior"
    samples: int = 0
    per_call: float = Field(description="output tokens per call (answers) or per rubric item")
    visible_per_call: float | None = Field(
        default=None, description="answers: visible tokens per answer (what the judge reads)"
    )


class ModelEstimate(BaseModel):
    """Everything one answer model's part of the sweep would do."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)

    runs: int = Field(description="(model, benchmark) runs with cases still to do")
    cases: int = Field(description="cases still to do (a case counts once whatever its epochs)")
    cases_done: int = Field(description="(case, epoch) pairs already completed in the log dir")
    answer_calls: int
    judge_calls: int
    answer_input_tokens: int
    answer_output_tokens: int
    judge_input_tokens: int
    judge_output_tokens: int
    tokenizer: Tokenizer
    answer_output: OutputBasis
    judge_output: OutputBasis
    cost_usd: CostRange | None
    cost_notes: list[str] = Field(default_factory=list)
    price_sources: dict[str, str] = Field(
        default_factory=dict,
        description="where each model's price is from: prices file, Inspect cost config, or "
        "genai-prices X.Y.Z",
    )


class EstimateDocument(BaseModel):
    """What `bedside-bench sweep --estimate` would ask and cost, before any request (written
    to LOG_DIR/estimate.json; docs/estimate.md): `models` is keyed by answer model, in the
    order given."""

    model_config = ConfigDict(
        frozen=True,
        json_schema_serialization_defaults_required=True,
        title="BedsideBench sweep estimate (estimate.json)",
    )

    format: str = ESTIMATE_FORMAT
    created_at: str
    log_dir: str
    judge: str
    judge_tokenizer: Tokenizer
    judge_passes: int
    epochs: int
    grading: str
    batch: bool
    call_overhead_tokens: int
    provider_calls: int = Field(default=0, description="always 0: nothing was asked")
    models: dict[str, ModelEstimate]
    cost_usd: CostRange | None = Field(description="all models together; null if any is")
    notes: list[str] = Field(default_factory=list)
    price_data: str | None = Field(
        default=None, description="the price database's version when it priced a model"
    )


def estimate_files(directory: Path, created_at: str) -> Iterator[Path]:
    """The names an estimate made at `created_at` may take, in order: `-2`, `-3`, ... after
    the first, for estimates made in the same second (`core.owned_output.create_new_file`
    takes the first no other holds)."""
    stamp = re.sub(r"[^0-9A-Za-z]+", "-", created_at.split("+")[0]).strip("-")
    yield directory / f"{ESTIMATE_PREFIX}{stamp}.json"
    for n in itertools.count(2):
        yield directory / f"{ESTIMATE_PREFIX}{stamp}-{n}.json"


def _read(path: Path) -> EstimateDocument | None:
    try:
        return EstimateDocument.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_estimates(log_dir: str) -> list[EstimateDocument]:
    """Every estimate kept in a local log directory and readable, oldest first."""
    if "://" in log_dir or not Path(log_dir).is_dir():
        return []
    paths = [Path(log_dir) / ESTIMATE_FILE, *Path(log_dir).glob(f"{ESTIMATE_PREFIX}*.json")]
    found = [(p, e) for p in paths if p.is_file() and (e := _read(p)) is not None]
    # made in the same second: `-2` after none, `-10` after `-9` (the longer name is later)
    order = sorted(found, key=lambda pe: (pe[1].created_at, len(pe[0].name), pe[0].name))
    return [e for _, e in order]


def read_estimate(log_dir: str) -> EstimateDocument | None:
    """The newest estimate kept in a local log directory, if one was made there."""
    estimates = read_estimates(log_dir)
    return estimates[-1] if estimates else None
