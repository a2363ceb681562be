"""Warnings a user must see are said once whatever Inspect's display: on Inspect's console, on
stderr when that console is quiet (`--display none`, a piped sweep), and by Python's last-resort
handler where no handler is set (a command of ours before Inspect starts)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from bedside_bench.core import console
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
