"""Shared test set-up: no network, nothing written outside a temporary folder, and a guard that
keeps the fast tier (`python -m pytest -m "not slow"`) free of subprocesses, servers and evals."""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import inspect
import os
import pickle
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.util import _display as inspect_display

from bedside_bench.doubles.server import ProviderDouble
from tests.doubles.fixtures import (  # noqa: F401  (fixtures)
    provider_double,
    provider_double_factory,
    provider_env,
)
from tests.s3_server import s3_process, s3_server  # noqa: F401  (fixtures)

REPO_ROOT = Path(__file__).resolve().parent.parent
SYNTHETIC_RELEASE = REPO_ROOT / "data" / "synthetic"


class InstalledDistributionFirst(importlib.metadata.DistributionFinder):
    """The package's metadata as a console script finds it, not the copy in the repository root.

    pytest puts the repository root first on `sys.path`, and there `pip install -e .` leaves
    `bedside_bench.egg-info`, metadata without the editable install's `direct_url.json`.
    Inspect then takes the package for a loose module and registers its tasks without the
    `bedside_bench/` prefix (docs/maintainers.md, "Registry names and the repository root"),
    so `inspect eval bedside_bench/<task>` run in this process would find no task. Looked up
    first, this finder gives the installed distribution, as in a user's process."""

    NAME = "bedside_bench"

    def find_spec(self, *args: Any, **kwargs: Any) -> None:
        return None  # finds no module, only the distribution

    def find_distributions(
        self, context: importlib.metadata.DistributionFinder.Context | None = None
    ) -> Iterable[importlib.metadata.Distribution]:
        name = None if context is None else context.name
        if name is None or re.sub(r"[-_.]+", "_", name).lower() != self.NAME:
            return iter(())
        assert context is not None
        elsewhere = [p for p in context.path if Path(p or ".").resolve() != REPO_ROOT]
        return importlib.machinery.PathFinder.find_distributions(
            importlib.metadata.DistributionFinder.Context(name=name, path=elsewhere)
        )


sys.meta_path.insert(0, InstalledDistributionFirst())

# tests may run from any folder and start subprocesses elsewhere: make the path absolute once
if os.environ.get("BEDSIDE_BENCH_DATA"):
    os.environ["BEDSIDE_BENCH_DATA"] = str(Path(os.environ["BEDSIDE_BENCH_DATA"]).resolve())
