"""`bedside-bench rejudge`: judge stored answers again with another judge, never buying an
answer again.

Each source log gives one new Inspect log (in `--output-dir`, the source is never touched):
the same samples, answers and task metadata, scored again through Inspect's own scoring API
(`score_async`) with the `rubric_judge` scorer and judge M. The new log records the judge as
its `grader` role, what the judging cost in its stats, and where the answers came from
(`rejudge` in the task metadata), so `inspect view` and `bedside-bench report` read it like any
other run. The output is written after every few cases; running the same command again judges
only the cases not yet judged there, so an interrupted re-judge resumes where it stopped.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bedside_bench.arguments import Subcommands, add_command, positive_int
from bedside_bench.contracts import GRADER_ROLE, SCORER_NAME

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import Model, ModelUsage
    from inspect_ai.scorer import Scorer

PROG = "bedside-bench rejudge"
METADATA_KEY = "rejudge"
CHECKPOINT_SAMPLES = 25
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_INCOMPLETE = 3  # some cases could not be judged; rerun the command to try them again
SampleKey = tuple[str, int]


class RejudgeError(RuntimeError):
    """A problem with the inputs, reported as one line."""


@dataclass(frozen=True)
class RejudgeOptions:
    log_paths: Sequence[str]
    judge: str
    judge_passes: int | None = None  # None: as the source log was judged
    failed_only: bool = False
    output_dir: str = "logs/rejudge"
    checkpoint: int = CHECKPOINT_SAMPLES
    display: str = "none"


@dataclass
class LogOutcome:
    source: str
    output: str
    judged: int = 0
    already_done: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: str | None = None


# --------------------------------------------------------------------------------------------
# what to judge (pure)


def sample_key(sample: EvalSample) -> SampleKey:
    return (str(sample.id), sample.epoch)


def has_answer(sample: EvalSample) -> bool:
    """The answer call finished (an empty answer is still an answer, scored as such)."""
    return bool(sample.output and sample.output.choices)


def rubric_score(sample: EvalSample) -> Any:
    return (sample.scores or {}).get(SCORER_NAME)


def judged_ok(sample: EvalSample, judge: str) -> bool:
    """Scored without error by `judge` (the judge the score itself names)."""
    score = rubric_score(sample)
    if sample.error is not None or score is None:
        return False
    return (score.metadata or {}).get("judge_model") == judge


def judge_failed(sample: EvalSample) -> bool:
    """The answer is there but no rubric score is: the judge (not the answer) failed."""
    return has_answer(sample) and (sample.error is not None or rubric_score(sample) is None)


def output_name(source: str, judge: str, passes: int, failed_only: bool) -> str:
    """One output file per (source log, judge, passes, mode): what makes a rerun resume."""
    from bedside_bench.report.groups import slug

    stem = Path(source.rstrip("/").rsplit("/", 1)[-1]).stem
    tail = f"-p{passes}" if passes > 1 else ""
    mode = "-failed" if failed_only else ""
    return f"{stem}-rejudge-{slug(judge)}{tail}{mode}.eval"


def to_judge(
    source: Sequence[EvalSample], done: set[SampleKey], failed_only: bool
) -> list[EvalSample]:
    wanted = [s for s in source if (judge_failed(s) if failed_only else has_answer(s))]
    return [s for s in wanted if sample_key(s) not in done]


# --------------------------------------------------------------------------------------------
# scoring through Inspect


def _usage_of(events: Sequence[Any]) -> dict[str, ModelUsage]:
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import ModelUsage

    usage: dict[str, ModelUsage] = {}
    for event in events:
        if isinstance(event, ModelEvent) and event.output.usage is not None:
            usage[event.model] = usage.get(event.model, ModelUsage()) + event.output.usage
    return usage


def capturing(
    inner: Scorer,
    failures: dict[SampleKey, BaseException],
    usage: dict[SampleKey, dict[str, ModelUsage]],
) -> Scorer:
    """`inner`, but a judge that fails ends only its own case (Inspect's `score_async` would
    stop every case on the first exception); every call's tokens are kept, failed or not."""
    from inspect_ai._util.registry import (
        REGISTRY_INFO,
        REGISTRY_PARAMS,
        registry_info,
        registry_params,
    )
    from inspect_ai.log import transcript
    from inspect_ai.scorer import Score, Target
    from inspect_ai.solver import TaskState

    async def score(state: TaskState, target: Target) -> Score | None:
        key = (str(state.sample_id), state.epoch)
        start = transcript().history.event_count
        try:
            return await inner(state, target)
        except Exception as ex:
            failures[key] = ex
            return None
        finally:
            usage[key] = _usage_of(transcript().history.events_from(start))

    # the same registry identity, so the score is keyed and recorded as rubric_judge
    setattr(score, REGISTRY_INFO, registry_info(inner))
    setattr(score, REGISTRY_PARAMS, registry_params(inner))
    return score


