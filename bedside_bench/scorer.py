"""The rubric-judge scorer: judge the answer, score the case, pack an Inspect `Score`."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from bedside_bench.judge import judge_case
from bedside_bench.metrics import bootstrap_ci95, f1_diagnostics
from bedside_bench.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.scoring import F1Score, PointsScore, RubricItem, case_score
from bedside_bench.solver import ANSWER_TEMPERATURE_KEY

GRADER_ROLE = "grader"


def rubric_items(metadata: dict[str, Any]) -> list[RubricItem]:
    return [
        RubricItem(item_id=i["item_id"], text=i["text"], points=i["points"])
        for i in metadata["rubric_items"]
    ]


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def decisions_table(items: list[RubricItem], decisions: dict[str, Any]) -> str:
    """Markdown table so `inspect view` shows at a glance which items matched."""
    rows = ["| item | points | matched | criterion |", "|---|---|---|---|"]
    for item in items:
        value = decisions[item.item_id]
        shown = ("yes" if value else "no") if isinstance(value, bool) else str(value)
        rows.append(f"| `{item.item_id}` | {item.points:+d} | {shown} | {_cell(item.text)} |")
    return "\n".join(rows)


def score_metadata(result: PointsScore | F1Score, grading_method: str) -> dict[str, Any]:
    if isinstance(result, PointsScore):
        return {
            "grading_method": grading_method,
            "matched_signed_points": result.matched_signed_points,
            "available_positive_points": result.available_positive_points,
        }
    return {
        "grading_method": grading_method,
        "recall": result.recall,
        "precision": result.precision,
        "severe_rate": result.severe_rate,
    }


@scorer(metrics=[mean(), stderr(), bootstrap_ci95(), f1_diagnostics()])
def rubric_judge(
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
) -> Scorer:
    """Judge every rubric item of the case, then score it as protocol section 3 says.

    The judge is the model bound to the `grader` role, else `judge_model`.
    """

    async def score(state: TaskState, target: Target) -> Score:
        judge = get_model(role=GRADER_ROLE, default=judge_model)
        items = rubric_items(state.metadata)
        method = state.metadata["grading_method"]
        outcome = await judge_case(
            judge, state.input_text, state.output.completion, items, judge_retries
        )
        result = case_score(method, items, outcome.decisions, severe_gate=severe_gate)
        metadata = {
            "decisions": outcome.decisions,
            **score_metadata(result, method),
            "judge_model": str(judge),
            "judge_temperature": outcome.temperature_sent,
            "answer_temperature": state.metadata.get(ANSWER_TEMPERATURE_KEY),
            "judge_attempts": outcome.attempts,
            "severe_gate": severe_gate,
        }
        return Score(
            value=result.score,
            answer=state.output.completion,
            explanation=decisions_table(items, outcome.decisions),
            metadata=metadata,
        )

    return score
