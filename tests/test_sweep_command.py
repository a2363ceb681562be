"""`sweep/command.py` (and the checks `run.prepare` makes before any call): the command line,
its refusals, the lines it prints for each outcome and its exit codes. The parser and the
handler are called in process; the sweep itself (`run_sweep`) is replaced by one returning the
outcome under test, so nothing is evaluated. The sweeps themselves run end to end in
tests/test_sweep*.py."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bedside_bench.calls.credentials import CredentialError
from bedside_bench.core import exit_codes
from bedside_bench.core.signals import GRACE_ENV
from bedside_bench.judging.failures import JudgeFailureCount
from bedside_bench.scoring.scorer import TaskOptionError
from bedside_bench.sweep.command import (
    configure_parser,
    options_from_args,
    run_sweep_command,
    stop_grace,
    sweep_log_dir,
)
from bedside_bench.sweep.lock_holder import Holder
from bedside_bench.sweep.options import PROG, SweepError, SweepOptions
from bedside_bench.sweep.run import SweepInterrupted, SweepResult, Timings, prepare
from bedside_bench.sweep.shard import Shard
from tests.log_factory import ANSWER_MODEL, eval_log, sample, write

OTHER_MODEL = "anthropic/claude-sonnet-4-6"
TIMINGS = Timings(preparation=1.25, evaluation=30.0, report=2.5, total=33.75)


def parser() -> argparse.ArgumentParser:
    built = argparse.ArgumentParser(prog=PROG)
    configure_parser(built)
    return built


def parse(*argv: str) -> argparse.Namespace:
    return parser().parse_args(list(argv))


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one error line argparse prints for `argv` (it exits 2, the usage error)."""
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == exit_codes.USAGE
    return capsys.readouterr().err.strip().splitlines()[-1]


# --------------------------------------------------------------------------------------------
# the command line


def test_every_flag_reaches_the_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    options = options_from_args(
        parse(
            "--model",
            f"{ANSWER_MODEL},{OTHER_MODEL}",
            "--model",
            ANSWER_MODEL,
            "--judge",
            "openai/gpt-4o",
            "--benchmarks",
            "triage",
            "--benchmarks",
            "drug_safety",
            "--smoke",
            "--log-dir",
            "runs",
            "--data-dir",
            "rel",
            "--revision",
            "abc",
            "--judge-retries",
            "0",
            "-T",
            "severe_gate=true",
            "--task-arg",
            "judge_passes=2",
            "--max-connections",
            "4",
            "--judge-max-connections",
            "9",
            "--shard",
            "2/3",
            "--max-retries",
            "0",
            "--timeout",
            "600",
            "--attempt-timeout",
            "60",
            "--batch",
            "50",
            "--retry-attempts",
            "0",
            "--retry-on-error",
            "1",
            "--display",
            "plain",
            "--report-dir",
            "out",
            "--prices",
            "prices.json",
            "--no-report",
        )  # fmt: skip
    )
    assert options == SweepOptions(
        models=[ANSWER_MODEL, OTHER_MODEL],
        judge="openai/gpt-4o",
        benchmarks=["triage", "drug_safety"],
        smoke=True,
        log_dir="runs",
        data_dir="rel",
        revision="abc",
        judge_retries=0,
        task_args={"severe_gate": True, "judge_passes": 2},
        max_connections=4,
        judge_max_connections=9,
        max_retries=0,
        timeout=600,
        attempt_timeout=60,
        batch=50,
        retry_attempts=0,
        retry_on_error=1,
        display="plain",
        report=False,
        report_dir="out",
        prices="prices.json",
        shard=Shard(2, 3),
    )