def scorer_options(source: EvalLog, judge: str, passes: int | None) -> dict[str, Any]:
    """The source run's scorer options, with the new judge (and passes, when given)."""
    from bedside_bench.scorer import DEFAULT_OPTIONS

    recorded: dict[str, Any] = {}
    for entry in source.eval.scorers or []:
        if entry.name.rsplit("/", 1)[-1] == SCORER_NAME:
            recorded = dict(entry.options or {})
            break
    metadata = source.eval.metadata or {}
    options = {k: recorded.get(k, metadata.get(k, v)) for k, v in DEFAULT_OPTIONS.items()}
    options["judge_model"] = judge
    if passes is not None:
        options["judge_passes"] = passes
    return options


async def judge_samples(
    header: EvalLog,
    samples: list[EvalSample],
    judge: Model,
    options: dict[str, Any],
    display: str,
) -> tuple[EvalLog, dict[SampleKey, BaseException], dict[SampleKey, dict[str, ModelUsage]]]:
    """Score `samples` (copies) with Inspect's `score_async`, overwriting their scores."""
    from inspect_ai._eval.score import score_async
    from inspect_ai.util._display import init_display_type

    from bedside_bench.scorer import rubric_judge

    failures: dict[SampleKey, BaseException] = {}
    usage: dict[SampleKey, dict[str, ModelUsage]] = {}
    work = header.model_copy(update={"samples": [deepcopy(s) for s in samples]})
    init_display_type(display)
    scored = await score_async(
        work,
        [capturing(rubric_judge(**options), failures, usage)],
        model=judge,  # the answer model is never even created
        model_roles={GRADER_ROLE: judge},
        action="overwrite",
        copy=False,
    )
    return scored, failures, usage


# --------------------------------------------------------------------------------------------
# the new log


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _sum_usage(parts: Sequence[dict[str, ModelUsage]]) -> dict[str, ModelUsage]:
    from inspect_ai.model import ModelUsage

    total: dict[str, ModelUsage] = {}
    for part in parts:
        for model, u in part.items():
            total[model] = total.get(model, ModelUsage()) + u
    return total


def finish_sample(
    sample: EvalSample, failure: BaseException | None, usage: dict[str, ModelUsage]
) -> EvalSample:
    """The judged sample as the new log keeps it: its error (if the judge failed) and the
    tokens this judging spent (the answer's tokens belong to the source log)."""
    from inspect_ai._util.error import EvalError

    total = sum(usage.values(), start=_empty_usage())
    sample.model_usage = dict(usage)
    sample.role_usage = {GRADER_ROLE: total} if usage else {}
    if failure is None:
        sample.error = None
    else:
        message = f"judge failed while re-judging: {type(failure).__name__}: {failure}"
        sample.error = EvalError(message=message, traceback="", traceback_ansi="")
        sample.scores = {k: v for k, v in (sample.scores or {}).items() if k != SCORER_NAME}
    return sample


def _empty_usage() -> ModelUsage:
    from inspect_ai.model import ModelUsage

    return ModelUsage()


def carried(sample: EvalSample) -> EvalSample:
    """A source sample copied as is (no answer to judge): its tokens stay with the source."""
    return sample.model_copy(update={"model_usage": {}, "role_usage": {}})


def new_header(
    source: EvalLog,
    source_location: str,
    judge: str,
    options: dict[str, Any],
    failed_only: bool,
    started_at: str,
) -> EvalLog:
    """The source header with a new identity, the new judge and the provenance of answers."""
    import shortuuid
    from inspect_ai.model import GenerateConfig, ModelConfig

    from bedside_bench.report.logs import display_location

    header = source.model_copy(deep=True, update={"samples": None})
    header.eval.eval_id = shortuuid.uuid()
    header.eval.run_id = shortuuid.uuid()
    # a new task id: the report takes usage from the newest log of each task id
    header.eval.task_id = shortuuid.uuid()
    header.eval.created = started_at
    roles = dict(header.eval.model_roles or {})
    roles[GRADER_ROLE] = ModelConfig(model=judge, config=GenerateConfig())
    header.eval.model_roles = roles
    header.eval.task_args = {
        **(header.eval.task_args or {}),
        "judge_model": judge,
        "judge_passes": options["judge_passes"],
    }
    header.eval.metadata = {
        **(header.eval.metadata or {}),
        "judge_passes": options["judge_passes"],
        METADATA_KEY: {
            "source_log": display_location(source_location),
            "source_eval_id": source.eval.eval_id,
            "source_task_id": source.eval.task_id,
            "judge": judge,
            "failed_only": failed_only,
        },
    }
    header.stats.started_at = started_at
    return header


