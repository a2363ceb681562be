"""`.env` in every `bedside-bench` command, read as Inspect's commands read it.

The loader is checked against Inspect's own (`init_dotenv`, which `inspect` runs when it
starts) over every way the file and the environment can set `INSPECT_LOG_DIR` and another
variable; then the commands users type, through `main(argv)` in a folder below the `.env`:
`report` reads the log directory the file names, `sweep` the models and the grader, and a
variable already set wins over the file.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from bedside_bench.cli.main import main
from bedside_bench.core import exit_codes
from bedside_bench.core.arguments import load_dotenv_as_inspect
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.sweep.options import SweepOptions
from tests.e2e_helpers import swept_options

VARIABLES = ("INSPECT_LOG_DIR", "INSPECT_EVAL_MODEL", "INSPECT_EVAL_MODEL_ROLE", "DOTENV_PROBE")
VSCODE = ("VSCODE_IPYTHON_KERNEL", "VSCODE_CLI_REQUIRE_TOKEN", "VSCODE_PID", "VSCODE_CWD")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder holding `.env`, the working folder one below it, the variables unset."""
    (tmp_path / "project" / "sub").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "project" / "sub")
    for name in (*VARIABLES, *VSCODE, "TERM_PROGRAM"):
        unset(monkeypatch, name)
    return tmp_path / "project"


def unset(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """`name` unset, and unset again afterwards even when a loader sets it (monkeypatch
    restores only what it recorded: set it first, so its absence is recorded)."""
    monkeypatch.setenv(name, "recorded")
    monkeypatch.delenv(name)


def environment_after(loader: object, monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    with monkeypatch.context() as scoped:
        for name in VARIABLES:  # each loader starts from the same environment
            if name in os.environ:
                scoped.setenv(name, os.environ[name])
            else:
                unset(scoped, name)
        loader()  # type: ignore[operator]
        return {name: os.environ.get(name) for name in VARIABLES}


FILE_LOG_DIRS = [None, "runs", "/abs/runs", "s3://bucket/runs", "../up"]
SET_LOG_DIRS = [None, "", "runs", "elsewhere", "/abs/other", "s3://b/x/"]


@pytest.mark.parametrize(
    ("in_file", "in_environment", "vscode"),
    list(itertools.product(FILE_LOG_DIRS, SET_LOG_DIRS, [False, True])),
)
def test_the_environment_after_loading_is_inspects(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    in_file: str | None,
    in_environment: str | None,
    vscode: bool,
) -> None:
    from inspect_ai._util import dotenv as inspect_dotenv

    monkeypatch.setattr(inspect_dotenv, "_cli_env", {})  # no `inspect --env` of another test
    lines = ["DOTENV_PROBE=from-file", "INSPECT_EVAL_MODEL=openai/from-file"]
    if in_file is not None:
        lines.append(f"INSPECT_LOG_DIR={in_file}")
    (project / ".env").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "openai/set")
    if in_environment is not None:
        monkeypatch.setenv("INSPECT_LOG_DIR", in_environment)
    if vscode:
        monkeypatch.setenv("TERM_PROGRAM", "vscode")
    ours = environment_after(load_dotenv_as_inspect, monkeypatch)
    inspects = environment_after(inspect_dotenv.init_dotenv, monkeypatch)
    assert ours == inspects
    assert ours["DOTENV_PROBE"] == "from-file"
    assert ours["INSPECT_EVAL_MODEL"] == ("openai/from-file" if vscode else "openai/set")


def test_no_dotenv_changes_nothing(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", "runs")
    assert load_dotenv_as_inspect() is None
    assert os.environ["INSPECT_LOG_DIR"] == "runs"


# --------------------------------------------------------------------------------------------
# the commands


def test_report_reads_the_log_dir_of_the_dotenv(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text("INSPECT_LOG_DIR=runs\n")
    (project / "runs").mkdir()
    code = main(["report", "-o", str(project / "out")])
    # relative to the .env's folder, not to the working folder, as `inspect view` reads it
    assert code == exit_codes.ERROR
    assert capsys.readouterr().err.splitlines() == [
        f"bedside-bench report: error: no Inspect logs found under '{project / 'runs'}' (give "
        "the folder `inspect eval` wrote to: its --log-dir, else $INSPECT_LOG_DIR, else ./logs)"
    ]


def test_a_log_dir_already_set_wins_over_the_dotenv(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text("INSPECT_LOG_DIR=runs\n")
    monkeypatch.setenv("INSPECT_LOG_DIR", "mine")
    assert main(["report", "-o", str(project / "out")]) == exit_codes.ERROR
    assert f"no Inspect logs found under '{project / 'sub' / 'mine'}'" in capsys.readouterr().err


def sweep_options(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, list[SweepOptions]]:
    """`bedside-bench sweep ARGV` through `main`, the sweep replaced by one keeping its options."""
    return swept_options(monkeypatch, "--no-report", *argv)


def test_sweep_takes_models_grader_and_log_dir_from_the_dotenv(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text(
        "INSPECT_EVAL_MODEL=openai/gpt-4.1-mini,anthropic/claude-sonnet-4-6\n"
        "INSPECT_EVAL_MODEL_ROLE=grader=openai/gpt-4.1\n"
        "INSPECT_LOG_DIR=runs\n"
    )
    code, seen = sweep_options(monkeypatch)
    assert code == exit_codes.OK
    [options] = seen
    assert list(options.models) == ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]
    assert options.judge == "openai/gpt-4.1"
    assert options.log_dir == f"{project / 'runs'}/sweep"


def test_sweep_flags_and_set_variables_win_over_the_dotenv(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text(
        "INSPECT_EVAL_MODEL=openai/gpt-4.1-mini\nINSPECT_EVAL_MODEL_ROLE=grader=openai/gpt-4.1\n"
    )
    monkeypatch.setenv("INSPECT_EVAL_MODEL", "anthropic/claude-sonnet-4-6")
    _, [options] = sweep_options(monkeypatch)
    assert (list(options.models), options.judge) == (
        ["anthropic/claude-sonnet-4-6"],
        "openai/gpt-4.1",
    )
    _, [flagged] = sweep_options(monkeypatch, "--model", "openai/o3", "--judge", "openai/o4-mini")
    assert (list(flagged.models), flagged.judge) == (["openai/o3"], "openai/o4-mini")


def test_sweep_without_a_grader_binding_takes_the_protocols_judge(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text(
        "INSPECT_EVAL_MODEL=openai/gpt-4.1-mini\nINSPECT_EVAL_MODEL_ROLE=critic=openai/o3\n"
    )
    _, [options] = sweep_options(monkeypatch)
    assert options.judge == DEFAULT_JUDGE_MODEL


def test_sweep_refuses_a_grader_bound_to_a_config_in_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".env").write_text(
        "INSPECT_EVAL_MODEL=openai/gpt-4.1-mini\n"
        "INSPECT_EVAL_MODEL_ROLE=grader=openai/gpt-4.1,anthropic/claude-sonnet-4-6\n"
    )
    code, seen = sweep_options(monkeypatch)
    assert (code, seen) == (exit_codes.ERROR, [])
    assert capsys.readouterr().err.splitlines() == [
        "bedside-bench sweep: error: $INSPECT_EVAL_MODEL_ROLE binds grader to "
        "'openai/gpt-4.1,anthropic/claude-sonnet-4-6', which is not one model name: "
        "give --judge MODEL"
    ]
