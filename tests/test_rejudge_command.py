"""`rejudge/command.py` and the checks `rejudge_async` makes before any call: the command line,
its refusals, the lines it prints and its exit codes. In process: the parser and the handler
are called directly, the re-judge itself (`rejudge`) replaced by one giving the outcome under
test; the refusals run the real `rejudge_async`, which stops before any log is read or any
model called. The re-judge runs end to end in tests/test_rejudge.py."""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from bedside_bench.core import exit_codes
from bedside_bench.rejudge.command import configure_parser, run_command
from bedside_bench.rejudge.plan import PROG, LogOutcome, RejudgeError, RejudgeOptions
from bedside_bench.rejudge.run import rejudge_async
from tests.log_factory import JUDGE_B

WHERE_LOGS_ARE = (
    " (give the folder `inspect eval` wrote to: its --log-dir, else $INSPECT_LOG_DIR, else ./logs)"
)


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG)
    configure_parser(parser)
    return parser.parse_args(list(argv))


def handled(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    outcome: Callable[[RejudgeOptions], list[LogOutcome]],
) -> tuple[int, list[RejudgeOptions], list[str], list[str]]:
    seen: list[RejudgeOptions] = []

    def rejudge(options: RejudgeOptions) -> list[LogOutcome]:
        seen.append(options)
        return outcome(options)

    monkeypatch.setattr("bedside_bench.rejudge.command.rejudge", rejudge)
    code = run_command(parse(*argv))
    out, err = capsys.readouterr()
    return code, seen, out.splitlines(), err.splitlines()


def test_flags_reach_the_options_and_defaults_follow_inspects_log_dir(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_LOG_DIR", "runs/")
    argv = ["a.eval", "logs", "--judge", JUDGE_B, "--judge-passes", "3", "--failed-only"]
    argv += ["--output-dir", "out", "--checkpoint", "5", "--display", "plain"]
    code, seen, _, _ = handled(monkeypatch, capsys, argv, lambda options: [])
    assert code == exit_codes.OK
    assert seen == [
        RejudgeOptions(
            log_paths=["a.eval", "logs"],
            judge=JUDGE_B,
            judge_passes=3,
            failed_only=True,
            output_dir="out",
            checkpoint=5,
            display="plain",
        )
    ]
    # no LOG_PATH: $INSPECT_LOG_DIR, and the output beside it
    code, seen, _, _ = handled(monkeypatch, capsys, ["--judge", JUDGE_B], lambda options: [])
    assert seen == [RejudgeOptions(log_paths=["runs/"], judge=JUDGE_B, output_dir="runs/rejudge")]


def test_without_a_log_path_or_inspect_log_dir_it_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("INSPECT_LOG_DIR")
    code, seen, out, err = handled(monkeypatch, capsys, ["--judge", JUDGE_B], lambda o: [])
    assert (code, seen, out) == (exit_codes.USAGE, [], [])
    assert err == [f"{PROG}: error: give a LOG_PATH (or set $INSPECT_LOG_DIR)"]


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["logs"], "the following arguments are required: --judge"),
        (["logs", "--judge", JUDGE_B, "--checkpoint", "0"], "argument --checkpoint: must be at least 1, got 0"),  # noqa: E501
        (["logs", "--judge", JUDGE_B, "--judge-passes", "0"], "argument --judge-passes: must be at least 1, got 0"),  # noqa: E501
    ],
)  # fmt: skip
def test_a_bad_command_line_is_one_usage_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], error: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == exit_codes.USAGE
    assert capsys.readouterr().err.splitlines()[-1] == f"{PROG}: error: {error}"


def test_each_log_is_one_line_and_failed_cases_make_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outcomes = [
        LogOutcome("logs/a.eval", "out/a-rejudge.eval", judged=4, already_done=1),
        LogOutcome("logs/b.eval", "", skipped="task 'x' is not a BedsideBench benchmark"),
        LogOutcome(
            "logs/c.eval",
            "out/c-rejudge.eval",
            judged=1,
            failed=["c2: ValueError: no valid reply", "c3: TimeoutError: "],
        ),
    ]
    code, _, out, err = handled(
        monkeypatch, capsys, ["logs", "--judge", JUDGE_B], lambda o: outcomes
    )
    assert code == exit_codes.INCOMPLETE
    assert out == [
        "logs/a.eval: judged 4, already judged 1, failed 0 -> out/a-rejudge.eval",
        "logs/c.eval: judged 1, already judged 0, failed 2 -> out/c-rejudge.eval",
    ]
    assert err == [
        f"{PROG}: skipped logs/b.eval: task 'x' is not a BedsideBench benchmark",
        "  failed: c2: ValueError: no valid reply",
        "  failed: c3: TimeoutError: ",
    ]
    code, _, _, _ = handled(
        monkeypatch, capsys, ["logs", "--judge", JUDGE_B], lambda o: outcomes[:2]
    )
    assert code == exit_codes.OK


@pytest.mark.parametrize(
    ("stop", "signum"),
    [(KeyboardInterrupt(), signal.SIGINT), (asyncio.CancelledError(), signal.SIGINT)],
)
def test_an_interrupted_rejudge_says_what_is_kept_and_exits_128_plus_the_signal(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stop: BaseException,
    signum: signal.Signals,
) -> None:
    def stopped(options: RejudgeOptions) -> list[LogOutcome]:
        raise stop

    argv = ["logs", "--judge", JUDGE_B, "--output-dir", "out"]
    code, _, out, err = handled(monkeypatch, capsys, argv, stopped)
    assert (code, out) == (128 + signum, [])
    assert err == [
        f"{PROG}: interrupted (SIGINT); every case judged so far is kept in out; run the same "
        # the command as typed comes from the dispatcher (tests/test_rejudge_signals.py)
        "command again to judge the rest: bedside-bench rejudge"
    ]


def test_an_input_error_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuses(options: RejudgeOptions) -> list[LogOutcome]:
        raise RejudgeError("no Inspect logs in logs")

    code, _, out, err = handled(monkeypatch, capsys, ["logs", "--judge", JUDGE_B], refuses)
    assert (code, out, err) == (exit_codes.ERROR, [], [f"{PROG}: error: no Inspect logs in logs"])


# --------------------------------------------------------------------------------------------
# what rejudge_async refuses before any log is read or any call made


def refusal(options: RejudgeOptions) -> str:
    with pytest.raises((RejudgeError, FileNotFoundError)) as raised:
        asyncio.run(rejudge_async(options, say=lambda text: None))
    return str(raised.value)


def test_a_judge_without_its_credential_is_refused_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    options = RejudgeOptions(log_paths=[str(tmp_path / "none")], judge=JUDGE_B)
    assert refusal(options) == (
        f"missing API credentials: set ANTHROPIC_API_KEY for {JUDGE_B} (judge)"
    )


def test_an_unknown_judge_is_refused_without_its_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-shown")
    message = refusal(RejudgeOptions(log_paths=[str(tmp_path)], judge="nosuch/judge"))
    assert message.startswith("judge nosuch/judge: Inspect knows no model provider 'nosuch' (")
    assert "sk-test-never-shown" not in message


def test_a_folder_without_logs_is_refused_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-unit")
    options = RejudgeOptions(log_paths=[str(tmp_path)], judge=JUDGE_B, output_dir=str(tmp_path))
    assert refusal(options) == f"no Inspect logs found under {str(tmp_path)!r}" + WHERE_LOGS_ARE
    assert list(tmp_path.iterdir()) == []  # nothing written
