"""One model call with a requested temperature, recording what the provider really received.

Inspect drops `temperature` for some model families (every Anthropic model, OpenAI reasoning
models), and a provider may refuse it with HTTP 400. The protocol records the temperature that
was actually used, so we read it back from the request that Inspect logged for this call (or,
for a reply from Inspect's cache, from what its entry kept; see `call_cache`). Where Inspect
kept no record of the request (`inspect score` re-scores with none, `--no-log-model-api`, a
call past a sample's first few per model), the temperature is `NOT_RECORDED`: a guess from the
config would be wrong for the models Inspect drops it for.

A refusal is read from the provider's error body (status, parameter, code, type, message),
never from the error's text: Inspect's error text embeds the request, which always names the
temperature, so any 400 would look like a refusal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model, ModelOutput

from bedside_bench.calls.cache import (
    cached_temperature,
    call_policy,
    entry_of_call,
    forget,
    remember_temperature,
)
from bedside_bench.calls.in_flight import paid_call
from bedside_bench.calls.kept_calls import keep
from bedside_bench.core.contracts import NOT_RECORDED, SentTemperature

if TYPE_CHECKING:
    from bedside_bench.core.inspect_private import CacheEntry


@dataclass(frozen=True)
class CallResult:
    output: ModelOutput
    temperature_sent: SentTemperature
    temperature_refused: bool
    cache_entry: CacheEntry | None = None  # the cache entry that holds this reply, if any


def forget_cached(result: CallResult) -> None:
    """Drop a reply from the cache, so the same call asked again reaches the provider.

    For judge replies that never became valid: `inspect eval-retry` keeps the run's cache
    policy, and would otherwise replay the same invalid replies and fail the case again.
    """
    if result.cache_entry is not None:
        forget(result.cache_entry)


# OpenAI: the error body's `param` is the parameter and `code` says why
OPENAI_REFUSAL_CODES = frozenset({"unsupported_parameter", "unsupported_value"})
# Anthropic: no parameter field; its messages name the field first ("temperature: ...") or
# quote it ("`temperature` is deprecated for this model")
_ANTHROPIC_NAMES_TEMPERATURE = re.compile(r"(?<![\w.])`?temperature`?(?![\w.])", re.IGNORECASE)


def _causes(ex: BaseException) -> Iterator[BaseException]:
    """`ex` and what it was raised from (Inspect wraps the SDK's error in a
    `ModelGenerateError` raised from it)."""
    seen: set[int] = set()
    current: BaseException | None = ex
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _refuses_temperature(error: BaseException) -> bool:
    # lazy: only a failed call needs the SDKs' error classes, and every `inspect eval` of a
    # task imports this module (the SDKs take about a second to load)
    import anthropic
    import openai

    if isinstance(error, openai.APIStatusError):
        return (
            error.status_code == 400
            and error.param == "temperature"
            and error.code in OPENAI_REFUSAL_CODES
        )
    if isinstance(error, anthropic.APIStatusError):
        message = error.api_message
        return (
            error.status_code == 400
            and error.type == "invalid_request_error"
            and isinstance(message, str)
            and _ANTHROPIC_NAMES_TEMPERATURE.search(message) is not None
        )
    return False


def is_temperature_refusal(ex: BaseException) -> bool:
    """The provider answered HTTP 400 because it does not take the temperature parameter.

    Decided from the provider's error body as its SDK parsed it (OpenAI: `param` is
    "temperature" and `code` is `unsupported_parameter` or `unsupported_value`; Anthropic: an
    `invalid_request_error` whose message names `temperature`). Any other error, a 400 about
    another parameter included, is not a refusal: it is that call's error.
    """
    return any(_refuses_temperature(error) for error in _causes(ex))


def reply_text(output: ModelOutput) -> str:
    """The text of a reply: its text blocks joined in order, as the model produced them.

    A provider may split one text over several blocks (Anthropic's content blocks) at any
    point, even inside a JSON string; Inspect's `completion` puts a line break between blocks,
    which would break such a text. Reasoning and other non-text blocks are not part of it.
    """
    if not output.choices:
        return output.completion
    content = output.choices[0].message.content
    if isinstance(content, str):
        return content
    return "".join(part.text for part in content if part.type == "text")


def _last_model_event() -> ModelEvent | None:
    # for a call that raised: an answer's calls are sequential, and a judge pass's error is
    # read only for whether it was a refusal (`_failed_call_sent_temperature`)
    event = transcript().history.find_last(lambda e: isinstance(e, ModelEvent))
    return event if isinstance(event, ModelEvent) else None


def _event_of(output: ModelOutput) -> ModelEvent | None:
    """The model event of the call that returned `output`, found by its reply's message id.

    A case's judge passes are asked at once, so the newest model event may be another pass's:
    still pending (no request record yet), or one past the calls Inspect keeps a record of.
    Read from there, the passes recorded "not recorded" for a run that logged their requests.
    """
    message_id = output.choices[0].message.id if output.choices else None
    if message_id is None:
        return _last_model_event()
    event = transcript().history.find_last(
        lambda e: (
            isinstance(e, ModelEvent)
            and bool(e.output.choices)
            and e.output.choices[0].message.id == message_id
        )
    )
    return event if isinstance(event, ModelEvent) else _last_model_event()


def _sent_temperature(event: ModelEvent | None) -> SentTemperature:
    if event is None or event.call is None:
        return NOT_RECORDED  # Inspect kept no record of the request (every provider makes one)
    value = event.call.request.get("temperature")
    return float(value) if isinstance(value, int | float) else None


def _failed_call_sent_temperature() -> bool:
    """Whether the request the provider just refused carried a temperature (Inspect drops it
    for some models): a refusal of a temperature that was never sent is no reason to ask
    again without it. True when the request is not known."""
    event = _last_model_event()
    if event is None or event.call is None:
        return True
    return "temperature" in event.call.request


def _result(
    model: Model, policy: CachePolicy | None, output: ModelOutput, refused: bool
) -> CallResult:
    event = _event_of(output)
    entry = entry_of_call(model, policy, event) if policy and event else None
    if event is not None and event.cache == "read":
        sent = cached_temperature(output)
    else:
        sent = _sent_temperature(event)
        if entry is not None and not remember_temperature(entry, sent):
            entry = None  # the cache could not hold it: not kept
    return CallResult(output, sent, temperature_refused=refused, cache_entry=entry)


def _keep_stored(model: Model, policy: CachePolicy) -> None:
    """List a reply Inspect stored before its call raised (a limit checked after the store,
    such as the turn limit), so the case's failure or the run's end releases it: never a
    kept reply no index lists."""
    event = _last_model_event()
    if event is not None and event.error is None:
        keep(entry_of_call(model, policy, event, stored=False))


async def generate_with_temperature(
    model: Model,
    messages: list[ChatMessage],
    temperature: float,
    scope: Mapping[str, str] | None = None,
    policy: CachePolicy | None = None,
    kept: bool = False,
) -> CallResult:
    """Generate at `temperature`; if the provider refuses the parameter, ask again without it.

    Only a refusal (`is_temperature_refusal`) of a request that carried the temperature is
    asked again; any other error is this call's error and is raised.

    `scope` names the call within its case for Inspect's cache (default: the answer); the
    cache policy is `--cache`'s, else one keeping the reply for a retry of this run
    (`call_cache.call_policy`, released by `kept_calls` once the case is in the log);
    `policy`, if given, is the cache policy instead (kept if `kept`).
    """
    if policy is None:
        policy, kept = call_policy(model, {"call": "answer", **(scope or {})})
    cache: CachePolicy | bool = policy if policy is not None else False
    # held when a first Ctrl-C or SIGTERM came; once sent, given time to come back (in_flight)
    async with paid_call():
        try:
            output = await model.generate(
                messages, config=GenerateConfig(temperature=temperature), cache=cache
            )
        except Exception as ex:
            if not is_temperature_refusal(ex) or not _failed_call_sent_temperature():
                if kept and policy is not None:
                    _keep_stored(model, policy)
                raise
            output = await model.generate(messages, cache=cache)
            result = _result(model, policy, output, refused=True)
        else:
            result = _result(model, policy, output, refused=False)
        if kept:
            keep(result.cache_entry)
    return result
