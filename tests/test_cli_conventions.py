"""Inspect's conventions in the `bedside-bench` commands: `$INSPECT_LOG_DIR` and
`$INSPECT_EVAL_MODEL` where no flag is given, and one exit code per meaning (README's table,
`bedside_bench/core/exit_codes.py`), each asserted through the command line."""

from __future__ import annotations

import argparse
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.core import exit_codes
from bedside_bench.doubles import ProviderDouble
from bedside_bench.doubles.script import Script, invalid_judge_always
from tests.conftest import REPO_ROOT
from tests.e2e_helpers import eval_args, output, read_logs, run_cli, run_tool, sweep_env
from tests.independent import read_cases
from tests.release_factory import write_release

ANSWER = "openai/gpt-4.1-mini"
JUDGE = "openai/gpt-4.1"


def readme_exit_codes() -> dict[int, str]:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    return {int(m[1]): m[2] for m in re.finditer(r"^\| (\d+) \| (.+) \|$", section, re.M)}


def test_the_readme_table_lists_every_exit_code_once() -> None:
    assert sorted(readme_exit_codes()) == sorted(exit_codes.MEANINGS)
    assert len(set(exit_codes.MEANINGS)) == len(exit_codes.MEANINGS)
    assert exit_codes.USAGE == 2  # argparse's code, and Inspect's own for a bad command line


@pytest.mark.parametrize(
    ("flags", "env", "log_dir", "models"),
    [
        (["--model", "openai/a"], {}, "logs/sweep", ["openai/a"]),
        (
            [],
            {"INSPECT_LOG_DIR": "env-logs", "INSPECT_EVAL_MODEL": "openai/e, anthropic/f"},
            "env-logs/sweep",
            ["openai/e", "anthropic/f"],
        ),
        (
            ["--model", "openai/a", "--log-dir", "flag-logs"],
            {"INSPECT_LOG_DIR": "env-logs", "INSPECT_EVAL_MODEL": "openai/e"},
            "flag-logs",
            ["openai/a"],
        ),
    ],
)
def test_sweep_flag_then_environment_then_default(
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    env: dict[str, str],
    log_dir: str,
    models: list[str],
) -> None:
    from bedside_bench.sweep.command import configure_parser, options_from_args

    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    parser = argparse.ArgumentParser()
    configure_parser(parser)
    options = options_from_args(parser.parse_args(flags))
    assert (options.log_dir, options.models) == (log_dir, models)


def test_report_export_and_rejudge_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    from bedside_bench.core.arguments import inspect_log_dir

    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)
    assert inspect_log_dir() == "./logs"
    monkeypatch.setenv("INSPECT_LOG_DIR", "s3://bucket/logs")
    assert inspect_log_dir() == "s3://bucket/logs"
    monkeypatch.setenv("INSPECT_LOG_DIR", "")  # set but empty: as if unset, as Inspect reads it
    assert inspect_log_dir("logs/sweep") == "logs/sweep"


# --------------------------------------------------------------------------------------------
# one sweep configured by the environment only, with one benchmark's judging always failing


@pytest.fixture(scope="module")
def env_sweep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("conventions")
    release = root / "release"
    write_release(release, per_benchmark=2)
    failing = {c["prompt"] for c in read_cases(release, "drug_safety")}
    script = Script(judge=invalid_judge_always(lambda prompt: prompt in failing))
    with ProviderDouble(script=script) as double:
        env = sweep_env(double, root)
        env["INSPECT_LOG_DIR"] = str(root / "env-logs")
        env["INSPECT_EVAL_MODEL"] = ANSWER
        sweep = run_tool(
            "bedside-bench",
            "sweep",
            "--judge",
            JUDGE,
            "--benchmarks",
            "drug_safety,safety_diagnostic",
            "--smoke",
            "--data-dir",
            str(release),
            "--retry-attempts",
            "0",
            "-T",
            "judge_retries=0",
            "--display",
            "plain",
            env=env,
            cwd=root,
        )
        yield {"root": root, "release": release, "env": env, "sweep": sweep, "double": double}


@pytest.mark.slow
def test_sweep_takes_models_and_log_dir_from_the_environment(env_sweep: dict[str, Any]) -> None:
    root: Path = env_sweep["root"]
    # its own folder in $INSPECT_LOG_DIR: an eval set refuses a folder holding other logs
    logs = read_logs(root / "env-logs" / "sweep")
    assert sorted(str(log.eval.model) for log in logs) == [ANSWER, ANSWER]
    assert not (root / "logs").exists()  # nothing went to the default
    assert (root / "env-logs" / "sweep" / "report" / "report.md").is_file()


@pytest.mark.slow
def test_an_incomplete_sweep_exits_3_and_says_why(env_sweep: dict[str, Any]) -> None:
    result = env_sweep["sweep"]
    assert result.returncode == exit_codes.INCOMPLETE, output(result)
    lines = result.stdout.splitlines()
    start = lines.index("sweep: incomplete; the failed cases ended in these errors:")
    (error,) = [line for line in lines[start + 1 :] if line.startswith("  ")]
    assert error.startswith("  1 case(s): ") and "judge" in error.lower()
    assert "retries only the failed cases: it helps once the cause above has passed" in (
        result.stdout
    )


