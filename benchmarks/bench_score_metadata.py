"""What building a score's metadata as the validated `ScoreMetadata` model costs a case, against
the same scorer step with the model's validation taken out (its keyword arguments stored as they
are given), and what the report's reading of one score costs (`score_values`).

Cases: a 14-item F1 rubric judged once (binary), and a 20-item rubric judged in three passes
with three-level grading, each attempt keeping a judge reply of realistic size. Target: the
validation adds well under a millisecond a case (a judge call takes seconds).

    python benchmarks/bench_score_metadata.py [--repeats 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any
from unittest import mock

from bedside_bench.core.answer_condition import AnswerState
from bedside_bench.core.contracts import RubricItem, SampleMetadata
from bedside_bench.core.options import ScorerOptions
from bedside_bench.core.score_metadata import TokenCounts
from bedside_bench.judging import grading as grading_module
from bedside_bench.judging.grading import PassResult, grading_strategy
from bedside_bench.judging.judge import JudgeOutcome
from bedside_bench.judging.three_level import LEVELS, ItemJudgement
from bedside_bench.logs.values import required_score_fields, score_values
from bedside_bench.scoring import scorer as scorer_module
from bedside_bench.scoring.scorer import judged_score

ANSWER = "Stop the NSAID and start a proton pump inhibitor; check renal function in a week."
JUDGE = "openai/gpt-4.1"


class Unvalidated:
    """`ScoreMetadata` without validation: its keyword arguments, stored as given."""

    def __init__(self, **fields: Any) -> None:
        self.fields = fields

    def logged(self) -> dict[str, Any]:
        return dict(self.fields)


def case(grading: str, items: int, passes: int) -> Callable[[], Any]:
    points = [3, 2, 1, 0, -1, -2, -3]
    rubric = [RubricItem(f"item_{n:02d}", f"Criterion {n}.", points[n % 7]) for n in range(items)]
    sample = SampleMetadata(
        case_id="c1",
        benchmark="safety_therapeutic",
        grading_method="f1_weighted_rubric",
        split="public",
        rubric_items=rubric,
        answer_temperature=1.0,
    )
    opts = ScorerOptions(grading=grading, judge_passes=passes)  # type: ignore[arg-type]
    strategy = grading_strategy(grading)
    results: list[PassResult] = []
    for k in range(passes):
        decisions: Any
        if grading == "binary":
            decisions = {i.item_id: (n + k) % 2 == 0 for n, i in enumerate(rubric)}
            reply = {"decisions": [{"item_id": i, "matched": m} for i, m in decisions.items()]}
        else:
            decisions = [
                ItemJudgement(
                    i.item_id,
                    LEVELS[(n + k) % 3],
                    "Stated, but the dose is missing." if n % 4 == 0 else "As stated.",
                    "" if LEVELS[(n + k) % 3] == "NOT_MET" else "Stop the NSAID",
                )
                for n, i in enumerate(rubric)
            ]
            reply = {"decisions": [j.__dict__ for j in decisions]}
        raw = json.dumps(reply)
        attempt = {"attempt": 1, "raw": raw, "raw_chars": len(raw), "error": None}
        outcome = JudgeOutcome(decisions, 0.0, [attempt])  # type: ignore[list-item]
        results.append(strategy.to_pass(outcome, rubric))
    usage = {JUDGE: TokenCounts(input_tokens=2400, output_tokens=600, total_tokens=3000)}
    answered = AnswerState("stop", "complete")

    def score() -> Any:
        return judged_score(answered, strategy, sample, opts, JUDGE, ANSWER, results, usage)

    return score


def median_us(step: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    repeats = parser.parse_args().repeats
    print(f"median of {repeats} runs, microseconds per case")
    print(f"{'case':<36}{'scorer':>10}{'unvalidated':>13}{'added':>9}{'report reads':>14}")
    for name, score in (
        ("F1, 14 items, binary, 1 pass", case("binary", 14, 1)),
        ("F1, 20 items, three-level, 3 passes", case("three_level", 20, 3)),
    ):
        validated = median_us(score, repeats)
        with (
            mock.patch.object(scorer_module, "ScoreMetadata", Unvalidated),
            mock.patch.object(grading_module, "ScoreMetadata", Unvalidated),
        ):
            bare = median_us(score, repeats)
        read = median_us(
            partial(score_values, score().metadata, required_score_fields(True)), repeats
        )
        print(f"{name:<36}{validated:>10.0f}{bare:>13.0f}{validated - bare:>9.0f}{read:>14.0f}")


if __name__ == "__main__":
    main()