REAL_RELEASE = os.environ.get("BEDSIDE_BENCH_DATA")
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(autouse=True)
def isolated_inspect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Inspect's default log dir and any stray output go to the test's temporary folder."""
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    # Inspect's cache (answers kept for a retry, `--cache`) too, for subprocesses as well
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    # the display an earlier test's eval chose is a process global: each test starts, as a
    # new process does, with none chosen (what is said under --display none depends on it).
    # Private: Inspect has no public way to forget the display; the test fails loudly if the
    # name moves
    monkeypatch.setattr(inspect_display, "_display_type", None)
    yield


@pytest.fixture
def real_release() -> str:
    if not REAL_RELEASE:
        pytest.skip("set BEDSIDE_BENCH_DATA to the public release to run this test")
    return REAL_RELEASE


# ---------------------------------------------------------------------------------------------
# The slow-marker guard. While a test without @pytest.mark.slow is being set up, run or torn
# down (module fixtures included), starting a subprocess, a provider double, a listening
# socket or an Inspect eval fails that test, naming what it started. So the fast tier cannot
# quietly grow slow, and a reader of a test file sees every slow test by its marker.

_unmarked_test: list[str] = []  # node id of the running test when it is not marked slow
_started_unmarked: list[str] = []  # what such a test started (also from other threads)


def _guarded(what: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guard(*args: Any, **kwargs: Any) -> Any:
        if _unmarked_test:
            message = (
                f"{_unmarked_test[0]} starts {what} but is not marked @pytest.mark.slow "
                "(mark the test, or its module with `pytestmark = pytest.mark.slow`)"
            )
            _started_unmarked.append(message)
            pytest.fail(message, pytrace=False)
        return original(*args, **kwargs)

    return guard


def _inspect_eval_inner() -> tuple[Any, str] | None:
    try:
        from inspect_ai._eval import eval as eval_module
    except ImportError:  # pragma: no cover
        return None
    return eval_module, "_eval_async_inner"


def pytest_configure(config: pytest.Config) -> None:
    targets: list[tuple[Any, str, str]] = [
        (subprocess.Popen, "__init__", "a subprocess"),
        (ProviderDouble, "start", "a provider double"),
        (socket.socket, "listen", "a server (a listening socket)"),
    ]
    inner = _inspect_eval_inner()
    if inner is not None:
        targets.append((inner[0], inner[1], "an Inspect eval"))
    for owner, name, what in targets:
        setattr(owner, name, _guarded(what, getattr(owner, name)))
    keep_file_order_for_xdist(config)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    unmarked = item.get_closest_marker("slow") is None
    if unmarked:
        _unmarked_test[:] = [item.nodeid]
        _started_unmarked.clear()
    try:
        return (yield)
    finally:
        _unmarked_test.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    result = yield
    if _unmarked_test and _started_unmarked:  # started in a thread, so not raised in the test
        pytest.fail(_started_unmarked[0], pytrace=False)
    return result


# ---------------------------------------------------------------------------------------------
# Tests that send a signal to their own process run in a process of their own: a signal is
# process-wide, so one that arrives late (a loaded machine) or a handler a test left armed
# would otherwise reach whatever the shared worker runs next, pytest's own reporting included.
# That process is plain Python, not a second pytest: it imports the test's module and calls the
# test function with its parameters (no fixtures), so it costs the module's imports, not
# pytest's start, this conftest's and Inspect's (seconds of CPU per test).

# SIGINT as Python sets it up when started from a shell (one started in the background inherits
# it ignored, and Python then leaves it ignored): a test that ignores it says so itself. The
# test passes only if its function returns and the last line says so: an exit of any kind from
# inside it (SystemExit(0), os._exit(0)) is a failure, and a hang dumps every thread's stack.
OWN_PROCESS_PASSED = "own_process: the test function returned"
OWN_PROCESS_TIMEOUT = 600.0
RUN_ONE_TEST = f"""\
import faulthandler, importlib, os, pickle, signal, sys, traceback
faulthandler.dump_traceback_later({OWN_PROCESS_TIMEOUT - 30}, exit=True)
signal.signal(signal.SIGINT, signal.default_int_handler)
module, name, params = pickle.loads(bytes.fromhex(sys.argv[1]))
try:
    getattr(importlib.import_module(module), name)(**params)
