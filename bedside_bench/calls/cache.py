"""Inspect's cache (`--cache`) for the calls of a case: what keys an entry, and what an entry
keeps beside the reply.

Inspect keys an entry on model, messages, generate config, epoch and the policy's scopes, and
on a base URL only when one is given explicitly. Every call here adds the endpoint its client
sends to and a scope naming its place in the case (the answer; judge pass p, attempt a), so a
re-ask or a second judge pass is never answered from an earlier call's entry, and another
endpoint is never answered from this one's. Without `--cache`, answers and judge replies are
still kept for a retry of their run (`call_policy`, `kept_calls`). See docs/cache.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from inspect_ai.event import ModelEvent
from inspect_ai.model import CachePolicy, Model, ModelOutput, cache_path

from bedside_bench.calls.kept_calls import case_key, run_key
from bedside_bench.calls.running_tasks import running_task
from bedside_bench.core.inspect_private import (
    active_sample_key,
    cache_entry,
    cache_fetch,
    cache_store,
    calls_can_be_kept,
)

if TYPE_CHECKING:
    from bedside_bench.core.inspect_private import CacheEntry

ENDPOINT_SCOPE = "bedside_bench_endpoint"
# a paid call kept for its run: the task id (the same for every retry of a run) and the case
RUN_SCOPE = "bedside_bench_run"
CASE_SCOPE = "bedside_bench_case"
# outside a running sample (rejudge) Inspect keys no epoch: the case's epoch is a scope
EPOCH_SCOPE = "bedside_bench_epoch"
# how long a paid call whose case never reached a log is kept for a retry; `inspect cache
# prune` removes it after that
ANSWER_KEPT_FOR = "1W"
# kept on a cached output: a reply from the cache has no request to read the temperature from
TEMPERATURE_SENT_KEY = "bedside_bench_temperature_sent"


def endpoint_of(model: Model) -> str | None:
    """The URL the model's client sends to, without user, password, query or fragment."""
    client = getattr(model.api, "client", None)
    url = getattr(client, "base_url", None) or model.api.base_url
    if not url:
        return None
    parts = urlsplit(str(url))
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def endpoint_digest(model: Model) -> str:
    """A digest of `endpoint_of`: the key tells endpoints apart without holding a URL."""
    endpoint = endpoint_of(model) or "provider default"
    return hashlib.sha256(endpoint.encode()).hexdigest()[:16]


def scoped_cache(model: Model, scope: Mapping[str, str]) -> CachePolicy | None:
    """The cache policy this call would use (from `--cache` or the model's config), with the
    endpoint and `scope` added to its scopes; None when caching is off, or when this Inspect
    cannot keep what an entry must hold (`inspect_private.calls_can_be_kept`: a reply read
    back without the temperature it was sent with would record a wrong one)."""
    task = running_task()
    active = task.cache if task is not None else None
    cache = active if active is not None else model.config.cache
    if not cache or not calls_can_be_kept():
        return None
    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    scopes = {**policy.scopes, ENDPOINT_SCOPE: endpoint_digest(model), **scope}
    return policy.model_copy(update={"scopes": scopes})


def entry_of_call(model: Model, policy: CachePolicy, event: ModelEvent) -> CacheEntry | None:
    """The entry of the call behind `event`, by Inspect's own key from what the event
    recorded; None if there is none (then nothing in the cache is touched)."""
    if event.cache is None:
        return None
    entry = cache_entry(
        base_url=model.api.base_url,
        config=event.config,
        input=event.input,
        model=str(model),
        policy=policy,
        tool_choice=event.tool_choice,
        tools=event.tools,
    )
    return entry if entry is not None and cache_fetch(entry) is not None else None


def remember_temperature(entry: CacheEntry, sent: float | None) -> None:
    """Keep the temperature sent with a fresh reply's entry, for a later hit to report."""
    cached = cache_fetch(entry)
    if cached is not None:
        cached.metadata = {**(cached.metadata or {}), TEMPERATURE_SENT_KEY: sent}
        cache_store(entry, cached)


def cached_temperature(output: ModelOutput) -> float | None:
    value = (output.metadata or {}).get(TEMPERATURE_SENT_KEY)
    return float(value) if isinstance(value, int | float) else None


def forget(entry: CacheEntry) -> None:
    """Drop an entry, so the same call asked again reaches the provider."""
    (cache_path(entry.model) / entry.key).unlink(missing_ok=True)


def call_policy(
    model: Model, scope: Mapping[str, str], case: str | None = None
) -> tuple[CachePolicy | None, bool]:
    """The cache policy of a paid call (an answer, a judge attempt), and whether it only keeps
    the reply for a retry of its run (`kept_calls` releases it once the case is in the log).

    With `--cache`, that policy (with `scope`); otherwise a policy keyed on the run's task id
    and the case (`case`, else the running sample's id), so only a retry of the same run
    reads the reply back. Outside a running sample (no task id), none."""
    chosen = scoped_cache(model, scope)
    if chosen is not None:
        return chosen, False
    task_id = run_key()
    sample = case_key()
    case = case if case is not None else (sample[0] if sample is not None else None)
    if task_id is None or case is None or not calls_can_be_kept():
        return None, False
    scopes = {
        ENDPOINT_SCOPE: endpoint_digest(model),
        **scope,
        RUN_SCOPE: task_id,
        CASE_SCOPE: case,
    }
    if active_sample_key() is None and sample is not None:
        scopes[EPOCH_SCOPE] = str(sample[1])
    return CachePolicy(expiry=ANSWER_KEPT_FOR, per_epoch=True, scopes=scopes), True


def answer_cache(model: Model, case: str) -> tuple[CachePolicy | None, bool]:
    """The cache policy of a case's answer call (`call_policy`)."""
    return call_policy(model, {"call": "answer"}, case)
