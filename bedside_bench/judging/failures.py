"""A judge that never gave a valid reply: the one sentence its case's error says in the log,
read back, counted per judge, and the advice the sweep and the report give (pure).

Asking the same judge again and again rarely helps (a judge that wraps its JSON in prose does
so every time), and the answer is already stored, so the cheap way on is to judge the failed
cases with another judge: `bedside-bench rejudge --failed-only --judge OTHER_JUDGE LOGS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# "the judge openai/gpt-4.1 gave no valid reply in 3 attempts (attempt 1: ...; ...)";
# logs written before the judge was named say "the judge gave no valid reply in 3 attempts";
# a retry in the same run that did not ask again adds EARLIER
FAILED_PATTERN = re.compile(r"the judge (?:(\S+) )?gave no valid reply in (\d+) attempts")
EARLIER = "earlier in this run, so it was not asked again"
UNNAMED_JUDGE = "(judge not named in the log)"
OTHER_JUDGE = "OTHER_JUDGE"


def judge_failed_message(judge: str, attempts: int, reasons: str) -> str:
    """The error a case ends in when its judge gave no valid reply (`FAILED_PATTERN` reads it)."""
    return f"the judge {judge} gave no valid reply in {attempts} attempts ({reasons})"


def not_asked_again_message(judge: str, attempts: int) -> str:
    """The error of a retry, in the same run, of a case its judge already failed: the judge
    is not asked again (its re-asks were spent), and no call is made."""
    return f"the judge {judge} gave no valid reply in {attempts} attempts {EARLIER}"


@dataclass(frozen=True)
class JudgeFailure:
    """One case's judge failure: which judge, asked how many times in its try, and whether
    that try asked at all (False: a retry in the same run that only repeated the failure)."""

    judge: str
    asks: int
    asked: bool = True

    @property
    def calls(self) -> int:
        return self.asks if self.asked else 0


def parse_judge_failure(error: str | None) -> JudgeFailure | None:
    """The judge failure an error message reports; None for any other error."""
    if not error:
        return None
    found = FAILED_PATTERN.search(error)
    if found is None:
        return None
    return JudgeFailure(
        judge=found.group(1) or UNNAMED_JUDGE, asks=int(found.group(2)), asked=EARLIER not in error
    )


@dataclass(frozen=True)
class JudgeFailureCount:
    """The cases one judge failed: how many, asked how often per try, and judge calls in all
    (every try of every case, where the log keeps the earlier tries; else None)."""

    judge: str
    cases: int
    asks: int
    calls: int | None = None


def count_judge_failures(
    failures: Iterable[tuple[JudgeFailure, int | None]],
) -> list[JudgeFailureCount]:
    """Per judge (in name order): (failure, judge calls the case cost or None) summed."""
    by_judge: dict[str, list[tuple[JudgeFailure, int | None]]] = {}
    for failure, calls in failures:
        by_judge.setdefault(failure.judge, []).append((failure, calls))
    counts = []
    for judge in sorted(by_judge):
        found = by_judge[judge]
        known = [c for _, c in found if c is not None]
        counts.append(
            JudgeFailureCount(
                judge=judge,
                cases=len(found),
                asks=max(f.asks for f, _ in found),
                calls=sum(known) if len(known) == len(found) else None,
            )
        )
    return counts


def judge_failure_sentence(count: JudgeFailureCount, logs: str = "LOG_DIR") -> str:
    """Which judge failed, how often, and the cheap way on (no answer is bought again)."""
    cases = f"{count.cases} case" + ("" if count.cases == 1 else "s")
    asked = f"{count.asks} time" + ("" if count.asks == 1 else "s")
    calls = f", {count.calls} judge calls in all" if count.calls is not None else ""
    return (
        f"the judge {count.judge} gave no valid reply for {cases} "
        f"(asked {asked} per try{calls}); the answers are stored, so judge them "
        f"with another judge at no answer cost: "
        f"`bedside-bench rejudge --failed-only --judge {OTHER_JUDGE} {logs}`"
    )


def judge_failure_notes(errors: Iterable[str | None], logs: str = "LOG_DIR") -> list[str]:
    """One `judge_failure_sentence` per judge among the failed cases' errors."""
    found = [(f, None) for f in map(parse_judge_failure, errors) if f is not None]
    return [judge_failure_sentence(count, logs) for count in count_judge_failures(found)]
