"""Running a sweep: check what can be checked without a call, hold the log directory, drive
one Inspect `eval_set`, tidy what killed runs left, then the report.

Why one `eval_set`: it pairs every (benchmark, model) with its log in the log directory, so
running the same command again skips finished work. Inside an unfinished log (cancelled by
Ctrl-C, errored, or left "started" by a killed process and recovered from Inspect's sample
buffer) every completed case is reused, not asked again. Transient provider faults (HTTP 5xx,
429, stalled or dropped connections) are retried by the provider SDK and by Inspect; a case that
still ends in an error is re-run by eval_set's task retries, and one that never succeeds is
left failed, which the report counts (never as a score of 0).

An answer is bought once: a retry reads a case's answer back (`call_cache.answer_cache`) and
only judges it again. A judge that still gives no valid reply is named with how often it
failed, and the sweep points to `bedside-bench rejudge --failed-only` with another judge.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_ai import eval_set, task_with
from inspect_ai.log import read_eval_log

from bedside_bench import report
from bedside_bench.calls.credentials import apply_aliases, check_credentials
from bedside_bench.core import exit_codes, inspect_private, signals
from bedside_bench.core.arguments import load_dotenv_as_inspect
from bedside_bench.core.contracts import GRADER_ROLE
from bedside_bench.core.owned_output import OutputError, check_owned
from bedside_bench.core.safe_text import printable
from bedside_bench.judging.failures import (
    JudgeFailure,
    JudgeFailureCount,
    count_judge_failures,
    parse_judge_failure,
)
from bedside_bench.sweep.cost import check_cost_config
from bedside_bench.sweep.lock import holding
from bedside_bench.sweep.lock_holder import Holder
from bedside_bench.sweep.options import (
    NO_MODEL,
    SweepError,
    SweepFields,
    SweepOptions,
    answer_model,
    answer_models,
    build_task,
    check_benchmarks,
    check_model_name,
    eval_config_args,
    judge_role,
    max_samples,
)
from bedside_bench.sweep.recovery import (
    complete_runs,
    remove_superseded_logs,
    scored_cases,
    was_interrupted,
)
from bedside_bench.sweep.shard import all_runs, shard_runs

if TYPE_CHECKING:
    from inspect_ai import Task
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import Model
    from typing_extensions import Unpack  # typing's own from Python 3.11

    from bedside_bench.report import ReportResult

EXIT_OK = exit_codes.OK
EXIT_ERROR = exit_codes.ERROR  # nothing ran: bad options, missing credentials, log dir in use
EXIT_REFUSED = exit_codes.REFUSED  # the report refused to compare groups not like for like
EXIT_INCOMPLETE = exit_codes.INCOMPLETE  # some cases have no score; the report says which
EXIT_INTERRUPTED = exit_codes.INTERRUPTED
FULL_PASS_EVERY = 100  # collections of the middle generation (Python's default: 10)


@dataclass(frozen=True)
class Timings:
    """Seconds a sweep spent in each stage."""

    preparation: float  # checks and tasks, before the log directory is held
    evaluation: float  # the eval set, and tidying what killed runs left
    report: float
    total: float

    def describe(self) -> str:
        return (
            f"in {self.total:.1f} s (preparation {self.preparation:.1f} s, "
            f"evaluation {self.evaluation:.1f} s, report {self.report:.1f} s)"
        )


@dataclass
class SweepResult:
    success: bool  # every (benchmark, model) run of this sweep (or shard) has every case scored
    logs: list[EvalLog]
    report: ReportResult | None
    timings: Timings
    runs: list[tuple[str, str]] = field(default_factory=list)  # (model, benchmark) done here
    taken_over: Holder | None = None  # the killed run whose lock this sweep took over
    judge_failures: list[JudgeFailureCount] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if not self.success:
            return EXIT_INCOMPLETE
        if self.report is not None and self.report.exit_code:
            return EXIT_REFUSED
        return EXIT_OK


@dataclass(frozen=True)
class Plan:
    """The tasks handed to eval_set, and the (model, benchmark) runs they stand for."""

    tasks: list[Task]
    models: list[str] | list[Model]  # names, or Models carrying their own max_connections
    runs: list[tuple[str, str]]


def _inspect_message(ex: BaseException) -> str:
    """One plain line from an Inspect error (its messages carry rich markup)."""
    text = str(getattr(ex, "message", None) or ex)
    text = re.sub(r"\[/?(bold|italic|red|yellow|blue|green)[^\]]*\]", "", text)
    return " ".join(text.split())


def plan(options: SweepOptions) -> Plan:
    """Every benchmark for every model (one task per benchmark, crossed with the models by
    eval_set), or a shard's share, each task then bound to its own model."""

    benchmarks = check_benchmarks(options.benchmarks)
    if options.shard.whole:
        tasks = [build_task(options, name) for name in benchmarks]
        models = answer_models(options, options.models)
        return Plan(tasks, models, all_runs(options.models, benchmarks))

    runs = shard_runs(options.models, benchmarks, options.shard)
    tasks = [task_with(build_task(options, b), model=answer_model(options, m)) for m, b in runs]
    # each task names its model; eval_set is given one model only so it makes no copies
    return Plan(tasks, answer_models(options, [runs[0][0]] if runs else []), runs)


