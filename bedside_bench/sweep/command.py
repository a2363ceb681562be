"""The `sweep` command line: its flags, and one line per outcome (never a traceback for an
input problem). Progress is Inspect's own display in a terminal (`--display` picks it); piped,
plain lines of our own at least every 15 s (`calls/progress.py`).

Past 300 lines: the flags are many (Inspect's own, the estimate's, batch, shard, signals), and
argparse declarations are long; the handlers stay short. Imports of Inspect stay inside the
handler, so parsing the command line (and its errors) imports none.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import math
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from bedside_bench import sweep
from bedside_bench.calls.credentials import CredentialError, redact
from bedside_bench.core import exit_codes, ranges
from bedside_bench.core.arguments import (
    LOG_DIR_ENV,
    MODEL_ROLE_ENV,
    EnvironmentSettingError,
    Subcommands,
    SuggestingParser,
    add_command,
    inspect_eval_models,
    inspect_role_model,
    load_dotenv_as_inspect,
    output_folder,
)
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import GRADER_ROLE
from bedside_bench.core.entry import entry_point
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.core.ranges import ranged
from bedside_bench.core.safe_text import printable
from bedside_bench.core.signals import (
    DEFAULT_GRACE,
    GRACE_ENV,
    grace_from_environment,
    stop_exit_code,
    stop_note,
    stopping_on_signals,
)
from bedside_bench.judging.failures import judge_failure_sentence
from bedside_bench.sweep.batch import BatchOptionError, parse_batch
from bedside_bench.sweep.cost import add_cost_arguments, cost_options
from bedside_bench.sweep.estimate.run import add_estimate_arguments, estimate_if_asked
from bedside_bench.sweep.options import (
    DEFAULT_LOG_DIR,
    DEFAULT_RETRY_ATTEMPTS,
    DISPLAYS,
    NO_MODEL,
    PROG,
    REPORT_SUBDIR,
    SweepError,
    SweepOptions,
    check_model_name,
    judge_named,
    parse_task_arg,
    split_list,
)
from bedside_bench.sweep.shard import AutoShard, Shard, ShardEnvironmentError, scheduler_shard

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.model import BatchConfig


def _shard(text: str) -> Shard | AutoShard:
    try:
        return AutoShard.parse(text) or Shard.parse(text)
    except ValueError as ex:
        raise argparse.ArgumentTypeError(str(ex)) from None


def _batch(text: str) -> bool | int | BatchConfig | None:
    try:
        return parse_batch(text)
    except BatchOptionError as ex:
        raise argparse.ArgumentTypeError(str(ex)) from None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


def stop_grace(args: argparse.Namespace) -> float:
    """The drain of a first signal: --stop-grace, else the environment's, else 30 s; never
    past --attempt-timeout (a call sent ends by then, replied or timed out)."""
    grace = grace_from_environment() if args.stop_grace is None else args.stop_grace
    return grace if args.attempt_timeout is None else min(grace, float(args.attempt_timeout))


def interrupted_line(ex: KeyboardInterrupt, received: list[int], command: str) -> str:
    """The last line after a stop: what is kept, what is left, the command that resumes."""
    kept = ""
    if isinstance(ex, sweep.SweepInterrupted) and ex.kept is not None:
        kept = f": {ex.kept} of {ex.total} cases kept, {max(0, ex.total - ex.kept)} to go"
    resume = f"run the same command again to resume: {command}"
    return f"{PROG}: interrupted{stop_note(received)}{kept}; {resume}"


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Run the benchmarks for several models in one Inspect eval_set (rerun to resume), then
    the report on its log directory."""
    parser.add_argument(
        "--model",
        action="append",
        metavar="MODELS",
        help="comma list of Inspect model names, e.g. "
        "openai/gpt-5.4-mini,anthropic/claude-sonnet-4-6 (repeatable; default "
        "$INSPECT_EVAL_MODEL)",
    )
    parser.add_argument(
        "--judge",
        metavar="MODEL",
        help=f"judge for every model (the grader role; default the grader ${MODEL_ROLE_ENV} "
        f"binds, as Inspect's --model-role reads it, else {DEFAULT_JUDGE_MODEL})",
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
        default=None,
        type=output_folder,
        help=f"the eval set's log directory (default $INSPECT_LOG_DIR/sweep, else "
        f"{DEFAULT_LOG_DIR}); "
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
        type=ranged(ranges.JUDGE_RETRIES),
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
        type=ranged(ranges.MAX_CONNECTIONS),
        metavar="N",
        help="concurrent requests per answer model (default: Inspect's adaptive limit)",
    )
    parser.add_argument(
        "--judge-max-connections",
        type=ranged(ranges.MAX_CONNECTIONS),
        metavar="N",
        help="concurrent requests to the judge (default: 2 x --max-connections x judge_passes "
        "x number of models, so a judge as fast as the models is never the bottleneck)",
    )
    parser.add_argument(
        "--shard",
        type=_shard,
        default=Shard(1, 1),
        metavar="K/N|auto",
        help="run share K of N of the (model, benchmark) runs, for N machines given the same "
        "command and log directory (no report: run `bedside-bench report` when all are done); "
        "auto: K and N from the array job this runs in (Kubernetes Indexed Job, SLURM job "
        "array, AWS Batch array job; auto/N gives N where the engine does not say it)",
    )
    parser.add_argument(
        "--max-retries",
        type=ranged(ranges.MAX_RETRIES),
        metavar="N",
        help="Inspect retries per call (default: until --timeout)",
    )
    parser.add_argument(
        "--timeout",
        type=ranged(ranges.TIMEOUT),
        metavar="SECONDS",
        help="give up retrying a call after this long (default: never)",
    )
    parser.add_argument(
        "--attempt-timeout",
        type=ranged(ranges.ATTEMPT_TIMEOUT),
        metavar="SECONDS",
        help="abandon one attempt of a call after this long and retry it",
    )
    parser.add_argument(
        "--stop-grace",
        type=_seconds,
        metavar="SECONDS",
        help="after a first Ctrl-C or SIGTERM, how long the calls already sent get to come "
        f"back and be kept (default ${GRACE_ENV}, else {DEFAULT_GRACE:g}; never past "
        "--attempt-timeout; 0 stops at once); a second signal stops at once",
    )
    parser.add_argument(
        "--batch",
        nargs="?",
        const="true",
        type=_batch,
        metavar="SIZE|CONFIG",
        help="use the providers' batch APIs for answers and judge (about half the price, "
        "results within hours): a batch size, or a YAML/JSON file of Inspect's BatchConfig "
        "(size, send_delay, tick, ...), as Inspect's --batch",
    )
    parser.add_argument(
        "--retry-attempts",
        type=ranged(ranges.RETRY_ATTEMPTS),
        default=DEFAULT_RETRY_ATTEMPTS,
        metavar="N",
        help="re-runs of a task with failed cases, completed cases reused "
        f"(default {DEFAULT_RETRY_ATTEMPTS})",
    )
    parser.add_argument(
        "--retry-on-error",
        type=ranged(ranges.RETRY_ON_ERROR),
        metavar="N",
        help="re-run a failed case up to N times at once, inside the run",
    )
    parser.add_argument(
        "--display",
        choices=DISPLAYS,
        help="Inspect's progress display (default: Inspect's choice in a terminal; piped or "
        "in CI, none, and a line of cases done, to go and failed at least every 15 s)",
    )
    parser.add_argument(
        "--report-dir",
        type=output_folder,
        metavar="PATH",
        help=f"where the report goes (default LOG_DIR/{REPORT_SUBDIR})",
    )
    parser.add_argument(
        "--prices",
        metavar="PRICES_JSON",
        help="USD per million tokens, passed to the report: overrides the cost Inspect "
        "recorded and the genai-prices database for the models it lists",
    )
    add_cost_arguments(parser)
    parser.add_argument(
        "--no-report", dest="report", action="store_false", help="only run the eval set"
    )
    parser.add_argument("--fail-on-error", action=_Refused, nargs="?", help=argparse.SUPPRESS)
    add_estimate_arguments(parser)


