"""Which logs and cases a re-judge takes, and what an earlier run already judged."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_ai.log import read_eval_log_async

from bedside_bench.core.contracts import SCORER_NAME
from bedside_bench.logs.read import display_location, resolve_locations
from bedside_bench.rejudge.options import (
    CHECKPOINT_SAMPLES as CHECKPOINT_SAMPLES,
)
from bedside_bench.rejudge.options import (
    METADATA_KEY as METADATA_KEY,
)
from bedside_bench.rejudge.options import (
    PROG as PROG,
)
from bedside_bench.rejudge.options import (
    RejudgeError as RejudgeError,
)
from bedside_bench.rejudge.options import (
    RejudgeOptions as RejudgeOptions,
)
from bedside_bench.rejudge.options import (
    SampleKey as SampleKey,
)
from bedside_bench.report.groups import slug

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.scorer import Score


@dataclass
class LogOutcome:
    source: str
    output: str
    judged: int = 0
    # of those judged: answers without text, scored as stating nothing with no judge call
    empty: int = 0
    already_done: int = 0
    failed: list[str] = field(default_factory=list)
    skipped: str | None = None


def sample_key(sample: EvalSample) -> SampleKey:
    return (str(sample.id), sample.epoch)


def has_answer(sample: EvalSample) -> bool:
    """The answer call finished (an empty answer is still an answer, scored as such)."""
    return bool(sample.output and sample.output.choices)


def rubric_score(sample: EvalSample) -> Score | None:
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

    stem = Path(source.rstrip("/").rsplit("/", 1)[-1]).stem
    tail = f"-p{passes}" if passes > 1 else ""
    mode = "-failed" if failed_only else ""
    return f"{stem}-rejudge-{slug(judge)}{tail}{mode}.eval"


def to_judge(
    source: Sequence[EvalSample], done: set[SampleKey], failed_only: bool
) -> list[EvalSample]:
    wanted = [s for s in source if (judge_failed(s) if failed_only else has_answer(s))]
    return [s for s in wanted if sample_key(s) not in done]


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
    # never the output's own logs (`$INSPECT_LOG_DIR/rejudge` lies inside `$INSPECT_LOG_DIR`):
    # a log Inspect lists as a file:// URL is compared as the path it names
    out = os.path.abspath(options.output_dir) if "://" not in options.output_dir else None
    locations = [
        loc
        for loc in await resolve_locations(options.log_paths)
        if not (out and os.path.abspath(display_location(loc)).startswith(out + os.sep))
    ]
    headers = [(loc, await read_eval_log_async(loc, header_only=True)) for loc in locations]
    return newest_per_task(headers)