def prepare(options: SweepOptions) -> Plan:
    """Check everything that can be checked without a model call; build the tasks."""
    if not options.models:
        raise SweepError(NO_MODEL)
    for model in options.models:
        check_model_name(model, "model")
    check_model_name(options.judge, "judge")
    if options.prices is not None:
        check_prices_file(options.prices)
    if options.report and options.shard.whole:
        check_report_folder(options.report_out_dir)
    if options.model_cost_config is not None:
        check_cost_config(options.model_cost_config)
    load_dotenv_as_inspect()  # a key kept in .env counts, as it does for Inspect
    apply_aliases()
    check_credentials(options.models, options.judge)
    return plan(options)


def check_prices_file(path: str) -> None:
    """Read and validate the prices file with the report's own reader before anything is
    bought, `--no-report` or not: a file the report would refuse after the sweep has paid
    for every case is refused now, when nothing has run."""
    shown = printable(path, 300)
    if Path(path).exists() and not Path(path).is_file():  # a FIFO would block the reader
        raise SweepError(f"prices file {shown} is not a regular file; nothing was run")
    if not Path(path).is_file():
        raise SweepError(f"prices file {shown} does not exist; nothing was run")
    # the report's reader (the report package imports it when first asked for: only when
    # --prices is given, so a sweep without prices does not wait for the report's import)
    try:
        report.load_prices(Path(path))
    except report.ReportError as ex:
        raise SweepError(f"{printable(str(ex), 500)}; nothing was run") from None


def check_report_folder(folder: Path) -> None:
    """The folder the report will own, checked before anything is bought (a folder holding
    other files would be refused by the report after the sweep has paid for every case)."""
    target = Path(os.path.abspath(folder))
    if target.is_dir() and not any(target.iterdir()):
        return
    if not target.exists() and not target.is_symlink():
        return
    # the report's own names, imported only for a folder that holds something (a rerun): the
    # report's import holds the first model call back (0.3-0.6 s on two cores)
    try:
        check_owned(target, "report", report.report_file)
    except OutputError as ex:
        raise SweepError(f"--report-dir: {printable(str(ex), 500)}; nothing was run") from None


def run_report(options: SweepOptions) -> ReportResult:
    prices = Path(options.prices) if options.prices else None
    return report.build_report(
        report.ReportOptions(
            log_paths=[options.log_dir], out_dir=options.report_out_dir, prices_file=prices
        )
    )