def test_defaults_follow_inspects_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_EVAL_MODEL", f" {ANSWER_MODEL}, {OTHER_MODEL} ")
    monkeypatch.setenv("INSPECT_LOG_DIR", "s3://bucket/team/")
    options = options_from_args(parse())
    assert list(options.models) == [ANSWER_MODEL, OTHER_MODEL]
    assert options.log_dir == "s3://bucket/team/sweep"
    assert list(options.benchmarks) == list(SweepOptions(models=[]).benchmarks)
    assert (options.judge, options.retry_attempts, options.shard) == (
        SweepOptions(models=[]).judge,
        2,
        Shard(1, 1),
    )
    assert (options.batch, options.report, options.task_args) == (None, True, {})
    monkeypatch.delenv("INSPECT_LOG_DIR")
    assert sweep_log_dir() == "logs/sweep"
    monkeypatch.delenv("INSPECT_EVAL_MODEL")
    for argv in ((), ("--model", ","), ("--model", " , ")):  # no model: refused, estimate or not
        with pytest.raises(SweepError) as raised:
            options_from_args(parse(*argv, "--estimate"))
        assert str(raised.value) == (
            "give at least one model with --model (or set $INSPECT_EVAL_MODEL)"
        )


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--shard", "4/3"], "argument --shard: shard 4/3: K must be between 1 and N"),
        (["--shard", "2"], "argument --shard: shard '2' is not K/N, e.g. 2/3"),
        (["--batch", "-5"], "argument --batch: batch size -5 is not a positive number"),
        (["--batch", "none.yaml"], "argument --batch: batch config file none.yaml does not exist"),
        (["--max-connections", "0"], "argument --max-connections: must be at least 1, got 0"),
        (["--retry-attempts", "-1"], "argument --retry-attempts: must be at least 0, got -1"),
        (
            ["--judge-retries", "x"],
            "argument --judge-retries: 'x' is not a whole number written with the digits 0-9",
        ),
        # the ceilings of core/ranges.py, and digits as a -T option reads them (ASCII only)
        (
            ["--retry-attempts", "1000"],
            "argument --retry-attempts: must be at most 10 (each re-runs every failed case of "
            "a task at full price), got 1,000",
        ),
        (
            ["--judge-retries", "\uff11\uff10"],
            "argument --judge-retries: '\uff11\uff10' is not a whole number written with the "
            "digits 0-9",
        ),
        (
            ["--max-retries", "1_000"],
            "argument --max-retries: '1_000' is not a whole number written with the digits 0-9",
        ),
        (
            ["--attempt-timeout", "0"],
            "argument --attempt-timeout: must be at least 1, got 0",
        ),
        (
            ["--batch", "100000"],
            "argument --batch: batch size must be at most 50,000 (the largest batch a provider "
            "accepts), got 100,000",
        ),
        (
            ["--display", "fancy"],
            "argument --display: invalid choice: 'fancy' "
            "(choose from 'full', 'rich', 'plain', 'log', 'none')",
        ),
    ],
)
def test_a_bad_value_is_one_usage_line_naming_the_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str], error: str
) -> None:
    assert refused(capsys, *argv) == f"{PROG}: error: {error}"


def test_fail_on_error_is_refused_with_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--fail-on-error"], ["--fail-on-error", "0.1"]):
        assert refused(capsys, *argv) == (
            f"{PROG}: error: --fail-on-error is not a sweep option: a sweep runs every case, "
            "retries the failed ones (--retry-attempts, --retry-on-error) and never stops at "
            "an error rate; the report counts failed cases and the exit code is 3 when any is "
            "left"
        )


@pytest.mark.parametrize(
    ("text", "batch"),
    [(None, True), ("true", True), ("yes", True), ("0", None), ("no", None), ("7", 7)],
)
def test_batch_values(text: str | None, batch: bool | int | None) -> None:
    argv = ["--batch"] if text is None else ["--batch", text]
    assert options_from_args(parse("--model", ANSWER_MODEL, *argv)).batch == batch


# --------------------------------------------------------------------------------------------
# what is refused before any call


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"models": []}, "give at least one model with --model (or set $INSPECT_EVAL_MODEL)"),
        (
            {"models": ["gpt-4o"]},
            "model 'gpt-4o' is not an Inspect model name such as openai/gpt-5.4-mini",
        ),
        (
            {"judge": "gpt-4o"},
            "judge 'gpt-4o' is not an Inspect model name such as openai/gpt-5.4-mini",
        ),
        (
            {"judge": "mockllm/model"},
            "judge mockllm/model cannot judge: it answers every call with one fixed text, never "
            "a valid judge reply, so every case would fail; to try a run without keys use the "
            "provider doubles: `bedside-bench demo`, or `bedside-bench doubles serve` "
            "(docs/doubles.md)",
        ),
        (
            {"prices": "no-prices.json"},
            "prices file no-prices.json does not exist; nothing was run",
        ),
        ({"prices": "."}, "prices file . is not a regular file; nothing was run"),
    ],
)
def test_inputs_a_sweep_cannot_use_are_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fields: dict[str, object], error: str
) -> None:
    monkeypatch.chdir(tmp_path)
    options = SweepOptions(**{"models": [ANSWER_MODEL], **fields})  # type: ignore[arg-type]
    with pytest.raises(SweepError) as raised:
        prepare(options)
    assert str(raised.value) == error


