"""The private Inspect names (`bedside_bench/core/inspect_private.py`): at most ten, only the
seam uses them, none can break an import, and each one's absence degrades its feature the way
`PRIVATE` says, with one warning naming the feature and no number changed.

Each name is removed in turn, both ways an Inspect release can move it (its module gone, or
the name gone from its module), and the function that uses it is called: the result is the
documented fallback. With a new Inspect release installed,
`test_every_private_name_is_where_the_seam_looks` names every name that moved
(docs/maintainers.md, "Checking a new Inspect release")."""

from __future__ import annotations

import ast
import contextvars
import importlib
import re
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import inspect_ai
import pytest

import bedside_bench
from bedside_bench.core import inspect_private
from bedside_bench.core.inspect_private import PRIVATE, MovedInspectNameWarning

PACKAGE = Path(bedside_bench.__file__).parent
SEAM = PACKAGE / "core" / "inspect_private.py"
RUNTIME_NAMES = sorted(PRIVATE)


def is_private(module: str) -> bool:
    parts = module.split(".")
    return parts[0] == "inspect_ai" and any(p.startswith("_") for p in parts[1:])


def private_imports(source: str) -> set[str]:
    """Every `module:name` (or `module`) of a private part of inspect_ai that `source` imports:
    import statements, and module names given as strings (`importlib.import_module`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if is_private(node.module):
                found.update(f"{node.module}:{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if is_private(alias.name))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.split(":")[0]
            if re.fullmatch(r"[\w.]+", text) and is_private(text):
                found.add(node.value)
    return found


# --------------------------------------------------------------------------------------------
# the seam


def test_at_most_ten_private_names_each_with_its_reason_and_fallback() -> None:
    assert len(PRIVATE) <= 10
    assert tuple(e.origin for e in PRIVATE.values()) == inspect_private.PRIVATE_ORIGINS
    for name, entry in PRIVATE.items():
        module, attribute = entry.origin.split(":")
        assert attribute == name and is_private(module)
        assert entry.feature and entry.why and entry.without


@pytest.mark.parametrize("origin", inspect_private.PRIVATE_ORIGINS)
def test_every_private_name_is_where_the_seam_looks(origin: str) -> None:
    """Fails, by name, for each name the installed Inspect moved: the package still runs
    (below), but the feature is degraded until the seam looks where it went."""
    module, name = origin.split(":")
    try:
        getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as ex:
        pytest.fail(
            f"inspect-ai {inspect_ai.__version__} has no {origin} (checked against "
            f"{inspect_private.INSPECT_VERSION_CHECKED}; without it: "
            f"{PRIVATE[name].without}): {ex}"
        )


def test_no_other_module_imports_a_private_inspect_name() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(found)
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != SEAM
        if (found := private_imports(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


def test_the_seam_imports_private_names_for_type_checkers_only() -> None:
    """No import statement of the seam that runs names a private module (each is looked up
    where used), and the ones type checkers read are all listed."""
    tree = ast.parse(SEAM.read_text(encoding="utf-8"))
    typing_only: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in node.body:
                typing_only |= private_imports(ast.unparse(inner))
    running = private_imports(SEAM.read_text(encoding="utf-8")) - typing_only
    assert running <= set(inspect_private.PRIVATE_ORIGINS)  # only the table's strings
    assert all(":" in origin for origin in running)
    assert typing_only <= set(inspect_private.PRIVATE_ORIGINS)
    assert not hasattr(inspect_private, "CacheEntry")  # a type only: nothing at run time


def test_the_traceback_patch_is_the_sweep_commands_only() -> None:
    """Inspect's traceback rendering is replaced around `bedside-bench sweep`'s eval set only:
    no task, scorer or library function enters it, so a plain `inspect eval` never does."""
    users = {
        f"{path.relative_to(PACKAGE)}:{node.name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != SEAM
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
        if "plain_cancellation_tracebacks" in ast.unparse(node)
    }
    assert users == {"sweep/command.py:run_sweep_command"}


def test_the_scan_sees_every_form_of_private_import() -> None:
    source = (
        "import inspect_ai._util.file\n"
        "from inspect_ai.model._cache import CacheEntry as E\n"
        "def f():\n"
        "    from inspect_ai.util._display import init_display_type\n"
        "    importlib.import_module('inspect_ai.log._samples')\n"
        "from inspect_ai.model import get_model\n"
        "from inspect_ai import score_async\n"
        "from ._private import x\n"
        "'a docstring naming inspect_ai._util.error is prose'\n"
    )
    assert private_imports(source) == {
        "inspect_ai._util.file",
        "inspect_ai.model._cache:CacheEntry",
        "inspect_ai.util._display:init_display_type",
        "inspect_ai.log._samples",
    }


# --------------------------------------------------------------------------------------------
# each name removed in turn


@pytest.fixture
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[warnings.WarningMessage]]:
    """Every warning raised in the test (all of them, not Python's once per place), with the
    seam's memory of features already warned about reset."""
    monkeypatch.setattr(inspect_private, "_warned", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def remove(monkeypatch: pytest.MonkeyPatch, name: str, how: str) -> None:
    """Move `name` away as an Inspect release could: its module gone, or the name gone."""
    module, attribute = PRIVATE[name].origin.split(":")
    if how == "module":
        monkeypatch.setitem(sys.modules, module, None)  # importing it fails
    else:
        monkeypatch.delattr(importlib.import_module(module), attribute)


def first_moved(name: str, how: str) -> str:
    """The name the warning names: with its whole module gone, the first name of the same
    feature in that module (the cache's three names share one)."""
    if how == "attribute":
        return name
    module = PRIVATE[name].origin.split(":")[0]
    feature = PRIVATE[name].feature
    return next(
        n for n, e in PRIVATE.items() if e.feature == feature and e.origin.startswith(f"{module}:")
    )


def the_one_warning(caught: list[warnings.WarningMessage], name: str) -> str:
    entry = PRIVATE[name]
    moved = [str(w.message) for w in caught if issubclass(w.category, MovedInspectNameWarning)]
    dotted = entry.origin.replace(":", ".")
    assert moved == [
        f"bedside-bench: inspect-ai {inspect_ai.__version__} has no {dotted} ({entry.feature}): "
        f"{entry.without}"
    ]
    return moved[0]


def no_warning(caught: list[warnings.WarningMessage]) -> None:
    assert [w for w in caught if issubclass(w.category, MovedInspectNameWarning)] == []


@dataclass
class Check:
    """What the feature of one name gives with it (`present`) and without it (`missing`, its
    documented fallback). `missing_first`: `present` leaves a trace (a registration, an entry
    stored), so the name is removed first and `present` runs once it is back."""

    present: Callable[[], Any]
    missing: Callable[[], Any]
    missing_first: bool = False


def check_prerequisite_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from inspect_ai._util.error import PrerequisiteError as Inspects

    from bedside_bench.core.options import TaskOptionError
    from bedside_bench.release.case import DatasetError
    from bedside_bench.release.sources import DataSourceError

    def present() -> None:
        assert inspect_private.prerequisite_error() is Inspects
        for ours in (DatasetError, TaskOptionError, DataSourceError):
            assert issubclass(ours, Inspects)  # printed by Inspect in one line

    def missing() -> None:
        stand_in = inspect_private.prerequisite_error()
        assert stand_in is not Inspects and issubclass(stand_in, Exception)
        # our errors still derive from it, DataSourceError's way too (a FileNotFoundError)
        derived = type(
            "Error", (stand_in, FileNotFoundError), {"__init__": DataSourceError.__init__}
        )
        error = derived("no release at /x")
        assert (str(error), error.message) == ("no release at /x", "no release at /x")
        assert isinstance(error, FileNotFoundError) and isinstance(error, stand_in)
        inspect_private.suite_in_use()  # resolved on import: said when the suite is used

    return Check(present, missing)


def check_active_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from inspect_ai.model import get_model
    from inspect_ai.model._model import active_model_context_var

    from bedside_bench.scoring.scorer import preflight_judge

    run = contextvars.copy_context()  # a run's tasks being built: Inspect set its model
    run.run(active_model_context_var.set, get_model("mockllm/model", memoize=False))
    judge = "openai/gpt-4.1"  # a judge named by -T (mockllm could never judge): a client only
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-sent")

    def present() -> None:
        assert run.run(preflight_judge, judge) is not None  # judge resolved

    def missing() -> None:
        assert run.run(inspect_private.active_model) is None
        assert run.run(preflight_judge, judge) is None  # checked at the first score

    return Check(present, missing)


def check_registry_add(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from inspect_ai._util import registry
    from inspect_ai.util import RegistryInfo

    monkeypatch.setattr(registry, "_registry", dict(registry._registry))  # restored after
    lookup = registry.registry_lookup

    def scorer() -> None: ...

    info = RegistryInfo(type="scorer", name="seam_test_scorer")

    def present() -> None:
        assert inspect_private.registry_add(scorer, info) is True
        assert lookup("scorer", "seam_test_scorer") is scorer

    def missing() -> None:
        assert inspect_private.registry_add(scorer, info) is False
        assert lookup("scorer", "seam_test_scorer") is None
        inspect_private.suite_in_use()  # resolved on import: said when the suite is used

    return Check(present, missing, missing_first=True)


def paid_calls(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """An answer's policy inside a run (kept for a retry) and one with --cache."""
    from inspect_ai.model import CachePolicy, GenerateConfig, get_model

    from bedside_bench.calls import cache as call_cache
    from bedside_bench.calls import kept_calls

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    model = get_model("openai/gpt-4.1-mini", memoize=False)
    cached = get_model(
        "openai/gpt-4.1-mini", config=GenerateConfig(cache=CachePolicy(expiry="1h")), memoize=False
    )
    monkeypatch.setattr(kept_calls, "active_task_id", lambda: "task-A")

    def present() -> None:
        kept, for_retry = call_cache.answer_cache(model, "case-1")
        assert for_retry and kept is not None and kept.scopes[call_cache.RUN_SCOPE] == "task-A"
        chosen, for_retry = call_cache.answer_cache(cached, "case-1")
        assert not for_retry and chosen is not None and chosen.expiry == "1h"

    def missing() -> None:
        # nothing kept, --cache off for our calls: every call is bought, every value is real
        assert call_cache.answer_cache(model, "case-1") == (None, False)
        assert call_cache.answer_cache(cached, "case-1") == (None, False)
        assert inspect_private.calls_can_be_kept() is False

    return present, missing


def entry_fields() -> dict[str, Any]:
    from inspect_ai.model import CachePolicy, GenerateConfig

    return {
        "base_url": None,
        "config": GenerateConfig(temperature=1.0),
        "input": [],
        "model": "openai/gpt-4.1-mini",
        "policy": CachePolicy(),
        "tool_choice": "auto",
        "tools": [],
    }


def check_cache_entry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    present, missing = paid_calls(monkeypatch, tmp_path)

    def missing_entry() -> None:
        missing()
        assert inspect_private.cache_entry(**entry_fields()) is None

    return Check(present, missing_entry)


def check_cache_fetch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from inspect_ai.model import ModelOutput

    present, missing = paid_calls(monkeypatch, tmp_path)
    entry = inspect_private.cache_entry(**entry_fields())
    assert entry is not None
    inspect_private.cache_store(entry, ModelOutput.from_content("openai/gpt-4.1-mini", "kept"))

    def present_fetch() -> None:
        present()
        fetched = inspect_private.cache_fetch(entry)
        assert fetched is not None and fetched.completion == "kept"

    def missing_fetch() -> None:
        missing()
        assert inspect_private.cache_fetch(entry) is None

    return Check(present_fetch, missing_fetch)


def check_cache_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from inspect_ai.model import ModelOutput
    from inspect_ai.model._cache import cache_fetch

    present, missing = paid_calls(monkeypatch, tmp_path)
    entry = inspect_private.cache_entry(**entry_fields())
    assert entry is not None
    output = ModelOutput.from_content("openai/gpt-4.1-mini", "kept")

    def missing_store() -> None:
        missing()
        assert inspect_private.cache_store(entry, output) is False
        assert cache_fetch(entry) is None  # nothing stored

    def present_store() -> None:
        present()
        assert inspect_private.cache_store(entry, output) is True
        assert cache_fetch(entry) is not None

    return Check(present_store, missing_store, missing_first=True)


def check_sample_active(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from inspect_ai.log._samples import _sample_active
    from inspect_ai.model import get_model

    from bedside_bench.calls import cache as call_cache
    from bedside_bench.calls import kept_calls, running_tasks

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = get_model("openai/gpt-4.1-mini", memoize=False)
    monkeypatch.setitem(running_tasks._running, "eval-1", running_tasks.RunningTask("task-A", None))
    sample = contextvars.copy_context()  # a sample of that task is running
    active = SimpleNamespace(eval_id="eval-1", run_id="run-1", sample=SimpleNamespace(id="c1"))
    active.epoch = 2
    sample.run(_sample_active.set, active)  # type: ignore[arg-type]

    def identity() -> tuple[Any, ...]:
        return (
            inspect_private.active_eval_id(),
            inspect_private.active_run_id(),
            inspect_private.active_sample_key(),
            kept_calls.active_task_id(),
            call_cache.call_policy(model, {"call": "answer"})[1],
        )

    def present() -> None:
        assert sample.run(identity) == ("eval-1", "run-1", ("c1", 2), "task-A", True)

    def missing() -> None:
        # nothing kept (bought again on a retry); a failed judge is asked again in the run
        assert sample.run(identity) == (None, None, None, None, False)

    return Check(present, missing)


def check_sample_buffer_dbs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from bedside_bench.sweep.recovery import writer_gone
    from tests.test_sweep_recovery import GONE_PID, buffer_db, log_at

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    log = log_at(tmp_path / "logs" / "killed.eval", status="started")
    db = buffer_db(tmp_path / "data-home", log, GONE_PID)

    def present() -> None:
        assert inspect_private.sample_buffer_dbs(log) == [db]
        assert writer_gone(log) is True

    def missing() -> None:
        assert inspect_private.sample_buffer_dbs(log) == []
        assert writer_gone(log) is False  # nothing proven: the log stays

    return Check(present, missing)


def check_format_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    import asyncio

    from inspect_ai.log._log import eval_error

    log_module = importlib.import_module(PRIVATE["format_traceback"].origin.split(":")[0])

    def raised(ex: BaseException) -> BaseException:
        try:
            raise ex
        except BaseException as caught:
            return caught

    cancelled = raised(asyncio.CancelledError("Cancelled by cancel scope 7f00"))
    failed = raised(ValueError("a real error"))

    def recorded(ex: BaseException) -> Any:
        return eval_error(ex, type(ex), ex, ex.__traceback__)

    def present() -> None:
        before = recorded(failed)
        with inspect_private.plain_cancellation_tracebacks():
            error, other = recorded(cancelled), recorded(failed)
        assert error.traceback_ansi == error.traceback  # plain, not rendered
        assert "CancelledError: Cancelled by cancel scope 7f00" in error.traceback
        assert (other.traceback, other.traceback_ansi) == (before.traceback, before.traceback_ansi)
        assert other.traceback_ansi != other.traceback  # rendered by rich, as without it
        after = recorded(cancelled)
        assert after.traceback_ansi != after.traceback  # Inspect's own rendering is back

    def missing() -> None:
        before = getattr(log_module, "format_traceback", None)
        with inspect_private.plain_cancellation_tracebacks():
            # nothing patched: Inspect renders every cancelled case's traceback, as it does
            # without the sweep (a slow stop, not a wrong log)
            assert getattr(log_module, "format_traceback", None) is before
        assert getattr(log_module, "format_traceback", None) is before

    return Check(present, missing)


def check_registry_find(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Check:
    from bedside_bench.core.model_names import unknown_provider

    def present() -> None:
        known = inspect_private.known_model_apis("antropic")
        assert known is not None and {"anthropic", "openai", "mockllm"} <= set(known)
        assert unknown_provider("antropic/claude-sonnet-4-6") == (
            "Inspect knows no model provider 'antropic' (did you mean anthropic/claude-sonnet-4-6?)"
        )

    def missing() -> None:
        assert inspect_private.known_model_apis("antropic") is None
        assert unknown_provider("antropic/claude-sonnet-4-6") is None  # Inspect refuses it

    return Check(present, missing)


CHECKS: dict[str, Callable[[pytest.MonkeyPatch, Path], Check]] = {
    "PrerequisiteError": check_prerequisite_error,
    "active_model": check_active_model,
    "registry_add": check_registry_add,
    "CacheEntry": check_cache_entry,
    "cache_fetch": check_cache_fetch,
    "cache_store": check_cache_store,
    "sample_active": check_sample_active,
    "sample_buffer_dbs": check_sample_buffer_dbs,
    "format_traceback": check_format_traceback,
    "registry_find": check_registry_find,
}


def test_every_name_used_at_run_time_has_a_fallback_check() -> None:
    assert sorted(CHECKS) == RUNTIME_NAMES


@pytest.mark.parametrize("how", ["module", "attribute"])
@pytest.mark.parametrize("name", RUNTIME_NAMES)
def test_without_the_name_its_feature_degrades_with_one_warning_naming_it(
    name: str,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fresh_warnings: list[warnings.WarningMessage],
) -> None:
    check = CHECKS[name](monkeypatch, tmp_path)
    if not check.missing_first:
        check.present()
        no_warning(fresh_warnings)
    with monkeypatch.context() as moved:
        remove(moved, name, how)
        check.missing()
        check.missing()  # again: still one warning
    message = the_one_warning(fresh_warnings, first_moved(name, how))
    assert PRIVATE[name].feature in message
    if check.missing_first:  # back in place, the feature works again
        check.present()


@pytest.mark.parametrize("name", ["PrerequisiteError", "registry_add"])
def test_a_name_resolved_as_the_package_is_imported_is_said_only_when_the_suite_is_used(
    name: str, monkeypatch: pytest.MonkeyPatch, fresh_warnings: list[warnings.WarningMessage]
) -> None:
    """Inspect imports every package's entry point in every eval: an unrelated eval, which
    uses no task or scorer of ours, says nothing of a name of ours that moved."""
    from inspect_ai._util import registry
    from inspect_ai.util import RegistryInfo

    monkeypatch.setattr(registry, "_registry", dict(registry._registry))  # restored after
    remove(monkeypatch, name, "attribute")
    if name == "PrerequisiteError":
        inspect_private.prerequisite_error()
    else:
        inspect_private.registry_add(lambda: None, RegistryInfo(type="scorer", name="x_seam"))
    no_warning(fresh_warnings)
    inspect_private.suite_in_use()
    the_one_warning(fresh_warnings, first_moved(name, "attribute"))


def test_one_warning_per_feature_however_many_of_its_names_moved(
    monkeypatch: pytest.MonkeyPatch, fresh_warnings: list[warnings.WarningMessage]
) -> None:
    for name in ("CacheEntry", "cache_fetch", "cache_store"):
        remove(monkeypatch, name, "attribute")
    assert inspect_private.calls_can_be_kept() is False
    assert inspect_private.cache_entry(**entry_fields()) is None
    the_one_warning(fresh_warnings, "CacheEntry")


# --------------------------------------------------------------------------------------------
# every name moved at once: the package imports, `inspect eval` runs, the numbers are right

MOVED_AWAY = """
import sys
from dataclasses import replace

import bedside_bench.core.inspect_private as seam

# the seam looks for each name where this Inspect has nothing, as after a release that moved
# them all; Inspect itself keeps its own (its internals import some of them lazily)
seam.PRIVATE = {
    name: replace(entry, origin=f"inspect_ai._moved_away:{name}")
    for name, entry in seam.PRIVATE.items()
}
seam.PrerequisiteError = seam.prerequisite_error()

from inspect_ai._cli.main import main

sys.argv = ["inspect", *sys.argv[1:]]
sys.exit(main())
"""


@pytest.mark.slow
def test_with_every_name_moved_an_eval_runs_and_scores_exactly(
    tmp_path: Path, provider_double: Any
) -> None:
    """A cold `inspect eval` whose seam finds none of the names: the package imports, the
    eval runs, each degraded feature it reaches warns once, the scores are the protocol's and
    every answer and judge call was bought once."""
    import os

    from tests.e2e_helpers import (
        ANSWER_MODEL,
        assert_scored_once,
        eval_args,
        expected_scores,
        output,
        read_logs,
    )
    from tests.ledger import assert_bought_once
    from tests.release_factory import write_release

    cases = write_release(tmp_path / "release", per_benchmark=2)
    script = tmp_path / "moved_away.py"
    script.write_text(MOVED_AWAY, encoding="utf-8")
    env = {**os.environ, **provider_double.env(), "PYTHONWARNINGS": "default"}
    args = eval_args("drug_safety", tmp_path / "logs", task_args=[f"data_dir={tmp_path}/release"])
    result = subprocess.run(
        [sys.executable, str(script), *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, output(result)
    warned = re.findall(r"MovedInspectNameWarning: bedside-bench: .*?\(([^)]*)\)", result.stderr)
    assert sorted(warned) == sorted(
        {
            inspect_private.PLAIN_ERRORS,  # when the package is imported
            inspect_private.SCORER_SHORT_NAME,  # when the scorer is registered
            inspect_private.JUDGE_CHECK,  # when the task is built
            inspect_private.CASE_IDENTITY,  # at the first call
        }
    ), output(result)
    logs = read_logs(tmp_path / "logs")
    expected = expected_scores(tmp_path / "release", [ANSWER_MODEL], ["drug_safety"])
    assert_scored_once(logs, expected, cases=2)
    assert_bought_once(provider_double, cases["drug_safety"], [ANSWER_MODEL])


# --------------------------------------------------------------------------------------------
# the dependency range and the version checked


def test_any_0_3_release_from_the_one_checked_on_is_allowed() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from packaging.requirements import Requirement

    pyproject = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    (line,) = [
        r for r in tomllib.loads(pyproject)["project"]["dependencies"] if r.startswith("inspect")
    ]
    allowed = Requirement(line).specifier
    checked = inspect_private.INSPECT_VERSION_CHECKED
    assert allowed.contains(checked) and allowed.contains("0.3.999")
    assert not allowed.contains("0.4.0") and not allowed.contains("0.3.284")
    assert allowed.contains(inspect_ai.__version__), "the installed Inspect is outside the range"
    named = re.search(r"Checked against inspect-ai (\S+?);", inspect_private.__doc__ or "")
    assert named is not None and named.group(1) == checked