@contextmanager
def long_lived_objects_frozen() -> Iterator[None]:
    """Spare the one event loop that sends every request the garbage collector's full passes
    while the eval and the report run.

    A full pass walks every object that has outlived two younger passes: with Inspect loaded
    and 250 cases under way, 300,000-400,000 of them, 0.3-0.5 s each on these machines, two
    or three in a 250-case sweep, each stopping the loop while a burst of responses waits.
    What exists before the eval (modules, Inspect's and pydantic's tables, the datasets) is
    frozen out of those passes, and they come a tenth as often; the younger passes, which
    collect most cycles, run as usual, and reference counting frees the rest. Python's own
    settings are back afterwards, so a caller of `run_sweep` keeps its heap as it was."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(thresholds[0], thresholds[1], max(thresholds[2], FULL_PASS_EVERY))
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def evaluate(options: SweepOptions, work: Plan) -> tuple[bool, list[EvalLog]]:
    """One eval_set over the plan; (every run complete, the logs it returned)."""

    if not work.tasks:
        return True, []
    try:
        _, logs = eval_set(
            work.tasks,
            log_dir=options.run_log_dir,
            model=work.models,
            model_roles={GRADER_ROLE: judge_role(options)},
            retry_attempts=options.retry_attempts,
            retry_on_error=options.retry_on_error,
            # eval_set would keep each run's newest log by modification time and delete the
            # rest, which can delete the log that finished a run (`recovery`); the sweep
            # removes what the returned logs supersede instead
            retry_cleanup=False,
            # every (benchmark, model) at once: the per-model connection limits are what
            # throttle, and a task left queued would leave connections idle
            max_tasks=len(work.runs),
            max_samples=max_samples(options),
            display=options.display,
            cost_limit=options.cost_limit,
            model_cost_config=options.model_cost_config,
            **eval_config_args(options),
        )
    except inspect_private.PrerequisiteError as ex:
        raise SweepError(_inspect_message(ex)) from None
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise interrupted(options, work) from None
    runs = set(work.runs)
    # a drain that outlived the work ends the sweep as interrupted too: the signal said stop
    if signals.stop_began() or was_interrupted(options.run_log_dir, logs, runs):
        raise interrupted(options, work)
    remove_superseded_logs(options.run_log_dir, logs)
    return runs <= complete_runs(logs), list(logs)


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM stopped the eval set; what it kept (None: the logs could not be
    read)."""

    def __init__(self, kept: int | None, total: int) -> None:
        super().__init__(kept, total)
        self.kept = kept
        self.total = total


def interrupted(options: SweepOptions, work: Plan) -> SweepInterrupted:
    """How many of the plan's cases the log directory holds scored, after a stop."""
    per_benchmark: dict[str, int] = {}
    for task in work.tasks:
        per_benchmark[task.name.rsplit("/", 1)[-1]] = len(task.dataset) * (task.epochs or 1)
    total = sum(per_benchmark.get(benchmark, 0) for _, benchmark in work.runs)
    try:
        kept: int | None = len(scored_cases(options.run_log_dir, set(work.runs)))
    except Exception:  # an unreadable log must not hide that the sweep was stopped
        kept = None
    return SweepInterrupted(kept, total)


def case_judge_failure(sample: EvalSample) -> tuple[JudgeFailure, int] | None:
    """A failed case's judge failure and the judge calls it cost over the tries the log
    keeps (each earlier try of the case is one of its `error_retries`)."""
    failure = parse_judge_failure(sample.error.message if sample.error else None)
    if failure is None:
        return None
    earlier = [parse_judge_failure(e.message) for e in sample.error_retries or []]
    return failure, failure.calls + sum(f.calls for f in earlier if f is not None)


def judge_failures(logs: list[EvalLog]) -> list[JudgeFailureCount]:
    """Per judge, the cases of these logs it left without a valid reply."""

    found = []
    for log in logs:
        results = log.results
        if results is not None and results.completed_samples >= results.total_samples:
            continue
        full = log if log.samples is not None else read_eval_log(log.location)
        found += [f for f in map(case_judge_failure, full.samples or []) if f is not None]
    return count_judge_failures(found)


def run_sweep(options: SweepOptions | None = None, /, **fields: Unpack[SweepFields]) -> SweepResult:
    """Run (or resume) the sweep, then the report: `run_sweep(SweepOptions(...))` or
    `run_sweep(models=[...], judge=..., ...)`.

    Raises `SweepError` or `CredentialError` before any model call when the inputs are wrong
    or another sweep holds the log directory, and KeyboardInterrupt when interrupted (the
    logs keep every completed case)."""
    started = time.monotonic()
    if options is None:
        options = SweepOptions(**fields)
    elif fields:
        raise TypeError("give SweepOptions or keyword fields, not both")
    work = prepare(options)
    with holding(options.log_dir, options.shard) as taken_over:
        prepared = time.monotonic()
        with long_lived_objects_frozen():
            complete, logs = evaluate(options, work)
            evaluated = time.monotonic()
            # a shard reports nothing: the store is complete only once every shard is done
            report = run_report(options) if options.report and options.shard.whole else None
    finished = time.monotonic()
    timings = Timings(
        preparation=prepared - started,
        evaluation=evaluated - prepared,
        report=finished - evaluated,
        total=finished - started,
    )
    return SweepResult(
        success=complete,
        logs=logs,
        report=report,
        timings=timings,
        runs=work.runs,
        taken_over=taken_over,
        judge_failures=[] if complete else judge_failures(logs),
    )