class _Refused(argparse.Action):
    """`inspect eval`'s --fail-on-error, refused with the reason (argparse would only say
    "unrecognized arguments")."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        parser.error(
            "--fail-on-error is not a sweep option: a sweep runs every case, retries the "
            "failed ones (--retry-attempts, --retry-on-error) and never stops at an error "
            "rate; the report counts failed cases and the exit code is 3 when any is left"
        )


def sweep_log_dir() -> str:
    """The sweep's own folder: `$INSPECT_LOG_DIR/sweep` (an eval set needs a folder of its own,
    and `$INSPECT_LOG_DIR` usually holds other `inspect eval` logs), else `logs/sweep`."""
    root = os.environ.get(LOG_DIR_ENV)
    if not root:
        return DEFAULT_LOG_DIR
    try:  # checked as a folder typed after --log-dir is
        output_folder(root)
    except argparse.ArgumentTypeError as ex:
        raise SweepError(f"${LOG_DIR_ENV}: {ex}") from None
    return f"{root.rstrip('/')}/sweep"


def resolve_shard(shard: Shard | AutoShard) -> Shard:
    """`--shard K/N` as given; `--shard auto` from the array job's variables, said in one
    line so a task's log shows which share it took."""
    if isinstance(shard, Shard):
        return shard
    try:
        resolved, source = scheduler_shard(shard, os.environ)
    except ShardEnvironmentError as ex:
        raise SweepError(str(ex)) from None
    _say(f"sweep: {source}")
    return resolved