def assemble(
    header: EvalLog,
    samples: list[EvalSample],
    scorers: Any,
    failed: int,
) -> EvalLog:
    """Header plus samples, with usage, metrics and status recomputed from the samples."""
    from inspect_ai._util.error import EvalError
    from inspect_ai.log import recompute_metrics

    log = header.model_copy(update={"samples": samples})
    log.eval.scorers = scorers
    usage = _sum_usage([s.model_usage for s in samples])
    log.stats.model_usage = usage
    judge_total = sum(usage.values(), start=_empty_usage())
    log.stats.role_usage = {GRADER_ROLE: judge_total} if usage else {}
    log.stats.completed_at = _now()
    if log.results is not None:
        log.results.total_samples = len(samples)
        log.results.completed_samples = sum(1 for s in samples if s.error is None)
    if any(s.scores for s in samples):
        recompute_metrics(log)
    log.status = "error" if failed else "success"
    log.error = (
        EvalError(
            message=f"{failed} case(s) could not be judged; rerun the command to try them again",
            traceback="",
            traceback_ansi="",
        )
        if failed
        else None
    )
    return log


def write_log(log: EvalLog, location: str) -> None:
    """Local files are replaced atomically, so a kill never leaves half a log behind."""
    from inspect_ai.log import write_eval_log

    if "://" in location:
        write_eval_log(log, location)
        return
    folder = os.path.dirname(os.path.abspath(location))
    os.makedirs(folder, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=folder, suffix=".eval", prefix=".rejudge-")
    os.close(fd)
    try:
        write_eval_log(log, temp)
        os.replace(temp, location)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


# --------------------------------------------------------------------------------------------
# one log, many logs


def _exists(location: str) -> bool:
    from inspect_ai._util.file import filesystem

    return bool(filesystem(location).exists(location))


async def rejudge_log(
    location: str, options: RejudgeOptions, judge: Model, say: Callable[[str], None]
) -> LogOutcome:
    from inspect_ai.log import read_eval_log_async

    from bedside_bench.report.logs import display_location, skip_reason

    shown = display_location(location)
    source = await read_eval_log_async(location)
    reason = skip_reason(source)
    if reason is not None:
        return LogOutcome(shown, "", skipped=reason)
    opts = scorer_options(source, options.judge, options.judge_passes)
    name = output_name(location, options.judge, opts["judge_passes"], options.failed_only)
    output = options.output_dir.rstrip("/") + "/" + name
    outcome = LogOutcome(shown, display_location(output))

    previous = await read_eval_log_async(output) if _exists(output) else None
    kept: dict[SampleKey, EvalSample] = {}
    if previous is not None:
        kept = {sample_key(s): s for s in previous.samples or []}
    done = {k for k, s in kept.items() if judged_ok(s, str(judge))}
    outcome.already_done = len(done)
    pending = to_judge(source.samples or [], done, options.failed_only)
    if not pending:
        return outcome  # nothing (left) to judge: no new log

    started = previous.stats.started_at if previous is not None else _now()
    header = new_header(source, location, options.judge, opts, options.failed_only, started)
    if previous is not None:  # keep the identity of the log being resumed
        header.eval = previous.eval.model_copy(deep=True)
    order = [
        sample_key(s)
        for s in source.samples or []
        if (judge_failed(s) if options.failed_only else True) or sample_key(s) in kept
    ]
    by_key = {sample_key(s): carried(s) for s in source.samples or []}
    scorers = previous.eval.scorers if previous is not None else None

    for start in range(0, len(pending), options.checkpoint):
        chunk = pending[start : start + options.checkpoint]
        scored, failures, usage = await judge_samples(source, chunk, judge, opts, options.display)
        scorers = scored.eval.scorers
        for sample in scored.samples or []:
            key = sample_key(sample)
            kept[key] = finish_sample(sample, failures.get(key), usage.get(key, {}))
            if key in failures:
                outcome.failed.append(f"{sample.id}: {failures[key]}")
            else:
                outcome.judged += 1
        samples = [kept.get(k, by_key[k]) for k in order]
        failed = sum(1 for s in samples if s.error is not None)
        write_log(assemble(header, samples, scorers, failed), output)
        say(f"{PROG}: {shown}: {start + len(chunk)}/{len(pending)} cases judged -> {output}")
    return outcome


