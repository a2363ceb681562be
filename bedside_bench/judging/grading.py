"""The two grading variants, each one object: what the judge is told, how its reply is read,
how repeated passes combine, and how a decision becomes a match value for the case score.

The scorer and the tasks pick a variant by its name (`-T grading=...`) once, with
`grading_strategy`; nothing else branches on the name. A new variant is a subclass here, its
name in `contracts.GRADINGS`, and its texts in `core/protocol.py`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypedDict, TypeGuard, TypeVar

from inspect_ai.model import Model

from bedside_bench.core.contracts import (
    GRADINGS,
    Decision,
    Grading,
    ItemJudgementRecord,
    JudgeAttempt,
    OverrideRecord,
    RubricItem,
    SentTemperature,
)
from bedside_bench.core.protocol import (
    JUDGE_SYSTEM_MESSAGE,
    PROTOCOL_VERSION,
    THREE_LEVEL_PROTOCOL_VERSION,
    THREE_LEVEL_SYSTEM_MESSAGE,
)
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.judging.judge import JudgeOutcome, ask_judge
from bedside_bench.judging.passes import combine_passes
from bedside_bench.judging.reply import judge_user_message, parse_decisions
from bedside_bench.judging.three_level import (
    LEVELS,
    MATCH_VALUE,
    ItemJudgement,
    Level,
    apply_overrides,
    match_values,
    parse_three_level,
)

T = TypeVar("T")


class PassDetails(TypedDict, total=False):
    """What a pass of a variant records besides its decisions (three-level: what the judge
    said of each item, and the decisions tightened)."""

    judgements: list[ItemJudgementRecord]
    overrides: list[OverrideRecord]


@dataclass
class PassResult:
    """One judge pass: its decisions (booleans or levels) and what it took to get them."""

    decisions: dict[str, Decision]
    temperature_sent: SentTemperature
    attempts: list[JudgeAttempt]
    details: PassDetails


def _is_level(value: Decision) -> TypeGuard[Level]:
    return value in LEVELS


def _levels(decisions: Mapping[str, Decision]) -> dict[str, Level]:
    """Three-level decisions as levels (a boolean here is a programming error)."""
    levels = {k: v for k, v in decisions.items() if _is_level(v)}
    if len(levels) != len(decisions):
        raise TypeError(f"three-level decisions must be levels, got {dict(decisions)!r}")
    return levels


def _booleans(decisions: Mapping[str, Decision]) -> dict[str, bool]:
    """Reference decisions as booleans (a level here is a programming error)."""
    matched = {k: v for k, v in decisions.items() if isinstance(v, bool)}
    if len(matched) != len(decisions):
        raise TypeError(f"binary decisions must be booleans, got {dict(decisions)!r}")
    return matched


class GradingStrategy(ABC, Generic[T]):
    """A grading variant. `T` is what one parsed judge reply holds."""

    name: Grading
    protocol_version: str
    system_message: str
    # the decision on every item of an answer that states nothing (no text: no judge is asked)
    unmatched: Decision

    def nothing_stated(self, items: Sequence[RubricItem]) -> dict[str, Decision]:
        """The decisions of an answer without text: no item is stated, so none is matched."""
        return {item.item_id: self.unmatched for item in items}

    @abstractmethod
    def parse(self, raw: str, answer: str, ids: Sequence[str]) -> T:
        """The judge's reply, strictly parsed (raises `JudgeReplyError` to ask again)."""

    @abstractmethod
    def to_pass(self, outcome: JudgeOutcome[T], items: Sequence[RubricItem]) -> PassResult:
        """One pass's decisions and the details it records."""

    @abstractmethod
    def combine(self, passes: Sequence[Mapping[str, Decision]]) -> dict[str, Decision]:
        """One decision per item from every pass's decisions."""

    @abstractmethod
    def matches(
        self, decisions: Mapping[str, Decision], items: Sequence[RubricItem]
    ) -> dict[str, bool] | dict[str, float]:
        """The match value of every item, as the case score reads it."""

    def score_details(
        self, results: Sequence[PassResult], matches: Mapping[str, float]
    ) -> dict[str, Any]:
        """What this variant adds to the score metadata (after the common keys), as
        `ScoreMetadata.logged()` gives it."""
        return {}

    async def ask(
        self,
        judge: Model,
        prompt: str,
        answer: str,
        items: Sequence[RubricItem],
        retries: int,
        scope: Mapping[str, str] | None = None,
    ) -> JudgeOutcome[T]:
        ids = [item.item_id for item in items]
        return await ask_judge(
            judge,
            self.system_message,
            judge_user_message(prompt, answer, items),
            lambda raw: self.parse(raw, answer, ids),
            retries,
            scope=scope,
        )


