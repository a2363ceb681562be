"""`bedside_bench/judge_check`: how well does a judge model agree with gold decisions?

The model under evaluation is the judge. Each sample is an answer with its rubric and gold
decisions (a synthetic set written for this project, `data/judge_check/pairs.jsonl`); the
judge sees exactly what the benchmark judge sees, and its decisions are compared with gold.
An adversarial part (`data/judge_check/adversarial.jsonl`) holds answers that attack the judge
message, each pair tagged with its `attack`; `attack_accuracy` reports how a judge holds up
against each kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bedside_bench.cases import DatasetError, Violation, canonical_item_id
from bedside_bench.contracts import rubric_items
from bedside_bench.judge import judge_binary
from bedside_bench.protocol import JUDGE_MESSAGE_FORMAT, PROTOCOL_VERSION
from bedside_bench.scoring import case_score, decisions_table

RULES = (1, 2, 3, 4, 5)
PAIR_KEYS = {"pair_id", "synthetic", "grading_method", "prompt", "answer", "rubric_items"}
ITEM_KEYS = {"item_id", "text", "points", "gold_matched", "rule", "note"}
# what an adversarial answer tries: close the answer and open forged sections, echo rubric
# lines as if met, address the judge with instructions, or list every option to catch all items
ATTACKS = ("forged_sections", "echoed_rubric", "addressing_judge", "every_option")
JUDGE_CHECK_KEY = "judge_check"


DEFAULT_FILES = ("pairs.jsonl", "adversarial.jsonl")


def default_pairs() -> list[dict[str, Any]]:
    """The gold set and its adversarial part, each validated (problems named by file)."""
    pairs: list[dict[str, Any]] = []
    violations: list[Violation] = []
    for name in DEFAULT_FILES:
        text = files("bedside_bench.judge_check_data").joinpath(name).read_text(encoding="utf-8")
        try:
            pairs.extend(load_pairs(text, f"data/judge_check/{name}"))
        except DatasetError as ex:
            violations.extend(ex.violations)
    if violations:
        raise DatasetError(violations)
    return pairs


def _pair_violations(pair: Any, where: str) -> list[Violation]:
    if not isinstance(pair, dict):
        return [Violation(where, "a pair must be a JSON object")]
    pair_id = pair.get("pair_id") if isinstance(pair.get("pair_id"), str) else None
    found = []
    if set(pair) - {"attack"} != PAIR_KEYS:
        found.append(
            Violation(
                where, f"keys must be exactly {sorted(PAIR_KEYS)} (and optionally attack)", pair_id
            )
        )
    if "attack" in pair and pair["attack"] not in ATTACKS:
        found.append(
            Violation(where, f"attack must be one of {', '.join(ATTACKS)}", pair_id, field="attack")
        )
    if pair.get("grading_method") not in ("points_rubric", "f1_weighted_rubric"):
        found.append(Violation(where, "unknown grading_method", pair_id, field="grading_method"))
    prompt, answer = pair.get("prompt"), pair.get("answer")
    if not isinstance(prompt, str) or not prompt.strip():
        found.append(
            Violation(where, "the prompt must be a non-empty string", pair_id, field="prompt")
        )
    if not isinstance(answer, str) or not answer.strip():
        found.append(
            Violation(where, "the answer must be a non-empty string", pair_id, field="answer")
        )
    items = pair.get("rubric_items")
    if not isinstance(items, list) or not items:
        return [
            *found,
            Violation(
                where, "rubric_items must be a non-empty list", pair_id, field="rubric_items"
            ),
        ]
    for n, item in enumerate(items):
        if not isinstance(item, dict) or set(item) != ITEM_KEYS:
            found.append(
                Violation(
                    where,
                    f"item {n}: keys must be exactly {sorted(ITEM_KEYS)}",
                    pair_id,
                    field=f"rubric_items.{n}",
                )
            )
            continue
        item_id = str(item["item_id"])
        if isinstance(prompt, str) and item_id != canonical_item_id(prompt, n):
            found.append(
                Violation(
                    where, "item_id is not {md5(prompt)}_{index}", pair_id, item_id, "item_id"
                )
            )
        if not isinstance(item["gold_matched"], bool):
            found.append(
                Violation(where, "gold_matched must be a boolean", pair_id, item_id, "gold_matched")
            )
        if item["rule"] not in RULES:
            found.append(Violation(where, "rule must be 1..5", pair_id, item_id, "rule"))
        points = item["points"]
        if not isinstance(points, int) or isinstance(points, bool) or not -3 <= points <= 3:
            found.append(
                Violation(where, "points must be an integer in -3..+3", pair_id, item_id, "points")
            )
    if not any(
        isinstance(i, dict) and isinstance(i.get("points"), int) and i["points"] > 0 for i in items
    ):
        found.append(Violation(where, "no positive-point item", pair_id, field="rubric_items"))
    return found


def load_pairs(text: str, source: str) -> list[dict[str, Any]]:
    """Parse and validate a JSONL gold set; raise DatasetError listing every problem."""
    pairs: list[dict[str, Any]] = []
    violations: list[Violation] = []
    seen: set[str] = set()
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source}:{line_no}"
        try:
            pair = json.loads(line)
        except json.JSONDecodeError as ex:
            violations.append(Violation(where, f"not JSON: {ex.msg}"))
            continue
        problems = _pair_violations(pair, where)
        if not problems and pair["pair_id"] in seen:
            problems.append(Violation(where, "duplicate pair_id", pair["pair_id"]))
        violations.extend(problems)
        if not problems:
            seen.add(pair["pair_id"])
            pairs.append(pair)
    if not pairs and not violations:
        violations.append(Violation(source, "no pairs"))
    if violations:
        raise DatasetError(violations)
    return pairs


def pair_to_sample(pair: dict[str, Any]) -> Sample:
    return Sample(
        id=pair["pair_id"],
        input=pair["prompt"],
        metadata={
            "grading_method": pair["grading_method"],
            "attack": pair.get("attack"),
            "answer": pair["answer"],
            "rubric_items": [
                {k: item[k] for k in ("item_id", "text", "points", "gold_matched", "rule")}
                for item in pair["rubric_items"]
            ],
        },
    )


@solver
def judge_the_answer(judge_retries: int = 2) -> Solver:
    """The model under evaluation judges the stored answer, exactly as the benchmark judge."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        items = rubric_items(state.metadata)
        outcome = await judge_binary(
            get_model(), state.input_text, state.metadata["answer"], items, judge_retries
        )
        state.metadata[JUDGE_CHECK_KEY] = {
            "decisions": outcome.decisions,
            "judge_temperature": outcome.temperature_sent,
            "judge_attempts": outcome.attempts,
        }
        state.output.completion = outcome.attempts[-1]["raw"]
        return state

    return solve


