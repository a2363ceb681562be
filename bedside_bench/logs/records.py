"""Plain records of what the logs say, decoupled from Inspect's classes.

Everything downstream (grouping, statistics, rendering) works on these frozen dataclasses, so it
can be tested without writing a single log file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import JsonValue

from bedside_bench.core.contracts import SCORER_NAME, Decision, SentTemperature
from bedside_bench.core.protocol import PROTOCOL_VERSION


@dataclass(frozen=True)
class TokenUsage:
    """Token counts in Inspect's convention (``input_tokens`` excludes cache reads/writes)."""

    input_tokens: int = 0
    output_tokens: int = 0
    input_tokens_cache_read: int = 0
    input_tokens_cache_write: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            input_tokens_cache_read=self.input_tokens_cache_read + other.input_tokens_cache_read,
            input_tokens_cache_write=self.input_tokens_cache_write + other.input_tokens_cache_write,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
        )

    def __sub__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens - other.input_tokens,
            output_tokens=self.output_tokens - other.output_tokens,
            input_tokens_cache_read=self.input_tokens_cache_read - other.input_tokens_cache_read,
            input_tokens_cache_write=self.input_tokens_cache_write - other.input_tokens_cache_write,
            reasoning_tokens=self.reasoning_tokens - other.reasoning_tokens,
            total_tokens=self.total_tokens - other.total_tokens,
        )


@dataclass(frozen=True)
class InspectMean:
    """One score of Inspect's results: the `mean` metric its log holds for a scorer and an
    epoch reducer, and whether it is the number Inspect's headline shows (`inspect view`, the
    log listing and `evals_df`'s `score_headline_value`, as `inspect_ai.log.headline_metric`
    resolves it): with several reducers only one of them is."""

    score: str  # the score's name: rubric_judge, or an appended judge's rubric_judge1, ...
    reducer: str  # "" when none is recorded
    mean: float
    headline: bool = False


# how a case's error says its scores were written by another scorer (`inspect score --scorer
# match --action overwrite`): not a failed case that `inspect eval-retry` would redo
FOREIGN_SCORES_MARK = "not by this suite's judge"


@dataclass(frozen=True)
class CaseRecord:
    """One sample of one log: a usable score, or the reason there is none.

    ``score`` is None whenever the sample errored or carries no rubric score; such a case is
    failed (never 0) unless another log of the same run completed it.
    """

    case_id: str
    score: float | None
    error: str | None = None
    recall: float | None = None
    precision: float | None = None
    severe_rate: float | None = None
    judge_model: str | None = None
    # None: not sent; `NOT_RECORDED` also when the score does not hold the key
    judge_temperature: SentTemperature = None
    answer_temperature: SentTemperature = None
    judge_agreement: float | None = None
    # one {item_id: matched} (or {item_id: level}) mapping per judge pass; None when not
    # recorded or not read
    pass_decisions: tuple[Mapping[str, Decision], ...] | None = None
    # each judge pass's own case score, in pass order; None when not recorded or not read
    pass_scores: tuple[float, ...] | None = None
    # the combined {item_id: matched} decisions, and the judge tokens the score recorded
    decisions: Mapping[str, bool] | None = None
    judge_usage: TokenUsage | None = None
    # the answer as it came (`answer_condition`); None: the score does not record it
    answer_stop_reason: str | None = None
    answer_condition: str | None = None
    # the answer had no text: scored as stating nothing, no judge asked (with several
    # epochs: every epoch's answer had none)
    answer_empty: bool = False
    # with several epochs: the record of each epoch, in epoch order (this record is their mean)
    epoch_records: tuple[CaseRecord, ...] = ()
    # score metadata keys the report reads that a sample summary left out (over 1 kB): the
    # sample is then read in full, so no figure is computed from a thinned record
    thinned: tuple[str, ...] = ()
    # the error is a malformed value of the log (`report.log_values`): the report names it
    refused: bool = False

    @property
    def completed(self) -> bool:
        return self.score is not None and self.error is None