def test_a_log_directory_that_cannot_be_one_is_one_line(tmp_path: Path) -> None:
    """Its lock is the first thing written, before the eval set starts."""
    from bedside_bench.sweep.lock import holding

    (tmp_path / "afile").write_text("")
    for log_dir, reason in (("afile", "a file, not a folder"), ("afile/sub", "Not a directory")):
        with pytest.raises(SweepError) as raised, holding(str(tmp_path / log_dir), Shard(1, 1)):
            pass
        assert str(raised.value) == (
            f"cannot use {tmp_path / log_dir} as the log directory ({reason}); nothing was run"
        )


def test_a_report_folder_the_report_would_refuse_is_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report owns its folder and refuses one holding other files: checked before the
    credentials (none are set here), not after every case was paid for. An earlier report,
    an empty folder, a missing one, `--no-report` and a shard (which writes no report) pass
    this check and go on to the credentials."""
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(SweepError) as raised:
        prepare(SweepOptions(models=[ANSWER_MODEL], report_dir=str(busy)))
    assert str(raised.value) == (
        f"--report-dir: {busy} holds 'notes.txt', which the report does not write; the report "
        "replaces its whole folder, so give an empty or new folder; nothing was run"
    )
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "report.md").write_text("an earlier report")
    (tmp_path / "empty").mkdir()
    passing = [
        SweepOptions(models=[ANSWER_MODEL], report_dir=str(earlier)),
        SweepOptions(models=[ANSWER_MODEL], report_dir=str(tmp_path / "empty")),
        SweepOptions(models=[ANSWER_MODEL], report_dir=str(tmp_path / "missing")),
        SweepOptions(models=[ANSWER_MODEL], report_dir=str(busy), report=False),
        SweepOptions(models=[ANSWER_MODEL], report_dir=str(busy), shard=Shard(1, 2)),
    ]
    for options in passing:
        with pytest.raises(CredentialError):
            prepare(options)


@pytest.mark.parametrize(
    "content",
    [
        '{"openai/gpt-4.1-mini": {"input": 0.4}}',
        "input: 0.4\n",
        '{"m": {"input": -1, "output": 1}}',
    ],
)
def test_a_prices_file_the_report_would_refuse_is_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    """Read with the report's own reader before the credentials are even looked at (none are
    set here), `--no-report` or not: the report would refuse it after every case was paid."""
    monkeypatch.chdir(tmp_path)
    Path("prices.json").write_text(content)
    for report in (True, False):
        options = SweepOptions(models=[ANSWER_MODEL], prices="prices.json", report=report)
        with pytest.raises(SweepError) as raised:
            prepare(options)
        message = str(raised.value)
        assert message.startswith("cannot use prices file prices.json: "), message
        assert message.endswith("; nothing was run") and "\n" not in message


# --------------------------------------------------------------------------------------------
# the handler: one line per outcome, and its exit code


@dataclass(frozen=True)
class Reported:
    """What the command reads of a report's result: its exit code."""

    exit_code: int


def handled(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    outcome: Callable[[SweepOptions], SweepResult],
) -> tuple[int, list[str], list[str]]:
    """The handler's exit code and its stdout and stderr lines, the sweep giving `outcome`."""
    seen: list[SweepOptions] = []

    def run_sweep(options: SweepOptions) -> SweepResult:
        seen.append(options)
        return outcome(options)

    monkeypatch.setattr("bedside_bench.sweep.run.run_sweep", run_sweep)
    code = run_sweep_command(parse(*argv))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def result(
    runs: list[tuple[str, str]], logs: list[object] | None = None, **fields: object
) -> Callable[[SweepOptions], SweepResult]:
    def outcome(options: SweepOptions) -> SweepResult:
        values: dict[str, object] = {
            "success": True,
            "logs": logs or [],
            "report": Reported(0) if options.report and options.shard.whole else None,
            "timings": TIMINGS,
            "runs": runs,
        }
        values.update(fields)
        return SweepResult(**values)  # type: ignore[arg-type]

    return outcome


