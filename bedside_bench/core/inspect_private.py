"""Every private `inspect_ai._...` name the package uses, in one place.

Checked against inspect-ai 0.3.285. Inspect has no public API for these; each is used for one
reason. `PRIVATE_ORIGINS` names where each comes from, and `tests/test_inspect_private.py`
imports every one of them from there, so an Inspect release that moves one fails that test
loudly. At run time, the four a run can do without degrade their feature when Inspect moves
them (`PrerequisiteError` becomes a plain error, `.env` is left to Inspect, no crash log is
proven dead, the judge is not checked before the first answer); the others fail where they are
used, and the cache and registry names when this module is imported.

- `PrerequisiteError`: Inspect prints it as a plain message without a traceback; our dataset,
  release-source and judge errors derive from it, and the sweep turns eval_set's refusal of a
  log directory into one plain line.
- `init_dotenv`: the sweep checks credentials before Inspect would load `.env`, so it loads it
  first (Inspect loads it again later; loading twice is harmless).
- `sample_buffer_dbs`, `cleanup_sample_buffer_dbs`: a killed run's sample buffer names its
  writer's pid; the sweep reads it to prove the writer dead before removing a crash log.
- `filesystem`: Inspect's fsspec wrapper, so reads and removals work on any store Inspect
  writes to (local, s3://, ...).
- `active_model`: whether a task is being built inside a run, so the judge is checked before
  any answer is bought.
- `registry_add`: the scorer is registered under the short name logs record, so
  `inspect score LOG` finds it.
- `copy_registry_identity`: rejudge wraps the scorer and the wrapper must keep its registry
  name and options, so the score is keyed and recorded as `rubric_judge`.
- `init_display_type`: `score_async` outside `inspect eval` needs the display set up as the
  `inspect` command would.
- `run_async`: rejudge runs as the `inspect` command does (platform set-up, hooks, the async
  backend chosen by `INSPECT_ASYNC_BACKEND`).
- `plain_cancellation_tracebacks` (patches `inspect_ai.log._log.format_traceback`): Inspect
  records every cancelled sample's traceback rendered by rich (0.1-0.5 s of CPU each, and its
  cache never hits: each cancel scope names itself in the message); a Ctrl-C that cancels the
  80 cases a sweep has in flight spent 30 s and more there under load before it could exit.
  A cancellation's traceback (where the case was waiting) is recorded as plain text instead.
- `CacheEntry`, `cache_fetch`, `cache_store`, `active_generate_config`: our calls keep what
  the provider received beside Inspect's cache entry, by Inspect's own key, and read the
  `--cache` policy in force (docs/cache.md).
- `sample_active`, `stable_task_id_for_eval`: the answer of a case is kept for the run it
  belongs to, whose identity across retries is the task id (eval_set's task retries,
  `eval-retry` and a rerun of the same eval set keep it; a new `inspect eval` gets a new one);
  Inspect tells a running sample its eval id only (docs/cache.md). Without them the answer is
  kept per eval id, which `--retry-on-error` still shares. The run id (`active_run_id`) tells
  the retries of one run, where a judge that failed a case is not asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from inspect_ai._util.registry import registry_add

# a log's scorer entry (`EvalSpec.scorers`): the type rejudge copies; not exported publicly
from inspect_ai.log._log import EvalScorer
from inspect_ai.model._cache import CacheEntry, cache_fetch, cache_store
from inspect_ai.model._generate_config import active_generate_config

if TYPE_CHECKING:
    from inspect_ai.model import Model

INSPECT_VERSION_CHECKED = "0.3.285"

__all__ = [
    "INSPECT_VERSION_CHECKED",
    "PRIVATE_ORIGINS",
    "CacheEntry",
    "EvalScorer",
    "PrerequisiteError",
    "active_generate_config",
    "active_model",
    "active_run_id",
    "active_sample_key",
    "active_task_id",
    "cache_fetch",
    "cache_store",
    "cleanup_sample_buffer_dbs",
    "copy_registry_identity",
    "filesystem",
    "init_display_type",
    "init_dotenv",
    "plain_cancellation_tracebacks",
    "registry_add",
    "run_async",
    "sample_buffer_dbs",
]

# every private Inspect name used here: "module:name", as of INSPECT_VERSION_CHECKED
PRIVATE_ORIGINS: tuple[str, ...] = (
    "inspect_ai._util.error:PrerequisiteError",
    "inspect_ai._util.dotenv:init_dotenv",
    "inspect_ai.log._recorders.buffer.database:sample_buffer_dbs",
    "inspect_ai.log._recorders.buffer.database:cleanup_sample_buffer_db",
    "inspect_ai._util.file:filesystem",
    "inspect_ai.model._model:active_model",
    "inspect_ai._util.registry:registry_add",
    "inspect_ai._util.registry:registry_params",
    "inspect_ai._util.registry:REGISTRY_INFO",
    "inspect_ai._util.registry:REGISTRY_PARAMS",
    "inspect_ai.util._display:init_display_type",
    "inspect_ai._util.platform:platform_init",
    "inspect_ai._util._async:configured_async_backend",
    "inspect_ai.model._cache:CacheEntry",
    "inspect_ai.model._cache:cache_fetch",
    "inspect_ai.model._cache:cache_store",
    "inspect_ai.model._generate_config:active_generate_config",
    "inspect_ai.log._samples:sample_active",
    "inspect_ai._control.eval_state:stable_task_id_for_eval",
    "inspect_ai._util.rich:truncate_traceback",
    "inspect_ai.log._log:format_traceback",
    "inspect_ai.log._log:EvalScorer",
)

T = TypeVar("T")

try:
    from inspect_ai._util.error import PrerequisiteError
except ImportError:  # pragma: no cover - Inspect moved it

    class PrerequisiteError(RuntimeError):  # type: ignore[no-redef]
        """Never raised by Inspect: stands in so our errors and `except` clauses still work."""


def init_dotenv() -> None:
    """Load `.env` into the environment as Inspect does (no-op if Inspect moved it)."""
    try:
        from inspect_ai._util.dotenv import init_dotenv as inspect_init_dotenv
    except ImportError:  # pragma: no cover
        return
    inspect_init_dotenv()


def sample_buffer_dbs(location: str) -> list[Path]:
    """The local sample-buffer databases of one log (empty if Inspect moved the API)."""
    try:
        from inspect_ai.log._recorders.buffer.database import sample_buffer_dbs as dbs
    except ImportError:  # pragma: no cover
        return []
    return list(dbs(location))


def cleanup_sample_buffer_dbs(dbs: Iterable[Path]) -> None:
    from inspect_ai.log._recorders.buffer.database import cleanup_sample_buffer_db

    for db in dbs:
        cleanup_sample_buffer_db(db)


def filesystem(location: str) -> Any:
    """Inspect's filesystem for a path or URL (local, s3://, ...)."""
    from inspect_ai._util.file import filesystem as inspect_filesystem

    return inspect_filesystem(location)


