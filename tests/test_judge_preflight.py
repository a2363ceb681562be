"""Fail before paying: a judge that cannot be used stops `inspect eval` and `inspect eval-set`
with one clear line before the answer model is asked anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bedside_bench.protocol import DEFAULT_JUDGE_MODEL
from tests.doubles import DEFAULT_OPENAI_KEY, ProviderDouble
from tests.e2e_helpers import eval_args, run_cli
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
    **options: Any,
) -> str:
    """`inspect eval` (`eval_args` options) on a small release, which must fail before the
    double is asked anything; its output."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    result = run_cli(
        eval_args(
            tasks, tmp_path / "logs", task_args=[f"data_dir={release}", *task_args], **options
        ),
        cwd=tmp_path,
        env=env,
    )
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
    )
    (line,) = judge_error_lines(output, DEFAULT_JUDGE_MODEL)
    assert "OPENAI_API_KEY" in line and "--model-role grader=" in line
    assert "[bold]" not in line  # Inspect's console markup is not shown raw
    assert "Traceback" not in output


@pytest.mark.slow
def test_unknown_judge_model_stops_before_any_answer(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    env = {**provider_double.subprocess_env(), "COLUMNS": "400"}
    output = refused(
        tmp_path, provider_double, env, "judge_model=nosuchprovider/judge-1", grader=None
    )
    (line,) = judge_error_lines(output, "nosuchprovider/judge-1")
    assert "not recognized" in line


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
def test_judge_with_key_runs_normally(tmp_path: Path, provider_double: ProviderDouble) -> None:
    """The check costs nothing when the judge is usable: one answer and one judge call."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    result = run_cli(
        eval_args(
            "drug_safety",
            tmp_path / "logs",
            model=ANSWER_MODEL,
            grader=None,
            task_args=[f"data_dir={release}", "judge_model=openai/gpt-4.1"],
        ),
        cwd=tmp_path,
        env=provider_double.subprocess_env(),
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert provider_double.count(kind="answer") == 1
    assert provider_double.count(kind="judge") == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "problem"),
    [
        ("judge_passes=0", "judge_passes must be >= 1, got 0"),
        ("judge_retries=-1", "judge_retries must be >= 0, got -1"),
        ("grading=five", "grading must be one of binary, three_level, got 'five'"),
    ],
)
def test_a_judge_option_out_of_range_stops_before_any_answer(
    tmp_path: Path, provider_double: ProviderDouble, option: str, problem: str
) -> None:
    env = {**provider_double.subprocess_env(), "COLUMNS": "400"}
    output = refused(tmp_path, provider_double, env, option, display="none")
    assert [line for line in output.splitlines() if line.startswith("bedside-bench:")] == [
        f"bedside-bench: {problem} (-T or -S option); no case was run"
    ]
    assert "Traceback" not in output
