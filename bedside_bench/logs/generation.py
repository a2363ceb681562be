"""The answer model's generation settings a run was given (pure functions).

Inspect records two generate configs in a log: the answer model's own
(`eval.model_generate_config`: `--model-config`, a model spec's `config`) and the eval's
(`plan.config`: `--max-tokens`, `--seed`, `--reasoning-effort`, ... on the command line or
`eval(..., max_tokens=...)`). The answer model generates with the first merged with the second,
the second winning (`Model._resolve_config`), and the solver's own per-call temperature on
top: a `--temperature` given to Inspect never decides the answer's temperature (the protocol's
1 is asked for; a provider that refuses it is asked again without any), so it is not part of
the identity; the temperature the provider really received is (`answer_temperature`). The
judge, bound to a model role, inherits none of these but the operational ones.

Every setting that can change an answer is part of a run's identity: runs that differ in any
are never pooled and compared only with `--force`. The operational settings below change how
the calls are made (retries, time-outs, concurrency, caching, batching, headers), never what a
model answers, and are left out; any other setting, including one a later Inspect adds, counts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import JsonValue

OPERATIONAL: frozenset[str] = frozenset(
    {
        "max_retries",
        "timeout",
        "attempt_timeout",
        "stream_idle_timeout",
        "max_connections",
        "adaptive_connections",
        "cache",
        "cache_prompt",
        "batch",
        "extra_headers",
        "max_tool_output",
        "internal_tools",
        "parallel_tool_calls",
        "reasoning_summary",
        "reasoning_history",
        "fail_on_refusal",
        # overridden by the solver's per-call temperature (see above)
        "temperature",
    }
)
DEFAULTS_TEXT = "provider defaults"


def answer_settings(
    model_config: Mapping[str, JsonValue], eval_config: Mapping[str, JsonValue]
) -> dict[str, JsonValue]:
    """The answer-changing settings, from the model's config and the eval's (which wins),
    sorted by name; a setting left unset (None) is not a setting."""
    merged = {**model_config, **{k: v for k, v in eval_config.items() if v is not None}}
    return {
        name: merged[name]
        for name in sorted(merged)
        if name not in OPERATIONAL and merged[name] is not None
    }


def settings_text(settings: Mapping[str, JsonValue]) -> str:
    """One canonical line (`max_tokens=300, seed=7`), equal exactly when the settings are;
    "provider defaults" when there are none."""
    if not settings:
        return DEFAULTS_TEXT
    return ", ".join(
        f"{name}={json.dumps(settings[name], sort_keys=True, separators=(',', ':'))}"
        for name in sorted(settings)
    )
