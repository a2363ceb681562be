"""Every private `inspect_ai._...` name the package uses, in one place, each failing soft.

Checked against inspect-ai 0.3.285; `pyproject.toml` allows any 0.3.x from there. Each name
below is used only because Inspect has no public way to do the same (`PRIVATE` says why, and
what the package does without it). None is imported when this module is: each is looked up
where it is used (`_resolve`), so an Inspect release that moves one leaves the package
importable and running. The feature that name served then degrades the way its entry says,
with one `MovedInspectNameWarning` per feature and process naming it, and never into a wrong
number: where a name serves the keeping of paid calls, their keeping stops (a retry buys the
calls again) rather than a reply being read back without what was recorded with it.
`tests/test_inspect_private.py` removes each name in turn and checks its fallback; with a new
Inspect release it tells which names moved (docs/maintainers.md, "Checking a new Inspect
release").

Past 300 lines: the table of names (`PRIVATE`), each with its reason and its fallback, is
most of it. What once needed a private name and now has a public way is listed in
docs/maintainers.md ("Checking a new Inspect release").
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: nothing here runs, so a moved name cannot break an import
    from inspect_ai._util.error import PrerequisiteError as PrerequisiteError
    from inspect_ai.model import Model, ModelOutput
    from inspect_ai.model._cache import CacheEntry as CacheEntry
    from inspect_ai.util import RegistryInfo

INSPECT_VERSION_CHECKED = "0.3.285"

__all__ = [
    "INSPECT_VERSION_CHECKED",
    "PRIVATE",
    "PRIVATE_ORIGINS",
    "MovedInspectNameWarning",
    "PrerequisiteError",
    "active_eval_id",
    "active_model",
    "active_run_id",
    "active_sample_key",
    "cache_entry",
    "cache_fetch",
    "cache_store",
    "calls_can_be_kept",
    "degraded",
    "known_model_apis",
    "plain_cancellation_tracebacks",
    "registry_add",
    "sample_buffer_dbs",
]


@dataclass(frozen=True)
class PrivateName:
    """One private Inspect name: where it is (as of `INSPECT_VERSION_CHECKED`), the feature
    it serves, why no public API serves it, and what the package does without it."""

    origin: str  # "module:name"
    feature: str
    why: str
    without: str


PLAIN_ERRORS = "one-line input errors"
JUDGE_CHECK = "the judge check before the first answer"
SCORER_SHORT_NAME = "`inspect score` by the scorer name a log records"
KEPT_CALLS = "keeping paid calls for a retry"
CASE_IDENTITY = "the running case's identity"
CRASH_LOGS = "removing the logs killed sweeps left"
PROMPT_STOP = "a prompt stop of the sweep on Ctrl-C"
PROVIDER_NAMES = "the closest provider to a misspelt one"
WITHOUT_KEPT_CALLS = (
    "answers and judge replies are not kept for a retry (a retry buys them again) and --cache "
    "does not apply to them (a rerun buys them again)"
)

# every private Inspect name used here, keyed by name
PRIVATE: dict[str, PrivateName] = {
    entry.origin.rsplit(":", 1)[1]: entry
    for entry in (
        PrivateName(
            "inspect_ai._util.error:PrerequisiteError",
            PLAIN_ERRORS,
            "Inspect prints a PrerequisiteError as one plain message without a traceback; the "
            "dataset, release-source and option errors derive from it, and the sweep turns "
            "eval_set's refusal of a log directory into one line",
            "these errors are still raised, but Inspect prints them with a traceback",
        ),
        PrivateName(
            "inspect_ai.model._model:active_model",
            JUDGE_CHECK,
            "whether a task is being built inside a run (where the grader role is bound): the "
            "public get_model() falls back to INSPECT_EVAL_MODEL and cannot tell",
            "the judge is checked at the first score, after the first answer was bought",
        ),
        PrivateName(
            "inspect_ai._util.registry:registry_add",
            SCORER_SHORT_NAME,
            "Inspect records the scorer as `rubric_judge` but finds package scorers only as "
            "`bedside_bench/rubric_judge`; the public @scorer always adds the package prefix",
            "`inspect score LOG` cannot rebuild the scorer from a log: name it with "
            "`--scorer bedside_bench/rubric_judge`",
        ),
        PrivateName(
            "inspect_ai.model._cache:CacheEntry",
            KEPT_CALLS,
            "a paid call is kept in Inspect's cache under Inspect's own key, so the entry a "
            "call made must be named, read and released (docs/cache.md); Inspect's public "
            "cache API lists, sizes and prunes entries but cannot address one",
            WITHOUT_KEPT_CALLS,
        ),
        PrivateName(
            "inspect_ai.model._cache:cache_fetch",
            KEPT_CALLS,
            "reads the entry of a call, to keep the temperature sent beside it (see CacheEntry)",
            WITHOUT_KEPT_CALLS,
        ),
        PrivateName(
            "inspect_ai.model._cache:cache_store",
            KEPT_CALLS,
            "rewrites the entry of a call with the temperature sent (see CacheEntry)",
            WITHOUT_KEPT_CALLS,
        ),
        PrivateName(
            "inspect_ai.log._samples:sample_active",
            CASE_IDENTITY,
            "a model call inside a sample learns its eval id, run id, case id and epoch "
            "nowhere else: a solver's TaskState does not reach the calls the scorer makes",
            "answers and judge replies are not kept for a retry (a retry buys them again), "
            "--cache does not apply to them, and a judge that failed a case is asked again by "
            "the run's retries",
        ),
        PrivateName(
            "inspect_ai.log._recorders.buffer.database:sample_buffer_dbs",
            CRASH_LOGS,
            "a killed run's sample buffer is named after its writer's pid, the only proof "
            "that nobody writes a `started` log any more; the public recoverable_eval_logs() "
            "calls a log recoverable when any one of its writers is gone",
            "a `started` log a killed sweep left stays in the log directory (eval_set still "
            "resumes it; it shows as running in `inspect view`)",
        ),
        PrivateName(
            "inspect_ai.log._log:format_traceback",
            PROMPT_STOP,
            "Inspect renders the traceback of every cancelled sample with rich, 0.1-0.5 s of "
            "CPU each under load, and has no setting to record it plain; the sweep replaces "
            "the name its log module calls for the sweep's run only",
            "a Ctrl-C or SIGTERM with many cases in flight stops the sweep only once Inspect "
            "has rendered each cancelled case's traceback (30 s and more under load)",
        ),
        PrivateName(
            "inspect_ai._util.registry:registry_find",
            PROVIDER_NAMES,
            "a misspelt provider (`antropic/...`) is refused by get_model only with a "
            "ValueError and a traceback; the model APIs Inspect knows (its own and extension "
            "packages') are listed nowhere public, and the one line names the closest",
            "a misspelt provider is not caught before the run: Inspect refuses it with its "
            "own error and traceback (still before any call)",
        ),
    )
}

PRIVATE_ORIGINS: tuple[str, ...] = tuple(entry.origin for entry in PRIVATE.values())


class MovedInspectNameWarning(UserWarning):
    """The installed Inspect lacks a private name the package uses: a feature degraded."""


_warned: set[str] = set()  # the features already warned about in this process


# said when the suite is first used: a name resolved while the package is imported (a base
# class, the scorer's short name) is looked up in every Inspect eval in the process, since
# Inspect imports every package's entry point to find its hooks; an unrelated eval says
# nothing of ours
_deferred: dict[str, str] = {}


def degraded(feature: str, message: str, *, deferred: bool = False) -> None:
    """Say once per process that `feature` degraded, and how; `deferred`: when the suite is
    first used (`suite_in_use`), not now."""
    if feature in _warned:
        return
    if deferred:
        _deferred.setdefault(feature, message)
        return
    _warned.add(feature)
    warnings.warn(f"bedside-bench: {message}", MovedInspectNameWarning, stacklevel=3)


def suite_in_use() -> None:
    """A task, the scorer or a command of the suite is being used: say what degraded while
    the package was imported."""
    while _deferred:
        feature, message = _deferred.popitem()
        degraded(feature, message)


def _inspect_version() -> str:
    try:
        return version("inspect-ai")
    except Exception:  # pragma: no cover - not installed as a distribution
        return "(unknown version)"


def _resolve(name: str, *, on_import: bool = False) -> Any | None:
    """The private name from where `PRIVATE` says it is; None (and the feature's one warning,
    held until the suite is used when `on_import`) if this Inspect does not have it there."""
    entry = PRIVATE[name]
    module, attribute = entry.origin.split(":")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        degraded(
            entry.feature,
            f"inspect-ai {_inspect_version()} has no {entry.origin.replace(':', '.')} "
            f"({entry.feature}): {entry.without}",
            deferred=on_import,
        )
        return None


# --------------------------------------------------------------------------------------------
# PrerequisiteError: a base class, so it is resolved when this module is imported


class _StandInPrerequisiteError(Exception):
    """Stands in when Inspect moved its PrerequisiteError: never raised by Inspect, so our
    errors and `except` clauses still work (Inspect prints them with a traceback)."""

    def __init__(self, message: Any) -> None:
        self.message = message


def prerequisite_error() -> type[Exception]:
    found = _resolve("PrerequisiteError", on_import=True)
    return found if isinstance(found, type) else _StandInPrerequisiteError


if not TYPE_CHECKING:
    PrerequisiteError = prerequisite_error()


# --------------------------------------------------------------------------------------------
# the run, the task being built, the running sample


def active_model() -> Model | None:
    """The model of the eval being run, None outside a run (or if Inspect moved it)."""
    found = _resolve("active_model")
    return None if found is None else found()


def _active_sample() -> Any | None:
    found = _resolve("sample_active")
    return None if found is None else found()


def active_eval_id() -> str | None:
    """The eval id of the running sample's task; None outside a sample."""
    active = _active_sample()
    return None if active is None else str(active.eval_id)


