"""The judge call (protocol section 2): strict decisions, asked again when a reply is invalid.

A judge that never gives a valid reply ends the sample in an error, never in a score of 0, so
the case counts as failed and `inspect eval-retry` redoes it. Within one run (one process: the
task retries of an eval set, `--retry-on-error`) that judge is not asked about that case
again once its re-asks are spent: the case fails at once, and says so.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Model

from bedside_bench.calls.model_calls import (
    CallResult,
    forget_cached,
    generate_with_temperature,
    reply_text,
)
from bedside_bench.core.contracts import JudgeAttempt, SentTemperature
from bedside_bench.core.protocol import (
    JUDGE_TEMPERATURE,
)
from bedside_bench.core.safe_text import encodable, printable
from bedside_bench.judging.failures import judge_failed_message, not_asked_again_message
from bedside_bench.judging.reply import JudgeReplyError

if TYPE_CHECKING:
    from pydantic import JsonValue

T = TypeVar("T")
RAW_REPLY_LIMIT = 20_000
# replies longer than this are parsed in a worker thread, so other cases keep going meanwhile
PARSE_IN_THREAD_CHARS = 50_000
# the message a failed case ends with: every attempt's reason (each at most about 1,000)
MAX_FAILURE_CHARS = 8_000


class JudgeFailedError(RuntimeError):
    """Every attempt gave an invalid reply; carries each attempt's reason.

    The reasons quote the replies; each is one printable line already (`JudgeReplyError`),
    and the whole message is made so again, since it ends the case as its error.
    """

    def __init__(self, attempts: list[JudgeAttempt], judge: str) -> None:
        self.attempts = attempts
        self.judge = judge
        reasons = "; ".join(f"attempt {a['attempt']}: {a['error']}" for a in attempts)
        # the sweep and the report read the judge and the count back from this text
        message = judge_failed_message(judge, len(attempts), reasons)
        super().__init__(printable(message, MAX_FAILURE_CHARS))


class JudgeNotAskedAgainError(JudgeFailedError):
    """The judge already failed this case in this run; it was not asked again."""

    def __init__(self, judge: str, attempts: int) -> None:
        self.attempts: list[JudgeAttempt] = []
        self.judge = judge
        RuntimeError.__init__(self, not_asked_again_message(judge, attempts))


# (task id, case, epoch, judge) -> attempts, for the judge failures of this process's runs
_failed_in_run: dict[tuple[str, ...], int] = {}


@contextmanager
def judged_once_in_run(
    run_id: str | None, case: str, epoch: int, answer: str, judge: str
) -> Iterator[None]:
    """Judge inside this block unless `judge` already failed this answer of this case in run
    `run_id` (then `JudgeNotAskedAgainError`, no call); remember a failure for the next try.
    Without a run id (outside an eval) every try asks."""
    digest = hashlib.sha256(answer.encode("utf-8", "surrogatepass")).hexdigest()
    key = (run_id or "", case, str(epoch), digest, judge)
    attempts = _failed_in_run.get(key) if run_id else None
    if attempts is not None:
        raise JudgeNotAskedAgainError(judge, attempts)
    try:
        yield
    except JudgeFailedError as failed:
        if run_id and not isinstance(failed, JudgeNotAskedAgainError):
            _failed_in_run[key] = len(failed.attempts)
        raise


@dataclass
class JudgeOutcome(Generic[T]):
    decisions: T
    temperature_sent: SentTemperature
    attempts: list[JudgeAttempt] = field(default_factory=list)


async def ask_judge(
    model: Model,
    system_message: str,
    user_message: str,
    parse: Callable[[str], T],
    retries: int,
    temperature: float = JUDGE_TEMPERATURE,
    scope: Mapping[str, str] | None = None,
) -> JudgeOutcome[T]:
    """Ask, parse strictly, and ask again (fresh call, same messages) up to `retries` times.

    Every attempt has its own cache scope, so with `--cache` a re-ask reaches the provider
    instead of replaying the invalid reply; `scope` tells apart the calls of one sample.
    """
    if retries < 0:
        raise ValueError("judge_retries must be >= 0")
    messages: list[ChatMessage] = [
        ChatMessageSystem(content=system_message),
        ChatMessageUser(content=user_message),
    ]
    attempts: list[JudgeAttempt] = []
    invalid: list[CallResult] = []
    for attempt in range(1, retries + 2):
        call_scope = {**(scope or {}), "call": "judge", "attempt": str(attempt)}
        result = await generate_with_temperature(model, list(messages), temperature, call_scope)
        raw = reply_text(result.output)
        # the raw reply is kept with every attempt, cut to a bound and encodable (a lone
        # surrogate would stop the log from being written); raw_chars is its full size
        kept = encodable(raw[:RAW_REPLY_LIMIT])
        try:
            if len(raw) > PARSE_IN_THREAD_CHARS:
                decisions = await asyncio.to_thread(parse, raw)
            else:
                decisions = parse(raw)
        except JudgeReplyError as ex:
            record: JudgeAttempt = {
                "attempt": attempt,
                "raw": kept,
                "raw_chars": len(raw),
                "error": str(ex),
            }
            attempts.append(record)
            invalid.append(result)
            # a copy: the record stays the score's; an attempt record is JSON
            transcript().info(cast("JsonValue", dict(record)), source="judge: invalid reply")
            continue
        attempts.append({"attempt": attempt, "raw": kept, "raw_chars": len(raw), "error": None})
        return JudgeOutcome(decisions, result.temperature_sent, attempts)
    # a retry of this case must ask the judge again, not replay these replies from the cache
    for result in invalid:
        forget_cached(result)
    raise JudgeFailedError(attempts, str(model))
