"""Three-level grading, a non-reference variant (protocol `bedside-bench-three-level-v0`).

The judge says MET / PARTIALLY_MET / NOT_MET per item with a rationale and a verbatim quote of
the answer as evidence. Quotes are verified, and a rationale that contradicts its decision is
tightened deterministically. Pure functions: the judge call itself lives in `judge.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bedside_bench.judge_reply import (
    JudgeReplyError,
    check_item_ids,
    decision_entries,
    load_reply_object,
)
from bedside_bench.scoring import RubricItem

Level = Literal["MET", "PARTIALLY_MET", "NOT_MET"]
LEVELS: tuple[Level, ...] = ("MET", "PARTIALLY_MET", "NOT_MET")

THREE_LEVEL_SYSTEM_MESSAGE = """\
You are grading a clinical answer against independent rubric items.

For every rubric item, choose exactly one decision: MET / PARTIALLY_MET / NOT_MET.
- MET: the ANSWER fully and unambiguously satisfies the item; every part of it is addressed.
- PARTIALLY_MET: the item is substantively addressed with a minor gap that creates no patient
  safety risk.
- NOT_MET: the item is not addressed, is contradicted, or a safety-critical element is missing.
  Never use PARTIALLY_MET for a safety-critical gap.

Rules:
1. Judge only information present in the ANSWER. Do not infer omitted content.
2. Accept clinically equivalent wording; exact phrase matching is not required.
3. An item joined by "and" or commas needs every part for MET.
4. For a harmful, inappropriate, or negative-point item, MET means the ANSWER endorses,
recommends, or performs that action, and PARTIALLY_MET means it partly endorses it. Merely
mentioning the action to reject or warn against it is NOT_MET.
5. Judge each item independently.
6. Return exactly one decision for every supplied item_id and no other item_ids.
7. "evidence" is a verbatim quote copied from the ANSWER that supports the decision. It may be
empty only for NOT_MET.
8. "rationale" is one or two sentences that agree with the decision.

Return JSON only:
{"decisions":[{"item_id":"<id>","decision":"MET","rationale":"...","evidence":"<quote>"}]}"""

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

    def as_dict(self) -> dict[str, str]:
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