def test_a_complete_sweep_says_so_and_where_its_report_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [(ANSWER_MODEL, "drug_safety"), (OTHER_MODEL, "drug_safety")]
    logs = [eval_log([sample("c1")]), eval_log([sample("c1")], model=OTHER_MODEL)]
    argv = ["--model", f"{ANSWER_MODEL},{OTHER_MODEL}", "--log-dir", str(tmp_path / "logs")]
    code, out, err = handled(monkeypatch, capsys, argv, result(runs, logs))  # type: ignore[arg-type]
    assert code == exit_codes.OK
    assert out == [
        "sweep: 2/2 benchmark runs complete in 33.8 s "
        "(preparation 1.2 s, evaluation 30.0 s, report 2.5 s)",
        f"sweep: report in {tmp_path / 'logs' / 'report'}",
    ]
    assert err == []


def test_a_refused_comparison_is_exit_4(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = result([], report=Reported(exit_codes.REFUSED))
    code, _, _ = handled(monkeypatch, capsys, ["--model", ANSWER_MODEL], outcome)
    assert code == exit_codes.REFUSED


def test_a_shard_points_to_the_report_once_every_shard_is_done(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--model", ANSWER_MODEL, "--shard", "2/3", "--log-dir", "s3://b/sweep"]
    code, out, _ = handled(monkeypatch, capsys, argv, result([(ANSWER_MODEL, "triage")]))
    assert code == exit_codes.OK
    assert out == [
        "sweep: 0/1 benchmark runs complete (shard 2/3) in 33.8 s "
        "(preparation 1.2 s, evaluation 30.0 s, report 2.5 s)",
        "sweep: shard 2/3 done; once every shard is, run `bedside-bench report s3://b/sweep`",
    ]


def test_a_taken_over_lock_names_the_run_that_is_gone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = Holder(pid=4242, host="ci-7", started="2026-01-01T00:00:00+00:00", shard="1/2")
    outcome = result([], taken_over=gone)
    code, out, _ = handled(monkeypatch, capsys, ["--model", ANSWER_MODEL, "--no-report"], outcome)
    assert code == exit_codes.OK
    assert out[0] == (
        "sweep: took over the lock of a run that is gone (pid 4242 on ci-7, started "
        "2026-01-01T00:00:00+00:00, shard 1/2); its completed cases were reused"
    )
    assert len(out) == 2  # and the count; no report line with --no-report


def test_an_incomplete_sweep_shows_its_errors_and_the_way_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    logs_dir = tmp_path / "logs"
    secret = "sk-test-" + "a" * 40
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    failed = eval_log(
        [
            sample("c1", judge=None, error="RateLimitError: 429 too many requests\nretry later"),
            sample("c2", judge=None, error="RateLimitError: 429 too many requests"),
            sample("c3", judge=None, error=f"APIError: key {secret} is invalid"),
            sample("c4"),
        ],
        status="error",
    )
    location = write(failed, logs_dir / "failed.eval")
    failed.location = location
    judge_failures = [JudgeFailureCount(judge="openai/gpt-4.1", cases=1, asks=3, calls=3)]
    outcome = result(
        [(ANSWER_MODEL, "drug_safety")],
        [failed],
        success=False,
        judge_failures=judge_failures,
    )
    argv = ["--model", ANSWER_MODEL, "--log-dir", str(logs_dir)]
    code, out, err = handled(monkeypatch, capsys, argv, outcome)
    assert code == exit_codes.INCOMPLETE
    assert out[1:] == [
        f"sweep: report in {logs_dir / 'report'}",
        "sweep: the judge openai/gpt-4.1 gave no valid reply for 1 case (asked 3 times per "
        "try, 3 judge calls in all); the answers are stored, so judge them with another judge "
        "at no answer cost: `bedside-bench rejudge --failed-only --judge OTHER_JUDGE "
        f"{logs_dir}`",
        "sweep: incomplete; the failed cases ended in these errors:",
        "  2 case(s): RateLimitError: 429 too many requests",
        "  1 case(s): APIError: key *** is invalid",  # never the key itself
        "sweep: running the same command again retries only the failed cases: it helps once "
        f"the cause above has passed or been fixed (logs in {logs_dir})",
    ]
    assert out[0].startswith("sweep: 0/1 benchmark runs complete in") and err == []


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (SweepError("log directory x is in use"), "log directory x is in use"),
        (CredentialError("missing API credentials: set X"), "missing API credentials: set X"),
        (FileNotFoundError("no Inspect logs found under 'x'"), "no Inspect logs found under 'x'"),
        (
            TaskOptionError("bedside-bench: -T judge_pases is not an option"),
            "-T judge_pases is not an option",
        ),
    ],
)
def test_an_input_problem_is_one_error_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: Exception,
    line: str,
) -> None:
    def fails(options: SweepOptions) -> SweepResult:
        raise error

    code, out, err = handled(monkeypatch, capsys, ["--model", ANSWER_MODEL], fails)
    assert (code, out, err) == (exit_codes.ERROR, [], [f"{PROG}: error: {line}"])


