"""One model call at a requested temperature (`calls/model_calls.py`): the temperature recorded is
the one the provider's request carried, and a provider that refuses the parameter is asked again
without it (a scripted in-process model stands in for the provider)."""

from __future__ import annotations

import asyncio

import anthropic
import httpx2
import openai
import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser

from bedside_bench.calls.model_calls import generate_with_temperature, is_temperature_refusal
from tests.scripted_model import ProviderError, scripted_model

MESSAGES: list[ChatMessage] = [ChatMessageUser(content="What dose?")]
REQUEST_ECHO = '\nRequest:\n{\n  "model": "m",\n  "temperature": 0.0\n}\n\n'


def openai_error(status: int, message: str, param: str | None, code: str | None) -> Exception:
    """The OpenAI SDK's error for an HTTP error body `{"error": {...}}` (the SDK keeps the
    inner object as `body`)."""
    response = httpx2.Response(status, request=httpx2.Request("POST", "http://x/v1/responses"))
    body = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    cls = openai.BadRequestError if status == 400 else openai.APIStatusError
    return cls(f"Error code: {status} - {body}", response=response, body=body)


def anthropic_error(status: int, message: str, kind: str = "invalid_request_error") -> Exception:
    response = httpx2.Response(status, request=httpx2.Request("POST", "http://x/v1/messages"))
    body = {"type": "error", "error": {"type": kind, "message": message}}
    cls = anthropic.BadRequestError if status == 400 else anthropic.APIStatusError
    return cls(f"Error code: {status} - {body}", response=response, body=body)


class ModelGenerateError(RuntimeError):
    """Stands for Inspect's (private) ModelGenerateError: a text with the request in it and a
    status code."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


def as_inspect_raises(error: Exception) -> Exception:
    """What `Model.generate` raises for a provider error: an error whose text embeds the
    request (which names the temperature), raised from the SDK's error."""
    try:
        raise ModelGenerateError(REQUEST_ECHO + repr(error), status_code=400) from error
    except ModelGenerateError as wrapped:
        return wrapped


OPENAI_REFUSAL = openai_error(
    400,
    "Unsupported value: 'temperature' does not support 0.0 with this model. "
    "Only the default (1) value is supported.",
    "temperature",
    "unsupported_value",
)
OPENAI_UNRELATED = openai_error(
    400,
    "Invalid 'max_output_tokens': integer below minimum value.",
    "max_output_tokens",
    "integer_below_min_value",
)


def test_the_temperature_sent_is_read_back_from_the_request() -> None:
    model, script = scripted_model("sent", ["10 mg"])
    result = asyncio.run(generate_with_temperature(model, MESSAGES, 0.7))
    assert result.output.completion == "10 mg"
    assert (result.temperature_sent, result.temperature_refused) == (0.7, False)
    assert [c.temperature for c in script.calls] == [0.7]
    assert result.cache_entry is None  # caching is off


def test_a_refused_temperature_is_asked_again_without_it_and_recorded_as_none() -> None:
    model, script = scripted_model("refused", [OPENAI_REFUSAL, "10 mg"])
    result = asyncio.run(generate_with_temperature(model, MESSAGES, 0.0))
    assert result.output.completion == "10 mg"
    assert (result.temperature_sent, result.temperature_refused) == (None, True)
    assert [c.temperature for c in script.calls] == [0.0, None]
    assert [c.messages[0].text for c in script.calls] == ["What dose?", "What dose?"]


@pytest.mark.parametrize(
    "error",
    [
        OPENAI_UNRELATED,
        openai_error(500, "temperature sensor", "temperature", "unsupported_value"),
        ProviderError(400, "Unsupported parameter: 'temperature' is not supported"),
    ],
    ids=["other-400", "500", "text-only"],
)
def test_any_other_error_is_raised_not_retried(error: Exception) -> None:
    model, script = scripted_model(f"error-{id(error)}", [error, "unused"])
    with pytest.raises(Exception) as raised:
        asyncio.run(generate_with_temperature(model, MESSAGES, 0.0))
    assert error in (raised.value, raised.value.__cause__)
    assert len(script.calls) == 1


def test_what_counts_as_a_temperature_refusal() -> None:
    refusals = [
        OPENAI_REFUSAL,
        openai_error(
            400, "Unsupported parameter: 'temperature'", "temperature", "unsupported_parameter"
        ),
        anthropic_error(400, "temperature: temperature is not supported with the model m."),
        anthropic_error(400, "`temperature` is deprecated for this model."),
    ]
    for error in refusals:
        assert is_temperature_refusal(error), error
        assert is_temperature_refusal(as_inspect_raises(error)), error
    not_refusals = [
        OPENAI_UNRELATED,
        # the request echo names the temperature; the provider's error does not
        as_inspect_raises(OPENAI_UNRELATED),
        openai_error(400, "temperature: must be <= 2", "temperature", "invalid_value"),
        openai_error(400, "Unsupported parameter: 'temperature'", None, None),
        openai_error(429, "temperature", "temperature", "unsupported_parameter"),
        anthropic_error(400, "max_tokens: must be at least 1"),
        anthropic_error(400, "temperature_bias is not a field"),
        anthropic_error(400, "temperature: not supported", kind="api_error"),
        anthropic_error(500, "temperature: not supported"),
        ProviderError(400, "TEMPERATURE must be 1"),  # no provider error body: not decided
        ValueError("temperature"),
        ModelGenerateError(REQUEST_ECHO, status_code=400),
    ]
    for error in not_refusals:
        assert not is_temperature_refusal(error), error