def sweep_judge() -> str:
    """The judge when `--judge` is not given: the grader `$INSPECT_EVAL_MODEL_ROLE` binds (as
    `inspect eval` would bind it), else the protocol's judge."""
    try:
        return inspect_role_model(GRADER_ROLE) or DEFAULT_JUDGE_MODEL
    except EnvironmentSettingError as ex:
        raise SweepError(f"{ex}: give --judge MODEL") from None


def options_from_args(args: argparse.Namespace) -> SweepOptions:
    # `-T judge_model=M` is `--judge M` (`judge_named`)
    judge, task_args = judge_named(args.judge, dict(parse_task_arg(t) for t in args.task_arg))
    model_cost_config, cost_limit = cost_options(args)
    models = split_list(args.model) or inspect_eval_models()
    if not models:  # `--model ,` too: an estimate of nothing would be kept as one
        raise SweepError(NO_MODEL)
    return SweepOptions(
        models=[check_model_name(m, "model") for m in models],
        judge=check_model_name(sweep_judge() if judge is None else judge, "judge"),
        benchmarks=split_list(args.benchmarks) or list(BENCHMARK_NAMES),
        smoke=args.smoke,
        log_dir=args.log_dir or sweep_log_dir(),
        data_dir=args.data_dir,
        revision=args.revision,
        judge_retries=args.judge_retries,
        task_args=task_args,
        max_connections=args.max_connections,
        judge_max_connections=args.judge_max_connections,
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
        shard=resolve_shard(args.shard),
        model_cost_config=model_cost_config,
        cost_limit=cost_limit,
    )


def _say(message: str, stream: TextIO | None = None) -> None:
    print(redact(message), file=stream or sys.stdout, flush=True)


def _error(message: str, listed: bool = False) -> None:
    """An error as one printable, bounded line (a path or a value typed, a text read from a
    file can hold anything), so it moves no cursor and forges no line; `listed`: a list of
    problems (an invalid release), each of its lines made so."""
    lines = [printable(line) for line in message.splitlines()] if listed else []
    lines = lines or [printable(message)]
    _say("\n".join([f"{PROG}: error: {lines[0]}", *lines[1:]]), sys.stderr)


def _input_errors(*more: type[Exception]) -> tuple[type[Exception], ...]:
    """The errors the handler turns into one line, the report's `ReportError` among them once
    the report is imported (evaluated when an error reaches the `except`). Only the report
    raises it, and the report is imported when the eval set is done: importing it with the
    handler's other imports would hold the first model call back by the report's import
    (0.3-0.6 s on a two-core machine), which nothing before the report needs."""
    errors: tuple[type[Exception], ...] = (SweepError, CredentialError, FileNotFoundError, *more)
    report = sys.modules.get("bedside_bench.report")
    error = getattr(report, "ReportError", None)
    if isinstance(error, type) and issubclass(error, Exception):
        errors += (error,)
    return errors


def piped_display(
    options: SweepOptions,
) -> tuple[SweepOptions, Callable[[], contextlib.AbstractContextManager[object]] | None]:
    """With the output not a terminal and no display chosen (`--display`,
    `$INSPECT_DISPLAY`): no Inspect display, and our own progress line at least every 15 s
    (`calls/progress.py`); else the options as given and no progress lines."""
    if not sweep.piped(options.display):
        return options, None
    return dataclasses.replace(options, display="none"), sweep.progress_lines