def active_run_id() -> str | None:
    """The run id of the running sample's eval (kept by an eval set's task retries and
    `--retry-on-error`, new for `eval-retry` and every new run); None outside a sample."""
    active = _active_sample()
    return None if active is None or active.run_id is None else str(active.run_id)


def active_sample_key() -> tuple[str, int] | None:
    """The running sample's id and epoch (what a log names its record by); None outside a
    sample (`inspect score` and `rejudge` score without one)."""
    active = _active_sample()
    if active is None or active.sample.id is None:
        return None
    return str(active.sample.id), int(active.epoch)


# --------------------------------------------------------------------------------------------
# the registry, the display, the sample buffer


def registry_add(o: object, info: RegistryInfo) -> bool:
    """Register `o` under `info`'s name (as the package is imported); False (nothing
    registered) if Inspect moved it."""
    found = _resolve("registry_add", on_import=True)
    if found is None:
        return False
    found(o, info)
    return True


def known_model_apis(api: str) -> list[str] | None:
    """Every model API name Inspect knows, looked up as get_model looks up `api` (an extension
    package's entry points are loaded when `api` is not one of those already registered), so
    a name is refused only where get_model would refuse it; None if Inspect moved its
    registry."""
    found = _resolve("registry_find")
    if found is None:
        return None

    def unqualified(name: str) -> str:  # `inspect_ai/openai` -> `openai`, as get_model names it
        return name.split("/", 1)[-1]

    # as get_model: entry points are loaded only when `api` is not registered already
    found(lambda info: info.type == "modelapi" and unqualified(info.name) == api)
    names: set[str] = set()

    def collect(info: RegistryInfo) -> bool:
        is_api = info.type == "modelapi"
        if is_api:
            names.add(unqualified(info.name))
        return is_api

    found(collect)
    return sorted(names)


