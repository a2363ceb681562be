"""`bedside-bench sweep`: the chosen benchmarks for several models in ONE Inspect `eval_set`,
then `bedside-bench report` on its log directory.

Why one `eval_set`: it pairs every (benchmark, model) with its log in the log directory, so
running the same command again skips finished work. Inside an unfinished log (cancelled by
Ctrl-C, errored, or left "started" by a killed process and recovered from Inspect's sample
buffer) every completed case is reused, not asked again. Transient provider faults (HTTP 5xx,
429, stalled or dropped connections) are retried by the provider SDK and by Inspect; a case that
still ends in an error is re-run by eval_set's task retries, and one that never succeeds is
left failed, which the report counts (never as a score of 0).

Progress is Inspect's own display; `--display` picks it.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bedside_bench.arguments import non_negative_int, positive_int
from bedside_bench.benchmarks import BENCHMARK_NAMES
from bedside_bench.credentials import CredentialError, apply_aliases, check_credentials, redact
from bedside_bench.protocol import DEFAULT_JUDGE_MODEL

if TYPE_CHECKING:
    from inspect_ai import Task
    from inspect_ai.log import EvalLog

    from bedside_bench.report import ReportResult

PROG = "bedside-bench sweep"
GRADER_ROLE = "grader"
DEFAULT_LOG_DIR = "logs/sweep"
REPORT_SUBDIR = "report"
# eval_set re-runs a task whose log ended in error (completed cases reused). Transient faults
# are already retried per call without limit, so what is left is mostly persistent (an
# always-invalid judge, a refused request): Inspect's default of 10 re-runs would repeat those
# at full price. Two more attempts still cover a rare unlucky case.
DEFAULT_RETRY_ATTEMPTS = 2
DISPLAYS = ("full", "rich", "plain", "log", "none")

EXIT_OK = 0
EXIT_ERROR = 1  # nothing ran: bad options, missing credentials, Inspect refused the log dir
EXIT_REFUSED = 2  # the report refused to compare groups that are not like for like
EXIT_INCOMPLETE = 3  # the sweep ran but some cases have no score; the report says which
EXIT_INTERRUPTED = 130

Subcommands = Any  # argparse's _SubParsersAction is private


class SweepError(RuntimeError):
    """A problem with the inputs, reported as one line before any model call."""


@dataclass(frozen=True)
class SweepOptions:
    """Everything a sweep needs; the CLI only fills this in."""

    models: Sequence[str]
    judge: str = DEFAULT_JUDGE_MODEL
    benchmarks: Sequence[str] = BENCHMARK_NAMES
    smoke: bool = False
    log_dir: str = DEFAULT_LOG_DIR
    data_dir: str | None = None
    revision: str | None = None
    judge_retries: int | None = None
    task_args: Mapping[str, Any] = field(default_factory=dict)
    max_connections: int | None = None
    max_retries: int | None = None
    timeout: int | None = None
    attempt_timeout: int | None = None
    batch: bool | int | None = None
    retry_attempts: int = DEFAULT_RETRY_ATTEMPTS
    retry_on_error: int | None = None
    display: str | None = None
    report: bool = True
    report_dir: str | None = None
    prices: str | None = None

    @property
    def report_out_dir(self) -> Path:
        """LOG_DIR/report for a local log directory; ./reports for a remote one (s3://...)."""
        if self.report_dir:
            return Path(self.report_dir)
        if "://" in self.log_dir:
            return Path("reports")
        return Path(self.log_dir) / REPORT_SUBDIR


@dataclass
class SweepResult:
    success: bool  # every (benchmark, model) log finished with every case scored
    logs: list[EvalLog]
    report: ReportResult | None
    timings: dict[str, float]

    @property
    def exit_code(self) -> int:
        if not self.success:
            return EXIT_INCOMPLETE
        if self.report is not None and self.report.exit_code:
            return EXIT_REFUSED
        return EXIT_OK


# --------------------------------------------------------------------------------------------
# inputs


def split_list(values: Sequence[str] | str | None) -> list[str]:
    """Comma lists, possibly given several times, in order and without repeats."""
    if values is None:
        return []
    items = [values] if isinstance(values, str) else list(values)
    out = [part.strip() for item in items for part in item.split(",")]
    return list(dict.fromkeys(p for p in out if p))


def check_model_name(name: str, what: str) -> str:
    if "/" not in name or name.startswith("/") or name.endswith("/"):
        raise SweepError(
            f"{what} {name!r} is not an Inspect model name such as openai/gpt-5.4-mini"
        )
    return name


def check_benchmarks(names: Sequence[str]) -> list[str]:
    unknown = [n for n in names if n not in BENCHMARK_NAMES]
    if unknown:
        raise SweepError(
            f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARK_NAMES)}"
        )
    # registry order, whatever order they were given in
    return [b for b in BENCHMARK_NAMES if b in names]


