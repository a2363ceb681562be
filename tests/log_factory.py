"""Small Inspect logs built in memory with Inspect's own classes, for the unit tests of the
modules that read logs (rejudge, sweep recovery): no eval, no model, no subprocess.

A log here has what `bedside-bench` tasks write and the code under test reads: task name and
metadata, the grader role, the `rubric_judge` scorer entry and its options, stats, results, and
samples with an answer, a score naming its judge, an error, and their token usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalResults,
    EvalSample,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import GenerateConfig, ModelConfig, ModelOutput, ModelUsage
from inspect_ai.scorer import Score

from bedside_bench.core.contracts import GRADER_ROLE, SCORER_NAME
from bedside_bench.core.protocol import PROTOCOL_VERSION

ANSWER_MODEL = "openai/gpt-4.1-mini"
JUDGE_A = "openai/gpt-4.1"
JUDGE_B = "anthropic/claude-sonnet-4-6"
BENCHMARK = "drug_safety"
STARTED = "2026-03-01T10:00:00+00:00"
# the options a source log's rubric_judge entry records (not the defaults, so a test can tell
# a recorded value from a default one)
RECORDED_OPTIONS = {
    "judge_model": JUDGE_A,
    "judge_retries": 1,
    "severe_gate": True,
    "judge_passes": 1,
    "grading": "binary",
}


def usage(input_tokens: int, output_tokens: int) -> ModelUsage:
    return ModelUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )


def sample(
    case: str,
    *,
    epoch: int = 1,
    answer: str | None = "the physician's answer",
    judge: str | None = JUDGE_A,
    value: float = 0.5,
    error: str | None = None,
    model_usage: dict[str, ModelUsage] | None = None,
) -> EvalSample:
    """One case: `answer` None means the answer call never finished (no choice); `judge`
    None means no rubric score; `error` the case's error message."""
    output = (
        ModelOutput.from_content(model=ANSWER_MODEL, content=answer)
        if answer is not None
        else ModelOutput()
    )
    scores = (
        {SCORER_NAME: Score(value=value, metadata={"judge_model": judge})}
        if judge is not None
        else None
    )
    return EvalSample(
        id=case,
        epoch=epoch,
        input=f"question of {case}",
        target="",
        output=output,
        scores=scores,
        error=EvalError(message=error, traceback="", traceback_ansi="") if error else None,
        model_usage=model_usage or {},
    )


def eval_log(
    samples: Sequence[EvalSample] | None = None,
    *,
    task_id: str = "task-1",
    eval_id: str = "eval-1",
    model: str = ANSWER_MODEL,
    benchmark: str = BENCHMARK,
    judge: str = JUDGE_A,
    status: str = "success",
    started_at: str = STARTED,
    created: str = STARTED,
    scorer_options: dict[str, object] | None = None,
    metadata: dict[str, object] | None = None,
) -> EvalLog:
    """A bedside_bench benchmark log with these samples (`samples` None: a header only)."""
    cases = list(samples or [])
    task_metadata: dict[str, object] = {
        "benchmark": benchmark,
        "protocol_version": PROTOCOL_VERSION,
        "dataset_sha256": "0" * 64,
        "judge_passes": 1,
    }
    task_metadata.update(metadata or {})
    spec = EvalSpec(
        created=created,
        task=f"bedside_bench/{benchmark}",
        task_id=task_id,
        eval_id=eval_id,
        run_id=f"run-of-{eval_id}",
        dataset=EvalDataset(name=benchmark, samples=len(cases)),
        model=model,
        model_roles={GRADER_ROLE: ModelConfig(model=judge, config=GenerateConfig())},
        config=EvalConfig(),
        task_args={"smoke": False},
        metadata=task_metadata,
        scorers=[
            {
                "name": SCORER_NAME,
                "options": dict(RECORDED_OPTIONS if scorer_options is None else scorer_options),
                "metrics": [{"name": "mean", "options": {}}],
            }
        ],
    )
    return EvalLog(
        eval=spec,
        status=status,  # type: ignore[arg-type]
        stats=EvalStats(started_at=started_at, completed_at=started_at),
        results=EvalResults(
            total_samples=len(cases),
            completed_samples=sum(1 for s in cases if s.error is None),
        ),
        samples=cases if samples is not None else None,
    )


def write(log: EvalLog, path: Path) -> str:
    """`log` written where Inspect would read it; its location."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(path))
    return str(path)
