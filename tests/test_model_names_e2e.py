"""A misspelt provider in every command that takes a model or judge name, as a user types it,
against the provider doubles: one line naming the closest provider, exit 1, nothing bought, no
log written. (`inspect eval -T judge_model=`: tests/test_judge_preflight.py.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from bedside_bench.core import exit_codes
from bedside_bench.core.safe_text import printable
from bedside_bench.doubles import ProviderDouble
from tests.conftest import SYNTHETIC_RELEASE
from tests.e2e_helpers import Result, output, run_sweep_cli, run_tool, sweep_args, sweep_env
from tests.ledger import ledger

pytestmark = pytest.mark.slow

TYPO = "antropic/claude-sonnet-4-6"
SUGGESTION = (
    "Inspect knows no model provider 'antropic' (did you mean anthropic/claude-sonnet-4-6?)"
)


@pytest.fixture(scope="module")
def double() -> Iterator[ProviderDouble]:
    with ProviderDouble() as started:
        yield started


def refused_in_one_line(result: Result, double: ProviderDouble, logs: Path) -> str:
    assert result.returncode == exit_codes.ERROR, output(result)
    assert result.stdout == "", output(result)
    (line,) = result.stderr.splitlines()
    assert ledger(double) == Counter() and double.requests() == []  # nothing bought
    assert not logs.exists()
    return line


@pytest.mark.parametrize("role", ["model", "judge"])
def test_sweep(tmp_path: Path, double: ProviderDouble, role: str) -> None:
    logs = tmp_path / "logs"
    if role == "model":  # the command: the second of two models misspelt
        args = sweep_args(["openai/gpt-4.1-mini", TYPO], logs, data_dir=SYNTHETIC_RELEASE)
    else:
        args = sweep_args(["openai/gpt-4.1-mini"], logs, "--judge", TYPO)
    result = run_sweep_cli(args, sweep_env(double, tmp_path), tmp_path)
    line = refused_in_one_line(result, double, logs)
    assert line == f"bedside-bench sweep: error: {role} {TYPO}: {SUGGESTION}"


def test_rejudge(tmp_path: Path, double: ProviderDouble) -> None:
    source = tmp_path / "source"
    source.mkdir()
    out = tmp_path / "rejudged"
    result = run_tool(
        "bedside-bench",
        "rejudge",
        str(source),
        "--judge",
        TYPO,
        "--output-dir",
        str(out),
        env=sweep_env(double, tmp_path),
        cwd=tmp_path,
    )
    line = refused_in_one_line(result, double, out)
    assert line == f"bedside-bench rejudge: error: judge {TYPO}: {SUGGESTION}"


# --------------------------------------------------------------------------------------------
# a judge that could never judge: the same refusal in every command that names a judge

NOT_A_JUDGE = {
    "empty after the provider": ("openai/", "is not an Inspect model name such as"),
    "empty": ("", "is not an Inspect model name such as"),
    "a model that never calls": ("mockllm/model", "cannot judge: it answers every call"),
    "no model at all": ("none/none", "cannot judge: it is Inspect's stand-in for no model"),
    "an escape inside": ("openai/gpt-4.1\x1b[31m", "cannot hold control, bidi or surrogate"),
    "nothing shown after the provider": ("openai/\u200b", "a character that shows nothing"),
}


@pytest.mark.parametrize("case", list(NOT_A_JUDGE))
@pytest.mark.parametrize("how", ["--judge", "-T judge_model", "rejudge --judge"])
def test_a_judge_that_cannot_judge_is_refused_before_any_call(
    tmp_path: Path, double: ProviderDouble, case: str, how: str
) -> None:
    """Never the default judge for an empty name, never an answer bought for a judge that
    cannot judge it, never the name's escape on the terminal."""
    name, reason = NOT_A_JUDGE[case]
    out = tmp_path / "out"
    env = sweep_env(double, tmp_path)
    if how == "rejudge --judge":
        (tmp_path / "source").mkdir()
        args = ["rejudge", str(tmp_path / "source"), "--judge", name, "-o", str(out)]
        result = run_tool("bedside-bench", *args, env=env, cwd=tmp_path)
    else:
        named = ["--judge", name] if how == "--judge" else ["-T", f"judge_model={name}"]
        args = sweep_args(["openai/gpt-4.1-mini"], out, *named, data_dir=SYNTHETIC_RELEASE)
        result = run_sweep_cli(args, env, tmp_path)
    line = refused_in_one_line(result, double, out)
    if how == "-T judge_model" and not name:  # YAML reads nothing as null, the default
        reason = "task argument judge_model= has no value"
    assert reason in line and line.isprintable(), line


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (TYPO, SUGGESTION),
        ("openai/", "must be an Inspect model name such as openai/gpt-5.4-mini"),
    ],
)
def test_inspect_score_names_a_judge_it_cannot_use_in_one_line(
    tmp_path: Path, double: ProviderDouble, name: str, reason: str
) -> None:
    """`inspect score LOG -S judge_model=...`, the README's way to judge a log again."""
    from tests.review_files import judged_log

    log = judged_log(tmp_path / "logs" / "a.eval", {"c1": "Stop the NSAID."})
    args = ["score", log, "--scorer", "bedside_bench/rubric_judge", "-S", f"judge_model={name}"]
    env = {**sweep_env(double, tmp_path), "COLUMNS": "400"}  # Inspect's console wraps at it
    result = run_tool("inspect", *args, "--display", "none", env=env)
    said = result.stdout + result.stderr
    assert result.returncode != 0 and "Traceback" not in said, said[-3000:]
    assert double.requests() == []
    lines = [line for line in said.splitlines() if "judge_model" in line]
    assert len(lines) == 1, said[-3000:]
    (line,) = lines
    assert line.startswith("bedside-bench: judge_model ") and printable(name) in line, line
    assert reason in line, line
