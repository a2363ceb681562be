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
    assert err.startswith("usage: bedside-bench [-h] [--version] COMMAND ...")
    assert "invalid choice: 'swep'" in err


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        # argparse would take a prefix for the flag: `--smok` ran a whole sweep
        (["sweep", "--model", "openai/gpt-4.1", "--smok"], "--smok: did you mean --smoke?"),
        (["demo", "--case", "2"], "--case: did you mean --cases?"),
        (["sweep", "--judge-max", "3"], "--judge-max: did you mean --judge-max-connections?"),
        # named even where a required argument is missing too
        (["rejudge", "--judgee", "x"], "--judgee: did you mean --judge?"),
        (["review", "export", "--itmes", "3"], "--itmes: did you mean --items?"),
        (["data", "export", "x", "--ot", "y"], "--ot: did you mean --out-dir?"),
    ],
)
def test_a_flag_is_typed_whole_and_named_before_what_is_missing(
    capsys: pytest.CaptureFixture[str], argv: list[str], error: str
) -> None:
    err = refused(capsys, *argv)
    assert err.splitlines()[-1].endswith(f"({error})"), err


def test_every_prefix_of_every_flag_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Each subcommand's long flags, each cut short by one letter or more: never taken."""
    from bedside_bench.cli.main import build_parser

    for name, command in build_parser()._subparsers._group_actions[0].choices.items():  # type: ignore[union-attr]
        leaves = [command]
        if command._subparsers is not None:
            leaves = list(command._subparsers._group_actions[0].choices.values())
        for leaf in leaves:
            flags = [f for f in leaf._option_string_actions if f.startswith("--")]
            for flag in flags:
                cut = flag[:-1]
                if cut in flags or len(cut) < 3:
                    continue
                words = leaf.prog.split()[1:]
                err = refused(capsys, *words, cut)
                assert f"unrecognized arguments: {cut}" in err, (name, cut, err)


def test_version_names_the_package_and_the_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    from bedside_bench.core.listing import task_version

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == (
        f"bedside-bench {metadata.version('bedside-bench')} (tasks {task_version().full})\n"
    )


def test_help_shows_a_required_flag_as_required(capsys: pytest.CaptureFixture[str]) -> None:
    """The help is printed while the line is parsed: never from the pass that first looks for
    misspelt flags with nothing required."""
    for argv in (["data", "export", "--help"], ["rejudge", "--help"], ["review", "score", "-h"]):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 0
        usage = capsys.readouterr().out
        assert "[-o DIR]" not in usage and "[--judge JUDGE]" not in usage, usage
