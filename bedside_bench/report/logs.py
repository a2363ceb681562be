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
from typing import TYPE_CHECKING, TextIO, cast
from urllib.parse import unquote, urlsplit

from inspect_ai.log import (
    EvalLog,
    EvalSampleSummary,
    list_eval_logs_async,
    read_eval_log_async,
    read_eval_log_sample_summaries_async,
    read_eval_log_samples_by_id,
)
from inspect_ai.model import ModelUsage

from bedside_bench.benchmarks import BENCHMARKS_BY_NAME
from bedside_bench.contracts import (
    GRADER_ROLE,
    SCORE_KEY,
    SCORER_NAME,
    Decision,
    ScoreMetadata,
    TaskMetadata,
)
from bedside_bench.credentials import redact_credentials
from bedside_bench.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.report.epochs import reduce_epochs
from bedside_bench.report.generation import answer_settings
from bedside_bench.report.records import FOREIGN_SCORES_MARK, CaseRecord, LogRecord, TokenUsage
from bedside_bench.report.scorers import (
    appended_records,
    bool_decisions,
    case_judge,
    case_judges,
    rescored_judge_usage,
    scored_usage,
)
from bedside_bench.report.usage import split_usage

if TYPE_CHECKING:
    from inspect_ai.model import GenerateConfig
    from inspect_ai.scorer import Score

SCORER = SCORER_NAME
LOG_EXTENSIONS = (".eval", ".json")
READ_CONCURRENCY = 8
# sample fields a score does not need; skipping them keeps full-sample reads cheap
HEAVY_FIELDS = {"messages", "events", "attachments", "store", "output", "metadata"}
# what Inspect puts in a sample summary in place of a metadata value over 1 kB
# (`inspect_ai.log._util.thin_metadata`)
THINNED_VALUE = "Key removed from summary (> 1k)"
# the score metadata keys `case_record` reads whose values can exceed 1 kB
LARGE_KEYS: tuple[str, ...] = ("decisions", "pass_decisions", "judge_usage")


EpochCases = dict[tuple[str, int], CaseRecord]


@dataclass
class ReadResult:
    records: list[LogRecord]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (location, reason)


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
                raise FileNotFoundError(f"no Inspect logs found under {path!r}")
        for location in found:
            locations.setdefault(display_location(location), location)
    return list(locations.values())