def parse_task_arg(text: str) -> tuple[str, Any]:
    """`NAME=VALUE`, the value read as YAML like Inspect's `-T` (so `true`, `3` are typed)."""
    import yaml

    name, sep, value = text.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
        raise SweepError(f"task argument {text!r} is not NAME=VALUE")
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        parsed = value
    return name.strip(), parsed


def task_arguments(options: SweepOptions) -> dict[str, Any]:
    """The task arguments, identical on every run of the same command (eval_set hashes them to
    pair tasks with their logs, so a relative data dir is made absolute)."""
    args: dict[str, Any] = {"smoke": options.smoke}
    if options.data_dir is not None:
        args["data_dir"] = str(Path(options.data_dir).expanduser().resolve())
    if options.revision is not None:
        args["revision"] = options.revision
    if options.judge_retries is not None:
        args["judge_retries"] = options.judge_retries
    args.update(options.task_args)
    return args


def build_tasks(options: SweepOptions) -> list[Task]:
    """One task per benchmark, made by its registered @task function so that eval_set and
    `inspect eval-retry` can recreate it from the log."""
    from bedside_bench import tasks as registered

    args = task_arguments(options)
    names = check_benchmarks(options.benchmarks)
    return [getattr(registered, name)(**args) for name in names]


def generate_config_args(options: SweepOptions) -> dict[str, Any]:
    """Generation options that change how calls are made, never what is asked (Inspect keeps
    them out of the task identity, so changing them does not restart finished work)."""
    values = {
        "max_connections": options.max_connections,
        "max_retries": options.max_retries,
        "timeout": options.timeout,
        "attempt_timeout": options.attempt_timeout,
        "batch": options.batch,
    }
    return {k: v for k, v in values.items() if v is not None}


def judge_role(options: SweepOptions) -> Any:
    """The grader role. A role model inherits only some of the eval's generation options
    (max_connections, max_retries, timeout), so attempt_timeout and batch are given to it too."""
    config = generate_config_args(options)
    if not config:
        return options.judge
    from inspect_ai.model import GenerateConfig, get_model

    return get_model(
        options.judge, role=GRADER_ROLE, config=GenerateConfig(**config), memoize=False
    )


# --------------------------------------------------------------------------------------------
# run


def _inspect_message(ex: BaseException) -> str:
    """One plain line from an Inspect error (its messages carry rich markup)."""
    text = str(getattr(ex, "message", None) or ex)
    text = re.sub(r"\[/?(bold|italic|red|yellow|blue|green)[^\]]*\]", "", text)
    return " ".join(text.split())


def prepare(options: SweepOptions) -> list[Task]:
    """Check everything that can be checked without a model call; build the tasks."""
    if not options.models:
        raise SweepError("give at least one model with --model")
    for model in options.models:
        check_model_name(model, "model")
    check_model_name(options.judge, "judge")
    if options.prices is not None and not Path(options.prices).is_file():
        raise SweepError(f"prices file {options.prices} does not exist")
    try:  # a key kept in .env counts, as it does for Inspect (which loads it later)
        from inspect_ai._util.dotenv import init_dotenv

        init_dotenv()
    except ImportError:  # pragma: no cover - Inspect moved it; it loads .env itself anyway
        pass
    apply_aliases()
    check_credentials(options.models, options.judge)
    return build_tasks(options)


