"""What physician review works on: answered cases and each judge's decision on their items.

Plain records, decoupled from Inspect's classes; `review/logs.py` fills them from logs. An
answer is identified the way a reviewer's label names it: answer model, case and epoch; the
answer's SHA-256 travels with it, so decisions on another answer to the same case (another run
of the same model) are never taken for decisions on the reviewed one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

# (answer model, case id, epoch)
AnswerKey = tuple[str, str, int]
# (answer model, case id, epoch, item id)
ItemKey = tuple[str, str, int, str]


def answer_digest(answer: str) -> str:
    return hashlib.sha256(answer.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class ReviewItem:
    item_id: str
    text: str
    points: int


@dataclass(frozen=True)
class AnsweredCase:
    """One answer to one case, with its rubric: what a reviewer reads."""

    answer_model: str
    benchmark: str
    case_id: str
    epoch: int
    prompt: str
    answer: str
    items: tuple[ReviewItem, ...]

    @property
    def key(self) -> AnswerKey:
        return (self.answer_model, self.case_id, self.epoch)

    @property
    def answer_sha256(self) -> str:
        return answer_digest(self.answer)


@dataclass
class ReviewSource:
    """Everything the logs say that review needs: the answered cases and, per answered item,
    each judge's decision (True / False; None for a three-level PARTIALLY_MET) and whether its
    repeated passes disagreed."""

    cases: dict[AnswerKey, AnsweredCase] = field(default_factory=dict)
    # (item key) -> {judge: decision}
    decisions: dict[ItemKey, dict[str, bool | None]] = field(default_factory=dict)
    # items some judge's repeated passes did not agree on
    pass_disagreements: set[ItemKey] = field(default_factory=set)
    judges: set[str] = field(default_factory=set)
    # (judge, log) where a judge's decision differs from the same judge's in an earlier log
    conflicts: set[tuple[str, str]] = field(default_factory=set)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (log, reason)
