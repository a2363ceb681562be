"""The rubric-judge scorer: judge the answer, score the case, pack an Inspect `Score`."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.model import Model, get_model
from inspect_ai.model._model import active_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from bedside_bench.credentials import redact
from bedside_bench.judge import judge_binary, judge_three_level
from bedside_bench.judge_reply import JUDGE_MESSAGE_FORMAT
from bedside_bench.metrics import bootstrap_ci95, f1_diagnostics, judge_agreement
from bedside_bench.passes import combine_passes, unanimous_share
from bedside_bench.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.scoring import F1Score, PointsScore, RubricItem, case_score
from bedside_bench.solver import ANSWER_TEMPERATURE_KEY
from bedside_bench.three_level import MATCH_VALUE, Level, apply_overrides, match_values

GRADER_ROLE = "grader"
Grading = Literal["binary", "three_level"]
GRADINGS: tuple[Grading, ...] = ("binary", "three_level")


_MARKUP = re.compile(r"\[/?[a-z ]+\]")


def _one_line(ex: BaseException) -> str:
    """An exception as one plain line: Inspect's messages carry console markup and breaks."""
    message = getattr(ex, "message", None) or str(ex) or type(ex).__name__
    paragraphs = re.split(r"\n\s*\n", _MARKUP.sub("", str(message)))
    text = ": ".join(" ".join(p.split()) for p in paragraphs if p.strip())
    return redact(text.removeprefix("ERROR: "))


def preflight_judge(judge_model: str) -> Model | None:
    """Resolve the judge, and so initialise its client, while a run's tasks are being built.

    Inside `inspect eval` / `eval-set` tasks are built after the model roles are bound and
    before any sample runs, so a judge with a missing key or an unknown name stops the run
    here, before an answer is bought. A task built outside a run (Python API, before
    `eval(task, model_roles=...)`) cannot know its grader yet: then nothing is checked.
    """
    if active_model() is None:
        return None
    try:
        return get_model(role=GRADER_ROLE, default=judge_model)
    except Exception as ex:
        message = (
            f"bedside-bench: the judge {judge_model} cannot be used, so no case was run: "
            f"{_one_line(ex)} Bind a usable judge with --model-role grader=... "
            "or -T judge_model=..."
        )
        # Inspect prints a PrerequisiteError as a message, without a traceback
        raise PrerequisiteError(message) from ex


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


@dataclass
class PassResult:
    """One judge pass: its decisions (booleans or levels) and what it took to get them."""

    decisions: dict[str, Any]
    temperature_sent: float | None
    attempts: list[dict[str, Any]]
    details: dict[str, Any]


async def _judge_pass(
    judge: Model,
    grading: Grading,
    prompt: str,
    answer: str,
    items: list[RubricItem],
    retries: int,
    number: int,
) -> PassResult:
    # each pass is its own cache entry (see model_calls): passes must stay independent
    scope = {"pass": str(number)}
    if grading == "binary":
        outcome = await judge_binary(judge, prompt, answer, items, retries, scope=scope)
        return PassResult(outcome.decisions, outcome.temperature_sent, outcome.attempts, {})
    three = await judge_three_level(judge, prompt, answer, items, retries, scope=scope)
    levels, overrides = apply_overrides(three.decisions, items)
    details = {
        "judgements": [
            {
                "item_id": j.item_id,
                "decision": j.decision,
                "rationale": j.rationale,
                "evidence": j.evidence,
            }
            for j in three.decisions
        ],
        "overrides": [o.as_dict() for o in overrides],
    }
    return PassResult(dict(levels), three.temperature_sent, three.attempts, details)


def _pass_metadata(results: Sequence[PassResult], grading: Grading) -> dict[str, Any]:
    """What repeated judging adds: every pass's decisions and their agreement."""
    metadata: dict[str, Any] = {}
    if len(results) > 1:
        metadata["judge_passes"] = len(results)
        metadata["pass_decisions"] = [r.decisions for r in results]
        metadata["judge_agreement"] = unanimous_share([r.decisions for r in results])
    if grading == "three_level":
        details = [r.details for r in results]
        metadata["judgements"] = (
            details[0]["judgements"] if len(details) == 1 else [d["judgements"] for d in details]
        )
        metadata["overrides"] = (
            details[0]["overrides"] if len(details) == 1 else [d["overrides"] for d in details]
        )
    return metadata


def _attempts(results: Sequence[PassResult]) -> list[dict[str, Any]]:
    if len(results) == 1:
        return results[0].attempts
    return [{"pass": n, **a} for n, r in enumerate(results, start=1) for a in r.attempts]


@scorer(metrics=[mean(), stderr(), bootstrap_ci95(), f1_diagnostics(), judge_agreement()])
def rubric_judge(
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_retries: int = 2,
    severe_gate: bool = False,
    judge_passes: int = 1,
    grading: Grading = "binary",
) -> Scorer:
    """Judge every rubric item of the case, then score it as protocol section 3 says.

    The judge is the model bound to the `grader` role, else `judge_model`. With
    `judge_passes` > 1 the passes are independent calls and an item's decision is their
    strict majority (a tie is not matched).
    """
    if judge_passes < 1:
        raise ValueError(f"judge_passes must be >= 1, got {judge_passes}")
    if grading not in GRADINGS:
        raise ValueError(f"grading must be one of {', '.join(GRADINGS)}, got {grading!r}")

    async def score(state: TaskState, target: Target) -> Score:
        judge = get_model(role=GRADER_ROLE, default=judge_model)
        items = rubric_items(state.metadata)
        method = state.metadata["grading_method"]
        answer = state.output.completion
        results = await asyncio.gather(
            *(
                _judge_pass(judge, grading, state.input_text, answer, items, judge_retries, n)
                for n in range(1, judge_passes + 1)
            )
        )
        combined: dict[str, Any]
        matches: dict[str, bool] | dict[str, float]
        if grading == "binary":
            combined = combine_passes([r.decisions for r in results], rank=int)
            matches = combined
        else:
            levels: dict[str, Level] = combine_passes(
                [r.decisions for r in results], rank=lambda level: MATCH_VALUE[level]
            )
            combined = dict(levels)
            matches = match_values(levels, items)
        result = case_score(method, items, matches, severe_gate=severe_gate)
        metadata = {
            "decisions": combined,
            **score_metadata(result, method),
            "judge_model": str(judge),
            "judge_temperature": results[0].temperature_sent,
            "answer_temperature": state.metadata.get(ANSWER_TEMPERATURE_KEY),
            "judge_attempts": _attempts(results),
            "judge_message_format": JUDGE_MESSAGE_FORMAT,
            "severe_gate": severe_gate,
            **_pass_metadata(results, grading),
        }
        if grading == "three_level":
            metadata["match_values"] = matches
        return Score(
            value=result.score,
            answer=answer,
            explanation=decisions_table(items, combined),
            metadata=metadata,
        )

    return score
