"""Every input bounded before anything is bought, and said once under every display: `inspect
eval` with a judge option past its ceiling (`-T judge_passes=1000000000` bought the answer and
ran out of memory; `-T judge_passes=1_000` made 1,001 paid calls a case) or a data folder that
is not there (`--display none` exited 1 without a word) stops with one line and no request."""

from __future__ import annotations

from pathlib import Path

import pytest

from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import eval_args, run_cli
from tests.release_factory import write_release

pytestmark = pytest.mark.slow

PASSES_TOO_MANY = (
    "bedside-bench: judge_passes must be <= 15 (the report's interval over judge passes is "
    "computed for up to 15; each is a paid call), got {} (-T or -S option); no case was run"
)


@pytest.mark.parametrize("display", ["none", "plain"])
@pytest.mark.parametrize(
    ("task_arg", "said"),
    [
        ("judge_passes=1000000000", PASSES_TOO_MANY.format(1000000000)),
        ("judge_passes=1_000", PASSES_TOO_MANY.format(1000)),  # YAML reads 1_000 as 1000
        ("data_dir=/nonexistent", "-T data_dir '/nonexistent' is not a directory."),
    ],
)
def test_an_input_out_of_bounds_is_said_once_under_every_display_and_nothing_is_bought(
    tmp_path: Path, provider_double: ProviderDouble, display: str, task_arg: str, said: str
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    task_args = (
        [task_arg] if task_arg.startswith("data_dir=") else [f"data_dir={release}", task_arg]
    )
    result = run_cli(
        eval_args("drug_safety", tmp_path / "logs", task_args=task_args, display=display),
        cwd=tmp_path,
        env={**provider_double.subprocess_env(), "COLUMNS": "1000"},  # rich wraps otherwise
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-3000:]
    lines = [line for line in output.splitlines() if said in line]
    assert len(lines) == 1, output[-3000:]
    assert "Traceback" not in output
    assert provider_double.requests() == []  # not one answer, judge call or probe
