"""An unknown flag of a subcommand (`core/arguments.py`, `SuggestingParser`): the subcommand's
own usage and the closest flag it has, exit 2, before anything is imported or run."""

from __future__ import annotations

import pytest

from bedside_bench.cli.main import main
from bedside_bench.core import exit_codes
from bedside_bench.sweep.command import main as sweep_main


def refused(capsys: pytest.CaptureFixture[str], *argv: str, entry: object = main) -> str:
    with pytest.raises(SystemExit) as stopped:
        entry(list(argv))  # type: ignore[operator]
    captured = capsys.readouterr()
    assert stopped.value.code == exit_codes.USAGE
    assert captured.out == ""
    return captured.err


@pytest.mark.parametrize(
    ("argv", "usage", "error"),
    [
        (
            ["sweep", "--modle", "openai/gpt-4.1-mini"],
            "usage: bedside-bench sweep [-h] [--model MODELS]",
            "bedside-bench sweep: error: unrecognized arguments: --modle openai/gpt-4.1-mini "
            "(--modle: did you mean --model?)",
        ),
        (
            ["rejudge", "logs", "--judge", "openai/gpt-4", "--faild-only"],
            "usage: bedside-bench rejudge ",
            "bedside-bench rejudge: error: unrecognized arguments: --faild-only "
            "(--faild-only: did you mean --failed-only?)",
        ),
        (
            ["demo", "--opne", "--cases=3"],
            "usage: bedside-bench demo ",
            "bedside-bench demo: error: unrecognized arguments: --opne "
            "(--opne: did you mean --open?)",
        ),
        (
            ["data", "path", "--jsno"],
            "usage: bedside-bench data path ",
            "bedside-bench data path: error: unrecognized arguments: --jsno "
            "(--jsno: did you mean --json?)",
        ),
        (
            ["report", "logs", "--prices=p.json", "--out-dri=x"],
            "usage: bedside-bench report ",
            "bedside-bench report: error: unrecognized arguments: --out-dri=x "
            "(--out-dri: did you mean --out-dir?)",
        ),
        (
            ["sweep", "--zzz", "stray"],
            "usage: bedside-bench sweep ",
            "bedside-bench sweep: error: unrecognized arguments: --zzz stray",
        ),
    ],
)
def test_an_unknown_flag_gets_its_commands_usage_and_the_closest_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str], usage: str, error: str
) -> None:
    err = refused(capsys, *argv)
    assert err.startswith(usage)
    assert err.splitlines()[-1] == error


def test_the_sweep_module_entry_says_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m bedside_bench.sweep`, its own parser."""
    err = refused(capsys, "--jugde", "openai/gpt-4", entry=sweep_main)
    assert err.splitlines()[-1] == (
        "bedside-bench sweep: error: unrecognized arguments: --jugde openai/gpt-4 "
        "(--jugde: did you mean --judge?)"
    )


def test_the_top_level_keeps_argparses_message(capsys: pytest.CaptureFixture[str]) -> None:
    err = refused(capsys, "swep")
    assert err.startswith("usage: bedside-bench [-h] COMMAND ...")
    assert "invalid choice: 'swep'" in err
