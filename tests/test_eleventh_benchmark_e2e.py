"""An eleventh benchmark added as docs/maintainers.md says ("Adding a benchmark": a line in
`core/benchmarks.py`, a `@task` in `task/tasks.py`, an import in `_registry.py`) and nothing else,
in a copy of the package imported instead of this one (PYTHONPATH), runs end to end: a synthetic
release with the new benchmark loads, `inspect eval bedside_bench/<new>` scores its cases against
the provider double, and `bedside-bench report` reports it. The worktree is never changed: the edits
are made to the copy."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.core.benchmarks import BENCHMARKS, Benchmark
from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import (
    ANSWER_MODEL,
    assert_bought_once,
    eval_args,
    expected_scores,
    output,
    read_logs,
    run_console_script,
    scores_by_case,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, an Inspect eval and a provider double

REPO = Path(__file__).resolve().parents[1]
NEW = Benchmark("rare_diseases", "points_rubric", "Rare disease recognition and workup")
CASES = 3  # of the new benchmark (one of each of the ten others: the release is checked whole)


def replace_once(path: Path, anchor: str, text: str) -> None:
    """Put `text` in place of `anchor`, which must occur exactly once (a reshaped file fails
    here, by name, rather than the edit landing somewhere else)."""
    source = path.read_text(encoding="utf-8")
    assert source.count(anchor) == 1, f"{path.name}: {anchor!r} occurs {source.count(anchor)}x"
    path.write_text(source.replace(anchor, text), encoding="utf-8")


def copy_package(dest: Path) -> Path:
    """The package as installed: `bedside_bench/` with the folders pyproject.toml maps into
    it (`[tool.setuptools.package-dir]`: the schemas, the judge-check set)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    mapped = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"
    ]["package-dir"]
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "bedside_bench", dest / "bedside_bench", ignore=ignore)
    for package, folder in mapped.items():
        target = dest.joinpath(*package.split("."))
        shutil.copytree(REPO / folder, target, ignore=ignore)
    return dest


def add_benchmark(package: Path, new: Benchmark) -> None:
    """The three steps of "Adding a benchmark", as a maintainer types them."""
    replace_once(
        package / "core" / "benchmarks.py",
        "\n)\n\nBENCHMARK_NAMES",
        f"\n    Benchmark({new.name!r}, {new.grading_method!r}, {new.scope!r}),\n)\n\n"
        "BENCHMARK_NAMES",
    )
    with (package / "task" / "tasks.py").open("a", encoding="utf-8") as tasks:
        tasks.write(
            f"""

@task(name={new.name!r}, description={new.scope!r}, grading={new.grading_method!r})
@takes_task_options
def {new.name}(**options: Any) -> Task:
    \"\"\"{new.scope}.\"\"\"
    return bedside_task({new.name!r}, **options)
"""
        )
    replace_once(
        package / "_registry.py",
        "from bedside_bench.task.tasks import (  # noqa: F401\n",
        f"from bedside_bench.task.tasks import (  # noqa: F401\n    {new.name},\n",
    )


class Eleventh:
    """What the tests share: the copy, the release, the environment, the eval's logs."""

    def __init__(self, root: Path, release: Path, cases: dict[str, list[dict[str, Any]]]):
        self.root = root
        self.release = release
        self.cases = cases
        self.env: dict[str, str] = {}
        self.logs = root / "logs"


