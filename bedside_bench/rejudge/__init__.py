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

from typing import TYPE_CHECKING

from bedside_bench.core.lazy import lazy_exports

if TYPE_CHECKING:  # the same names with their types, for type checkers and IDEs
    from bedside_bench.core.options import TaskOptionError as TaskOptionError
    from bedside_bench.core.options import errors_said_by_caller as errors_said_by_caller
    from bedside_bench.rejudge.command import EXIT_ERROR as EXIT_ERROR
    from bedside_bench.rejudge.command import EXIT_INCOMPLETE as EXIT_INCOMPLETE
    from bedside_bench.rejudge.command import EXIT_OK as EXIT_OK
    from bedside_bench.rejudge.command import configure_parser as configure_parser
    from bedside_bench.rejudge.command import register as register
    from bedside_bench.rejudge.command import run_command as run_command
    from bedside_bench.rejudge.options import CHECKPOINT_SAMPLES as CHECKPOINT_SAMPLES
    from bedside_bench.rejudge.options import METADATA_KEY as METADATA_KEY
    from bedside_bench.rejudge.options import PROG as PROG
    from bedside_bench.rejudge.options import RejudgeError as RejudgeError
    from bedside_bench.rejudge.options import RejudgeOptions as RejudgeOptions
    from bedside_bench.rejudge.options import SampleKey as SampleKey
    from bedside_bench.rejudge.output import assemble as assemble
    from bedside_bench.rejudge.output import carried as carried
    from bedside_bench.rejudge.output import finish_sample as finish_sample
    from bedside_bench.rejudge.output import new_header as new_header
    from bedside_bench.rejudge.output import write_log as write_log
    from bedside_bench.rejudge.plan import LogOutcome as LogOutcome
    from bedside_bench.rejudge.plan import has_answer as has_answer
    from bedside_bench.rejudge.plan import judge_failed as judge_failed
    from bedside_bench.rejudge.plan import judged_ok as judged_ok
    from bedside_bench.rejudge.plan import newest_per_task as newest_per_task
    from bedside_bench.rejudge.plan import output_name as output_name
    from bedside_bench.rejudge.plan import rubric_score as rubric_score
    from bedside_bench.rejudge.plan import sample_key as sample_key
    from bedside_bench.rejudge.plan import source_logs as source_logs
    from bedside_bench.rejudge.plan import to_judge as to_judge
    from bedside_bench.rejudge.run import capturing as capturing
    from bedside_bench.rejudge.run import judge_samples as judge_samples
    from bedside_bench.rejudge.run import rejudge as rejudge
    from bedside_bench.rejudge.run import rejudge_async as rejudge_async
    from bedside_bench.rejudge.run import rejudge_log as rejudge_log
    from bedside_bench.rejudge.run import scorer_options as scorer_options

# imported when first asked for (`core/lazy.py`): `bedside-bench rejudge` parses its command
# line without importing Inspect
_EXPORTS: dict[str, str] = {
    "TaskOptionError": "bedside_bench.core.options",
    "errors_said_by_caller": "bedside_bench.core.options",
    "CHECKPOINT_SAMPLES": "options",
    "EXIT_ERROR": "command",
    "EXIT_INCOMPLETE": "command",
    "EXIT_OK": "command",
    "LogOutcome": "plan",
    "METADATA_KEY": "options",
    "PROG": "options",
    "RejudgeError": "options",
    "RejudgeOptions": "options",
    "SampleKey": "options",
    "assemble": "output",
    "capturing": "run",
    "carried": "output",
    "configure_parser": "command",
    "finish_sample": "output",
    "has_answer": "plan",
    "judge_failed": "plan",
    "judge_samples": "run",
    "judged_ok": "plan",
    "new_header": "output",
    "newest_per_task": "plan",
    "output_name": "plan",
    "register": "command",
    "rejudge": "run",
    "rejudge_async": "run",
    "rejudge_log": "run",
    "rubric_score": "plan",
    "run_command": "command",
    "sample_key": "plan",
    "scorer_options": "run",
    "source_logs": "plan",
    "to_judge": "plan",
    "write_log": "output",
}
__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
