"""What the judge check writes to a log: the judged decisions (sample metadata) and the items
of a score (score metadata).

These types live apart from `scorer.py`, which Inspect may execute by path (`--solver` or
`--scorer bedside_bench/task/judge_check/scorer.py@...`) outside `sys.modules`, where the postponed
annotations of a class defined in it cannot be resolved (`typing.get_type_hints` fails).
"""

from __future__ import annotations

from typing import TypedDict

from bedside_bench.core.contracts import JudgeAttempt, SentTemperature

# sample metadata: what the judge under evaluation decided
JUDGE_CHECK_KEY = "judge_check"


class JudgeCheckRecord(TypedDict):
    """What the judge under evaluation decided (sample metadata under `JUDGE_CHECK_KEY`)."""

    decisions: dict[str, bool]
    judge_temperature: SentTemperature
    judge_attempts: list[JudgeAttempt]


class GoldItemResult(TypedDict):
    """One item of a judge-check score: the judge's decision beside the gold one."""

    item_id: str
    rule: int
    attack: str | None
    points: int
    gold: bool
    judge: bool