def was_interrupted(log_dir: str, logs: Sequence[EvalLog], runs: int) -> bool:
    """Whether Ctrl-C stopped the eval set.

    Inspect (0.3.285, asyncio) turns SIGINT into a cancellation that eval_set does not always
    raise: it can return `(True, logs)` with only the runs that had finished, leaving the
    others on disk with status "cancelled". A short result is therefore checked against the
    log directory rather than trusted.
    """
    if any(log.status == "cancelled" for log in logs):
        return True
    if len(logs) >= runs:
        return False
    from inspect_ai.log import list_eval_logs, read_eval_log

    return any(
        read_eval_log(info, header_only=True).status == "cancelled"
        for info in list_eval_logs(log_dir)
    )


def writer_gone(location: str) -> bool:
    """Whether the process that wrote a "started" log is provably dead: Inspect names each
    log's local sample buffer after its writer's pid. No local buffer proves nothing (the log
    may be written from another machine), so that counts as alive."""
    try:
        import psutil
        from inspect_ai.log._recorders.buffer.database import sample_buffer_dbs
    except ImportError:  # pragma: no cover - Inspect moved it: keep every log
        return False
    pids = [db.name.rsplit(".", 2)[-2] for db in sample_buffer_dbs(location)]
    return bool(pids) and all(p.isdigit() and not psutil.pid_exists(int(p)) for p in pids)


def remove_crash_log(location: str) -> None:
    """The log and its dead writer's sample buffer (otherwise kept for days as a safety net)."""
    from inspect_ai._util.file import filesystem
    from inspect_ai.log._recorders.buffer.database import (
        cleanup_sample_buffer_db,
        sample_buffer_dbs,
    )

    for db in sample_buffer_dbs(location):
        cleanup_sample_buffer_db(db)
    filesystem(location).rm(location)


def remove_superseded_crash_logs(log_dir: str, logs: Sequence[EvalLog]) -> list[str]:
    """Delete logs a killed sweep left "started" once a later run of the same task finished.

    eval_set resumes such a log (its completed cases are recovered and reused) but never
    deletes it, since it cannot know its writer stopped; left behind, it shows as running in
    `inspect view` and holds a second copy of the cases it had finished. Only logs whose task
    has a newer successful log, and whose writer is provably dead, are removed.
    """
    from inspect_ai.log import list_eval_logs, read_eval_log

    finished = {log.eval.task_id: log.location for log in logs if log.status == "success"}
    removed = []
    for info in list_eval_logs(log_dir):
        header = read_eval_log(info, header_only=True)
        successor = finished.get(header.eval.task_id)
        if header.status != "started" or successor in (None, info.name):
            continue
        if writer_gone(info.name):
            remove_crash_log(info.name)
            removed.append(info.name)
    return removed


def run_report(options: SweepOptions) -> ReportResult:
    from bedside_bench.report import ReportOptions, build_report

    prices = Path(options.prices) if options.prices else None
    return build_report(
        ReportOptions(
            log_paths=[options.log_dir], out_dir=options.report_out_dir, prices_file=prices
        )
    )


