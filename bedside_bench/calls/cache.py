"""Inspect's cache (`--cache`) for the calls of a case: what keys an entry, and what an entry
keeps beside the reply.

Inspect keys an entry on model, messages, generate config, epoch and the policy's scopes, and
on a base URL only when one is given explicitly. Every call here adds the endpoint its client
sends to and a scope naming its place in the case (the answer; judge pass p, attempt a), so a
re-ask or a second judge pass is never answered from an earlier call's entry, and another
endpoint is never answered from this one's. Without `--cache`, answers and judge replies are
still kept for a retry of their run (`call_policy`, `kept_calls`). See docs/cache.md.

A cache that cannot hold a reply (its folder a file, read-only, a full disk) never costs an
answer: the call is made uncached, or its reply is not kept, with one warning naming the path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from inspect_ai.event import ModelEvent
from inspect_ai.model import CachePolicy, Model, ModelOutput, cache_path

from bedside_bench.calls.kept_calls import case_key, drop_entry, not_kept, run_key
from bedside_bench.calls.running_tasks import running_task
from bedside_bench.core.contracts import NOT_RECORDED, SentTemperature
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
    if not cache or not calls_can_be_kept() or not cache_usable():
        return None
    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    scopes = {**policy.scopes, ENDPOINT_SCOPE: endpoint_digest(model), **scope}
    return policy.model_copy(update={"scopes": scopes})


def cache_usable() -> bool:
    """Whether Inspect's cache folder is there or can be made: Inspect's own cache look-up
    raises before the call otherwise (its folder a file, its parent read-only), and every
    case would fail. Not usable: the call goes uncached, with one warning."""
    try:
        cache_path()
    except OSError as ex:
        not_kept(ex.filename or "Inspect's cache folder", ex, "cache")
        return False
    return True


def entry_of_call(
    model: Model, policy: CachePolicy, event: ModelEvent, stored: bool = True
) -> CacheEntry | None:
    """The entry of the call behind `event`, by Inspect's own key from what the event
    recorded; None if there is none (then nothing in the cache is touched). A reply Inspect
    could not store (read-only, a full disk: Inspect says nothing) is warned about, and what
    a failed write left of it is removed; not when `stored` is False (the call raised, and
    may have ended before Inspect stored its reply)."""
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
    if entry is None:
        return None
    if _fetch(entry) is None:
        if stored and event.cache == "write" and _storable(event.output):
            not_stored(entry)
        return None
    return entry


def _storable(output: ModelOutput) -> bool:
    """Whether Inspect stores this reply at all (never one stopped by a content filter)."""
    return not any(choice.stop_reason == "content_filter" for choice in output.choices)


def not_stored(entry: CacheEntry) -> None:
    """A reply the cache could not hold: one warning, and no torn entry left behind."""
    try:
        where: Path | str = cache_path(entry.model)
    except (OSError, ValueError):
        where = f"Inspect's cache folder of {entry.model}"
    not_kept(where, "a reply could not be stored there", "cache")
    drop_entry(entry.model, entry.key)


def _fetch(entry: CacheEntry) -> ModelOutput | None:
    # Inspect finds the entry's folder outside its own error handling (a folder made a file
    # during the run raises): no entry then
    try:
        return cache_fetch(entry)
    except (OSError, ValueError):
        return None


def _store(entry: CacheEntry, output: ModelOutput) -> bool:
    try:
        return cache_store(entry, output)
    except (OSError, ValueError):
        return False


def remember_temperature(entry: CacheEntry, sent: SentTemperature) -> bool:
    """Keep the temperature sent with a fresh reply's entry, for a later hit to report. False
    if the entry could not be written again (then it is gone: a hit would report no
    temperature, and a torn write would be no entry)."""
    cached = _fetch(entry)
    if cached is None:
        return False
    cached.metadata = {**(cached.metadata or {}), TEMPERATURE_SENT_KEY: sent}
    if not _store(entry, cached):
        not_stored(entry)
        return False
    return True


def cached_temperature(output: ModelOutput) -> SentTemperature:
    """What `remember_temperature` kept; an entry that kept nothing (or nothing readable) is
    `NOT_RECORDED`, never "not sent"."""
    metadata = output.metadata or {}
    if TEMPERATURE_SENT_KEY not in metadata:
        return NOT_RECORDED
    value = metadata[TEMPERATURE_SENT_KEY]
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return NOT_RECORDED


def forget(entry: CacheEntry) -> None:
    """Drop an entry, so the same call asked again reaches the provider."""
    drop_entry(entry.model, entry.key)


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
    if task_id is None or case is None or not calls_can_be_kept() or not cache_usable():
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