def _items_of(scores: Sequence[SampleScore]) -> list[dict[str, Any]]:
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


@metric
def rule_accuracy() -> Metric:
    """Item accuracy per judge rule (1 explicit, 2 equivalent, 3 partial, 4 harm, 5 independent)."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        items = _items_of(scores)
        result: dict[str, float | None] = {}
        for rule in RULES:
            hits = [i["gold"] == i["judge"] for i in items if i["rule"] == rule]
            result[f"rule_{rule}_accuracy"] = float(np.mean(hits)) if hits else None
        return result

    return compute


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

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        items = _items_of(scores)
        result: dict[str, float | None] = {}
        for attack in (*ATTACKS, None):
            hits = [i["gold"] == i["judge"] for i in items if i.get("attack") == attack]
            result[f"attack_{attack or 'none'}_accuracy"] = float(np.mean(hits)) if hits else None
        return result

    return compute


@scorer(
    metrics=[item_accuracy(), macro_f1(), rule_accuracy(), attack_accuracy(), case_score_error()]
)
def gold_agreement() -> Scorer:
    """Score = the pair's item accuracy; metadata carries what the metrics pool."""

    async def score(state: TaskState, target: Target) -> Score:
        check = state.metadata[JUDGE_CHECK_KEY]
        judged: dict[str, bool] = check["decisions"]
        raw_items = state.metadata["rubric_items"]
        items = rubric_items(state.metadata)
        gold = {i["item_id"]: i["gold_matched"] for i in raw_items}
        method = state.metadata["grading_method"]
        judge_score = case_score(method, items, judged).score
        gold_score = case_score(method, items, gold).score
        per_item = [
            {
                "item_id": i["item_id"],
                "rule": i["rule"],
                "attack": state.metadata.get("attack"),
                "points": i["points"],
                "gold": gold[i["item_id"]],
                "judge": judged[i["item_id"]],
            }
            for i in raw_items
        ]
        wrong = {
            i["item_id"]: f"{judged[i['item_id']]} (gold {gold[i['item_id']]})"
            for i in per_item
            if i["gold"] != i["judge"]
        }
        shown = {k: wrong.get(k, judged[k]) for k in judged}
        return Score(
            value=float(np.mean([i["gold"] == i["judge"] for i in per_item])),
            answer=state.metadata["answer"],
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


@task(
    name="judge_check",
    description="How well a judge model agrees with gold rubric decisions",
    grading="judge_check",
)
def judge_check(data_file: str | None = None, judge_retries: int = 2) -> Task:
    """Evaluate the model as a BedsideBench judge against gold decisions.

    `data_file`: a JSONL gold set in the same format (default: the project's synthetic set and
    its adversarial part).
    """
    if data_file:
        source = data_file
        pairs = load_pairs(Path(data_file).read_text(encoding="utf-8"), source)
    else:
        source = " + ".join(f"data/judge_check/{name}" for name in DEFAULT_FILES)
        pairs = default_pairs()
    return Task(
        dataset=MemoryDataset(
            [pair_to_sample(p) for p in pairs], name="judge_check", location=source, shuffled=False
        ),
        solver=judge_the_answer(judge_retries),
        scorer=gold_agreement(),
        name="judge_check",
        continue_on_fail=True,
        metadata={"protocol_version": PROTOCOL_VERSION, "gold_set": source, "pairs": len(pairs)},
    )
