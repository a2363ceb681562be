"""Paid calls kept for a retry of their run until their case is in the written log.

An answer or a judge reply bought without `--cache` is kept in Inspect's cache under the run's
task id and the case (`call_cache.call_policy`), so a retry of the same run (the same sweep
again, `inspect eval-retry`, an eval set's task retry) reads it back instead of buying it
again. A case is safe only once its sample is in the log file: Inspect writes finished samples
in batches (`log_buffer`, a stale-flush timer) and a cancelled sample is logged without its
score, so a Ctrl-C, SIGTERM or SIGKILL after the scoring and before the write loses it, and
its retry must find the calls kept. So nothing is released while the run goes on: each kept
entry is listed in an index per task id, and when Inspect ends the task (the `on_task_end`
hook, after the final log write) the entries of every sample the log holds scored are
deleted. A run that never reaches its end (killed, cancelled) leaves its entries for the
retry, whose own end releases them (the index names them, whichever process kept them);
entries of a run never retried expire (`call_cache.ANSWER_KEPT_FOR`). See docs/cache.md.

The index is bookkeeping and never costs an answer: an index (or cache folder) that cannot be
read or written (missing, a file where a folder should be, read-only, a full disk, corrupt
bytes) makes a call "not kept" (its entry dropped, so it cannot outlive the run unlisted), with
one warning naming the path, and the case is scored as usual. What this process kept is also
remembered in memory, so a complete run releases every entry of its own whatever happened to
the index meanwhile.

The hook touches only this suite. Inspect loads every installed package's entry point before
any eval, lists every hook registered by then ("hooks enabled: ...") and calls each for every
task of the process; it has no hook scoped to a task. So the hook is not registered on import:
the solvers and the scorer that keep calls register it when they are built
(`release_kept_calls`), which an eval of another suite never does, and it acts only at the end
of a task whose log names one of them.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_ai.hooks import Hooks, TaskEnd, hooks
from inspect_ai.log import EvalLog, read_eval_log_sample_summaries_async
from inspect_ai.model import cache_path
from inspect_ai.util import registry_info
from pydantic import BaseModel, Field, ValidationError

from bedside_bench.calls import in_flight, running_tasks
from bedside_bench.calls.running_tasks import running_task
from bedside_bench.core.console import warn_visibly
from bedside_bench.core.inspect_private import active_sample_key
from bedside_bench.core.safe_text import printable

if TYPE_CHECKING:
    from bedside_bench.core.inspect_private import CacheEntry

logger = logging.getLogger(__name__)

# outside a running sample (`rejudge` scores through `score_async`, which has none): the run
# the calls belong to (stable over reruns of the same command) and the case being judged
_run: ContextVar[str | None] = ContextVar("bedside_bench_kept_run", default=None)
_case: ContextVar[tuple[str, int] | None] = ContextVar("bedside_bench_kept_case", default=None)


@contextmanager
def kept_run(key: str) -> Iterator[None]:
    """Keep the paid calls made inside for a rerun of `key` (a run outside an eval)."""
    token = _run.set(key)
    try:
        yield
    finally:
        _run.reset(token)


@contextmanager
def judging_case(case: str, epoch: int) -> Iterator[None]:
    """The case (id, epoch) whose calls are made inside, where no sample is running."""
    token = _case.set((case, epoch))
    try:
        yield
    finally:
        _case.reset(token)


def active_task_id() -> str | None:
    """The task id of the running sample's eval (the same for every retry of that task);
    None outside a sample."""
    task = running_task()
    return None if task is None else task.task_id


def run_key() -> str | None:
    """The run a paid call is kept for: the running sample's task id, else `kept_run`'s."""
    return active_task_id() or _run.get()


def case_key() -> tuple[str, int] | None:
    """The case (id, epoch) of a paid call: the running sample's, else `judging_case`'s."""
    return active_sample_key() or _case.get()


class KeptCall(BaseModel, frozen=True):
    """One line of a run's index: the cache entry (model folder, key) of a sample's call."""

    sample: str
    epoch: int
    model: str
    # Inspect's key is an md5 digest: a damaged index can never name a path outside the cache
    key: str = Field(pattern=r"^[0-9a-f]{32}$")


class KeptCallsWarning(UserWarning):
    """Bookkeeping of kept calls failed: calls are not kept, every case is scored as usual."""


INDEX_DIR_NAME = "bedside_bench_kept"
_warned: set[str] = set()  # what was warned about in this process: "index", "cache"
# what this process listed, by run: released at the run's end even if the index was lost
_kept_here: dict[str, set[KeptCall]] = {}


def not_kept(path: Path | str, error: BaseException | str, store: str = "index") -> None:
    """Say once per process and `store` (the "index" of kept calls, Inspect's "cache") that
    bookkeeping failed at `path` and what that costs (a retry buys the calls again), never
    more: the run goes on and every case is scored."""
    if store in _warned:
        return
    _warned.add(store)
    reason = error if isinstance(error, str) else getattr(error, "strerror", None)
    reason = reason or type(error).__name__
    message = (
        f"bedside-bench: {printable(str(path), 300)} cannot be used ({printable(str(reason))}): "
        "answers and judge replies are not kept there for a retry (a retry buys them again); "
        "every case is scored as usual"
    )
    warn_visibly(logger, message)


def index_dir() -> Path:
    """Beside Inspect's cache folders (not inside: `inspect cache` reads those)."""
    return cache_path().parent / INDEX_DIR_NAME


def index_path(task_id: str) -> Path:
    return index_dir() / f"{hashlib.sha256(task_id.encode()).hexdigest()[:32]}.jsonl"


def _index(task_id: str) -> Path | None:
    """The run's index; None when Inspect's cache folder beside it cannot be made (warned
    about as the cache)."""
    try:
        return index_path(task_id)
    except OSError as ex:
        not_kept(ex.filename or "Inspect's cache folder", ex, "cache")
        return None


def drop_entry(model: str, key: str) -> None:
    """Delete one cache entry; a cache that cannot be changed is warned about, not raised."""
    try:
        (cache_path(model) / key).unlink(missing_ok=True)
    except (OSError, ValueError) as ex:
        not_kept(getattr(ex, "filename", None) or f"the cache folder of {model}", ex, "cache")


def keep(entry: CacheEntry | None) -> None:
    """List the entry holding a call of the running sample in its run's index; an index that
    cannot be written drops the entry instead (not kept, never left behind unlisted)."""
    task_id = run_key()
    sample = case_key()
    if entry is None or task_id is None or sample is None:
        return
    line = KeptCall(sample=sample[0], epoch=sample[1], model=entry.model, key=entry.key)
    path = _index(task_id)
    if path is None:
        drop_entry(line.model, line.key)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # one short line per append: lines of concurrent samples never interleave
        with path.open("a", encoding="utf-8") as index:
            index.write(line.model_dump_json() + "\n")
    except OSError as ex:
        not_kept(path, ex)
        drop_entry(line.model, line.key)
        return
    _kept_here.setdefault(task_id, set()).add(line)


def kept(task_id: str) -> list[KeptCall]:
    """The calls a run's index lists and this process kept for it. A torn last line (a killed
    process) is skipped; an index that cannot be read, or holds lines that are no call, is
    warned about and what it still says is used."""
    listed: list[KeptCall] = []
    mine = _kept_here.get(task_id, set())
    path = _index(task_id)
    if path is None:
        return list(mine)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    except OSError as ex:
        not_kept(path, ex)
        data = b""
    lines = data.split(b"\n")
    for number, text in enumerate(lines, start=1):
        try:
            listed.append(KeptCall.model_validate_json(text))
        except ValidationError:
            if number < len(lines):  # not the piece after the last line break: damaged
                not_kept(path, "it holds lines that are not kept calls")
    if not mine.issubset(listed):
        not_kept(path, "calls listed in it are gone (deleted or overwritten)")
    return list(dict.fromkeys([*listed, *mine]))


def release(task_id: str, logged: Iterable[tuple[str, int]]) -> int:
    """Delete the kept entries of the samples `logged` (id, epoch) and drop them from the
    index; the others stay for a retry. The count of entries released."""
    done = set(logged)
    calls = kept(task_id)
    released = [c for c in calls if (c.sample, c.epoch) in done]
    for call in released:
        drop_entry(call.model, call.key)
    mine = _kept_here.get(task_id, set())
    mine.difference_update(released)
    if not mine:
        _kept_here.pop(task_id, None)
    rest = [c for c in calls if (c.sample, c.epoch) not in done]
    path = _index(task_id)
    if path is None:
        return len(released)
    try:
        if not rest:
            path.unlink(missing_ok=True)
        elif released:
            temporary = path.with_suffix(".tmp")
            temporary.write_text("".join(c.model_dump_json() + "\n" for c in rest), "utf-8")
            os.replace(temporary, path)
    except OSError as ex:
        not_kept(path, ex)
    return len(released)


def release_case() -> None:
    """Release the running case's kept calls now: a reply that made the case fail (an answer
    that is no answer) is asked again by the retry meant to fix it, not replayed."""
    task_id = run_key()
    sample = case_key()
    if task_id is not None and sample is not None:
        release(task_id, [sample])


async def scored_samples(location: str) -> set[tuple[str, int]]:
    """(id, epoch) of every sample a written log holds scored and without an error (read
    asynchronously: the hook runs on the eval's loop while other tasks go on)."""
    summaries = await read_eval_log_sample_summaries_async(location)
    return {(str(s.id), s.epoch) for s in summaries if s.error is None and s.scores}


class ReleaseKeptCalls(Hooks):
    """Releases a task's kept calls at its end: Inspect calls it after the final log write,
    the first moment every case the log holds scored is safe."""

    async def on_task_end(self, data: TaskEnd) -> None:
        task_id = data.log.eval.task_id
        if not keeps_calls(data.log) or not task_id or not data.log.location:
            return
        if kept(task_id):  # the index's and this process's
            release(task_id, await scored_samples(data.log.location))


HOOK_NAME = "bedside_bench_kept_calls"
# the solvers and scorers built in this process that keep paid calls (registry names
# without the package: a log records a scorer without it)
_keepers: set[str] = set()
_registered = False


def _unqualified(name: str) -> str:
    return name.rpartition("/")[2]


def release_kept_calls(keeper: object) -> None:
    """Register the release hook, once a process builds `keeper` (a solver or scorer that
    keeps paid calls: its `@solver` / `@scorer` function).

    Only here, not on import: the package's entry point is loaded by every eval, and a hook
    registered by then is listed by `inspect eval` and called for every task."""
    global _registered
    _keepers.add(_unqualified(registry_info(keeper).name))
    if not _registered:
        hooks(name=running_tasks.HOOK_NAME, description=running_tasks.HOOK_DESCRIPTION)(
            running_tasks.RunningTasks
        )
        hooks(
            name=HOOK_NAME,
            description="Releases the answers and judge replies kept for a retry once their "
            "cases are in the written log.",
        )(ReleaseKeptCalls)
        hooks(name=in_flight.HOOK_NAME, description=in_flight.HOOK_DESCRIPTION)(
            in_flight.InFlightCalls
        )
        _registered = True


def keeps_calls(log: EvalLog) -> bool:
    """Whether the task of `log` ran a solver or scorer that keeps paid calls (its header's
    plan and scorers): the end of any other task is none of this suite's business."""
    names = [step.solver for step in log.plan.steps]
    names += [scorer.name for scorer in log.eval.scorers or []]
    return any(_unqualified(name) in _keepers for name in names)
