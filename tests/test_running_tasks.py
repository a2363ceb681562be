"""`running_tasks.py`: a task's id and `--cache` as Inspect's task-start hook gives them, read
by the calls of the task's samples (its end forgets them). The end-to-end tests of kept calls
and `--cache` (tests/test_cache.py, tests/test_answer_reuse_e2e.py,
tests/test_kill_after_judging.py) go through Inspect's real hooks."""

from __future__ import annotations

import asyncio
import contextvars
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai.model import CachePolicy, get_model

from bedside_bench.calls import cache as call_cache
from bedside_bench.calls import kept_calls, running_tasks
from bedside_bench.core import inspect_private
from bedside_bench.core.inspect_private import MovedInspectNameWarning

# the running sample as the seam reads it from Inspect (tests/test_inspect_private.py checks
# that reading against Inspect's own)
_sample: contextvars.ContextVar[Any] = contextvars.ContextVar("sample", default=None)


def in_sample(eval_id: str) -> contextvars.Context:
    """A context in which a sample of eval `eval_id` runs (case c1, epoch 1)."""
    sample = contextvars.copy_context()
    active = SimpleNamespace(eval_id=eval_id, run_id="run-1", sample=SimpleNamespace(id="c1"))
    active.epoch = 1
    sample.run(_sample.set, active)
    return sample


def started(eval_id: str, task_id: str, cache: Any) -> Any:
    """What Inspect hands `on_task_start` (the fields read of it)."""
    return SimpleNamespace(
        eval_id=eval_id,
        spec=SimpleNamespace(task_id=task_id),
        plan=SimpleNamespace(config=SimpleNamespace(cache=cache)),
    )


def test_a_running_task_is_known_from_its_start_to_its_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(inspect_private, "_active_sample", _sample.get)
    monkeypatch.setattr(running_tasks, "_running", {})
    monkeypatch.setattr(inspect_private, "_warned", set())
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    model = get_model("openai/gpt-4.1-mini", memoize=False)
    hook = running_tasks.RunningTasks()
    asked = CachePolicy(expiry="1D")
    asyncio.run(hook.on_task_start(started("eval-1", "task-A", asked)))  # --cache 1D
    asyncio.run(hook.on_task_start(started("eval-2", "task-B", None)))  # no --cache
    first, second = in_sample("eval-1"), in_sample("eval-2")

    assert running_tasks.running_task() is None  # outside a sample
    assert first.run(kept_calls.active_task_id) == "task-A"
    policy, kept = first.run(call_cache.answer_cache, model, "c1")
    assert not kept and policy is not None and policy.expiry == "1D"  # --cache's policy
    assert call_cache.RUN_SCOPE not in policy.scopes
    policy, kept = second.run(call_cache.answer_cache, model, "c1")
    assert kept and policy is not None and policy.scopes[call_cache.RUN_SCOPE] == "task-B"

    asyncio.run(hook.on_task_end(SimpleNamespace(eval_id="eval-1")))  # type: ignore[arg-type]
    assert running_tasks._running.keys() == {"eval-2"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # a sample whose task start was never reported: its own run, by eval id, no --cache
        assert first.run(running_tasks.running_task) == running_tasks.RunningTask("eval-1", None)
        assert first.run(running_tasks.running_task) == running_tasks.RunningTask("eval-1", None)
    (warning,) = caught
    assert warning.category is MovedInspectNameWarning
    assert str(warning.message) == (
        "bedside-bench: Inspect did not report the start of the task being run to its hooks: "
        "answers and judge replies are kept for --retry-on-error only (another retry buys "
        "them again) and --cache does not apply to them"
    )
