"""Read Inspect logs into `LogRecord`s: the only module of the report that touches log files.

Everything goes through `inspect_ai.log`, so any location Inspect can read works (local
folders, `s3://` and other remote log directories). Only headers and sample summaries are read:
summaries carry each score's value and small metadata, which is all a summary needs, and reading
them costs one member of the `.eval` zip per log instead of every sample. Full samples are read
only where a summary cannot answer: score metadata the report reads (the decisions of a large
rubric, repeated-judging decisions, judge tokens) that Inspect thinned out of the summary (values
over 1 kB), and logs with invalidated samples.

Longer than most modules: it is the report's one door to log files (headers, summaries, full
samples, concurrency and progress), kept whole so that no other report module reads a log.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TextIO
from urllib.parse import unquote, urlsplit

from inspect_ai.log import (
    EvalLog,
    EvalSampleSummary,
    headline_metric,
    list_eval_logs_async,
    read_eval_log_async,
    read_eval_log_sample_summaries_async,
    read_eval_log_samples_by_id,
)
from inspect_ai.model import ModelUsage

from bedside_bench.calls.credentials import redact_credentials
from bedside_bench.core.benchmarks import BENCHMARKS_BY_NAME
from bedside_bench.core.contracts import (
    DEMO_TAG,
    GRADER_ROLE,
    NOT_RECORDED,
    SCORE_KEY,
    SCORER_NAME,
    Decision,
    SentTemperature,
)
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.logs.checks import case_problem, score_problem
from bedside_bench.logs.epochs import reduce_epochs
from bedside_bench.logs.generation import answer_settings
from bedside_bench.logs.records import (
    FOREIGN_SCORES_MARK,
    CaseRecord,
    InspectMean,
    LogRecord,
    TokenUsage,
    split_cost,
    split_usage,
)
from bedside_bench.logs.scorers import (
    appended_records,
    case_judge,
    case_judges,
    rescored_judge_usage,
)
from bedside_bench.logs.values import (
    ALWAYS_REQUIRED,
    LARGE_KEYS,
    THINNED_VALUE,
    TaskValues,
    negative_usage,
    required_score_fields,
    score_values,
    task_arg_values,
    task_values,
)

if TYPE_CHECKING:
    from inspect_ai.model import GenerateConfig
    from inspect_ai.scorer import Score

SCORER = SCORER_NAME
LOG_EXTENSIONS = (".eval", ".json")
READ_CONCURRENCY = 8
# sample fields a score does not need; skipping them keeps full-sample reads cheap
HEAVY_FIELDS = {"messages", "events", "attachments", "store", "output", "metadata"}


EpochCases = dict[tuple[str, int], CaseRecord]


@dataclass
class ReadResult:
    records: list[LogRecord]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (location, reason)

    def refused_values(self) -> list[str]:
        """One line per case (per epoch) that failed on a malformed value of its log, naming
        the log, the case and the field (`log_values`); the report prints them."""
        lines = []
        for record in self.records:
            for case in record.cases.values():
                epochs = case.epoch_records or (case,)
                for epoch, r in enumerate(epochs, start=1):
                    if r.refused and r.error is not None:
                        at = f" epoch {epoch}" if len(epochs) > 1 else ""
                        lines.append(f"{record.location}: case {r.case_id}{at}: {r.error}")
        return lines


class Progress:
    """One stderr line per log read, but only once reading has taken longer than `after`."""

    def __init__(self, total: int, stream: TextIO | None = None, after: float = 2.0) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.after = after
        self.start = time.monotonic()

    def step(self, location: str) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.start
        if elapsed >= self.after:
            print(
                f"report: read {self.done}/{self.total} logs ({elapsed:.1f} s): "
                f"{display_location(location)}",
                file=self.stream,
                flush=True,
            )


# --------------------------------------------------------------------------------------------
# locations


def display_location(location: str) -> str:
    """A log location fit for output: local paths plain, never a URL's user or password."""
    if location.startswith("file://"):
        return unquote(urlsplit(location).path)
    return redact_credentials(location)


def _is_log_file(path: str) -> bool:
    return path.lower().endswith(LOG_EXTENSIONS)


