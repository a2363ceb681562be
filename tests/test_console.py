"""Warnings a user must see are said once whatever Inspect's display: on Inspect's console, on
stderr when that console is quiet (`--display none`, a piped sweep), and by Python's last-resort
handler where no handler is set (a command of ours before Inspect starts)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from bedside_bench.core import console
from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import eval_args, run_console_script
from tests.e2e_helpers import output as result_text
from tests.release_factory import write_release

NOT_KNOWN = "is not a known BedsideBench release"


@pytest.mark.slow
def test_an_eval_under_display_none_says_the_release_is_not_known_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = tmp_path / "odd release"
    (case,) = write_release(release, per_benchmark=1)["drug_safety"]
    answer = ModelOutput.from_content("mockllm/model", "An answer.")
    decisions = [{"item_id": i["item_id"], "matched": True} for i in case["rubric_items"]]
    judge = ModelOutput.from_content("mockllm/model", json.dumps({"decisions": decisions}))
    for output in (answer, judge):  # given, so that mockllm counts no tokens (a download)
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    # `inspect eval bedside_bench/drug_safety -T data_dir=... --display none`, in process
    (log,) = inspect_eval(
        "bedside_bench/drug_safety",  # by name: Inspect builds it, under its display
        task_args={"data_dir": str(release)},
        model=get_model("mockllm/model", custom_outputs=[answer]),
        model_roles={"grader": get_model("mockllm/model", custom_outputs=[judge])},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error and log.error.message
    err = capsys.readouterr().err
    assert err.count(NOT_KNOWN) == 1, err
    (line,) = [line for line in err.splitlines() if NOT_KNOWN in line]
    assert line.startswith(f"{release} {NOT_KNOWN} (cases per benchmark: ")


def test_a_warning_is_printed_only_when_inspects_console_is_quiet(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    logger = logging.getLogger("bedside_bench.test_console")
    for quiet, printed in ((True, "a warning\x1b[2J with\nlines\n"), (False, "")):
        monkeypatch.setattr(console, "_display_is_quiet", lambda quiet=quiet: quiet)
        console.warn_visibly(logger, "a warning\x1b[2J with\nlines")
        assert capsys.readouterr().err == printed.replace("\x1b", "\\x1b")


def test_a_warning_a_stream_handler_shows_is_not_printed_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `logging.basicConfig()` before `inspect_ai.eval(display="none")`: the user's handler
    # writes it to stderr, and a second copy would be noise (or break a JSON-lines reader)
    monkeypatch.setattr(console, "_display_is_quiet", lambda: True)
    logger = logging.getLogger("bedside_bench.test_console.stream")
    monkeypatch.setattr(logger, "propagate", False)
    handler = logging.StreamHandler()  # sys.stderr as captured now
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    try:
        console.warn_visibly(logger, "a warning")
    finally:
        logger.removeHandler(handler)
    assert capsys.readouterr().err == "WARNING a warning\n"


def test_a_warning_below_the_level_the_user_set_is_not_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--log-level error`: the console does not show it either
    monkeypatch.setattr(console, "_display_is_quiet", lambda: True)
    logger = logging.getLogger("bedside_bench.test_console.level")
    monkeypatch.setattr(logger, "propagate", False)
    handler = logging.NullHandler()  # a handler that shows nothing, as a quiet console
    logger.addHandler(handler)
    try:
        logger.setLevel(logging.ERROR)
        console.warn_visibly(logger, "a warning")
        assert capsys.readouterr().err == ""
        logger.setLevel(logging.WARNING)
        console.warn_visibly(logger, "a warning")
        assert capsys.readouterr().err == "a warning\n"
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)


def test_the_logged_record_names_the_caller(caplog: pytest.LogCaptureFixture) -> None:
    # Inspect's console shows where a warning came from: the module that warned
    logger = logging.getLogger("bedside_bench.test_console.caller")
    with caplog.at_level(logging.WARNING, logger=logger.name):
        console.warn_visibly(logger, "a warning")
    (record,) = caplog.records
    assert (record.filename, record.funcName) == (
        "test_console.py",
        "test_the_logged_record_names_the_caller",
    )


@pytest.mark.slow
@pytest.mark.parametrize("logger_format", ["plain", "json"])
def test_inspects_plain_or_json_log_says_the_release_is_not_known_once(
    tmp_path: Path, provider_double: ProviderDouble, logger_format: str
) -> None:
    # Inspect's handler writes these formats to stderr whatever the display
    release = tmp_path / "odd release"
    write_release(release, per_benchmark=1)
    env = {**os.environ, **provider_double.env(), "INSPECT_PY_LOGGER_FORMAT": logger_format}
    args = eval_args(
        "drug_safety", tmp_path / "logs", task_args=[f"data_dir={release}"], display="none"
    )
    result = run_console_script("inspect", *args, env=env, cwd=tmp_path)
    assert result.returncode == 0, result_text(result)
    assert result.stderr.count(NOT_KNOWN) == 1, result_text(result)
