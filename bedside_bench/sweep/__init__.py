"""`bedside-bench sweep`: the chosen benchmarks for several models in ONE Inspect `eval_set`,
then `bedside-bench report` on its log directory.

One module per job: `options` (what is asked, the tasks it makes), `shard` (which runs one of
N machines does), `lock` (one writer per log directory), `run` (eval_set and the report),
`recovery` (what killed runs leave behind), `command` (the command line). Private Inspect
names are imported only through `bedside_bench.inspect_private`. The package itself imports
nothing, so `bedside-bench sweep` parses its command line without importing Inspect.
"""

from __future__ import annotations

import importlib
from typing import Any

# the names the package offers, and the module each lives in: imported when first asked for
# (PEP 562), so that importing the package, as `bedside-bench sweep` does to parse its command
# line, imports no Inspect
_EXPORTS: dict[str, str] = {
    "DEFAULT_LOG_DIR": "options",
    "DEFAULT_RETRY_ATTEMPTS": "options",
    "EXIT_ERROR": "run",
    "EXIT_INCOMPLETE": "run",
    "EXIT_INTERRUPTED": "run",
    "EXIT_OK": "run",
    "EXIT_REFUSED": "run",
    "Holder": "lock",
    "LogDirBusy": "lock",
    "Shard": "shard",
    "SweepError": "options",
    "SweepOptions": "options",
    "SweepResult": "run",
    "all_runs": "shard",
    "build_tasks": "options",
    "check_benchmarks": "options",
    "check_model_name": "options",
    "configure_parser": "command",
    "generate_config_args": "options",
    "judge_connections": "options",
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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
