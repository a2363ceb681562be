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

from bedside_bench.rejudge.command import (
    EXIT_ERROR,
    EXIT_INCOMPLETE,
    EXIT_OK,
    configure_parser,
    register,
    run_command,
)
from bedside_bench.rejudge.output import assemble, carried, finish_sample, new_header, write_log
from bedside_bench.rejudge.plan import (
    CHECKPOINT_SAMPLES,
    METADATA_KEY,
    PROG,
    LogOutcome,
    RejudgeError,
    RejudgeOptions,
    SampleKey,
    has_answer,
    judge_failed,
    judged_ok,
    newest_per_task,
    output_name,
    rubric_score,
    sample_key,
    source_logs,
    to_judge,
)
from bedside_bench.rejudge.run import (
    capturing,
    judge_samples,
    rejudge,
    rejudge_async,
    rejudge_log,
    scorer_options,
)

__all__ = [
    "CHECKPOINT_SAMPLES",
    "EXIT_ERROR",
    "EXIT_INCOMPLETE",
    "EXIT_OK",
    "METADATA_KEY",
    "PROG",
    "LogOutcome",
    "RejudgeError",
    "RejudgeOptions",
    "SampleKey",
    "assemble",
    "capturing",
    "carried",
    "configure_parser",
    "finish_sample",
    "has_answer",
    "judge_failed",
    "judge_samples",
    "judged_ok",
    "new_header",
    "newest_per_task",
    "output_name",
    "register",
    "rejudge",
    "rejudge_async",
    "rejudge_log",
    "rubric_score",
    "run_command",
    "sample_key",
    "scorer_options",
    "source_logs",
    "to_judge",
    "write_log",
]
