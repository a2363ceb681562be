"""Fail before paying: a judge that cannot be used stops `inspect eval` and `inspect eval-set`
with one clear line before the answer model is asked anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval

from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.doubles import DEFAULT_OPENAI_KEY, ProviderDouble
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import eval_args, run_cli, run_console_script
from tests.release_factory import write_release

ANSWER_MODEL = "anthropic/claude-sonnet-4-6"  # its key is set; the judge's is not


def env_without_openai_key(double: ProviderDouble) -> dict[str, str]:
    env = double.subprocess_env()
    env.pop("OPENAI_API_KEY")
    env.pop("OPENAI_ACCESS_TOKEN", None)
    env["COLUMNS"] = "400"  # the console wraps at its width; the message is one line
    return env


def refused(
    tmp_path: Path,
    double: ProviderDouble,
    env: dict[str, str],
    *task_args: str,
    tasks: str | list[str] = "drug_safety",
    process: bool = False,
    **options: Any,
) -> str:
    """`inspect eval` (`eval_args` options) on a small release, which must fail before the
    double is asked anything; its output. In this process; `process=True` in one of its own."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    args = eval_args(
        tasks, tmp_path / "logs", task_args=[f"data_dir={release}", *task_args], **options
    )
    if process:
        result = run_console_script("inspect", *args, cwd=tmp_path, env=env)
    else:
        result = run_cli(args, cwd=tmp_path, env=env)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert double.requests() == []  # not one answer (nor anything else) was bought
    return output


def judge_error_lines(output: str, judge: str) -> list[str]:
    return [line for line in output.splitlines() if f"the judge {judge} cannot be used" in line]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "display"), [("eval", "plain"), ("eval-set", "plain"), ("eval", "none")]
)
def test_default_judge_without_key_stops_before_any_answer(
    tmp_path: Path, provider_double: ProviderDouble, command: str, display: str
) -> None:
    """Under `--display none` Inspect prints no prerequisite error at all; ours still says
    why the run stopped."""
    output = refused(
        tmp_path,
        provider_double,
        env_without_openai_key(provider_double),
        tasks=["drug_safety", "safety_diagnostic"],
        model=ANSWER_MODEL,
        grader=None,
        command=command,
        display=display,
        process=command == "eval-set",  # `inspect eval-set` as a user starts it
    )
    (line,) = judge_error_lines(output, DEFAULT_JUDGE_MODEL)
    assert "OPENAI_API_KEY" in line and "--model-role grader=" in line
    assert "[bold]" not in line  # Inspect's console markup is not shown raw
    assert "Traceback" not in output


@pytest.mark.slow
def test_unknown_judge_model_stops_before_any_answer(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """A misspelt provider names the closest one Inspect knows (`-T judge_model`, where the
    task sees the name; a `--model-role grader=` name Inspect creates before any task)."""
    env = {**provider_double.subprocess_env(), "COLUMNS": "400"}
    output = refused(
        tmp_path, provider_double, env, "judge_model=antropic/claude-sonnet-4-6", grader=None
    )
    (line,) = judge_error_lines(output, "antropic/claude-sonnet-4-6")
    assert line.endswith(
        "Inspect knows no model provider 'antropic' (did you mean "
        "anthropic/claude-sonnet-4-6?). Bind a usable judge with --model-role grader=... or "
        "-T judge_model=..."
    )
    assert "Traceback" not in output


@pytest.mark.slow
def test_grader_role_key_is_checked_and_no_secret_is_printed(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """A grader bound with --model-role is created by Inspect up front; the run stops too."""
    env = env_without_openai_key(provider_double)
    output = refused(tmp_path, provider_double, env, model=ANSWER_MODEL)
    assert "OPENAI_API_KEY" in output
    assert DEFAULT_OPENAI_KEY not in output


@pytest.mark.slow
def test_judge_with_key_runs_normally(tmp_path: Path, provider_env: ProviderDouble) -> None:
    """The check costs nothing when the judge is usable: one answer and one judge call (through
    Inspect's `eval()` in this process, `-T judge_model=...` and no grader role)."""
    provider_double = provider_env
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    task = bedside_tasks.drug_safety(data_dir=str(release), judge_model="openai/gpt-4.1")
    (log,) = inspect_eval(task, model=ANSWER_MODEL, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert provider_double.count(kind="answer") == 1
    assert provider_double.count(kind="judge") == 1


OUT_OF_RANGE = [
    ("judge_passes=0", "judge_passes must be >= 1, got 0"),
    ("judge_retries=-1", "judge_retries must be >= 0, got -1"),
    ("grading=five", "grading must be one of binary, three_level, got 'five'"),
]


@pytest.mark.slow
def test_a_judge_option_out_of_range_stops_before_any_answer(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    """Through `inspect eval` for the first; the others are the same check of another option
    (`test_every_judge_option_out_of_range_stops_the_task_being_built`)."""
    option, problem = OUT_OF_RANGE[0]
    env = {**provider_double.subprocess_env(), "COLUMNS": "400"}
    output = refused(tmp_path, provider_double, env, option, display="none")
    assert [line for line in output.splitlines() if line.startswith("bedside-bench:")] == [
        f"bedside-bench: {problem} (-T or -S option); no case was run"
    ]
    assert "Traceback" not in output


@pytest.mark.parametrize(("option", "problem"), OUT_OF_RANGE)
def test_every_judge_option_out_of_range_stops_the_task_being_built(
    tmp_path: Path, option: str, problem: str
) -> None:
    """What `inspect eval -T OPTION` prints on its one line (above), for every option: the
    task refuses to be built, so no answer can be bought."""
    from bedside_bench.scoring.scorer import TaskOptionError

    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    name, value = option.split("=")
    typed: object = int(value) if value.lstrip("-").isdigit() else value
    with pytest.raises(TaskOptionError) as caught:
        bedside_tasks.drug_safety(data_dir=str(release), **{name: typed})
    assert str(caught.value) == f"bedside-bench: {problem} (-T or -S option); no case was run"