def sample_buffer_dbs(location: str) -> list[Path]:
    """The local sample-buffer databases of one log, one per writer process (empty if
    Inspect moved the API: then no writer is proven gone)."""
    found = _resolve("sample_buffer_dbs")
    return [] if found is None else list(found(location))


# --------------------------------------------------------------------------------------------
# Inspect's cache entries (docs/cache.md)


def calls_can_be_kept() -> bool:
    """Whether this Inspect has all three names a kept call needs (else one warning, and
    the callers keep nothing and leave --cache off for our calls)."""
    return all(_resolve(name) is not None for name in ("CacheEntry", "cache_fetch", "cache_store"))


def cache_entry(**fields: Any) -> CacheEntry | None:
    """The entry Inspect's cache keeps a call under, from what the call's event recorded
    (`base_url`, `config`, `input`, `model`, `policy`, `tool_choice`, `tools`); None if
    Inspect moved it."""
    found = _resolve("CacheEntry")
    return None if found is None else found(**fields)


def cache_fetch(entry: CacheEntry) -> ModelOutput | None:
    """The reply the entry holds; None if there is none (or Inspect moved it)."""
    found = _resolve("cache_fetch")
    return None if found is None else found(entry)


def cache_store(entry: CacheEntry, output: ModelOutput) -> bool:
    """Store `output` under the entry; False (nothing stored) if Inspect moved it."""
    found = _resolve("cache_store")
    if found is None:
        return False
    return bool(found(entry=entry, output=output))


# --------------------------------------------------------------------------------------------
# the sweep's stop


@contextlib.contextmanager
def plain_cancellation_tracebacks() -> Iterator[None]:
    """While the block runs, a cancelled sample's traceback is recorded as plain text (both of
    Inspect's fields); every other error keeps Inspect's rendering.

    Used by `bedside-bench sweep`'s command handler only, around its eval set, so it is never
    active inside a plain `inspect eval` (nor `run_sweep` called from Python). Inspect renders
    each cancelled sample's traceback with rich (0.1-0.5 s of CPU each under load; its cache
    never hits, since every cancel scope names itself in the message), so a Ctrl-C with many
    cases in flight was bound by that rendering: `benchmarks/bench_sweep_sigint.py` (4 tries,
    one busy process beside it) stopped in 5.5-8.1 s with this and 29-50 s without it. Without
    the name (`PRIVATE`), Inspect renders them and the stop is slow again.
    """
    rendered = _resolve("format_traceback")
    if rendered is None:
        yield
        return
    module: Any = sys.modules[PRIVATE["format_traceback"].origin.split(":")[0]]

    def format_traceback(exc_type: Any, exc_value: Any, exc_traceback: Any) -> tuple[str, str]:
        if is_cancellation(exc_type):
            text = "".join(traceback.format_exception(exc_type, exc_value, exc_traceback))
            return text, text
        return rendered(exc_type, exc_value, exc_traceback)  # type: ignore[no-any-return]

    module.format_traceback = format_traceback  # where Inspect's eval_error looks it up
    try:
        yield
    finally:
        if getattr(module, "format_traceback", None) is format_traceback:
            module.format_traceback = rendered


def is_cancellation(exc_type: Any) -> bool:
    """asyncio's (and anyio's on asyncio) cancellation, trio's, or Ctrl-C."""
    if not isinstance(exc_type, type):
        return False
    if issubclass(exc_type, asyncio.CancelledError | KeyboardInterrupt):
        return True
    return exc_type.__name__ == "Cancelled" and exc_type.__module__.startswith("trio")
