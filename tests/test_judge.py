"""One judge call with re-asks (`judging/judge.py`), against a scripted in-process model: what is
recorded per attempt, when it asks again, and that a judge that never replies validly is an
error naming every attempt, never a decision."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest

from bedside_bench.core.protocol import JUDGE_TEMPERATURE
from bedside_bench.judging.judge import (
    PARSE_IN_THREAD_CHARS,
    RAW_REPLY_LIMIT,
    JudgeFailedError,
    JudgeNotAskedAgainError,
    JudgeOutcome,
    ask_judge,
    judged_once_in_run,
)
from bedside_bench.judging.reply import parse_decisions
from tests.scripted_model import scripted_model

IDS = ["a", "b"]
VALID = json.dumps(
    {"decisions": [{"item_id": "a", "matched": True}, {"item_id": "b", "matched": False}]}
)
MISSING_B = json.dumps({"decisions": [{"item_id": "a", "matched": True}]})


def parse(raw: str) -> dict[str, bool]:
    return parse_decisions(raw, IDS)


def ask(name: str, replies: list[str | Exception], retries: int, **kwargs: Any) -> Any:
    model, script = scripted_model(name, replies)
    outcome = asyncio.run(ask_judge(model, "SYSTEM", "USER", parse, retries, **kwargs))
    return outcome, script


def test_a_valid_first_reply_is_one_attempt_at_the_protocol_temperature() -> None:
    outcome, script = ask("valid", [VALID], retries=2)
    assert outcome == JudgeOutcome(
        decisions={"a": True, "b": False},
        temperature_sent=JUDGE_TEMPERATURE,
        attempts=[{"attempt": 1, "raw": VALID, "raw_chars": len(VALID), "error": None}],
    )
    (call,) = script.calls
    assert [(m.role, m.text) for m in call.messages] == [("system", "SYSTEM"), ("user", "USER")]
    assert call.temperature == JUDGE_TEMPERATURE == 0.0


def test_an_invalid_reply_is_asked_again_with_the_same_messages() -> None:
    outcome, script = ask("again", ["I think it is fine.", MISSING_B, VALID], retries=2)
    assert outcome.decisions == {"a": True, "b": False}
    assert outcome.attempts == [
        {
            "attempt": 1,
            "raw": "I think it is fine.",
            "raw_chars": 19,
            "error": "not JSON: Expecting value at line 1 column 1",
        },
        {"attempt": 2, "raw": MISSING_B, "raw_chars": len(MISSING_B), "error": "missing item_id b"},
        {"attempt": 3, "raw": VALID, "raw_chars": len(VALID), "error": None},
    ]
    assert len(script.calls) == 3
    assert len({tuple(m.text for m in c.messages) for c in script.calls}) == 1


def test_no_valid_reply_is_an_error_naming_every_attempt_never_a_decision() -> None:
    with pytest.raises(JudgeFailedError) as failed:
        ask("never", ["{}", "[]"], retries=1)
    assert str(failed.value) == (
        "the judge unitscript/never gave no valid reply in 2 attempts (attempt 1: missing "
        "top-level key 'decisions'; attempt 2: the reply must be a JSON object, got list)"
    )
    assert [a["raw"] for a in failed.value.attempts] == ["{}", "[]"]


def test_zero_retries_asks_once_and_negative_retries_are_refused() -> None:
    with pytest.raises(JudgeFailedError) as failed:
        ask("once", ["no", VALID], retries=0)
    assert len(failed.value.attempts) == 1
    with pytest.raises(ValueError, match="judge_retries must be >= 0"):
        ask("negative", [VALID], retries=-1)


def test_the_raw_reply_kept_is_bounded_and_its_full_size_recorded() -> None:
    long_reply = "x" * (RAW_REPLY_LIMIT + 5)
    with pytest.raises(JudgeFailedError) as failed:
        ask("long", [long_reply], retries=0)
    (attempt,) = failed.value.attempts
    assert attempt["raw"] == "x" * RAW_REPLY_LIMIT
    assert attempt["raw_chars"] == RAW_REPLY_LIMIT + 5


def test_a_long_reply_is_parsed_off_the_event_loop_thread() -> None:
    threads: list[str] = []

    def recording_parse(raw: str) -> dict[str, bool]:
        threads.append(threading.current_thread().name)
        return parse(raw.strip())

    padded = VALID + " " * PARSE_IN_THREAD_CHARS
    for name, reply in (("short", VALID), ("padded", padded)):
        model, _ = scripted_model(name, [reply])
        outcome = asyncio.run(ask_judge(model, "S", "U", recording_parse, retries=0))
        assert outcome.decisions == {"a": True, "b": False}
    main = threading.main_thread().name
    assert threads[0] == main and threads[1] != main


def test_a_parser_bug_is_not_taken_for_an_invalid_reply() -> None:
    def broken(raw: str) -> dict[str, bool]:
        raise KeyError("bug")

    model, script = scripted_model("bug", [VALID, VALID])
    with pytest.raises(KeyError):
        asyncio.run(ask_judge(model, "S", "U", broken, retries=1))
    assert len(script.calls) == 1


def test_a_judge_that_failed_a_case_is_not_asked_again_in_the_same_run() -> None:
    entered: list[str] = []

    def judge_once(run_id: str | None, answer: str = "the answer") -> None:
        with judged_once_in_run(run_id, "case-1", 1, answer, "openai/gpt-4.1"):
            entered.append(f"{run_id}:{answer}")
            raise JudgeFailedError([{"attempt": 1, "error": "not JSON"}], "openai/gpt-4.1")

    for run_id, answer in (("run-1", "a"), ("run-1", "a"), ("run-1", "b"), ("run-2", "a")):
        with pytest.raises(JudgeFailedError) as failed:
            judge_once(run_id, answer)
    assert entered == ["run-1:a", "run-1:b", "run-2:a"]  # the second try of run-1:a asked none
    with pytest.raises(JudgeNotAskedAgainError) as refused:
        judge_once("run-1", "a")
    assert str(refused.value) == (
        "the judge openai/gpt-4.1 gave no valid reply in 1 attempts earlier in this run, so it "
        "was not asked again"
    )
    for _ in range(2):  # outside an eval (no run id) every try asks
        with pytest.raises(JudgeFailedError):
            judge_once(None)
    assert entered[-2:] == ["None:the answer", "None:the answer"]
    assert failed.value.judge == "openai/gpt-4.1"
