"""`bedside-bench sweep`: the chosen benchmarks for several models in ONE Inspect `eval_set`,
then `bedside-bench report` on its log directory.

One module per job: `options` (what is asked, the tasks it makes), `shard` (which runs one of
N machines does), `lock` (one writer per log directory), `run` (eval_set and the report),
`recovery` (what killed runs leave behind), `command` (the command line). Private Inspect
names are imported only through `bedside_bench.core.inspect_private`. The package itself imports
nothing, so `bedside-bench sweep` parses its command line without importing Inspect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.calls.progress import piped as piped
    from bedside_bench.calls.progress import progress_lines as progress_lines
    from bedside_bench.core.inspect_private import PrerequisiteError as PrerequisiteError
    from bedside_bench.core.inspect_private import (
        plain_cancellation_tracebacks as plain_cancellation_tracebacks,
    )
    from bedside_bench.core.options import errors_said_by_caller as errors_said_by_caller
    from bedside_bench.release.case import DatasetError as DatasetError
    from bedside_bench.report.run import load_prices as load_prices
    from bedside_bench.scoring.scorer import TaskOptionError as TaskOptionError
    from bedside_bench.sweep.command import configure_parser as configure_parser
    from bedside_bench.sweep.command import main as main
    from bedside_bench.sweep.command import options_from_args as options_from_args
    from bedside_bench.sweep.command import register as register
    from bedside_bench.sweep.command import run_sweep_command as run_sweep_command
    from bedside_bench.sweep.command import sweep_and_exit as sweep_and_exit
    from bedside_bench.sweep.estimate.plan import estimate_sweep as estimate_sweep
    from bedside_bench.sweep.failures import describe as describe
    from bedside_bench.sweep.failures import failed_case_errors as failed_case_errors
    from bedside_bench.sweep.lock_holder import Holder as Holder
    from bedside_bench.sweep.lock_holder import LogDirBusy as LogDirBusy
    from bedside_bench.sweep.options import DEFAULT_LOG_DIR as DEFAULT_LOG_DIR
    from bedside_bench.sweep.options import DEFAULT_RETRY_ATTEMPTS as DEFAULT_RETRY_ATTEMPTS
    from bedside_bench.sweep.options import SweepError as SweepError
    from bedside_bench.sweep.options import SweepFields as SweepFields
    from bedside_bench.sweep.options import SweepOptions as SweepOptions
    from bedside_bench.sweep.options import build_task as build_task
    from bedside_bench.sweep.options import build_tasks as build_tasks
    from bedside_bench.sweep.options import check_benchmarks as check_benchmarks
    from bedside_bench.sweep.options import check_model_name as check_model_name
    from bedside_bench.sweep.options import generate_config_args as generate_config_args
    from bedside_bench.sweep.options import judge_connections as judge_connections
    from bedside_bench.sweep.options import judge_named as judge_named
    from bedside_bench.sweep.options import judge_role as judge_role
    from bedside_bench.sweep.options import max_samples as max_samples
    from bedside_bench.sweep.options import parse_task_arg as parse_task_arg
    from bedside_bench.sweep.options import split_list as split_list
    from bedside_bench.sweep.options import task_arguments as task_arguments
    from bedside_bench.sweep.recovery import complete_runs as complete_runs
    from bedside_bench.sweep.run import EXIT_ERROR as EXIT_ERROR
    from bedside_bench.sweep.run import EXIT_INCOMPLETE as EXIT_INCOMPLETE
    from bedside_bench.sweep.run import EXIT_INTERRUPTED as EXIT_INTERRUPTED
    from bedside_bench.sweep.run import EXIT_OK as EXIT_OK
    from bedside_bench.sweep.run import EXIT_REFUSED as EXIT_REFUSED
    from bedside_bench.sweep.run import SweepInterrupted as SweepInterrupted
    from bedside_bench.sweep.run import SweepResult as SweepResult
    from bedside_bench.sweep.run import Timings as Timings
    from bedside_bench.sweep.run import run_sweep as run_sweep
    from bedside_bench.sweep.shard import Shard as Shard
    from bedside_bench.sweep.shard import all_runs as all_runs
    from bedside_bench.sweep.shard import shard_runs as shard_runs

# the names the package offers, and the module each lives in: imported when first asked for
# (PEP 562), so that importing the package, as `bedside-bench sweep` does to parse its command
# line, imports no Inspect
_EXPORTS: dict[str, str] = {
    "SweepInterrupted": "run",
    "DatasetError": "bedside_bench.release.case",
    "PrerequisiteError": "bedside_bench.core.inspect_private",
    "TaskOptionError": "bedside_bench.scoring.scorer",
    "complete_runs": "recovery",
    "describe": "failures",
    "errors_said_by_caller": "bedside_bench.core.options",
    "estimate_sweep": "estimate.plan",
    "failed_case_errors": "failures",
    "load_prices": "bedside_bench.report.run",
    "plain_cancellation_tracebacks": "bedside_bench.core.inspect_private",
    "piped": "bedside_bench.calls.progress",
    "progress_lines": "bedside_bench.calls.progress",
    "DEFAULT_LOG_DIR": "options",
    "DEFAULT_RETRY_ATTEMPTS": "options",
    "EXIT_ERROR": "run",
    "EXIT_INCOMPLETE": "run",
    "EXIT_INTERRUPTED": "run",
    "EXIT_OK": "run",
    "EXIT_REFUSED": "run",
    "Holder": "lock_holder",
    "LogDirBusy": "lock_holder",
    "Shard": "shard",
    "SweepError": "options",
    "SweepFields": "options",
    "SweepOptions": "options",
    "SweepResult": "run",
    "Timings": "run",
    "all_runs": "shard",
    "build_task": "options",
    "build_tasks": "options",
    "check_benchmarks": "options",
    "check_model_name": "options",
    "configure_parser": "command",
    "generate_config_args": "options",
    "judge_connections": "options",
    "judge_named": "options",
    "judge_role": "options",
    "main": "command",
    "max_samples": "options",
    "options_from_args": "command",
    "parse_task_arg": "options",
    "register": "command",
    "run_sweep": "run",
    "run_sweep_command": "command",
    "shard_runs": "shard",
    "split_list": "options",
    "sweep_and_exit": "command",
    "task_arguments": "options",
}
__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