def test_a_bad_model_or_task_argument_is_refused_before_the_sweep(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def never(options: SweepOptions) -> SweepResult:
        raise AssertionError("the sweep should not start")

    code, _, err = handled(monkeypatch, capsys, ["--model", "gpt-4o"], never)
    assert (code, err) == (
        exit_codes.ERROR,
        [f"{PROG}: error: model 'gpt-4o' is not an Inspect model name such as openai/gpt-5.4-mini"],
    )
    code, _, err = handled(monkeypatch, capsys, ["--model", ANSWER_MODEL, "-T", "x"], never)
    assert (code, err) == (
        exit_codes.ERROR,
        [f"{PROG}: error: task argument 'x' is not NAME=VALUE"],
    )
    code, _, err = handled(monkeypatch, capsys, ["--model", ANSWER_MODEL, "--json"], never)
    assert (code, err) == (
        exit_codes.ERROR,
        [f"{PROG}: error: --json goes with --estimate (the sweep's own output is its logs)"],
    )


def test_ctrl_c_is_exit_130_with_what_is_kept_and_the_command_that_resumes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(options: SweepOptions) -> SweepResult:
        raise SweepInterrupted(kept=212, total=500)

    argv = ["--model", f"{ANSWER_MODEL},{OTHER_MODEL}", "--log-dir", "my logs"]
    monkeypatch.setattr("bedside_bench.sweep.run.run_sweep", lambda options: interrupted(options))
    args = parse(*argv)
    args.command_line = ["bedside-bench", "sweep", *argv]  # as the dispatcher gives it
    code = run_sweep_command(args)
    out, err = capsys.readouterr()
    assert (code, out) == (exit_codes.INTERRUPTED, "")
    assert err.splitlines() == [
        f"{PROG}: interrupted: 212 of 500 cases kept, 288 to go; run the same command again "
        f"to resume: bedside-bench sweep --model {ANSWER_MODEL},{OTHER_MODEL} --log-dir "
        "'my logs'"
    ]


def test_a_stop_the_logs_cannot_count_still_names_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(options: SweepOptions) -> SweepResult:
        raise KeyboardInterrupt

    code, out, err = handled(monkeypatch, capsys, ["--model", ANSWER_MODEL], interrupted)
    assert (code, out) == (exit_codes.INTERRUPTED, [])
    assert err == [
        f"{PROG}: interrupted; run the same command again to resume: bedside-bench sweep"
    ]


@pytest.mark.parametrize(
    ("argv", "environment", "grace"),
    [
        ([], None, 30.0),
        ([], "12.5", 12.5),
        (["--stop-grace", "5"], "12.5", 5.0),
        (["--stop-grace", "45", "--attempt-timeout", "20"], None, 20.0),
        (["--stop-grace", "0"], None, 0.0),
    ],
)
def test_the_grace_of_a_first_signal_is_never_past_the_attempt_timeout(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], environment: str | None, grace: float
) -> None:
    if environment is None:
        monkeypatch.delenv(GRACE_ENV, raising=False)
    else:
        monkeypatch.setenv(GRACE_ENV, environment)
    assert stop_grace(parse("--model", ANSWER_MODEL, *argv)) == grace


@pytest.mark.parametrize("text", ["-1", "nan", "inf", "soon"])
def test_a_grace_that_is_not_seconds_is_refused(
    capsys: pytest.CaptureFixture[str], text: str
) -> None:
    assert refused(capsys, "--model", ANSWER_MODEL, "--stop-grace", text).endswith(
        f"argument --stop-grace: {text!r} is not a number of seconds >= 0"
    )
