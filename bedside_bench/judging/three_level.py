"""Three-level grading, a non-reference variant (protocol `bedside-bench-three-level-v0`).

The judge says MET / PARTIALLY_MET / NOT_MET per item with a rationale and a verbatim quote of
the answer as evidence. Quotes are verified, and a rationale that contradicts its decision is
tightened deterministically. Pure functions: the judge call itself lives in `judging/judge.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bedside_bench.core.contracts import OverrideRecord, RubricItem
from bedside_bench.judging.reply import (
    JudgeReplyError,
    check_item_ids,
    decision_entries,
    load_reply_object,
)

Level = Literal["MET", "PARTIALLY_MET", "NOT_MET"]
LEVELS: tuple[Level, ...] = ("MET", "PARTIALLY_MET", "NOT_MET")

MATCH_VALUE: dict[Level, float] = {"MET": 1.0, "PARTIALLY_MET": 0.5, "NOT_MET": 0.0}

# the guide's override rules, tighten only: failure language first, then deficiency language
FAILURE_PHRASES = ("fails to", "contradicts", "dangerous")
DEFICIENCY_PHRASES = ("partially", "somewhat", "could have", "missing")


@dataclass(frozen=True)
class ItemJudgement:
    item_id: str
    decision: Level
    rationale: str
    evidence: str


@dataclass(frozen=True)
class Override:
    item_id: str
    before: Level
    after: Level
    phrase: str

    def as_dict(self) -> OverrideRecord:
        return {
            "item_id": self.item_id,
            "from": self.before,
            "to": self.after,
            "phrase": self.phrase,
        }


def normalise_whitespace(text: str) -> str:
    return " ".join(text.split())


def parse_three_level(text: str, answer: str, expected_ids: Sequence[str]) -> list[ItemJudgement]:
    """Strictly parse a reply and verify every evidence quote against the answer."""
    entries = decision_entries(
        load_reply_object(text), {"item_id", "decision", "rationale", "evidence"}
    )
    haystack = normalise_whitespace(answer)
    judgements = []
    for position, entry in enumerate(entries):
        item_id = entry["item_id"]
        decision, rationale, evidence = entry["decision"], entry["rationale"], entry["evidence"]
        if decision not in LEVELS:
            raise JudgeReplyError(
                f"decision {position} ({item_id}): decision must be one of "
                f"{', '.join(LEVELS)}, got {decision!r}"
            )
        if not isinstance(rationale, str) or not isinstance(evidence, str):
            raise JudgeReplyError(
                f"decision {position} ({item_id}): rationale and evidence must be strings"
            )
        quote = normalise_whitespace(evidence)
        if not quote and decision != "NOT_MET":
            raise JudgeReplyError(
                f"decision {position} ({item_id}): {decision} needs a "
                "verbatim evidence quote from the answer"
            )
        if quote and quote not in haystack:
            raise JudgeReplyError(
                f"decision {position} ({item_id}): the evidence quote does "
                f"not occur in the answer: {evidence[:120]!r}"
            )
        judgements.append(ItemJudgement(item_id, decision, rationale, evidence))
    check_item_ids([j.item_id for j in judgements], expected_ids)
    return judgements


def _find_phrase(rationale: str, phrases: Sequence[str]) -> str | None:
    lowered = rationale.lower()
    for phrase in phrases:
        if re.search(rf"\b{re.escape(phrase)}\b", lowered):
            return phrase
    return None


def apply_overrides(
    judgements: Sequence[ItemJudgement], items: Sequence[RubricItem]
) -> tuple[dict[str, Level], list[Override]]:
    """Tighten decisions whose rationale contradicts them; never loosen.

    Applied to positive-point items only: on a harmful-action item a MET is the penalty, so
    moving it down would loosen the grading.
    """
    points = {item.item_id: item.points for item in items}
    final: dict[str, Level] = {}
    overrides: list[Override] = []
    for j in judgements:
        level = j.decision
        if points[j.item_id] > 0 and level != "NOT_MET":
            failure = _find_phrase(j.rationale, FAILURE_PHRASES)
            deficiency = _find_phrase(j.rationale, DEFICIENCY_PHRASES)
            if failure is not None:
                overrides.append(Override(j.item_id, level, "NOT_MET", failure))
                level = "NOT_MET"
            elif level == "MET" and deficiency is not None:
                overrides.append(Override(j.item_id, level, "PARTIALLY_MET", deficiency))
                level = "PARTIALLY_MET"
        final[j.item_id] = level
    return final, overrides


def match_values(levels: dict[str, Level], items: Sequence[RubricItem]) -> dict[str, float]:
    """MET 1, PARTIALLY_MET 0.5, NOT_MET 0; a partial endorsement of harm is scored as harm."""
    values = {}
    for item in items:
        level = levels[item.item_id]
        if item.points < 0 and level == "PARTIALLY_MET":
            values[item.item_id] = 1.0
        else:
            values[item.item_id] = MATCH_VALUE[level]
    return values
