"""Who left the answer empty decides, on every provider path: every stop reason the doubles
script, with text, without text, and after reasoning (a budget spent on reasoning: no text at
all), through Inspect's real provider clients (OpenAI Chat Completions and Responses,
Anthropic Messages, each streamed and not) against the provider double.

An answer the model returned is the model's answer: its state (`answer_state`) never fails
the case, and it is empty exactly when no text came; its condition is the one its stop says
(Anthropic's `model_context_window_exceeded` a cut answer, not `unknown`). Only what the
harness never got (a limit, a provider error) fails a case: `test_answer_condition.py`.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    ContentReasoning,
    GenerateConfig,
    Model,
    get_model,
)

from bedside_bench.calls.answer_facts import answer_facts
from bedside_bench.core.answer_condition import answer_state
from bedside_bench.doubles import STOPS, Endpoints, ParsedRequest, Reply, Script, provider_doubles
from bedside_bench.doubles.script import Stop

pytestmark = pytest.mark.slow  # a provider double and Inspect's provider clients

Said = Literal["text", "nothing", "reasoning_only", "reasoning_and_text"]
SAID: tuple[Said, ...] = ("text", "nothing", "reasoning_only", "reasoning_and_text")
# (model, model args, api): every provider path, streamed and not
ROUTES: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("openai/gpt-4.1-mini", {"streaming": False}, "chat"),
    ("openai/gpt-4.1-mini", {"streaming": True}, "chat"),
    ("openai/gpt-5.4-mini", {"streaming": False}, "responses"),
    ("openai/gpt-5.4-mini", {"streaming": True}, "responses"),
    ("anthropic/claude-sonnet-4-6", {"streaming": False}, "anthropic"),
    ("anthropic/claude-sonnet-4-6", {"streaming": True}, "anthropic"),
)
TEXT = "Start apixaban 5 mg twice daily; check renal function."
REASONING = "The patient has atrial fibrillation with a CHA2DS2-VASc of 3; weigh the bleeding."


def directive(stop: Stop, said: Said) -> str:
    return f"case stop={stop} said={said}"


def scripted(req: ParsedRequest) -> Reply:
    """The answer the prompt asks for: `stop=<stop> said=<said>`."""
    fields = dict(part.split("=", 1) for part in req.user.split()[1:])
    stop: Any = fields["stop"]
    said = fields["said"]
    text = TEXT if said in ("text", "reasoning_and_text") else ""
    reasoning = REASONING if said.startswith("reasoning") else None
    return Reply(text, stop, reasoning)


# Inspect's stop reason and the condition of each scripted stop, per API. OpenAI has no stop
# of its own for the end of the context window (the double says "length"); a refusal is a
# refusal part on OpenAI, Anthropic's `stop_reason: refusal` with a refusal stop detail
EXPECTED: dict[str, dict[Stop, tuple[str, str]]] = {
    api: {
        "stop": ("stop", "complete"),
        "max_tokens": ("max_tokens", "truncated"),
        "content_filter": ("content_filter", "filtered"),
        "refusal": ("content_filter" if api == "anthropic" else "stop", "refused"),
        "model_length": ("model_length" if api == "anthropic" else "max_tokens", "truncated"),
    }
    for api in ("chat", "responses", "anthropic")
}


@pytest.fixture(scope="module")
def doubles() -> Iterator[Endpoints]:
    with provider_doubles(script=Script(answer=scripted)) as endpoints:
        yield endpoints


def model(doubles: Endpoints, name: str, args: dict[str, Any]) -> Model:
    return get_model(name, memoize=False, **doubles.model_args(name), **args)


async def answer(m: Model, prompt: str) -> tuple[Any, list[Any]]:
    """The output of one answer call and the events it left in the transcript."""
    first = len(transcript().events)
    messages = [ChatMessageSystem(content="You are a physician."), ChatMessageUser(content=prompt)]
    output = await m.generate(messages, config=GenerateConfig(max_tokens=2000))
    return output, transcript().events[first:]


@settings(
    max_examples=200,  # the 120 combinations are few: Hypothesis tries each once, then stops
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    route=st.sampled_from(ROUTES),
    stop=st.sampled_from(STOPS),
    said=st.sampled_from(SAID),
)
def test_every_answer_the_model_returned_is_its_answer(
    doubles: Endpoints, route: tuple[str, dict[str, Any], str], stop: Stop, said: Said
) -> None:
    name, args, api = route
    # a fresh context, so a transcript of its own: Inspect keeps the provider's reply (the
    # ModelEvent's `call`) for the first 5 calls per model of a transcript only, as it does
    # per sample; a transcript an earlier test left in this thread's context is shared
    fresh = contextvars.Context()
    output, events = fresh.run(
        asyncio.run, answer(model(doubles, name, args), directive(stop, said))
    )
    state = answer_state(answer_facts(output, events))  # never "no answer": it came
    has_text = said in ("text", "reasoning_and_text")
    assert state.empty is (not has_text), (route, stop, said, output.completion)
    expected = EXPECTED[api][stop]
    if (stop, api, args["streaming"], has_text) == ("refusal", "chat", True, False):
        # a streamed Chat refusal is its refusal deltas: with nothing said none comes, and
        # nothing marks the answer as a refusal
        expected = ("stop", "complete")
    assert (state.stop_reason, state.condition) == expected, (route, stop, said)
    assert (output.completion.strip() == TEXT) is has_text
    if said.startswith("reasoning") and api != "chat":  # Chat Completions shows no reasoning
        parts = output.message.content
        assert not isinstance(parts, str)
        assert [p.summary or p.reasoning for p in parts if isinstance(p, ContentReasoning)] == [
            REASONING
        ]
    if said.startswith("reasoning"):
        assert output.usage is not None and (output.usage.reasoning_tokens or 0) > 0
