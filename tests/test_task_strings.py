"""Every task string runs: each `file@task` that `inspect list tasks` prints (in the repository
root, and in the folder the package is imported from, site-packages when installed) goes
through `inspect_ai.eval` with scripted mockllm models and scores its sample exactly.

The registry names (`bedside_bench/<task>`) run through the `inspect` command in
`tests/test_tasks_e2e.py` (the ten benchmarks) and `tests/test_reliability_e2e.py` (the judge
check): in this process the repository root is on `sys.path`, so Inspect registers the tasks
without the package prefix (docs/maintainers.md, "Registry names and the repository root").

A task file given by path is executed by Inspect as a module of its own, outside `sys.modules`,
so what it defines cannot resolve postponed annotations: `test_path_loaded_modules_resolve_their
_annotations` loads every module Inspect may load by path that way and checks each class it
defines."""

from __future__ import annotations

import ast
import inspect
import typing
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import list_tasks
from pydantic import BaseModel

import bedside_bench
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.listing import task_version
from tests.mockllm_scripts import (
    JUDGE_CHECK,
    REPO,
    SYNTHETIC,
    benchmark_script,
    judge_check_script,
    sample_scores,
)

TASK_NAMES = (*BENCHMARK_NAMES, JUDGE_CHECK)
PACKAGE = Path(bedside_bench.__file__).resolve().parent
# where `inspect list tasks` is run: the repository root, and the installed package's parent
# (the same folder in an editable install; site-packages otherwise)
ROOTS = tuple(dict.fromkeys((REPO, PACKAGE.parent)))
# the decorators whose functions Inspect resolves from a `file.py@name` spec (eval's task,
# --solver, --scorer and a metric's spec), so a module holding one may be executed by path
PATH_LOADED = frozenset({"task", "solver", "scorer", "metric"})


def listed(root: Path) -> list[str]:
    """What `inspect list tasks` prints in `root` (its in-process form, `list_tasks`)."""
    globs = [] if root == REPO else [PACKAGE.name]
    return [f"{t.file}@{t.name}" for t in list_tasks(globs, root_dir=root)]


LISTED = [(root, spec) for root in ROOTS for spec in listed(root)]
LISTED_IDS = [f"{'repo' if root == REPO else 'installed'}:{spec}" for root, spec in LISTED]


def test_inspect_lists_each_task_once_in_every_root() -> None:
    for root in ROOTS:
        names = [spec.rsplit("@", 1)[1] for spec in listed(root)]
        assert sorted(names) == sorted(TASK_NAMES), root
        assert all(spec.startswith(f"{PACKAGE.name}/") for spec in listed(root)), root


def path_loadable_modules() -> list[Path]:
    """The package's modules with a top-level function under one of `PATH_LOADED`."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.iter_child_nodes(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
                if any(isinstance(d, ast.Name) and d.id in PATH_LOADED for d in decorators):
                    found.append(path)
                    break
    return found


def test_path_loaded_modules_resolve_their_annotations() -> None:
    """Each module Inspect may load by path, executed as Inspect does (a module named by its
    path, not in `sys.modules`): every class it defines resolves its type hints, and every
    pydantic model in it is complete."""
    modules = path_loadable_modules()
    assert {m.relative_to(PACKAGE).as_posix() for m in modules} >= {
        spec.split("@")[0].removeprefix(f"{PACKAGE.name}/") for _, spec in LISTED
    }
    problems = []
    for path in modules:
        name = path.as_posix()
        loader = SourceFileLoader(name, name)
        spec = spec_from_loader(name, loader)
        assert spec is not None
        module = module_from_spec(spec)
        loader.exec_module(module)
        for attr, value in vars(module).items():
            if not inspect.isclass(value) or value.__module__ != name:
                continue
            where = f"{path.relative_to(PACKAGE)}: {attr}"
            if issubclass(value, BaseModel) and not value.__pydantic_complete__:
                problems.append(f"{where}: pydantic model not complete")
            try:
                typing.get_type_hints(value)
            except Exception as ex:
                problems.append(f"{where}: {type(ex).__name__}: {ex}")
    assert problems == []


def run(spec: str, task: str, log_dir: Path) -> None:
    """One sample of `spec` through `inspect_ai.eval`, scored exactly as scripted."""
    if task == JUDGE_CHECK:
        check = judge_check_script()
        (log,) = inspect_eval(
            spec,
            model=check.judge.model(),
            limit=1,
            log_dir=str(log_dir),
            display="none",
        )
        scores = sample_scores(log, "gold_agreement")
        assert scores == {pair: float(check.expected(pair)) for pair in scores}
    else:
        script = benchmark_script(task)
        (log,) = inspect_eval(
            spec,
            model=script.answers.model(),
            model_roles={"grader": script.judge.model()},
            task_args={"data_dir": str(SYNTHETIC)},
            limit=1,
            log_dir=str(log_dir),
            display="none",
        )
        scores = sample_scores(log, "rubric_judge")
        assert scores == {c: pytest.approx(float(script.expected(c)), abs=1e-12) for c in scores}
        assert script.answers.calls == script.judge.calls == {c: 1 for c in scores}
    assert len(scores) == 1
    assert log.eval.task == task
    assert log.eval.task_version == task_version().comparability


@pytest.mark.slow  # Inspect evals
@pytest.mark.parametrize(("root", "spec"), LISTED, ids=LISTED_IDS)
def test_every_listed_task_string_runs(
    root: Path, spec: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)  # the strings are relative to where they were listed
    run(spec, spec.rsplit("@", 1)[1], tmp_path / "logs")
