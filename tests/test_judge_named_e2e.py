"""The judge that ran is the judge the log names: through Inspect's `eval()` with
`model_roles={"grader": ...}`, no task argument, scorer option, metadata or frame of Inspect's
analysis names a judge that did not judge (the protocol's default judge above all), and a
`-T judge_model` that names another judge than the grader role stops the run before any
answer is bought."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.analysis import evals_df
from inspect_ai.log import EvalLog, read_eval_log

from bedside_bench.core.options import TaskOptionError
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.doubles import ProviderDouble
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import ANSWER_MODEL, eval_against, local_path
from tests.ledger import assert_bought_once
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # Inspect evals and a provider double

BENCHMARK = "drug_safety"
GRADER = "openai/gpt-4.1"  # not the protocol's default judge


@pytest.fixture(scope="module")
def double() -> Iterator[ProviderDouble]:
    with ProviderDouble() as server:
        yield server


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release")
    write_release(root, per_benchmark=2)
    return root


def run(double: ProviderDouble, log_dir: Path, task: object, **options: object) -> EvalLog:
    (log,) = eval_against(double, task, log_dir, model=ANSWER_MODEL, grader=None, **options)
    return log


@pytest.fixture(scope="module")
def graded(
    double: ProviderDouble, release: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, EvalLog]:
    """`inspect eval bedside_bench/drug_safety --model-role grader=openai/gpt-4.1`, through
    `eval()`: the task built by name inside the run, as the command line builds it."""
    double.reset()
    log_dir = tmp_path_factory.mktemp("graded") / "logs"
    log = run(
        double,
        log_dir,
        f"bedside_bench/{BENCHMARK}",
        task_args={"data_dir": str(release)},
        model_roles={"grader": GRADER},
    )
    assert log.status == "success", log.error
    return log_dir, read_eval_log(log.location)


def test_the_log_names_only_the_judge_that_ran(graded: tuple[Path, EvalLog]) -> None:
    _, log = graded
    assert log.eval.task_args["judge_model"] is None  # no judge named that did not judge
    assert (log.eval.metadata or {})["judge_model"] == GRADER  # the judge the run resolved
    (scorer,) = log.eval.scorers or []
    assert (scorer.options or {}).get("judge_model") is None
    assert log.samples
    for sample in log.samples:
        assert (sample.scores["rubric_judge"].metadata or {})["judge_model"] == GRADER  # type: ignore[index]
    # nowhere in the whole log, samples and their judge calls included
    assert DEFAULT_JUDGE_MODEL not in local_path(log.location).read_bytes().decode("latin-1")


def test_inspects_frames_name_only_the_judge_that_ran(graded: tuple[Path, EvalLog]) -> None:
    log_dir, _ = graded
    frame = evals_df(str(log_dir), quiet=True)
    (row,) = frame.to_dict("records")
    assert (
        row["task_arg_judge_model"] is None
        or row["task_arg_judge_model"] != row["task_arg_judge_model"]
    )  # null (None, or NaN in a float column)
    assert GRADER in str(row["model_roles"])
    assert not [k for k, v in row.items() if DEFAULT_JUDGE_MODEL in str(v)]


def test_a_task_built_before_the_run_names_no_judge(
    double: ProviderDouble, release: Path, tmp_path: Path
) -> None:
    """Built outside the run (the Python API), the task cannot know its grader: its arguments
    and metadata name none; the scores name the one that judged."""
    double.reset()
    task = bedside_tasks.drug_safety(data_dir=str(release))
    log = run(double, tmp_path / "logs", task, model_roles={"grader": GRADER})
    assert log.status == "success", log.error
    assert log.eval.task_args["judge_model"] is None
    assert "judge_model" not in (log.eval.metadata or {})
    assert {s.scores["rubric_judge"].metadata["judge_model"] for s in log.samples or []} == {  # type: ignore[index]
        GRADER
    }


def test_a_task_argument_naming_another_judge_than_the_role_stops_the_run(
    double: ProviderDouble, release: Path, tmp_path: Path
) -> None:
    double.reset()
    with pytest.raises(TaskOptionError) as refused:
        run(
            double,
            tmp_path / "logs",
            f"bedside_bench/{BENCHMARK}",
            task_args={"data_dir": str(release), "judge_model": DEFAULT_JUDGE_MODEL},
            model_roles={"grader": GRADER},
        )
    assert str(refused.value) == (
        f"bedside-bench: -T judge_model={DEFAULT_JUDGE_MODEL} and --model-role grader={GRADER} "
        "name two judges, so no case was run: the grader role would judge and the log would "
        "name both; give one of them"
    )
    assert_bought_once(double, [], [ANSWER_MODEL])  # nothing bought
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())