async def resolve_locations(paths: Sequence[str]) -> list[str]:
    """Log files named directly, plus every log Inspect lists under each directory."""
    locations: dict[str, str] = {}
    for path in paths:
        if _is_log_file(path):
            found = [path if "://" in path else os.path.abspath(path)]
        else:
            found = [info.name for info in await list_eval_logs_async(path, recursive=True)]
            if not found:
                raise FileNotFoundError(
                    f"no Inspect logs found under {path!r} (give the folder `inspect eval` "
                    "wrote to: its --log-dir, else $INSPECT_LOG_DIR, else ./logs)"
                )
        for location in found:
            locations.setdefault(display_location(location), location)
    return list(locations.values())


# --------------------------------------------------------------------------------------------
# values


def _temperature(values: ScoreMetadata, key: str) -> SentTemperature:
    """A temperature the score holds; one it does not hold (an earlier version's score) is not
    recorded, not "not sent"."""
    if key not in values.model_fields_set:
        return NOT_RECORDED
    value: SentTemperature = getattr(values, key)
    return value


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _pass_decisions(values: ScoreMetadata) -> tuple[Mapping[str, Decision], ...] | None:
    """Each pass's {item_id: matched} (reference grading) or {item_id: level} (three-level)."""
    return None if values.pass_decisions is None else tuple(values.pass_decisions)


def _bool_decisions(values: ScoreMetadata) -> Mapping[str, bool] | None:
    """`{item_id: matched}`, or None when absent, thinned out of a summary, or not binary."""
    decisions = values.decisions
    if decisions is None or not all(isinstance(v, bool) for v in decisions.values()):
        return None
    return {k: bool(v) for k, v in decisions.items()}


def _scored_usage(values: ScoreMetadata) -> TokenUsage | None:
    """The judge tokens a score recorded (summed over judge models), None when absent."""
    if not values.judge_usage:
        return None
    total = TokenUsage()
    for counts in values.judge_usage.values():
        total = total + TokenUsage(**counts.model_dump())
    return total


def _token_usage(usage: ModelUsage | None) -> TokenUsage:
    if usage is None:
        return TokenUsage()
    return TokenUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        input_tokens_cache_read=usage.input_tokens_cache_read or 0,
        input_tokens_cache_write=usage.input_tokens_cache_write or 0,
        reasoning_tokens=usage.reasoning_tokens or 0,
        total_tokens=usage.total_tokens,
    )


def case_record(
    case_id: str,
    error: str | None,
    scores: Mapping[str, Score] | None,
    scorer: str = SCORER,
    required: tuple[str, ...] = ALWAYS_REQUIRED,
) -> CaseRecord:
    """A case from one sample's error and scores (summary or full sample alike); a score whose
    value or metadata is malformed (`log_values`), or lacks a `required` key, fails the case."""
    score = None
    for name, candidate in (scores or {}).items():
        if name == scorer or name.endswith("/" + scorer):
            score = candidate
            break
    if error is None and score is None and scores and not any(SCORE_KEY.match(k) for k in scores):
        return CaseRecord(case_id=case_id, score=None, error=foreign_scores_reason(scores))
    if error is not None or score is None:
        return CaseRecord(case_id=case_id, score=None, error=error or f"no {scorer} score")
    number = _number(score.value)
    # every case score is in [0, 1]: anything else was not written by this suite's scorer
    if number is None or not 0.0 <= number <= 1.0:
        why = "is not a number" if number is None else "is outside [0, 1]"
        return CaseRecord(
            case_id=case_id, score=None, error=f"score value {score.value!r} {why}", refused=True
        )
    metadata = score.metadata or {}
    values = score_values(metadata, required)
    if isinstance(values, str):
        return CaseRecord(case_id=case_id, score=None, error=values, refused=True)
    return CaseRecord(
        case_id=case_id,
        score=number,
        recall=values.recall,
        precision=values.precision,
        severe_rate=values.severe_rate,
        judge_model=values.judge_model,
        judge_temperature=_temperature(values, "judge_temperature"),
        answer_temperature=_temperature(values, "answer_temperature"),
        judge_agreement=values.judge_agreement,
        pass_decisions=_pass_decisions(values),
        pass_scores=None if values.pass_scores is None else tuple(values.pass_scores),
        decisions=_bool_decisions(values),
        judge_usage=_scored_usage(values),
        thinned=tuple(k for k in LARGE_KEYS if metadata.get(k) == THINNED_VALUE),
        answer_stop_reason=values.answer_stop_reason,
        answer_condition=values.answer_condition,
        answer_empty=values.answer_empty is True,
    )


