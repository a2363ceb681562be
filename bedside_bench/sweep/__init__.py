"""`bedside-bench sweep`: the chosen benchmarks for several models in ONE Inspect `eval_set`,
then `bedside-bench report` on its log directory.

One module per job: `options` (what is asked, the tasks it makes), `shard` (which runs one of
N machines does), `lock` (one writer per log directory), `run` (eval_set and the report),
`recovery` (what killed runs leave behind), `command` (the command line). Private Inspect
names are imported only through `bedside_bench.inspect_private`.
"""

from __future__ import annotations

from bedside_bench.sweep.command import (
    configure_parser,
    main,
    options_from_args,
    register,
    run_sweep_command,
    sweep_and_exit,
)
from bedside_bench.sweep.lock import Holder, LogDirBusy
from bedside_bench.sweep.options import (
    DEFAULT_LOG_DIR,
    DEFAULT_RETRY_ATTEMPTS,
    SweepError,
    SweepOptions,
    build_tasks,
    check_benchmarks,
    check_model_name,
    generate_config_args,
    judge_connections,
    judge_role,
    max_samples,
    parse_task_arg,
    split_list,
    task_arguments,
)
from bedside_bench.sweep.run import (
    EXIT_ERROR,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REFUSED,
    SweepResult,
    run_sweep,
)
from bedside_bench.sweep.shard import Shard, all_runs, shard_runs

__all__ = [
    "DEFAULT_LOG_DIR",
    "DEFAULT_RETRY_ATTEMPTS",
    "EXIT_ERROR",
    "EXIT_INCOMPLETE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REFUSED",
    "Holder",
    "LogDirBusy",
    "Shard",
    "SweepError",
    "SweepOptions",
    "SweepResult",
    "all_runs",
    "build_tasks",
    "check_benchmarks",
    "check_model_name",
    "configure_parser",
    "generate_config_args",
    "judge_connections",
    "judge_role",
    "main",
    "max_samples",
    "options_from_args",
    "parse_task_arg",
    "register",
    "run_sweep",
    "run_sweep_command",
    "shard_runs",
    "split_list",
    "sweep_and_exit",
    "task_arguments",
]