# --------------------------------------------------------------------------------------------
# values


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _pass_decisions(value: object) -> tuple[Mapping[str, Decision], ...] | None:
    """Each pass's {item_id: matched} (reference grading) or {item_id: level} (three-level)."""
    if not isinstance(value, list) or not value:
        return None
    passes: list[Mapping[str, Decision]] = []
    for entry in value:
        if not isinstance(entry, dict) or not all(
            isinstance(v, bool | str) for v in entry.values()
        ):
            return None
        passes.append({str(k): v for k, v in entry.items()})
    return tuple(passes)


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
    case_id: str, error: str | None, scores: Mapping[str, Score] | None, scorer: str = SCORER
) -> CaseRecord:
    """A case from one sample's error and scores (summary or full sample alike)."""
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
    value = number if number is not None and 0.0 <= number <= 1.0 else None
    # a log's values are checked one by one below; the keys are the scorer's
    meta = cast(ScoreMetadata, score.metadata or {})
    return CaseRecord(
        case_id=case_id,
        score=value,
        error=None
        if value is not None
        else f"score value {score.value!r} is not a number"
        if number is None
        else f"score value {score.value!r} is outside [0, 1]",
        recall=_number(meta.get("recall")),
        precision=_number(meta.get("precision")),
        severe_rate=_number(meta.get("severe_rate")),
        judge_model=_text(meta.get("judge_model")),
        judge_temperature=_number(meta.get("judge_temperature")),
        answer_temperature=_number(meta.get("answer_temperature")),
        judge_agreement=_number(meta.get("judge_agreement")),
        pass_decisions=_pass_decisions(meta.get("pass_decisions")),
        decisions=bool_decisions(meta.get("decisions")),
        judge_usage=scored_usage(meta.get("judge_usage")),
        thinned=tuple(k for k in LARGE_KEYS if meta.get(k) == THINNED_VALUE),
        answer_stop_reason=_text(meta.get("answer_stop_reason")),
        answer_condition=_text(meta.get("answer_condition")),
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
    """The judge as configured: the `grader` role, else the `judge_model` task argument."""
    role = (header.eval.model_roles or {}).get(GRADER_ROLE)
    if isinstance(role, list):
        role = role[0] if role else None
    if role is not None:
        return role.model
    judge = (header.eval.task_args or {}).get("judge_model")
    return judge if isinstance(judge, str) and judge else DEFAULT_JUDGE_MODEL


def skip_reason(header: EvalLog) -> str | None:
    metadata = header.eval.metadata or {}
    if benchmark_of(header) is None:
        return f"task {header.eval.task!r} is not a BedsideBench benchmark"
    for key in ("protocol_version", "dataset_sha256"):
        if not metadata.get(key):
            return f"task metadata has no {key!r} (not written by bedside_bench tasks)"
    return None


def header_record(location: str, header: EvalLog) -> LogRecord:
    """Everything a log says about its run, before any sample is read."""
    metadata = cast(TaskMetadata, header.eval.metadata or {})
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
    passes = metadata.get("judge_passes", 1)
    # the answers' own run, for a rejudge log; a log not written by rejudge may hold anything
    rejudged: object = metadata.get("rejudge")
    source = rejudged.get("source_task_id") if isinstance(rejudged, dict) else None
    answer_source = source if isinstance(source, str) else ""
    config = header.eval.config
    return LogRecord(
        location=location,
        benchmark=benchmark,
        answer_model=answer_model,
        judge_model=judge_model,
        dataset_sha256=str(metadata["dataset_sha256"]),
        protocol_version=str(metadata["protocol_version"]),
        data_source=redact_credentials(str(metadata["data_source"]))
        if metadata.get("data_source")
        else None,
        severe_gate=bool(metadata.get("severe_gate", False)),
        judge_passes=passes if isinstance(passes, int) and passes >= 1 else 1,
        grading=str(metadata.get("grading", "binary")),
        smoke=bool(metadata.get("smoke", False)),
        status=header.status,
        started_at=header.stats.started_at or header.eval.created or None,
        completed_at=header.stats.completed_at or None,
        task_id=header.eval.task_id,
        epochs=config.epochs or 1,
        epochs_reducer=_reducers(config.epochs_reducer),
        sample_ids=tuple(str(i) for i in header.eval.dataset.sample_ids or ()),
        dataset_samples=header.eval.dataset.samples,
        limit=_limit_text(config.limit),
        sample_id=config.sample_id is not None,
        release=_text(metadata.get("release")),
        release_case_counts=_case_counts(metadata.get("release_case_counts")),
        answer_usage=answer_usage,
        judge_usage=judge_usage,
        answer_source=answer_source or header.eval.task_id,
        generation=answer_settings(
            header.eval.model_generate_config.model_dump(mode="json", exclude_none=True),
            header.plan.config.model_dump(mode="json", exclude_none=True),
        ),
        answer_batch=answer_uses_batch(header),
        judge_batch=judge_uses_batch(header),
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


def _case_counts(value: object) -> dict[str, int] | None:
    """{benchmark: cases the release holds}, or None unless every entry is a count."""
    if not isinstance(value, dict) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in value.values()
    ):
        return None
    return {str(k): int(n) for k, n in value.items()}


# --------------------------------------------------------------------------------------------
# samples


def _summary_cases(summaries: Iterable[EvalSampleSummary], scorer: str = SCORER) -> EpochCases:
    return {
        (str(s.id), s.epoch): case_record(str(s.id), s.error, s.scores, scorer) for s in summaries
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


def full_cases(location: str, ids: Sequence[tuple[str, int]], scorer: str = SCORER) -> EpochCases:
    """Re-read samples whose summary is not enough (thinned metadata, invalidation).

    Synchronous on purpose: Inspect's sync reader sets up the async filesystem it needs, which
    its async variant leaves to the caller through a private API.
    """
    samples = read_eval_log_samples_by_id(location, list(ids), exclude_fields=HEAVY_FIELDS)
    cases = {}
    for sample in samples:
        error = sample.error.message if sample.error else None
        if sample.invalidation is not None:
            error = "sample invalidated"
        cases[(str(sample.id), sample.epoch)] = case_record(
            str(sample.id), error, sample.scores, scorer
        )
    return cases


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
    foreign = foreign_scorers(summaries)
    if foreign is not None:
        return foreign_scores_reason(foreign) + " (re-score it with this suite's judge)"
    base_cases = _summary_cases(summaries)
    record = replace(record, usage_by_epoch=_epoch_usage(summaries, record))
    outcomes: list[Outcome] = []
    for r in [record, *appended_records(record, summaries)]:
        cases = base_cases if r.scorer == SCORER else _summary_cases(summaries, r.scorer)
        outcomes.append((r, cases, needs_full_read(r, cases, bool(header.invalidated))))
    return outcomes


def finish_record(
    record: LogRecord, cases: EpochCases, reread: Sequence[tuple[str, int]]
) -> LogRecord:
    """The record with one result per case (the mean over its epochs) and the judge the scores
    name; a log whose scores name several judges is labelled so, never filed under one."""
    if reread:
        cases = {**cases, **full_cases(record.location, reread, record.scorer)}
    reduced = reduce_epochs(cases, record.epochs)
    judges = case_judges(reduced.values())
    judge = case_judge(reduced.values()) or record.judge_model
    shown = display_location(record.location)
    return replace(
        record,
        cases=reduced,
        sample_ids=record.sample_ids or tuple(reduced),
        judge_model=judge,
        judges_seen=tuple(judges) if len(judges) > 1 else (),
        judge_usage=rescored_judge_usage(record, judge, reduced.values()),
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