@dataclass(frozen=True)
class LogRecord:
    """The header facts and per-case results of one Inspect log of one BedsideBench task."""

    location: str
    benchmark: str
    answer_model: str
    judge_model: str
    dataset_sha256: str
    protocol_version: str = PROTOCOL_VERSION
    data_source: str | None = None
    severe_gate: bool = False
    judge_passes: int = 1
    grading: str = "binary"
    smoke: bool = False
    status: str = "success"
    started_at: str | None = None
    completed_at: str | None = None
    task_id: str = ""
    epochs: int = 1
    # the reducer Inspect was asked for (None: its default, the mean)
    epochs_reducer: tuple[str, ...] | None = None
    # the `mean` of each score Inspect's results hold (by score name and reducer), the one its
    # headline shows marked
    inspect_means: tuple[InspectMean, ...] = ()
    # the case ids that ran, in dataset (manifest) order, as the log header lists them
    sample_ids: tuple[str, ...] = ()
    # cases in the task's dataset before --limit / --sample-id (None: not recorded)
    dataset_samples: int | None = None
    limit: str | None = None  # --limit as given (e.g. "1" or "2-5"); None without one
    sample_id: bool = False  # --sample-id was given
    # the release the task recognised ("unrecognised" if none); None: the log does not say
    release: str | None = None
    release_case_counts: Mapping[str, int] | None = None
    # case id -> the digest of that case in the log's release (None: a log from before)
    case_sha256: Mapping[str, str] | None = None
    # judge models named by the scores, when they differ from each other
    judges_seen: tuple[str, ...] = ()
    cases: Mapping[str, CaseRecord] = field(default_factory=dict)
    answer_usage: TokenUsage = field(default_factory=TokenUsage)
    # None when the judge's tokens cannot be told apart from the answer model's
    judge_usage: TokenUsage | None = field(default_factory=TokenUsage)
    # the score key read (a judge appended by `inspect score` is rubric_judge1, ...) and the
    # task whose answers were judged (a re-judged log names its source)
    scorer: str = SCORER_NAME
    answer_source: str = ""
    # (epoch, answer, judge) usage summed over the log's samples of each epoch
    usage_by_epoch: tuple[tuple[int, TokenUsage, TokenUsage | None], ...] = ()
    # the answer model's answer-changing generate settings (`report.generation`)
    generation: Mapping[str, JsonValue] = field(default_factory=dict)
    # the answer model / the judge used the provider's batch API (priced at batch rates)
    answer_batch: bool = False
    judge_batch: bool = False
    # the eval carries `DEMO_TAG`: scripted answers and judge decisions, not model output
    demo: bool = False
    # a log written by `bedside-bench rejudge`: the log whose answers it judged again (as that
    # command displayed it); "" for a log whose answers and scores came from one run
    rejudged_from: str = ""
    # USD Inspect recorded for the answers / the judge (`total_cost` of the usage records, set
    # only when the run had a cost config: `--model-cost-config`, `set_model_cost`); None
    # when it recorded none, or when the judge tokens are not the log's own judge's
    answer_cost: float | None = None
    judge_cost: float | None = None
    # `--cost-limit` (USD per sample) and the cases a sample of which it stopped
    cost_limit: float | None = None
    cost_limited: tuple[str, ...] = ()


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def start_key(log: LogRecord) -> tuple[float, str]:
    start = parse_time(log.started_at)
    return (start.timestamp() if start is not None else float("-inf"), log.location)


def newest_first(logs: Sequence[LogRecord]) -> list[LogRecord]:
    """Logs from newest to oldest start (ties: location), the order evidence is taken in."""
    return sorted(logs, key=start_key, reverse=True)


def split_usage(
    model_usage: Mapping[str, TokenUsage],
    role_usage: Mapping[str, TokenUsage],
    answer_model: str,
    judge_model: str,
    grader_role: str,
) -> tuple[TokenUsage, TokenUsage | None]:
    """(answer, judge) usage of one log.

    Inspect keys `model_usage` by model name and `role_usage` by role; the scorer always asks
    for the judge through the `grader` role, so role usage identifies judge tokens even when the
    judge and the answer model are the same model. Judge usage is None only when it cannot be
    told apart (same model, no role usage); the answer then holds both.
    """
    judge = role_usage.get(grader_role)
    answer = model_usage.get(answer_model, TokenUsage())
    if judge_model == answer_model:
        return (answer - judge, judge) if judge is not None else (answer, None)
    if judge is None:
        judge = model_usage.get(judge_model, TokenUsage())
    return answer, judge


def split_cost(
    model_cost: Mapping[str, float | None],
    role_cost: Mapping[str, float | None],
    answer_model: str,
    judge_model: str,
    grader_role: str,
) -> tuple[float | None, float | None]:
    """(answer, judge) USD Inspect recorded in one log, split as `split_usage` splits tokens;
    None where it recorded none (no cost config for that model)."""
    judge = role_cost.get(grader_role)
    answer = model_cost.get(answer_model)
    if judge_model == answer_model:
        if grader_role not in role_cost:
            return answer, None
        return (None if answer is None or judge is None else answer - judge), judge
    if grader_role not in role_cost:
        judge = model_cost.get(judge_model)
    return answer, judge