def active_model() -> Model | None:
    """The model of the eval being run, None outside a run (or if Inspect moved it)."""
    try:
        from inspect_ai.model._model import active_model as inspect_active_model
    except ImportError:  # pragma: no cover
        return None
    return inspect_active_model()


def active_run_id() -> str | None:
    """The run id of the running sample's eval (kept by an eval set's task retries and
    `--retry-on-error`, new for `eval-retry` and every new run); None outside a sample."""
    try:
        from inspect_ai.log._samples import sample_active
    except ImportError:  # pragma: no cover - Inspect moved it
        return None
    active = sample_active()
    return None if active is None or active.run_id is None else str(active.run_id)


def active_task_id() -> str | None:
    """The task id of the running sample's eval (the same for every retry of that task);
    None outside a sample."""
    try:
        from inspect_ai.log._samples import sample_active
    except ImportError:  # pragma: no cover - Inspect moved it
        return None
    active = sample_active()
    if active is None:
        return None
    try:
        from inspect_ai._control.eval_state import stable_task_id_for_eval
    except ImportError:  # pragma: no cover - Inspect moved it
        return str(active.eval_id)
    return str(stable_task_id_for_eval(active.eval_id))


def active_sample_key() -> tuple[str, int] | None:
    """The running sample's id and epoch (what a log names its record by); None outside a
    sample (`inspect score` and `rejudge` score without one)."""
    try:
        from inspect_ai.log._samples import sample_active
    except ImportError:  # pragma: no cover - Inspect moved it
        return None
    active = sample_active()
    if active is None or active.sample.id is None:
        return None
    return str(active.sample.id), int(active.epoch)


def copy_registry_identity(source: object, target: object) -> None:
    """Give `target` the registry name and recorded options of `source`."""
    from inspect_ai._util.registry import REGISTRY_INFO, REGISTRY_PARAMS, registry_params
    from inspect_ai.util import registry_info

    setattr(target, REGISTRY_INFO, registry_info(source))
    setattr(target, REGISTRY_PARAMS, registry_params(source))


def init_display_type(display: str) -> None:
    from inspect_ai.util._display import init_display_type as inspect_init_display_type

    inspect_init_display_type(display)


def run_async(main: Callable[[], Awaitable[T]]) -> T:
    """Run `main` as the `inspect` command runs an eval: platform set-up, then Inspect's
    configured async backend."""
    import anyio
    from inspect_ai._util._async import configured_async_backend
    from inspect_ai._util.platform import platform_init

    platform_init()
    return anyio.run(main, backend=configured_async_backend())


@contextlib.contextmanager
def plain_cancellation_tracebacks() -> Iterator[None]:
    """While the block runs, a cancelled sample's traceback is recorded as plain text (both of
    Inspect's fields); every other error keeps Inspect's rendering. Without this, stopping a
    run with many cases in flight is bound by rendering their tracebacks (see the docstring).
    """
    from inspect_ai._util.rich import truncate_traceback
    from inspect_ai.log._log import format_traceback as rendered  # type: ignore[attr-defined]

    module: Any = sys.modules["inspect_ai.log._log"]  # where eval_error looks the name up

    def format_traceback(exc_type: Any, exc_value: Any, exc_traceback: Any) -> tuple[str, str]:
        if is_cancellation(exc_type):
            text, _ = truncate_traceback(exc_type, exc_value, exc_traceback)
            return text, text
        return rendered(exc_type, exc_value, exc_traceback)

    module.format_traceback = format_traceback
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