def foreign_scores_reason(names: Iterable[str]) -> str:
    """What scores by a scorer other than this suite's judge are: not a failed case to redo."""
    shown = ", ".join(f"`{n}`" for n in sorted(names))
    return f"scored by {shown}, {FOREIGN_SCORES_MARK}"


def foreign_scorers(summaries: Iterable[EvalSampleSummary]) -> set[str] | None:
    """The scorers of a log none of whose samples holds this suite's score (`inspect score
    --scorer match --action overwrite` replaced them), or None when the suite's scores are
    there or nothing was scored."""
    names: set[str] = set()
    for s in summaries:
        for key in s.scores or {}:
            if SCORE_KEY.match(key):
                return None
            names.add(key)
    return names or None


# --------------------------------------------------------------------------------------------
# headers


def benchmark_of(header: EvalLog) -> str | None:
    """The benchmark a log belongs to: task metadata, else the (unprefixed) task name."""
    metadata = header.eval.metadata or {}
    name = metadata.get("benchmark") or header.eval.task.rsplit("/", 1)[-1]
    name = str(name).replace("-", "_")
    return name if name in BENCHMARKS_BY_NAME else None


def judge_of(header: EvalLog) -> str:
    """The judge as configured: the `grader` role, else the judge the run resolved (task
    metadata), else the `judge_model` task argument, else the protocol's."""
    role = (header.eval.model_roles or {}).get(GRADER_ROLE)
    if isinstance(role, list):
        role = role[0] if role else None
    if role is not None:
        return role.model
    values = task_values(header.eval.metadata or {})
    resolved = values.judge_model if not isinstance(values, str) else None
    args = task_arg_values(header.eval.task_args or {})
    judge = args.judge_model if not isinstance(args, str) else None
    return resolved or judge or DEFAULT_JUDGE_MODEL


def skip_reason(header: EvalLog) -> str | None:
    """Why a log is not read: not a benchmark of this suite, not written by its tasks, or a
    task metadata value or task argument the report reads is malformed (`log_values`)."""
    metadata = header.eval.metadata or {}
    if benchmark_of(header) is None:
        return f"task {header.eval.task!r} is not a BedsideBench benchmark"
    for key in ("protocol_version", "dataset_sha256"):
        if not metadata.get(key):
            return f"task metadata has no {key!r} (not written by bedside_bench tasks)"
    for checked in (task_values(metadata), task_arg_values(header.eval.task_args or {})):
        if isinstance(checked, str):
            return checked
    stats = header.stats
    return negative_usage(stats.model_usage, "model") or negative_usage(stats.role_usage, "role")


def sample_usage_reason(summaries: Iterable[EvalSampleSummary]) -> str | None:
    """Why the samples' token usage cannot be added up (a negative count), or None."""
    for s in summaries:
        for usage, kind in ((s.model_usage, "model"), (s.role_usage, "role")):
            reason = negative_usage(usage, f"sample {s.id} epoch {s.epoch} {kind}")
            if reason is not None:
                return reason
    return None


def _checked_task_values(header: EvalLog) -> TaskValues:
    values = task_values(header.eval.metadata or {})
    if isinstance(values, str):  # `skip_reason` keeps such a log out
        raise ValueError(values)
    return values


