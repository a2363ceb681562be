"""One model call with a requested temperature, recording what the provider really received.

Inspect drops `temperature` for some model families (every Anthropic model, OpenAI reasoning
models), and a provider may refuse it with HTTP 400. The protocol records the temperature that
was actually used, so we read it back from the request that Inspect logged for this call.

With Inspect's cache on (`--cache`), every call is keyed also on the endpoint it goes to and
on a `call` scope naming its place in the sample (the answer; judge pass p, attempt a), so a
re-ask or a second judge pass is never answered from the entry of an earlier call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    cache_path,
)
from inspect_ai.model._cache import CacheEntry, cache_fetch, cache_store
from inspect_ai.model._generate_config import active_generate_config

ENDPOINT_SCOPE = "bedside_bench_endpoint"
# kept on a cached output: a reply from the cache has no request to read the temperature from
TEMPERATURE_SENT_KEY = "bedside_bench_temperature_sent"


@dataclass(frozen=True)
class CallResult:
    output: ModelOutput
    temperature_sent: float | None
    temperature_refused: bool
    cache_entry: CacheEntry | None = None  # the cache entry that holds this reply, if any


def forget_cached(result: CallResult) -> None:
    """Drop the cache entry of a reply, so the same call asked again reaches the provider.

    For judge replies that never became valid: `inspect eval-retry` keeps the run's cache
    policy, and would otherwise replay the same invalid replies and fail the case again.
    """
    entry = result.cache_entry
    if entry is not None:
        (cache_path(entry.model) / entry.key).unlink(missing_ok=True)


def is_temperature_refusal(ex: BaseException) -> bool:
    """An HTTP 400 from the provider that names the temperature parameter."""
    status = getattr(ex, "status_code", None) or getattr(ex, "status", None)
    return status == 400 and "temperature" in str(ex).lower()


def endpoint_of(model: Model) -> str | None:
    """The URL the model's client sends to, without user, password, query or fragment.

    Inspect's own cache key holds only a base URL given explicitly, not one from
    OPENAI_BASE_URL / ANTHROPIC_BASE_URL, so the client's is read here.
    """
    client = getattr(model.api, "client", None)
    url = getattr(client, "base_url", None) or model.api.base_url
    if not url:
        return None
    parts = urlsplit(str(url))
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def endpoint_digest(model: Model) -> str:
    """A digest of `endpoint_of`: the cache key tells endpoints apart without holding one."""
    endpoint = endpoint_of(model) or "provider default"
    return hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def scoped_cache(model: Model, scope: Mapping[str, str]) -> CachePolicy | None:
    """The cache policy this call would use (from `--cache` or the model's config), with the
    endpoint and `scope` added to its scopes; None when caching is off."""
    active = active_generate_config().cache
    cache = active if active is not None else model.config.cache
    if not cache:
        return None
    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    scopes = {**policy.scopes, ENDPOINT_SCOPE: endpoint_digest(model), **scope}
    return policy.model_copy(update={"scopes": scopes})


def _last_model_event() -> ModelEvent | None:
    # calls within a sample are sequential, so the newest model event is this call's
    event = transcript().history.find_last(lambda e: isinstance(e, ModelEvent))
    return event if isinstance(event, ModelEvent) else None


def _sent_temperature(event: ModelEvent | None) -> float | None:
    if event is None or event.call is None:
        return None  # no provider request was made (e.g. mockllm): nothing was sent
    value = event.call.request.get("temperature")
    return float(value) if isinstance(value, int | float) else None


def _entry_of_call(model: Model, policy: CachePolicy, event: ModelEvent) -> CacheEntry | None:
    """The cache entry of the call behind `event`, by Inspect's own key from what the event
    recorded; None if no such entry exists (nothing is then changed in the cache)."""
    entry = CacheEntry(
        base_url=model.api.base_url,
        config=event.config,
        input=event.input,
        model=str(model),
        policy=policy,
        tool_choice=event.tool_choice,
        tools=event.tools,
    )
    return entry if cache_fetch(entry) is not None else None


def _temperature_of_call(
    model: Model, policy: CachePolicy | None, output: ModelOutput
) -> tuple[float | None, CacheEntry | None]:
    """The temperature sent for this call, and its cache entry when caching is on.

    A fresh reply's entry is given the temperature sent, since a later cache hit has no
    request to read it from.
    """
    event = _last_model_event()
    entry = None
    if policy is not None and event is not None and event.cache is not None:
        entry = _entry_of_call(model, policy, event)
    if event is not None and event.cache == "read":
        value = (output.metadata or {}).get(TEMPERATURE_SENT_KEY)
        return (float(value) if isinstance(value, int | float) else None), entry
    sent = _sent_temperature(event)
    if entry is not None:
        cached = cache_fetch(entry)
        if cached is not None:
            cached.metadata = {**(cached.metadata or {}), TEMPERATURE_SENT_KEY: sent}
            cache_store(entry, cached)
    return sent, entry


async def generate_with_temperature(
    model: Model,
    messages: list[ChatMessage],
    temperature: float,
    scope: Mapping[str, str] | None = None,
) -> CallResult:
    """Generate at `temperature`; if the provider refuses the parameter, ask again without it.

    `scope` names the call within its sample for the cache (see the module docstring).
    """
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
        return CallResult(output, temperature_sent=None, temperature_refused=True)
    sent, entry = _temperature_of_call(model, policy, output)
    return CallResult(output, sent, temperature_refused=False, cache_entry=entry)
