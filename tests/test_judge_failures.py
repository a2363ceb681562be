"""A judge failure as its case's error says it, read back and counted per judge (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bedside_bench.judging.failures import (
    UNNAMED_JUDGE,
    JudgeFailure,
    JudgeFailureCount,
    count_judge_failures,
    judge_failed_message,
    judge_failure_sentence,
    not_asked_again_message,
    parse_judge_failure,
)

judges = st.from_regex(r"[a-z]{1,8}/[a-z0-9.\-]{1,16}", fullmatch=True)


@given(judge=judges, attempts=st.integers(1, 50), reasons=st.text(max_size=200))
def test_the_message_reads_back_whatever_the_reasons_say(
    judge: str, attempts: int, reasons: str
) -> None:
    message = judge_failed_message(judge, attempts, reasons)
    assert parse_judge_failure(message) == JudgeFailure(judge, attempts)
    # as Inspect stores a sample's error: the exception's name in front
    assert parse_judge_failure(f"JudgeFailedError({message!r})") == JudgeFailure(judge, attempts)


def test_other_errors_and_older_logs() -> None:
    assert parse_judge_failure(None) is None
    assert parse_judge_failure("") is None
    assert parse_judge_failure("RateLimitError: 429 too many requests") is None
    older = "the judge gave no valid reply in 3 attempts (attempt 1: not JSON)"
    assert parse_judge_failure(older) == JudgeFailure(UNNAMED_JUDGE, 3)


def test_counted_per_judge_with_calls_only_when_every_case_says() -> None:
    a, b = "openai/gpt-4.1", "anthropic/claude-haiku-4-5"
    counts = count_judge_failures(
        [
            (JudgeFailure(a, 3), 9),
            (JudgeFailure(b, 2), None),
            (JudgeFailure(a, 3), 6),
            (JudgeFailure(b, 3), 3),
        ]
    )
    assert counts == [
        JudgeFailureCount(judge=b, cases=2, asks=3, calls=None),
        JudgeFailureCount(judge=a, cases=2, asks=3, calls=15),
    ]
    assert count_judge_failures([]) == []


def test_the_sentence_names_the_judge_how_often_and_the_cheap_way_on() -> None:
    one = JudgeFailureCount(judge="openai/gpt-4.1", cases=1, asks=3, calls=9)
    assert judge_failure_sentence(one, "logs/sweep") == (
        "the judge openai/gpt-4.1 gave no valid reply for 1 case (asked 3 times per try, 9 "
        "judge calls in all); the answers are stored, so judge them with another judge at no "
        "answer cost: `bedside-bench rejudge --failed-only --judge OTHER_JUDGE logs/sweep`"
    )
    two = JudgeFailureCount(judge="openai/gpt-4.1", cases=2, asks=1)
    assert judge_failure_sentence(two).startswith(
        "the judge openai/gpt-4.1 gave no valid reply for 2 cases (asked 1 time per try); "
    )


def test_a_retry_that_did_not_ask_again_reads_back_with_no_calls() -> None:
    message = not_asked_again_message("openai/gpt-4.1", 3)
    assert message == (
        "the judge openai/gpt-4.1 gave no valid reply in 3 attempts earlier in this run, so it "
        "was not asked again"
    )
    failure = parse_judge_failure(message)
    assert failure == JudgeFailure("openai/gpt-4.1", 3, asked=False) and failure.calls == 0
    asked = parse_judge_failure(judge_failed_message("openai/gpt-4.1", 3, "attempt 1: x"))
    assert asked is not None and asked.asked and asked.calls == 3