class BinaryGrading(GradingStrategy[dict[str, bool]]):
    """The reference protocol: a matched boolean per item, strict majority over passes."""

    name: Grading = "binary"
    protocol_version = PROTOCOL_VERSION
    system_message = JUDGE_SYSTEM_MESSAGE
    unmatched: Decision = False

    def parse(self, raw: str, answer: str, ids: Sequence[str]) -> dict[str, bool]:
        return parse_decisions(raw, ids)

    def to_pass(
        self, outcome: JudgeOutcome[dict[str, bool]], items: Sequence[RubricItem]
    ) -> PassResult:
        return PassResult(dict(outcome.decisions), outcome.temperature_sent, outcome.attempts, {})

    def combine(self, passes: Sequence[Mapping[str, Decision]]) -> dict[str, Decision]:
        return dict(combine_passes([_booleans(p) for p in passes], rank=int))

    def matches(
        self, decisions: Mapping[str, Decision], items: Sequence[RubricItem]
    ) -> dict[str, bool] | dict[str, float]:
        return _booleans(decisions)


class ThreeLevelGrading(GradingStrategy[list[ItemJudgement]]):
    """MET / PARTIALLY_MET / NOT_MET with verified evidence; the lower median over passes."""

    name: Grading = "three_level"
    protocol_version = THREE_LEVEL_PROTOCOL_VERSION
    system_message = THREE_LEVEL_SYSTEM_MESSAGE
    unmatched: Decision = "NOT_MET"

    def parse(self, raw: str, answer: str, ids: Sequence[str]) -> list[ItemJudgement]:
        return parse_three_level(raw, answer, ids)

    def to_pass(
        self, outcome: JudgeOutcome[list[ItemJudgement]], items: Sequence[RubricItem]
    ) -> PassResult:
        levels, overrides = apply_overrides(outcome.decisions, items)
        details: PassDetails = {
            "judgements": [
                {
                    "item_id": j.item_id,
                    "decision": j.decision,
                    "rationale": j.rationale,
                    "evidence": j.evidence,
                }
                for j in outcome.decisions
            ],
            "overrides": [o.as_dict() for o in overrides],
        }
        return PassResult(dict(levels), outcome.temperature_sent, outcome.attempts, details)

    def combine(self, passes: Sequence[Mapping[str, Decision]]) -> dict[str, Decision]:
        levels = combine_passes([_levels(p) for p in passes], rank=MATCH_VALUE.__getitem__)
        return dict(levels)

    def matches(
        self, decisions: Mapping[str, Decision], items: Sequence[RubricItem]
    ) -> dict[str, bool] | dict[str, float]:
        return match_values(_levels(decisions), items)

    def score_details(
        self, results: Sequence[PassResult], matches: Mapping[str, float]
    ) -> dict[str, Any]:
        if not results:  # an answer without text: no judge was asked (`nothing_stated`)
            return ScoreMetadata(match_values=dict(matches)).logged()
        # one pass: its lists as they are; several: one list per pass
        judgements = [r.details.get("judgements", []) for r in results]
        overrides = [r.details.get("overrides", []) for r in results]
        if len(results) == 1:
            return ScoreMetadata(
                judgements=judgements[0], overrides=overrides[0], match_values=dict(matches)
            ).logged()
        return ScoreMetadata(
            judgements=judgements, overrides=overrides, match_values=dict(matches)
        ).logged()


BINARY = BinaryGrading()
STRATEGIES: dict[str, GradingStrategy[Any]] = {s.name: s for s in (BINARY, ThreeLevelGrading())}


def grading_strategy(name: str) -> GradingStrategy[Any]:
    try:
        return STRATEGIES[name]
    except KeyError:
        raise ValueError(f"grading must be one of {', '.join(GRADINGS)}, got {name!r}") from None
