"""The condition an answer arrived in, and whether it may be judged (pure functions).

An answer is judged only when one came: a limit hit before or during the answer call, an
output Inspect made up from a provider error, and an answer with no text (empty, tool calls or
reasoning only) are "no answer", and the case fails without a judge call. An answer that came
is judged as the protocol says, whatever its condition, and the condition is recorded beside
its score so that the summary can count the answers that were cut short or declined:

- `complete`: the model stopped on its own (Inspect's stop reason `stop`);
- `truncated`: it stopped at the token limit or the context length (`max_tokens`,
  `model_length`);
- `refused`: the provider says the model refused: a refusal part of the message (OpenAI Chat
  Completions `message.refusal`, a Responses `refusal` output part; Inspect marks the text
  `refusal=True`) or a stop detail of type `refusal` (Anthropic's `stop_reason: refusal` with
  `stop_details`, which Inspect maps to `content_filter`);
- `filtered`: any other `content_filter` stop (OpenAI's content filter, or Anthropic's
  `stop_reason: refusal` without details: Inspect cannot tell it from a filter);
- `unknown`: any other stop reason (`unknown`, `tool_calls` with text): not known to be whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

AnswerCondition = Literal["complete", "truncated", "filtered", "refused", "unknown"]
ANSWER_CONDITIONS: tuple[AnswerCondition, ...] = get_args(AnswerCondition)
# the conditions a summary counts and a report warns about: an answer judged as it came
COUNTED_CONDITIONS: tuple[AnswerCondition, ...] = ("truncated", "filtered", "refused", "unknown")

_TRUNCATING = frozenset({"max_tokens", "model_length"})
NO_ANSWER_PREFIX = "no answer: "


@dataclass(frozen=True)
class AnswerFacts:
    """What the log says about one answer, in plain values (no Inspect types)."""

    stop_reason: str  # Inspect's StopReason of the answer ("unknown" when there is none)
    text: str  # the answer's text (what the judge would see)
    refusal: bool = False  # a refusal part, or a stop detail of type "refusal"
    error: str | None = None  # Inspect made the output up from a provider error
    limit: str | None = None  # the limit that ended the sample ("message", "token", ...)
    limit_message: str | None = None
    answer_requested: bool = False  # an answer call was made before the limit was hit


@dataclass(frozen=True)
class AnswerState:
    """An answer that came, and the condition it came in."""

    stop_reason: str
    condition: AnswerCondition

    @property
    def complete(self) -> bool:
        return self.condition == "complete"


class NoAnswerError(RuntimeError):
    """The case has no answer to judge; its message starts with "no answer: ".

    `message` is what Inspect records as the sample's error (else it records the repr)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def no_answer_reason(facts: AnswerFacts) -> str | None:
    """Why there is no answer to judge (a sentence starting "no answer: "), or None."""
    if facts.limit is not None:
        when = "during" if facts.answer_requested else "before"
        detail = f" ({facts.limit_message})" if facts.limit_message else ""
        return f"{NO_ANSWER_PREFIX}{facts.limit} limit hit {when} the answer{detail}"
    if facts.error is not None:
        return (
            f"{NO_ANSWER_PREFIX}the provider answered with an error "
            f"(stop reason {facts.stop_reason}): {facts.error}"
        )
    if not facts.text.strip():
        return f"{NO_ANSWER_PREFIX}the answer has no text (stop reason {facts.stop_reason})"
    return None


def condition_of(stop_reason: str, refusal: bool) -> AnswerCondition:
    """The condition of an answer that has text."""
    if refusal:
        return "refused"
    if stop_reason == "stop":
        return "complete"
    if stop_reason in _TRUNCATING:
        return "truncated"
    if stop_reason == "content_filter":
        return "filtered"
    return "unknown"


def answer_state(facts: AnswerFacts) -> AnswerState:
    """The answer's stop reason and condition; raises NoAnswerError when there is none."""
    reason = no_answer_reason(facts)
    if reason is not None:
        raise NoAnswerError(reason)
    return AnswerState(facts.stop_reason, condition_of(facts.stop_reason, facts.refusal))


def count_conditions(conditions: Sequence[str | None]) -> dict[str, int]:
    """How many answers came in each counted condition (`COUNTED_CONDITIONS`), plus
    `not_recorded` for scores written before conditions were recorded."""
    counts: dict[str, int] = {c: sum(1 for v in conditions if v == c) for c in COUNTED_CONDITIONS}
    counts["not_recorded"] = sum(1 for v in conditions if v not in ANSWER_CONDITIONS)
    return counts