def header_record(location: str, header: EvalLog) -> LogRecord:
    """Everything a log says about its run, before any sample is read (`skip_reason` first)."""
    metadata = _checked_task_values(header)
    benchmark = benchmark_of(header)
    assert benchmark is not None
    answer_model = header.eval.model
    judge_model = judge_of(header)
    answer_usage, judge_usage = split_usage(
        {k: _token_usage(v) for k, v in header.stats.model_usage.items()},
        {k: _token_usage(v) for k, v in header.stats.role_usage.items()},
        answer_model,
        judge_model,
        GRADER_ROLE,
    )
    answer_cost, judge_cost = split_cost(
        {k: v.total_cost for k, v in header.stats.model_usage.items()},
        {k: v.total_cost for k, v in header.stats.role_usage.items()},
        answer_model,
        judge_model,
        GRADER_ROLE,
    )
    # the answers' own run, for a rejudge log
    answer_source = metadata.rejudge["source_task_id"] if metadata.rejudge else ""
    config = header.eval.config
    return LogRecord(
        location=location,
        benchmark=benchmark,
        answer_model=answer_model,
        judge_model=judge_model,
        dataset_sha256=metadata.dataset_sha256,
        protocol_version=metadata.protocol_version,
        data_source=redact_credentials(metadata.data_source) if metadata.data_source else None,
        severe_gate=metadata.severe_gate,
        judge_passes=metadata.judge_passes,
        grading=metadata.grading,
        smoke=metadata.smoke,
        status=header.status,
        started_at=header.stats.started_at or header.eval.created or None,
        completed_at=header.stats.completed_at or None,
        task_id=header.eval.task_id,
        epochs=config.epochs or 1,
        epochs_reducer=_reducers(config.epochs_reducer),
        inspect_means=inspect_means(header),
        sample_ids=tuple(str(i) for i in header.eval.dataset.sample_ids or ()),
        dataset_samples=header.eval.dataset.samples,
        limit=_limit_text(config.limit),
        sample_id=config.sample_id is not None,
        release=metadata.release,
        release_case_counts=metadata.release_case_counts,
        case_sha256=metadata.case_sha256,
        answer_usage=answer_usage,
        judge_usage=judge_usage,
        answer_source=answer_source or header.eval.task_id,
        generation=answer_settings(
            header.eval.model_generate_config.model_dump(mode="json", exclude_none=True),
            header.plan.config.model_dump(mode="json", exclude_none=True),
        ),
        answer_batch=answer_uses_batch(header),
        judge_batch=judge_uses_batch(header),
        demo=DEMO_TAG in (header.eval.tags or ()),
        # written redacted by rejudge; a log from elsewhere is redacted here, as data_source is
        rejudged_from=redact_credentials(metadata.rejudge["source_log"])
        if metadata.rejudge
        else "",
        answer_cost=answer_cost,
        judge_cost=judge_cost,
        cost_limit=config.cost_limit,
    )


def uses_batch(config: GenerateConfig | None) -> bool:
    """Whether a generation config asked for the batch API (`batch`: True, a size or a
    BatchConfig; None or False: not)."""
    batch = getattr(config, "batch", None)
    return batch is not None and batch is not False


def answer_uses_batch(header: EvalLog) -> bool:
    """The answer model's batch setting: its own generate config, or the eval's (`plan.config`:
    where `eval_set` records `--batch` when the sweep also sets eval-wide options such as
    `--max-connections`)."""
    return uses_batch(header.eval.model_generate_config) or uses_batch(header.plan.config)


def judge_uses_batch(header: EvalLog) -> bool:
    """The judge's batch setting: its `grader` role's own config (a role model does not
    inherit the eval's `batch`, see `sweep.options.judge_role`), else, for a judge named by
    the `judge_model` task argument, the eval's."""
    role = (header.eval.model_roles or {}).get(GRADER_ROLE)
    if isinstance(role, list):
        role = role[0] if role else None
    if role is not None:
        return uses_batch(role.config)
    return answer_uses_batch(header)


def inspect_means(header: EvalLog) -> tuple[InspectMean, ...]:
    """The `mean` of every score in the log's results (one per scorer and epoch reducer), the
    one Inspect's headline shows marked: which that is, Inspect says (`headline_metric`: the
    headline it resolved when scoring, else the task's declared one, else the first metric of
    the first score), so the report never guesses it from the order of the results."""
    scores = header.results.scores if header.results is not None else []
    shown = headline_metric(header)
    return tuple(
        InspectMean(
            score=s.name,
            reducer=s.reducer or "",
            mean=float(mean.value),
            headline=shown is not None and shown.score is s and shown.name == "mean",
        )
        for s in scores
        if (mean := s.metrics.get("mean")) is not None and isinstance(mean.value, int | float)
    )


