"""One model call with a requested temperature, recording what the provider really received.

Inspect drops `temperature` for some model families (every Anthropic model, OpenAI reasoning
models), and a provider may refuse it with HTTP 400. The protocol records the temperature that
was actually used, so we read it back from the request that Inspect logged for this call (or,
for a reply from Inspect's cache, from what its entry kept; see `call_cache`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model, ModelOutput

from bedside_bench.call_cache import (
    cached_temperature,
    entry_of_call,
    forget,
    remember_temperature,
    scoped_cache,
)
from bedside_bench.inspect_private import CacheEntry


@dataclass(frozen=True)
class CallResult:
    output: ModelOutput
    temperature_sent: float | None
    temperature_refused: bool
    cache_entry: CacheEntry | None = None  # the cache entry that holds this reply, if any


def forget_cached(result: CallResult) -> None:
    """Drop a reply from the cache, so the same call asked again reaches the provider.

    For judge replies that never became valid: `inspect eval-retry` keeps the run's cache
    policy, and would otherwise replay the same invalid replies and fail the case again.
    """
    if result.cache_entry is not None:
        forget(result.cache_entry)


def is_temperature_refusal(ex: BaseException) -> bool:
    """An HTTP 400 from the provider that names the temperature parameter."""
    status = getattr(ex, "status_code", None) or getattr(ex, "status", None)
    return status == 400 and "temperature" in str(ex).lower()


def _last_model_event() -> ModelEvent | None:
    # calls within a sample are sequential, so the newest model event is this call's
    event = transcript().history.find_last(lambda e: isinstance(e, ModelEvent))
    return event if isinstance(event, ModelEvent) else None


def _sent_temperature(event: ModelEvent | None) -> float | None:
    if event is None or event.call is None:
        return None  # no provider request was made (e.g. mockllm): nothing was sent
    value = event.call.request.get("temperature")
    return float(value) if isinstance(value, int | float) else None


def _result(
    model: Model, policy: CachePolicy | None, output: ModelOutput, refused: bool
) -> CallResult:
    event = _last_model_event()
    entry = entry_of_call(model, policy, event) if policy and event else None
    if event is not None and event.cache == "read":
        sent = cached_temperature(output)
    else:
        sent = _sent_temperature(event)
        if entry is not None:
            remember_temperature(entry, sent)
    return CallResult(output, sent, temperature_refused=refused, cache_entry=entry)


async def generate_with_temperature(
    model: Model,
    messages: list[ChatMessage],
    temperature: float,
    scope: Mapping[str, str] | None = None,
    policy: CachePolicy | None = None,
) -> CallResult:
    """Generate at `temperature`; if the provider refuses the parameter, ask again without it.

    `scope` names the call within its case for Inspect's cache (default: the answer);
    `policy`, if given, is the cache policy instead (`call_cache.answer_cache`).
    """
    if policy is None:
        policy = scoped_cache(model, {"call": "answer", **(scope or {})})
    cache: CachePolicy | bool = policy if policy is not None else False
    try:
        output = await model.generate(
            messages, config=GenerateConfig(temperature=temperature), cache=cache
        )
    except Exception as ex:
        if not is_temperature_refusal(ex):
            raise
        output = await model.generate(messages, cache=cache)
        return _result(model, policy, output, refused=True)
    return _result(model, policy, output, refused=False)