def newest_per_task(headers: Sequence[tuple[str, EvalLog]]) -> list[str]:
    """One log per Inspect task id: a retried task's newest log holds all its samples, so its
    older logs would only be judged twice."""
    best: dict[str, tuple[str, str]] = {}
    for location, header in headers:
        key = header.eval.task_id or location
        started = header.stats.started_at or header.eval.created or ""
        if key not in best or started > best[key][0]:
            best[key] = (started, location)
    chosen = {loc for _, loc in best.values()}
    return [loc for loc, _ in headers if loc in chosen]


async def source_logs(options: RejudgeOptions) -> list[str]:
    from inspect_ai.log import read_eval_log_async

    from bedside_bench.report.logs import resolve_locations

    out = os.path.abspath(options.output_dir) if "://" not in options.output_dir else None
    locations = [
        loc
        for loc in await resolve_locations(options.log_paths)
        if not (out and os.path.abspath(loc).startswith(out + os.sep))
    ]
    headers = [(loc, await read_eval_log_async(loc, header_only=True)) for loc in locations]
    return newest_per_task(headers)


async def rejudge_async(
    options: RejudgeOptions, say: Callable[[str], None] | None = None
) -> list[LogOutcome]:
    from inspect_ai.model import get_model

    from bedside_bench.credentials import CredentialError, apply_aliases, check_credentials, redact

    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    apply_aliases()
    try:
        check_credentials([], options.judge)  # before any log is read or any call is made
        judge = get_model(options.judge)
    except CredentialError as ex:
        raise RejudgeError(str(ex)) from ex
    except Exception as ex:  # an unknown provider or model name
        raise RejudgeError(f"cannot use judge {options.judge!r}: {redact(str(ex))}") from ex
    locations = await source_logs(options)
    if not locations:
        raise RejudgeError(f"no Inspect logs in {', '.join(options.log_paths)}")
    # one log after another: each log's cases are judged concurrently by `score_async`, and
    # Inspect's scoring context (display, transcript, task context) is not meant to be shared
    # by several concurrent `score_async` calls
    return [await rejudge_log(loc, options, judge, say) for loc in locations]


def rejudge(options: RejudgeOptions) -> list[LogOutcome]:
    import anyio
    from inspect_ai._util._async import configured_async_backend
    from inspect_ai._util.platform import platform_init

    platform_init()
    return anyio.run(functools.partial(rejudge_async, options), backend=configured_async_backend())


# --------------------------------------------------------------------------------------------
# command line


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "log_paths", nargs="+", metavar="LOG_PATH", help="Inspect log files or directories"
    )
    parser.add_argument("--judge", required=True, help="the judge model, e.g. openai/gpt-5.6-sol")
    parser.add_argument(
        "--judge-passes",
        type=positive_int,
        default=None,
        help="independent judge calls per answer (default: as the source log)",
    )
    parser.add_argument(
        "--failed-only",
        action="store_true",
        help="judge only the cases whose judge failed (their answers are reused)",
    )
    parser.add_argument(
        "--output-dir",
        default="logs/rejudge",
        help="where the new logs go (default: logs/rejudge); the sources are never changed",
    )
    parser.add_argument(
        "--checkpoint",
        type=positive_int,
        default=CHECKPOINT_SAMPLES,
        help=f"write the new log after this many cases (default: {CHECKPOINT_SAMPLES})",
    )
    parser.add_argument(
        "--display", default="none", choices=("full", "rich", "plain", "log", "none")
    )


def run_command(args: argparse.Namespace) -> int:
    options = RejudgeOptions(
        log_paths=args.log_paths,
        judge=args.judge,
        judge_passes=args.judge_passes,
        failed_only=args.failed_only,
        output_dir=args.output_dir,
        checkpoint=args.checkpoint,
        display=args.display,
    )
    try:
        outcomes = rejudge(options)
    except (RejudgeError, FileNotFoundError) as ex:
        print(f"{PROG}: error: {ex}", file=sys.stderr)
        return EXIT_ERROR
    failed = 0
    for o in outcomes:
        if o.skipped:
            print(f"{PROG}: skipped {o.source}: {o.skipped}", file=sys.stderr)
            continue
        print(
            f"{o.source}: judged {o.judged}, already judged {o.already_done}, "
            f"failed {len(o.failed)} -> {o.output}"
        )
        for line in o.failed:
            print(f"  failed: {line}", file=sys.stderr)
        failed += len(o.failed)
    return EXIT_INCOMPLETE if failed else EXIT_OK


def register(subcommands: Subcommands) -> None:
    add_command(
        subcommands,
        "rejudge",
        "judge stored answers again with another judge (no answer calls)",
        configure_parser,
        run_command,
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