def run_sweep(options: SweepOptions | None = None, /, **fields: Any) -> SweepResult:
    """Run (or resume) the sweep, then the report: `run_sweep(SweepOptions(...))` or
    `run_sweep(models=[...], judge=..., ...)`.

    Raises `SweepError` or `CredentialError` before any model call when the inputs are wrong,
    and KeyboardInterrupt when interrupted (the logs keep every completed case)."""
    started = time.monotonic()
    if options is None:
        options = SweepOptions(**fields)
    elif fields:
        raise TypeError("give SweepOptions or keyword fields, not both")
    tasks = prepare(options)

    from inspect_ai import eval_set
    from inspect_ai._util.error import PrerequisiteError

    prepared = time.monotonic()
    try:
        success, logs = eval_set(
            tasks,
            log_dir=options.log_dir,
            model=list(options.models),
            model_roles={GRADER_ROLE: judge_role(options)},
            retry_attempts=options.retry_attempts,
            retry_on_error=options.retry_on_error,
            # every (benchmark, model) at once: the per-model connection limits are what
            # throttle, and a task left queued would leave connections idle
            max_tasks=len(tasks) * len(options.models),
            display=options.display,  # type: ignore[arg-type]
            **generate_config_args(options),
        )
    except PrerequisiteError as ex:
        raise SweepError(_inspect_message(ex)) from None
    runs = len(tasks) * len(options.models)
    if was_interrupted(options.log_dir, logs, runs):
        raise KeyboardInterrupt
    complete = bool(success) and len(logs) == runs and all(log.status == "success" for log in logs)
    if complete:
        remove_superseded_crash_logs(options.log_dir, logs)
    evaluated = time.monotonic()

    report = run_report(options) if options.report else None
    finished = time.monotonic()
    timings = {
        "preparation": prepared - started,
        "evaluation": evaluated - prepared,
        "report": finished - evaluated,
        "total": finished - started,
    }
    return SweepResult(success=complete, logs=list(logs), report=report, timings=timings)


# --------------------------------------------------------------------------------------------
# command line