@pytest.mark.slow
def test_report_and_export_read_the_environment_log_dir(env_sweep: dict[str, Any]) -> None:
    root: Path = env_sweep["root"]
    work = root / "elsewhere"
    work.mkdir(exist_ok=True)
    report = run_tool("bedside-bench", "report", env=env_sweep["env"], cwd=work)
    assert report.returncode == exit_codes.OK, output(report)
    assert (work / "reports" / "report.md").is_file()
    export = run_tool(
        "bedside-bench", "data", "export", "-o", "out", env=env_sweep["env"], cwd=work
    )
    assert export.returncode == exit_codes.OK, output(export)
    assert (work / "out" / "results.parquet").is_file()


@pytest.mark.slow
def test_a_refused_comparison_exits_4_and_force_exits_0(env_sweep: dict[str, Any]) -> None:
    """A second model judged by another judge: not like for like."""
    root: Path = env_sweep["root"]
    logs = root / "unlike"
    shutil.copytree(root / "env-logs" / "sweep", logs, ignore=shutil.ignore_patterns("report"))
    other = run_cli(
        eval_args(
            ["drug_safety", "safety_diagnostic"],
            logs,
            model="openai/gpt-4.1-nano",
            grader=ANSWER,
            task_args=[f"data_dir={env_sweep['release']}", "smoke=true"],
        ),
        cwd=root,
        env=env_sweep["double"].subprocess_env(),
    )
    assert other.returncode == 0, output(other)
    refused = run_tool(
        "bedside-bench", "report", str(logs), "-o", "r1", env=env_sweep["env"], cwd=root
    )
    assert refused.returncode == exit_codes.REFUSED, output(refused)
    assert "--force" in refused.stdout + refused.stderr
    forced = run_tool(
        "bedside-bench", "report", str(logs), "-o", "r2", "--force", env=env_sweep["env"], cwd=root
    )
    assert forced.returncode == exit_codes.OK, output(forced)


# --------------------------------------------------------------------------------------------
# errors before anything runs


@pytest.mark.slow
def test_a_wrong_command_line_exits_2(tmp_path: Path) -> None:
    unknown = run_tool("bedside-bench", "report", "--no-such-flag", cwd=tmp_path)
    assert unknown.returncode == exit_codes.USAGE, output(unknown)
    refused = run_tool(
        "bedside-bench", "sweep", "--model", ANSWER, "--fail-on-error", "0.1", cwd=tmp_path
    )
    assert refused.returncode == exit_codes.USAGE, output(refused)
    assert "--fail-on-error is not a sweep option: a sweep runs every case" in refused.stderr
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_LOG_DIR"}
    no_logs = run_tool("bedside-bench", "rejudge", "--judge", JUDGE, env=env, cwd=tmp_path)
    assert no_logs.returncode == exit_codes.USAGE, output(no_logs)
    assert "give a LOG_PATH (or set $INSPECT_LOG_DIR)" in no_logs.stderr


@pytest.mark.slow
def test_a_bad_input_exits_1(tmp_path: Path, provider_double: ProviderDouble) -> None:
    missing = run_tool("bedside-bench", "report", str(tmp_path / "nothing"), cwd=tmp_path)
    assert missing.returncode == exit_codes.ERROR, output(missing)
    mock = run_tool(
        "bedside-bench",
        "sweep",
        "--model",
        ANSWER,
        "--judge",
        "mockllm/model",
        "--log-dir",
        str(tmp_path / "logs"),
        env=provider_double.subprocess_env(),
        cwd=tmp_path,
    )
    assert mock.returncode == exit_codes.ERROR, output(mock)
    assert "mockllm/model cannot judge: it answers every call with one fixed text" in mock.stderr
    typo = run_tool(
        "bedside-bench",
        "sweep",
        "--model",
        ANSWER,
        "--judge",
        JUDGE,
        "-T",
        "judge_pases=2",
        "--data-dir",
        str(REPO_ROOT / "data" / "synthetic"),
        "--log-dir",
        str(tmp_path / "logs"),
        env=provider_double.subprocess_env(),
        cwd=tmp_path,
    )
    assert typo.returncode == exit_codes.ERROR, output(typo)
    assert "error: -T judge_pases is not an option (did you mean judge_passes?)" in typo.stderr
    assert "Traceback" not in typo.stderr
    assert provider_double.requests() == []


@pytest.mark.slow
def test_rejudge_from_the_environment_never_judges_its_own_output(
    env_sweep: dict[str, Any],
) -> None:
    """`$INSPECT_LOG_DIR/rejudge` lies inside `$INSPECT_LOG_DIR`: run again, the rejudge asks
    only about the case its judge failed (the drug_safety one the script always fails), never
    about its own output's cases, and writes no new log (it once re-judged its own output)."""
    root: Path = env_sweep["root"]
    double: ProviderDouble = env_sweep["double"]
    failing = {c["prompt"] for c in read_cases(env_sweep["release"], "drug_safety")}
    first = run_tool("bedside-bench", "rejudge", "--judge", OTHER, env=env_sweep["env"], cwd=root)
    assert first.returncode in (exit_codes.OK, exit_codes.INCOMPLETE), output(first)
    written = sorted(p.name for p in (root / "env-logs" / "rejudge").glob("*.eval"))
    assert len(written) == 2  # one per source log, none of a rejudge log
    before = max(r.seq for r in double.requests())
    again = run_tool("bedside-bench", "rejudge", "--judge", OTHER, env=env_sweep["env"], cwd=root)
    assert again.returncode in (exit_codes.OK, exit_codes.INCOMPLETE), output(again)
    asked = [r for r in double.requests(kind="judge") if r.seq > before]
    assert asked and all(r.request.judge.prompt in failing for r in asked)
    assert sorted(p.name for p in (root / "env-logs" / "rejudge").glob("*.eval")) == written


OTHER = "openai/gpt-4.1-nano"
