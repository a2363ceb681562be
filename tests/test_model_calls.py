"""One model call at a requested temperature (`model_calls.py`): the temperature recorded is the
one the provider's request carried, and a provider that refuses the parameter is asked again
without it (a scripted in-process model stands in for the provider)."""

from __future__ import annotations

import asyncio

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser

from bedside_bench.model_calls import generate_with_temperature, is_temperature_refusal
from tests.scripted_model import ProviderError, scripted_model

MESSAGES: list[ChatMessage] = [ChatMessageUser(content="What dose?")]
REFUSAL = ProviderError(400, "Unsupported parameter: 'temperature' is not supported")


def test_the_temperature_sent_is_read_back_from_the_request() -> None:
    model, script = scripted_model("sent", ["10 mg"])
    result = asyncio.run(generate_with_temperature(model, MESSAGES, 0.7))
    assert result.output.completion == "10 mg"
    assert (result.temperature_sent, result.temperature_refused) == (0.7, False)
    assert [c.temperature for c in script.calls] == [0.7]
    assert result.cache_entry is None  # caching is off


def test_a_refused_temperature_is_asked_again_without_it_and_recorded_as_none() -> None:
    model, script = scripted_model("refused", [REFUSAL, "10 mg"])
    result = asyncio.run(generate_with_temperature(model, MESSAGES, 0.0))
    assert result.output.completion == "10 mg"
    assert (result.temperature_sent, result.temperature_refused) == (None, True)
    assert [c.temperature for c in script.calls] == [0.0, None]
    assert [c.messages[0].text for c in script.calls] == ["What dose?", "What dose?"]


@pytest.mark.parametrize(
    "error",
    [ProviderError(400, "max_tokens is too large"), ProviderError(500, "temperature sensor")],
    ids=["other-400", "500"],
)
def test_any_other_error_is_raised_not_retried(error: ProviderError) -> None:
    model, script = scripted_model(f"error-{error.status_code}", [error, "unused"])
    with pytest.raises(ProviderError) as raised:
        asyncio.run(generate_with_temperature(model, MESSAGES, 0.0))
    assert raised.value is error
    assert len(script.calls) == 1


def test_what_counts_as_a_temperature_refusal() -> None:
    assert is_temperature_refusal(REFUSAL)
    assert is_temperature_refusal(ProviderError(400, "TEMPERATURE must be 1"))
    assert not is_temperature_refusal(ProviderError(400, "bad request"))
    assert not is_temperature_refusal(ProviderError(429, "temperature"))
    assert not is_temperature_refusal(ValueError("temperature"))

    class WithStatus(Exception):
        status = 400  # some clients name it `status`

    assert is_temperature_refusal(WithStatus("temperature is not supported"))