def _batch(text: str) -> bool | int:
    if text.lower() in ("true", "yes", "on"):
        return True
    return positive_int(text)


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Run the benchmarks for several models in one Inspect eval_set (rerun to resume), then
    the report on its log directory."""
    parser.add_argument(
        "--model",
        action="append",
        required=True,
        metavar="MODELS",
        help="comma list of Inspect model names, e.g. "
        "openai/gpt-5.4-mini,anthropic/claude-sonnet-4-6 (repeatable)",
    )
    parser.add_argument(
        "--judge",
        default=DEFAULT_JUDGE_MODEL,
        metavar="MODEL",
        help=f"judge for every model (the grader role; default {DEFAULT_JUDGE_MODEL})",
    )
    parser.add_argument(
        "--benchmarks",
        action="append",
        metavar="NAMES",
        help="comma list of benchmarks (default: all ten)",
    )
    parser.add_argument(
        "--smoke", action="store_true", help="one case per benchmark, to check a set-up end to end"
    )
    parser.add_argument(
        "--log-dir",
        default=DEFAULT_LOG_DIR,
        help=f"the eval set's log directory (default {DEFAULT_LOG_DIR}); "
        "rerun with the same one to resume",
    )
    parser.add_argument(
        "--data-dir",
        metavar="PATH",
        help="a local release tree (else $BEDSIDE_BENCH_DATA, else Hugging Face)",
    )
    parser.add_argument("--revision", help="Hugging Face revision of the release")
    parser.add_argument(
        "--judge-retries",
        type=non_negative_int,
        metavar="N",
        help="times an invalid judge reply is asked again (task default 2)",
    )
    parser.add_argument(
        "-T",
        "--task-arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="another task argument, e.g. -T severe_gate=true (repeatable)",
    )
    parser.add_argument(
        "--max-connections",
        type=positive_int,
        metavar="N",
        help="concurrent requests per model, judge included (default: Inspect's adaptive limit)",
    )
    parser.add_argument(
        "--max-retries",
        type=non_negative_int,
        metavar="N",
        help="Inspect retries per call (default: until --timeout)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_int,
        metavar="SECONDS",
        help="give up retrying a call after this long (default: never)",
    )
    parser.add_argument(
        "--attempt-timeout",
        type=positive_int,
        metavar="SECONDS",
        help="abandon one attempt of a call after this long and retry it",
    )
    parser.add_argument(
        "--batch",
        nargs="?",
        const="true",
        type=_batch,
        metavar="SIZE",
        help="use the providers' batch APIs for answers and judge (about half "
        "the price, results within hours)",
    )
    parser.add_argument(
        "--retry-attempts",
        type=non_negative_int,
        default=DEFAULT_RETRY_ATTEMPTS,
        metavar="N",
        help="re-runs of a task with failed cases, completed cases reused "
        f"(default {DEFAULT_RETRY_ATTEMPTS})",
    )
    parser.add_argument(
        "--retry-on-error",
        type=non_negative_int,
        metavar="N",
        help="re-run a failed case up to N times at once, inside the run",
    )
    parser.add_argument(
        "--display", choices=DISPLAYS, help="Inspect's progress display (default: Inspect's choice)"
    )
    parser.add_argument(
        "--report-dir",
        metavar="PATH",
        help=f"where the report goes (default LOG_DIR/{REPORT_SUBDIR})",
    )
    parser.add_argument(
        "--prices",
        metavar="PRICES_JSON",
        help="USD per million tokens, passed to the report (else cost is null)",
    )
    parser.add_argument(
        "--no-report", dest="report", action="store_false", help="only run the eval set"
    )


def options_from_args(args: argparse.Namespace) -> SweepOptions:
    task_args = dict(parse_task_arg(t) for t in args.task_arg)
    return SweepOptions(
        models=[check_model_name(m, "model") for m in split_list(args.model)],
        judge=args.judge,
        benchmarks=split_list(args.benchmarks) or list(BENCHMARK_NAMES),
        smoke=args.smoke,
        log_dir=args.log_dir,
        data_dir=args.data_dir,
        revision=args.revision,
        judge_retries=args.judge_retries,
        task_args=task_args,
        max_connections=args.max_connections,
        max_retries=args.max_retries,
        timeout=args.timeout,
        attempt_timeout=args.attempt_timeout,
        batch=args.batch,
        retry_attempts=args.retry_attempts,
        retry_on_error=args.retry_on_error,
        display=args.display,
        report=args.report,
        report_dir=args.report_dir,
        prices=args.prices,
    )


def _say(message: str, stream: Any = None) -> None:
    print(redact(message), file=stream or sys.stdout, flush=True)


def _error(message: str) -> None:
    _say(f"{PROG}: error: {message}", sys.stderr)


def run_sweep_command(args: argparse.Namespace) -> int:
    """The handler: one line per outcome, never a traceback for an input problem."""
    from bedside_bench.cases import DatasetError
    from bedside_bench.report import ReportError

    try:
        options = options_from_args(args)
        result = run_sweep(options)
    except (SweepError, CredentialError, DatasetError, ReportError, FileNotFoundError) as ex:
        _error(str(ex))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _error("interrupted; run the same command again to resume (completed cases are kept)")
        return EXIT_INTERRUPTED
    complete = sum(1 for log in result.logs if log.status == "success")
    t = result.timings
    _say(
        f"sweep: {complete}/{len(result.logs)} benchmark runs complete in {t['total']:.1f} s "
        f"(preparation {t['preparation']:.1f} s, evaluation {t['evaluation']:.1f} s, "
        f"report {t['report']:.1f} s)"
    )
    if result.report is not None:
        _say(f"sweep: report in {options.report_out_dir}")
    if not result.success:
        _say(
            f"sweep: incomplete; run the same command again to retry the failed cases "
            f"(logs in {options.log_dir})"
        )
    return result.exit_code


def register(subparsers: Subcommands) -> None:
    """Add the `sweep` subcommand to `bedside-bench` (call from cli.py's COMMANDS)."""
    parser = subparsers.add_parser(
        "sweep",
        help="several models, all benchmarks, one resumable eval set, then the report",
        description=configure_parser.__doc__,
    )
    configure_parser(parser)
    parser.set_defaults(handler=run_sweep_command)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=configure_parser.__doc__)
    configure_parser(parser)
    return run_sweep_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "EXIT_ERROR",
    "EXIT_INCOMPLETE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REFUSED",
    "SweepError",
    "SweepOptions",
    "SweepResult",
    "build_tasks",
    "configure_parser",
    "main",
    "register",
    "run_sweep",
]
