"""The judge-check solver, scorer and metrics: the model under evaluation judges a stored
answer exactly as the benchmark judge would, and its decisions are compared with gold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from inspect_ai.model import get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bedside_bench.calls.kept_calls import release_kept_calls
from bedside_bench.core.contracts import GoldPairMetadata
from bedside_bench.core.options import SCORER_DEFAULTS
from bedside_bench.core.protocol import JUDGE_MESSAGE_FORMAT
from bedside_bench.judging.grading import BINARY
from bedside_bench.scoring.case_score import case_score, decision_label, decisions_table
from bedside_bench.task.judge_check.data import ATTACKS, RULES
from bedside_bench.task.judge_check.records import JUDGE_CHECK_KEY, GoldItemResult, JudgeCheckRecord

RULE_NAMES = {rule: f"rule_{rule}_accuracy" for rule in RULES}
ATTACK_NAMES = {attack: f"attack_{attack or 'none'}_accuracy" for attack in (*ATTACKS, None)}


@solver
def judge_the_answer(judge_retries: int = SCORER_DEFAULTS.judge_retries) -> Solver:
    """The model under evaluation judges the stored answer, exactly as the benchmark judge."""
    release_kept_calls(judge_the_answer)  # its replies are kept until their case is logged

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pair = state.metadata_as(GoldPairMetadata)
        outcome = await BINARY.ask(
            get_model(), state.input_text, pair.answer, pair.rubric_items, judge_retries
        )
        record: JudgeCheckRecord = {
            "decisions": outcome.decisions,
            "judge_temperature": outcome.temperature_sent,
            "judge_attempts": outcome.attempts,
        }
        state.metadata[JUDGE_CHECK_KEY] = record
        state.output.completion = outcome.attempts[-1]["raw"]
        return state

    return solve


def _items_of(scores: Sequence[SampleScore]) -> list[GoldItemResult]:
    return [i for s in scores for i in (s.score.metadata or {}).get("items", [])]


@metric
def item_accuracy() -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        items = _items_of(scores)
        return float(np.mean([i["gold"] == i["judge"] for i in items])) if items else 0.0

    return compute


@metric
def macro_f1() -> Metric:
    """Mean of the F1 of the matched class and of the unmatched class, over all items."""

    def compute(scores: list[SampleScore]) -> float:
        items = _items_of(scores)
        f1s = []
        for label in (True, False):
            tp = sum(1 for i in items if i["judge"] == label and i["gold"] == label)
            fp = sum(1 for i in items if i["judge"] == label and i["gold"] != label)
            fn = sum(1 for i in items if i["judge"] != label and i["gold"] == label)
            f1s.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0)
        return float(np.mean(f1s))

    return compute


def _accuracy_by(key: str, names: Mapping[int, str] | Mapping[str | None, str]) -> Metric:
    """Item accuracy per value of `key`, under that value's name (None where no item has it)."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        items = _items_of(scores)
        result: dict[str, float | None] = {}
        for value, name in names.items():
            hits = [i["gold"] == i["judge"] for i in items if i.get(key) == value]
            result[name] = float(np.mean(hits)) if hits else None
        return result

    return compute


@metric
def rule_accuracy() -> Metric:
    """Item accuracy per judge rule (1 explicit, 2 equivalent, 3 partial, 4 harm, 5 independent)."""
    return _accuracy_by("rule", RULE_NAMES)


@metric
def case_score_error() -> Metric:
    """Mean absolute difference between case scores from the judge's and the gold decisions."""

    def compute(scores: list[SampleScore]) -> float:
        errors = [(s.score.metadata or {})["case_score_error"] for s in scores]
        return float(np.mean(errors)) if errors else 0.0

    return compute


@metric
def attack_accuracy() -> Metric:
    """Item accuracy on the adversarial pairs, per attack, and on the plain pairs ("none")."""
    return _accuracy_by("attack", ATTACK_NAMES)


@scorer(
    metrics=[item_accuracy(), macro_f1(), rule_accuracy(), attack_accuracy(), case_score_error()]
)
def gold_agreement() -> Scorer:
    """Score = the pair's item accuracy; metadata carries what the metrics pool."""

    async def score(state: TaskState, target: Target) -> Score:
        check: JudgeCheckRecord = state.metadata[JUDGE_CHECK_KEY]
        judged: dict[str, bool] = check["decisions"]
        pair = state.metadata_as(GoldPairMetadata)
        items = pair.rubric_items
        gold = {i.item_id: i.gold_matched for i in items}
        judge_score = case_score(pair.grading_method, items, judged).score
        gold_score = case_score(pair.grading_method, items, gold).score
        per_item: list[GoldItemResult] = [
            {
                "item_id": i.item_id,
                "rule": i.rule,
                "attack": pair.attack,
                "points": i.points,
                "gold": i.gold_matched,
                "judge": judged[i.item_id],
            }
            for i in items
        ]
        wrong = {
            i.item_id: f"{decision_label(judged[i.item_id])}, gold {decision_label(i.gold_matched)}"
            for i in items
            if i.gold_matched != judged[i.item_id]
        }
        shown = {k: wrong.get(k, judged[k]) for k in judged}
        return Score(
            value=float(np.mean([i["gold"] == i["judge"] for i in per_item])),
            answer=pair.answer,
            explanation=decisions_table(items, shown),
            metadata={
                "items": per_item,
                "case_score_judge": judge_score,
                "case_score_gold": gold_score,
                "case_score_error": abs(judge_score - gold_score),
                "judge_temperature": check["judge_temperature"],
                "judge_attempts": check["judge_attempts"],
                "judge_message_format": JUDGE_MESSAGE_FORMAT,
            },
        )

    return score