def _reducers(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(str(v) for v in (value if isinstance(value, list) else [value]))


def _limit_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return "-".join(str(v) for v in value)
    return str(value)


# --------------------------------------------------------------------------------------------
# samples


def required_of(record: LogRecord) -> tuple[str, ...]:
    """The score metadata keys each case of `record`'s log must hold (`log_values`)."""
    f1 = BENCHMARKS_BY_NAME[record.benchmark].grading_method == "f1_weighted_rubric"
    return required_score_fields(f1)


def sample_case(
    sample_id: int | str,
    error: str | None,
    scores: Mapping[str, Score] | None,
    scorer: str,
    required: tuple[str, ...],
) -> CaseRecord:
    """`case_record` of one sample; a sample id that is not text (the tasks' case ids are)
    fails its case, so a number is never taken for a case of the release."""
    if not isinstance(sample_id, str):
        why = f"sample id {sample_id!r} is not text (case ids are)"
        return CaseRecord(case_id=str(sample_id), score=None, error=why, refused=True)
    return case_record(sample_id, error, scores, scorer, required)


def _summary_cases(
    summaries: Iterable[EvalSampleSummary],
    scorer: str = SCORER,
    required: tuple[str, ...] = ALWAYS_REQUIRED,
) -> EpochCases:
    return {
        (str(s.id), s.epoch): sample_case(s.id, s.error, s.scores, scorer, required)
        for s in summaries
    }


def _epoch_usage(
    summaries: Iterable[EvalSampleSummary], record: LogRecord
) -> tuple[tuple[int, TokenUsage, TokenUsage | None], ...]:
    """Answer and judge tokens of each epoch, from the samples' own usage."""
    totals: dict[int, tuple[TokenUsage, TokenUsage | None]] = {}
    for s in summaries:
        answer, judge = split_usage(
            {k: _token_usage(v) for k, v in s.model_usage.items()},
            {k: _token_usage(v) for k, v in s.role_usage.items()},
            record.answer_model,
            record.judge_model,
            GRADER_ROLE,
        )
        old_answer, old_judge = totals.get(s.epoch, (TokenUsage(), TokenUsage()))
        totals[s.epoch] = (
            old_answer + answer,
            None if old_judge is None or judge is None else old_judge + judge,
        )
    return tuple((e, *totals[e]) for e in sorted(totals))


def full_cases(
    location: str,
    ids: Sequence[tuple[str, int]],
    scorer: str = SCORER,
    required: tuple[str, ...] = ALWAYS_REQUIRED,
    record: LogRecord | None = None,
) -> EpochCases:
    """Re-read samples whose summary is not enough (thinned metadata, invalidation, and every
    case `checked_case` checks against `record`: its question and rubric are in the full
    sample only).

    Synchronous on purpose: Inspect's sync reader sets up the async filesystem it needs, which
    its async variant leaves to the caller through a private API.
    """
    excluded = HEAVY_FIELDS if record is None else HEAVY_FIELDS - {"metadata"}
    samples = read_eval_log_samples_by_id(location, list(ids), exclude_fields=excluded)
    cases = {}
    for sample in samples:
        error = sample.error.message if sample.error else None
        if sample.invalidation is not None:
            error = "sample invalidated"
        case = sample_case(sample.id, error, sample.scores, scorer, required)
        if record is not None and case.completed:
            case = checked_case(case, record, sample.input, sample.metadata, sample.scores)
        cases[(str(sample.id), sample.epoch)] = case
    return cases


def checked_case(
    case: CaseRecord,
    record: LogRecord,
    prompt: object,
    metadata: Mapping[str, object] | None,
    scores: Mapping[str, Score] | None,
) -> CaseRecord:
    """The case, or its refusal naming the field when the sample is not its case as the log's
    release holds it, or its score not the one its stored decisions give (`logs/checks.py`)."""
    score = (scores or {}).get(record.scorer)
    problem = case_problem(
        case.case_id, record.case_sha256, prompt if isinstance(prompt, str) else "", metadata
    )
    if problem is None and score is not None and case.score is not None:
        problem = score_problem(case.score, score.metadata or {}, metadata)
    if problem is None:
        return case
    return CaseRecord(case_id=case.case_id, score=None, error=problem, refused=True)


def to_check(
    summaries: Iterable[EvalSampleSummary], cases: EpochCases, record: LogRecord
) -> list[tuple[str, int]]:
    """(case, epoch) of every scored sample there is something to check (`checked_case`): all
    of a log whose header lists its cases' digests (a summary may lack the sample's metadata:
    one recovered from a killed run's buffer has none), else those whose summary shows a
    rubric (a log from before digests were recorded; a log of another shape has none)."""
    return [
        (str(s.id), s.epoch)
        for s in summaries
        if cases[(str(s.id), s.epoch)].completed
        and (record.case_sha256 is not None or "rubric_items" in (s.metadata or {}))
    ]


def needs_full_read(
    record: LogRecord, cases: EpochCases, invalidated: bool
) -> list[tuple[str, int]]:
    """(case, epoch) samples whose summary lacks what the report needs."""
    return [
        key
        for key, c in cases.items()
        if invalidated
        or (c.completed and c.thinned)
        or (record.judge_passes > 1 and c.completed and c.pass_decisions is None)
    ]


Outcome = tuple[LogRecord, EpochCases, list[tuple[str, int]]]


async def read_record(location: str) -> list[Outcome] | str:
    """One log's header facts, its samples' results by (case, epoch) and the samples to re-read
    in full, one outcome per judge whose scores the log holds; or why the log is not ours."""
    header = await read_eval_log_async(location, header_only=True)
    reason = skip_reason(header)
    if reason is not None:
        return reason
    record = header_record(location, header)
    summaries = await read_eval_log_sample_summaries_async(location)
    bad_usage = sample_usage_reason(summaries)
    if bad_usage is not None:
        return bad_usage
    foreign = foreign_scorers(summaries)
    if foreign is not None:
        return foreign_scores_reason(foreign) + " (re-score it with this suite's judge)"
    required = required_of(record)
    base_cases = _summary_cases(summaries, SCORER, required)
    record = replace(
        record,
        usage_by_epoch=_epoch_usage(summaries, record),
        cost_limited=tuple(sorted({str(s.id) for s in summaries if s.limit == "cost"})),
    )
    outcomes: list[Outcome] = []
    for r in [record, *appended_records(record, summaries)]:
        cases = base_cases if r.scorer == SCORER else _summary_cases(summaries, r.scorer, required)
        reread = needs_full_read(r, cases, bool(header.invalidated))
        reread = list(dict.fromkeys([*reread, *to_check(summaries, cases, record)]))
        outcomes.append((r, cases, reread))
    return outcomes


def finish_record(
    record: LogRecord, cases: EpochCases, reread: Sequence[tuple[str, int]]
) -> LogRecord:
    """The record with one result per case (the mean over its epochs) and the judge the scores
    name; a log whose scores name several judges is labelled so, never filed under one."""
    if reread:
        reread_cases = full_cases(
            record.location, reread, record.scorer, required_of(record), record
        )
        cases = {**cases, **reread_cases}
    reduced = reduce_epochs(cases, record.epochs)
    judges = case_judges(reduced.values())
    judge = case_judge(reduced.values()) or record.judge_model
    shown = display_location(record.location)
    judge_usage = rescored_judge_usage(record, judge, reduced.values())
    # Inspect's recorded judge cost is the header judge's: it stands only for its own tokens
    own_judge = record.scorer == SCORER and judge_usage == record.judge_usage
    return replace(
        record,
        cases=reduced,
        sample_ids=record.sample_ids or tuple(reduced),
        judge_model=judge,
        judges_seen=tuple(judges) if len(judges) > 1 else (),
        judge_usage=judge_usage,
        judge_cost=record.judge_cost if own_judge and judge == record.judge_model else None,
        location=shown if record.scorer == SCORER else f"{shown}#{record.scorer}",
    )


def unreadable(ex: BaseException) -> str:
    """Why a log is skipped when reading it failed (the report's and the export's words)."""
    return f"cannot be read ({type(ex).__name__}: {ex})"


async def read_headers_and_summaries(
    paths: Sequence[str], progress_stream: TextIO | None
) -> list[tuple[str, list[Outcome] | str]]:
    """(location, record and cases to re-read | reason skipped) for every log, concurrently."""
    locations = await resolve_locations(paths)
    progress = Progress(len(locations), progress_stream)
    semaphore = asyncio.Semaphore(READ_CONCURRENCY)

    async def one(location: str) -> list[Outcome] | str:
        async with semaphore:
            try:
                return await read_record(location)
            except Exception as ex:  # one unreadable log must not hide the others
                return unreadable(ex)
            finally:
                progress.step(location)

    outcomes = await asyncio.gather(*(one(loc) for loc in locations))
    return list(zip(locations, outcomes, strict=True))


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while logs are parsed.

    Parsing builds many small pydantic objects that stay alive, so each full collection walks
    everything read so far and reading slows down with the size of the store (100 logs: about
    40% of the read time). Reference counting still frees what is dropped; collection resumes
    afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read_records(paths: Sequence[str], progress_stream: TextIO | None = None) -> ReadResult:
    """Read every BedsideBench log under `paths` (directories or log files, local or remote)."""
    result = ReadResult(records=[])
    with _gc_paused():
        outcomes = asyncio.run(read_headers_and_summaries(paths, progress_stream))
    for location, outcome in outcomes:
        if isinstance(outcome, str):
            result.skipped.append((display_location(location), outcome))
        else:
            result.records += [finish_record(*parts) for parts in outcome]
    return result
