"""The condition an answer arrived in, and whether the judge is asked about it (pure functions).

Who left the answer empty decides. What the harness never asked fails the case, to be redone:
a limit hit before or during the answer call, or an output Inspect made up from a provider
error. An answer the model returned without text (its budget spent on reasoning, a content
filter or a refusal with nothing said, tool calls only) is the model's answer under the run's
settings: it states nothing, so, as the protocol scores such an answer, it matches no rubric
item, and no judge is paid to say so (`AnswerState.empty`). An answer with text is judged as
the protocol says, whatever its condition. The condition is recorded beside every score so
that the summary can count the answers that were cut short, declined or empty:

- `complete`: the model stopped on its own (Inspect's stop reason `stop`);
- `truncated`: it stopped at the token limit or the context length (`max_tokens`,
  `model_length`; Anthropic's `model_context_window_exceeded`, which Inspect 0.3.285 reports
  as `unknown`, is read from the provider's reply in `calls/answer_facts.py`);
- `refused`: the provider says the model refused: a refusal part of the message (OpenAI Chat
  Completions `message.refusal`, a Responses `refusal` output part; Inspect marks the text
  `refusal=True`) or a stop detail of type `refusal` (Anthropic's `stop_reason: refusal` with
  `stop_details`, which Inspect maps to `content_filter`);
- `filtered`: any other `content_filter` stop (OpenAI's content filter, or Anthropic's
  `stop_reason: refusal` without details: Inspect cannot tell it from a filter);
- `unknown`: any other stop reason (`unknown`, `tool_calls`): not known to be whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from bedside_bench.core.safe_text import is_blank

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
    """An answer that came, and the condition it came in; `empty`: it has no text, so it
    states nothing and matches no rubric item (scored so without a judge call)."""

    stop_reason: str
    condition: AnswerCondition
    empty: bool = False

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
    """Why the harness has no answer of the model's (a sentence starting "no answer: "), or
    None: a limit hit before or during the answer, or a provider error. An answer without text
    is an answer (`answer_state`)."""
    if facts.limit is not None:
        when = "during" if facts.answer_requested else "before"
        detail = f" ({facts.limit_message})" if facts.limit_message else ""
        return f"{NO_ANSWER_PREFIX}{facts.limit} limit hit {when} the answer{detail}"
    if facts.error is not None:
        return (
            f"{NO_ANSWER_PREFIX}the provider answered with an error "
            f"(stop reason {facts.stop_reason}): {facts.error}"
        )
    return None


def condition_of(stop_reason: str, refusal: bool) -> AnswerCondition:
    """The condition of an answer, with text or without."""
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
    """The answer's stop reason, condition and whether it is empty; raises NoAnswerError when
    the harness has no answer of the model's."""
    reason = no_answer_reason(facts)
    if reason is not None:
        raise NoAnswerError(reason)
    condition = condition_of(facts.stop_reason, facts.refusal)
    return AnswerState(facts.stop_reason, condition, empty=is_blank(facts.text))


def count_conditions(conditions: Sequence[str | None]) -> dict[str, int]:
    """How many answers came in each counted condition (`COUNTED_CONDITIONS`), plus
    `not_recorded` for scores written before conditions were recorded."""
    counts: dict[str, int] = {c: sum(1 for v in conditions if v == c) for c in COUNTED_CONDITIONS}
    counts["not_recorded"] = sum(1 for v in conditions if v not in ANSWER_CONDITIONS)
    return counts