def run_sweep_command(args: argparse.Namespace) -> int:
    """The handler: one line per outcome, never a traceback for an input problem."""
    received: list[int] = []
    try:
        options = options_from_args(args)
        # the errors below are said here, once, whatever the display
        with sweep.errors_said_by_caller():
            if (estimated := estimate_if_asked(args, options)) is not None:
                return estimated
            options, progress = piped_display(options)
            # SIGTERM too, and stopping is not bound by rendering tracebacks (see both
            # docstrings; for this command only, never inside a plain `inspect eval`)
            with (
                stopping_on_signals(stop_grace(args)) as received,
                sweep.plain_cancellation_tracebacks(),
                progress() if progress else contextlib.nullcontext(),
            ):
                result = sweep.run_sweep(options)
    except _input_errors(sweep.DatasetError) as ex:
        _error(str(ex), listed=isinstance(ex, sweep.DatasetError))
        return exit_codes.ERROR
    except sweep.TaskOptionError as ex:  # a -T option misspelt or out of range: one line, no call
        _error(str(ex).removeprefix("bedside-bench: "))
        return exit_codes.ERROR
    except KeyboardInterrupt as ex:
        command = shlex.join(getattr(args, "command_line", None) or ["bedside-bench", "sweep"])
        _say(interrupted_line(ex, received, command), sys.stderr)
        return stop_exit_code(received)  # EXIT_INTERRUPTED for Ctrl-C
    if result.taken_over is not None:
        _say(
            f"sweep: took over the lock of a run that is gone ({result.taken_over.describe()}); "
            "its completed cases were reused"
        )
    complete = len(sweep.complete_runs(result.logs) & set(result.runs))
    shard = "" if options.shard.whole else f" (shard {options.shard})"
    _say(
        f"sweep: {complete}/{len(result.runs)} benchmark runs complete{shard} "
        f"{result.timings.describe()}"
    )
    if result.report is not None:
        _say(f"sweep: report in {options.report_out_dir}")
    elif not options.shard.whole:
        _say(
            f"sweep: shard {options.shard} done; once every shard is, run "
            f"`bedside-bench report {options.log_dir}`"
        )
    for failure in result.judge_failures:
        _say(f"sweep: {judge_failure_sentence(failure, options.log_dir)}")
    if not result.success:
        _say_incomplete(options.log_dir, result.logs)
    return result.exit_code


def _say_incomplete(log_dir: str, logs: Sequence[EvalLog]) -> None:
    """Why the sweep is incomplete, so the user can tell whether a rerun can help."""
    errors = sweep.describe(sweep.failed_case_errors(logs))
    _say(
        "sweep: incomplete; the failed cases ended in "
        + ("these errors:" if errors else "errors (see `inspect view`)")
    )
    for line in errors:
        _say(f"  {line}")
    _say(
        "sweep: running the same command again retries only the failed cases: it helps once "
        f"the cause above has passed or been fixed (logs in {log_dir})"
    )


def exit_now(code: int) -> NoReturn:
    """End the process with `code`, skipping the interpreter's teardown.

    Once the sweep has printed its result nothing is left to do, but Python's teardown frees
    every object Inspect and the sweep still hold (models, clients, logs): measured at 1-6 s
    on a busy two-core machine, after the last line was printed. Exit handlers still run
    (Inspect's trace-log compression, logging's flush) and the streams are flushed; only the
    freeing of memory the OS reclaims anyway is skipped."""
    try:
        atexit._run_exitfuncs()  # what sys.exit would run before teardown
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def sweep_and_exit(args: argparse.Namespace) -> int:
    """The `sweep` subcommand's handler: the sweep, then `exit_now` when the command is the
    process (`args.owns_process`); called from Python with an argv, the exit code."""
    code = run_sweep_command(args)
    if getattr(args, "owns_process", False):
        exit_now(code)
    return code


def register(subparsers: Subcommands) -> None:
    """Add the `sweep` subcommand to `bedside-bench` (call from cli/main.py's COMMANDS)."""
    add_command(
        subparsers,
        "sweep",
        "several models, all benchmarks, one resumable eval set, then the report",
        configure_parser,
        sweep_and_exit,
    )


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    load_dotenv_as_inspect()  # as `bedside-bench sweep` and `inspect` do
    parser = SuggestingParser(prog=PROG, description=configure_parser.__doc__)
    configure_parser(parser)
    args = parser.parse_args(argv)
    args.owns_process = argv is None  # `python -m bedside_bench.sweep`, reading sys.argv
    words = sys.argv[1:] if argv is None else list(argv)
    args.command_line = ["python", "-m", "bedside_bench.sweep", *words]
    return sweep_and_exit(args)
