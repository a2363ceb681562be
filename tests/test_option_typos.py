"""A misspelt option stops the run before anything is bought: `inspect eval` and
`inspect eval-set` with an unknown `-T`, and `inspect score` with an unknown `-S`, print one
line naming the closest option, and the provider double receives no request at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from bedside_bench.doubles import ProviderDouble
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import ANSWER_MODEL, JUDGE_MODEL, eval_args, only_log, run_cli
from tests.release_factory import write_release


def bedside_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("bedside-bench:")]


def env_of(double: ProviderDouble) -> dict[str, str]:
    return {**double.subprocess_env(), "COLUMNS": "400"}  # one line, not wrapped by the console


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "tasks", "option", "expected"),
    [
        (
            "eval",
            ["drug_safety"],
            "judge_pases=2",
            "-T judge_pases is not an option (did you mean judge_passes?)",
        ),
        (
            "eval-set",
            ["drug_safety", "safety_diagnostic"],
            "severe_gaet=true",
            "-T severe_gaet is not an option (did you mean severe_gate?)",
        ),
        (
            "eval",
            ["bedside_bench/judge_check"],
            "judge_retires=1",
            "-T judge_retires is not an option (did you mean judge_retries?)",
        ),
    ],
)
def test_a_misspelt_task_option_stops_before_any_call(
    tmp_path: Path,
    provider_double: ProviderDouble,
    command: str,
    tasks: list[str],
    option: str,
    expected: str,
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    task_args = [option] if tasks == ["bedside_bench/judge_check"] else [f"data_dir={release}"]
    if tasks != ["bedside_bench/judge_check"]:
        task_args.append(option)
    result = run_cli(
        eval_args(tasks, tmp_path / "logs", task_args=task_args, command=command),
        cwd=tmp_path,
        env=env_of(provider_double),
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert bedside_lines(output) == [f"bedside-bench: {expected}; no case was run"]
    assert "Traceback" not in output
    assert provider_double.requests() == []  # not one answer, judge call or probe


@pytest.mark.slow
def test_a_misspelt_scorer_option_stops_inspect_score_before_any_judge_call(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    env = env_of(provider_double)
    # `inspect eval ... --no-score` through Inspect's `eval()` in this process
    with pytest.MonkeyPatch.context() as patch:
        provider_double.apply_env(patch)
        reset_inspect_model_cache()
        try:
            (answered,) = inspect_eval(
                bedside_tasks.drug_safety(data_dir=str(release)),
                model=ANSWER_MODEL,
                model_roles={"grader": JUDGE_MODEL},
                score=False,
                log_dir=str(tmp_path / "logs"),
                display="none",
            )
        finally:
            reset_inspect_model_cache()
    assert answered.status == "success", answered.error
    log = only_log(tmp_path / "logs")
    before = len(provider_double.requests())
    for option, problem in [
        ("judge_passe=3", "-S judge_passe is not an option (did you mean judge_passes?)"),
        ("judge_passes=0", "judge_passes must be >= 1, got 0 (-T or -S option)"),
        # a wrong type too (it used to be taken as it came: `maybe` gated the cases)
        ("severe_gate=maybe", "severe_gate must be true or false, got 'maybe' (-T or -S option)"),
    ]:
        result = run_cli(
            ["score", log.location, "--scorer", "bedside_bench/rubric_judge", "-S", option]
            + ["--action", "overwrite", "--overwrite"],
            cwd=tmp_path,
            env=env,
        )
        output = result.stdout + result.stderr
        assert result.returncode != 0, output[-3000:]
        assert f"bedside-bench: {problem}; no case was run" in output, output[-3000:]
        assert "couldn't be loaded" not in output
    assert len(provider_double.requests()) == before  # no judge call
