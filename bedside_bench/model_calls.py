"""One model call with a requested temperature, recording what the provider really received.

Inspect drops `temperature` for some model families (every Anthropic model, OpenAI reasoning
models), and a provider may refuse it with HTTP 400. The protocol records the temperature that
was actually used, so we read it back from the request that Inspect logged for this call.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput


@dataclass(frozen=True)
class CallResult:
    output: ModelOutput
    temperature_sent: float | None
    temperature_refused: bool


def is_temperature_refusal(ex: BaseException) -> bool:
    """An HTTP 400 from the provider that names the temperature parameter."""
    status = getattr(ex, "status_code", None) or getattr(ex, "status", None)
    return status == 400 and "temperature" in str(ex).lower()


def _temperature_in_last_request() -> float | None:
    # calls within a sample are sequential, so the newest model event is this call's
    event = transcript().history.find_last(lambda e: isinstance(e, ModelEvent))
    if not isinstance(event, ModelEvent) or event.call is None:
        return None  # no provider request was made (e.g. mockllm): nothing was sent
    value = event.call.request.get("temperature")
    return float(value) if isinstance(value, int | float) else None


async def generate_with_temperature(
    model: Model, messages: list[ChatMessage], temperature: float
) -> CallResult:
    """Generate at `temperature`; if the provider refuses the parameter, ask again without it."""
    try:
        output = await model.generate(messages, config=GenerateConfig(temperature=temperature))
    except Exception as ex:
        if not is_temperature_refusal(ex):
            raise
        output = await model.generate(messages)
        return CallResult(output, temperature_sent=None, temperature_refused=True)
    return CallResult(output, _temperature_in_last_request(), temperature_refused=False)
