"""What the sweep does before its first model call: the handler leaves the report unimported
until the report runs (its import held the first call back), and still turns the report's
error into one line. And how it ends: the process without teardown only when it is the
process."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bedside_bench.core import exit_codes
from bedside_bench.report import ReportError
from bedside_bench.sweep import command
from bedside_bench.sweep import run as sweep_run
from tests.release_factory import write_release


def sweep_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bedside-bench sweep")
    command.configure_parser(parser)
    return parser.parse_args(["--model", "openai/gpt-4.1-mini", *argv])


def unimport_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a fresh `bedside-bench sweep` process: no report module loaded (restored after)."""
    for name in [
        m
        for m in sys.modules
        if m == "bedside_bench.report" or m.startswith("bedside_bench.report.")
    ]:
        monkeypatch.delitem(sys.modules, name)


def test_the_report_is_not_imported_before_the_sweep_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    unimport_report(monkeypatch)
    seen: dict[str, bool] = {}

    def fake_run_sweep(options: Any) -> Any:
        seen["report imported"] = "bedside_bench.report" in sys.modules
        raise KeyboardInterrupt  # ends the handler without a result to print

    monkeypatch.setattr(sweep_run, "run_sweep", fake_run_sweep)
    assert command.run_sweep_command(sweep_args()) == exit_codes.INTERRUPTED
    assert seen == {"report imported": False}


def test_a_report_error_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fake_run_sweep(options: Any) -> Any:
        raise ReportError("no BedsideBench logs in logs/sweep")

    monkeypatch.setattr(sweep_run, "run_sweep", fake_run_sweep)
    assert command.run_sweep_command(sweep_args()) == exit_codes.ERROR
    assert capsys.readouterr().err == (
        "bedside-bench sweep: error: no BedsideBench logs in logs/sweep\n"
    )


def test_the_report_error_is_caught_once_the_report_is_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unimport_report(monkeypatch)
    assert ReportError not in command._input_errors()
    loaded = SimpleNamespace(ReportError=ReportError)  # what `import bedside_bench.report` gives
    monkeypatch.setitem(sys.modules, "bedside_bench.report", loaded)
    assert ReportError in command._input_errors()


def test_a_release_digest_is_computed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every task's metadata names the digest and the release it identifies: ten tasks used
    to hash the whole release twenty times before the first call."""
    from bedside_bench.release import dataset
    from bedside_bench.release.sources import DataSource

    write_release(tmp_path, per_benchmark=1)
    release = dataset.load_release(DataSource(root=tmp_path, label=str(tmp_path)))
    calls: list[int] = []
    digest = dataset.dataset_sha256

    def counted(cases: Any) -> str:
        calls.append(len(cases))
        return digest(cases)

    monkeypatch.setattr(dataset, "dataset_sha256", counted)
    names = {release.name for _ in range(10)}
    digests = {release.dataset_sha256 for _ in range(10)}
    assert calls == [len(release.all_cases)]
    assert names == {"unrecognised"} and digests == {digest(release.all_cases)}


def test_the_sweep_ends_its_process_only_when_it_is_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a console script or `python -m` (no argv given: the command is the process) the
    sweep ends the process without the interpreter's teardown; called from Python with an argv
    (`bedside_bench.cli.main(argv)`, the sweep's `main(argv)`) it gives its exit code back and
    the caller goes on."""
    from bedside_bench.cli import main as cli

    ended: list[int] = []
    monkeypatch.setattr(command, "run_sweep_command", lambda args: exit_codes.INCOMPLETE)
    monkeypatch.setattr(command, "exit_now", ended.append)
    assert cli.main(["sweep", "--model", "openai/gpt-4.1-mini"]) == exit_codes.INCOMPLETE
    assert command.main(["--model", "openai/gpt-4.1-mini"]) == exit_codes.INCOMPLETE
    assert ended == []
    monkeypatch.setattr(sys, "argv", ["bedside-bench", "sweep", "--model", "openai/gpt-4.1-mini"])
    cli.main()
    monkeypatch.setattr(sys, "argv", ["bedside_bench.sweep", "--model", "openai/gpt-4.1-mini"])
    command.main()
    assert ended == [exit_codes.INCOMPLETE, exit_codes.INCOMPLETE]