@pytest.fixture(scope="module")
def eleventh(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One `inspect eval` of the new benchmark's task, from the copy, against the double."""
    root = tmp_path_factory.mktemp("eleventh")
    copy = copy_package(root / "copy")
    add_benchmark(copy / "bedside_bench", NEW)
    release = root / "release"
    counts = {b.name: 1 for b in BENCHMARKS} | {NEW.name: CASES}
    cases: dict[str, list[dict[str, Any]]] = {}
    for benchmark in (*BENCHMARKS, NEW):
        part = write_release(release, counts[benchmark.name], benchmarks=[benchmark])
        cases.update(part)
    shared = Eleventh(root, release, cases)
    with ProviderDouble() as double:
        shared.env = {
            **double.subprocess_env(),
            "PYTHONPATH": str(copy),
            "BEDSIDE_BENCH_DATA": str(release),
            "XDG_DATA_HOME": str(root / "data-home"),
            "INSPECT_CACHE_DIR": str(root / "inspect-cache"),
            "INSPECT_LOG_DIR": str(shared.logs),
            "HF_HUB_OFFLINE": "1",
        }
        # processes of their own, all of them: they import the copy, not this package
        result = run_console_script(
            "inspect", *eval_args(NEW.name, shared.logs), cwd=root, env=shared.env
        )
        assert result.returncode == 0, output(result)
        assert_bought_once(double, cases[NEW.name], [ANSWER_MODEL])
        yield shared


def test_the_copy_is_what_the_commands_import(eleventh: Eleventh) -> None:
    """The premise: the subprocesses import the copy (which has the new benchmark), not the
    worktree (which has not), and the worktree is unchanged."""
    assert NEW.name not in {b.name for b in BENCHMARKS}
    listed = run_console_script("bedside-bench", "list", env=eleventh.env, cwd=eleventh.root)
    assert listed.returncode == 0, output(listed)
    assert f"bedside_bench/{NEW.name}" in listed.stdout
    assert f"  {NEW.grading_method}  " in listed.stdout.splitlines()[10]
    where = run_console_script(
        Path(sys.executable).name,
        "-c",
        "import bedside_bench; print(bedside_bench.__file__)",
        env=eleventh.env,
        cwd=eleventh.root,
    )
    assert where.stdout.strip() == str(eleventh.root / "copy" / "bedside_bench" / "__init__.py")


def test_inspect_eval_scores_the_new_benchmark(eleventh: Eleventh) -> None:
    (log,) = read_logs(eleventh.logs)
    assert log.status == "success"
    assert log.eval.task == NEW.name  # as Inspect records the ten (run as bedside_bench/<name>)
    assert log.eval.metadata is not None
    assert log.eval.metadata["benchmark"] == NEW.name
    assert log.eval.metadata["grading_method"] == NEW.grading_method
    assert log.eval.metadata["release_case_counts"][NEW.name] == CASES
    expected = expected_scores(eleventh.release, [ANSWER_MODEL], [NEW.name])
    found = {key: [s.value for s in scores] for key, scores in scores_by_case([log]).items()}
    assert found == {key: [pytest.approx(value, abs=1e-12)] for key, value in expected.items()}
    assert len(found) == CASES


def run_report(eleventh: Eleventh) -> tuple[Any, Path]:
    out = eleventh.root / "report"
    result = run_console_script(
        "bedside-bench",
        "report",
        str(eleventh.logs),
        "-o",
        str(out),
        "--resamples",
        "200",
        env=eleventh.env,
        cwd=eleventh.root,
    )
    return result, out


def test_the_report_names_the_new_benchmark(eleventh: Eleventh) -> None:
    result, out = run_report(eleventh)
    assert result.returncode == 0, output(result)
    (summary_file,) = out.glob("*.summary.json")
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    expected = expected_scores(eleventh.release, [ANSWER_MODEL], [NEW.name])
    entry = summary["benchmarks"][NEW.name]
    assert entry["n"] == CASES
    assert entry["mean"] == pytest.approx(sum(expected.values()) / CASES, abs=1e-12)
    assert NEW.name in (out / "report.md").read_text(encoding="utf-8")
    assert NEW.name in result.stdout


def test_release_factory_writes_only_the_benchmarks_given(tmp_path: Path) -> None:
    """The factory's `benchmarks` argument, which the fixture relies on to add the eleventh."""
    written = write_release(tmp_path, 2, benchmarks=[NEW])
    assert list(written) == [NEW.name]
    assert sorted(os.listdir(tmp_path / "data")) == [NEW.name]
    assert len(list((tmp_path / "data" / NEW.name / "cases").iterdir())) == 2