except BaseException:
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(1)
print({OWN_PROCESS_PASSED!r}, flush=True)
"""


def _ended(code: int) -> str:
    """How a child process ended, in words: its exit status, or the signal that ended it."""
    if code < 0:
        return f"ended by {signal.Signals(-code).name}"
    return f"exit {code}"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker("own_process") is None:
        return None  # run here, as usual
    callspec = getattr(pyfuncitem, "callspec", None)
    params = dict(callspec.params) if callspec is not None else {}
    # the autouse fixtures run here (their environment is the child's); none is passed to it
    fixtures = set(inspect.signature(pyfuncitem.obj).parameters) - set(params)
    function = pyfuncitem.obj
    plain = not (inspect.iscoroutinefunction(function) or inspect.isgeneratorfunction(function))
    if pyfuncitem.cls is not None or fixtures or not plain:
        pytest.fail(
            "an own_process test is a plain module-level function that takes only its "
            f"parameters (not {sorted(fixtures)}, a class, a coroutine or a generator)",
            pytrace=False,
        )
    failure = own_process_failure(
        pyfuncitem.module.__name__, pyfuncitem.originalname, params, pyfuncitem.config.rootpath
    )
    if failure is not None:
        pytest.fail(failure)
    return True


def own_process_failure(
    module: str, name: str, params: dict[str, Any], cwd: Path, timeout: float = OWN_PROCESS_TIMEOUT
) -> str | None:
    """Run `module.name(**params)` in a new plain Python process: None if it returned, else
    what went wrong, with the child's output."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONOPTIMIZE"}  # keep its asserts
    script = RUN_ONE_TEST.replace(repr(OWN_PROCESS_TIMEOUT - 30), repr(max(timeout - 30, 1.0)))
    try:
        result = subprocess.run(
            [sys.executable, "-c", script, pickle.dumps((module, name, params)).hex()],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as timed_out:
        out, err = (
            part.decode(errors="replace") if isinstance(part, bytes) else (part or "")
            for part in (timed_out.stdout, timed_out.stderr)
        )
        return f"in its own process: no end in {timeout:.0f} s\n{out}{err}"
    lines = result.stdout.splitlines()
    if result.returncode == 0 and lines and lines[-1] == OWN_PROCESS_PASSED:
        return None
    returned = "returned" if OWN_PROCESS_PASSED in lines else "did not return"
    return (
        f"in its own process ({_ended(result.returncode)}, the function {returned}):\n"
        f"{result.stdout[-6000:]}{result.stderr[-6000:]}"
    )


# ---------------------------------------------------------------------------------------------
# The order of the files under `-n 2 --dist loadfile`. Each file runs whole in one process, so
# the wall time is that of the busier process: the slowest files start first (longest first
# is what balances two queues) and the many quick files fill the gaps at the end. pytest-xdist
# would otherwise order files by their number of tests, which puts the few-test end-to-end
# files, the slowest ones, last. A new file whose run takes more than ~20 s gets a line here.

SLOWEST_FILES_FIRST = (
    "test_sweep.py",
    "test_sweep_resilience.py",
    "test_s3.py",
    "test_shard.py",
    "test_rejudge_signals.py",
    "test_entry_points.py",
    "test_sweep_lock.py",
    "test_batch_e2e.py",
    "test_report_scope_e2e.py",
    "test_kill_after_judging.py",
    "test_resume_case_edits_e2e.py",
    "test_kept_calls_faults_e2e.py",
    "test_sweep_signals.py",
    "test_model_faults_e2e.py",
    "test_report_logs.py",
    "test_estimate_e2e.py",
    "test_demo_e2e.py",
    "test_cache.py",
    "test_cli_conventions.py",
    "test_owned_output_e2e.py",
    "test_report_how_sure_e2e.py",
    "test_kept_calls_scope_e2e.py",
    "test_eleventh_benchmark_e2e.py",
    "test_data_cli.py",
    "test_doubles.py",
    "test_answer_reuse_e2e.py",
    "test_judges_coverage_e2e.py",
    "test_rejudge.py",
    "test_report_log_values.py",
    "test_analysis_e2e.py",
    "test_report_verdict_e2e.py",
    "test_inputs_e2e.py",
    "test_report_properties.py",
    "test_tasks_e2e.py",
    "test_review_e2e.py",
    "test_reliability_e2e.py",
    "test_judge_preflight.py",
    "test_inspect_score.py",
    "test_answer_conditions_e2e.py",
    "test_judge_named_e2e.py",
    "test_reasoning_budget_e2e.py",
    "test_answer_paths.py",
    "test_epoch_reducer_e2e.py",
)


def keep_file_order_for_xdist(config: pytest.Config) -> None:
    """Tell pytest-xdist's loadfile scheduler to keep the collection order (below)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest files first, in SLOWEST_FILES_FIRST's order; every other file after them in
    its usual order (a stable sort: the tests of a file keep theirs)."""
    rank = {name: n for n, name in enumerate(SLOWEST_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
