"""An answer's facts read from Inspect's task state and transcript (`answer_condition.AnswerFacts`).

A limit (`--message-limit`, `--token-limit`, `--time-limit`, ...) ends the solver with
Inspect's `LimitExceededError`, and Inspect then scores the sample all the same, with whatever
output the state holds. The limit leaves a `SampleLimitEvent` in the transcript (kept in the
log, so `inspect score` and `bedside-bench rejudge` see it too): that, not the output, says the
answer never came.

Anthropic's `stop_reason: model_context_window_exceeded` (the answer was cut where the context
window ends) is reported by Inspect 0.3.285 as the stop reason `unknown`; the provider's own
reply, which Inspect keeps in the answer's `ModelEvent`, says what it was, and the answer is
then `model_length`, as Inspect says of the same stop on Bedrock. Inspect keeps that reply
for the first 5 calls per model of a sample, and none with `--no-log-model-api`: where it is
not kept the answer's condition stays `unknown` (counted and reported, never `complete`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.event import ModelEvent, SampleLimitEvent
from inspect_ai.model import ContentText, ModelOutput

from bedside_bench.core.answer_condition import AnswerFacts
from bedside_bench.core.contracts import GRADER_ROLE


def _refused(output: ModelOutput) -> bool:
    if not output.choices:
        return False
    choice = output.choices[0]
    if choice.stop_details is not None and choice.stop_details.type == "refusal":
        return True
    content = choice.message.content
    return not isinstance(content, str) and any(
        isinstance(part, ContentText) and part.refusal for part in content
    )


# provider stop reasons Inspect reports as `unknown` that say the answer was cut short
_CUT_AT_CONTEXT = frozenset({"model_context_window_exceeded"})


def _provider_stop(event: ModelEvent | None) -> object:
    """The stop reason in the provider's own reply to the answer call (Anthropic Messages'
    `stop_reason`), or None when the event keeps no reply (a cached answer)."""
    if event is None or event.call is None or not isinstance(event.call.response, dict):
        return None
    return event.call.response.get("stop_reason")


def answer_facts(output: ModelOutput, events: Sequence[Any]) -> AnswerFacts:
    """The facts of the answer in `output`, given the sample's transcript `events` so far."""
    limit: SampleLimitEvent | None = None
    answer_event: ModelEvent | None = None
    for event in events:
        if isinstance(event, SampleLimitEvent):
            limit = event
            break
        if isinstance(event, ModelEvent) and event.role != GRADER_ROLE:
            answer_event = event
    stop_reason = output.choices[0].stop_reason if output.choices else "unknown"
    if stop_reason == "unknown" and _provider_stop(answer_event) in _CUT_AT_CONTEXT:
        stop_reason = "model_length"
    return AnswerFacts(
        stop_reason=stop_reason,
        text=output.completion,
        refusal=_refused(output),
        error=output.error,
        limit=limit.type if limit is not None else None,
        limit_message=limit.message if limit is not None else None,
        answer_requested=answer_event is not None,
    )
