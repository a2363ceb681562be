"""End to end on the real public release: two scripted models through `inspect_ai.eval` on all
250 cases (no network), then `bedside-bench report` (in this process) and
`python -m bedside_bench.report` (a subprocess); every figure must equal a recomputation from
the logs.

Runs only with BEDSIDE_BENCH_DATA set to the public release (skipped otherwise).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bedside_bench.benchmarks import BENCHMARK_NAMES
from bedside_bench.schema_files import validator
from tests import report_helpers as helpers
from tests.e2e_helpers import bedside_bench_in_process

pytestmark = pytest.mark.slow  # subprocesses, Inspect evals and provider doubles

A, B = "bbscript/model-one", "bbscript/model-two"


def test_report_on_real_logs_of_the_ten_tasks(real_release: str, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    results = helpers.run_tasks(real_release, [A, B], logs)
    assert [r.status for r in results] == ["success"] * 20

    # `bedside-bench report` in this process (its console script has subprocess tests in other
    # files); `python -m bedside_bench.report` as a subprocess
    cli = bedside_bench_in_process("report", str(logs), "-o", str(tmp_path / "cli"))
    assert cli.returncode == 0, cli.stderr
    module = subprocess.run(  # default OUT_DIR: reports/ under the current directory
        [sys.executable, "-m", "bedside_bench.report", str(logs)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert module.returncode == 0, module.stderr
    assert cli.stdout.splitlines()[:15] == module.stdout.splitlines()[:15]
    assert "overall" in cli.stdout and A in cli.stdout and B in cli.stdout

    out, again = tmp_path / "cli", tmp_path / "reports"
    names = sorted(p.name for p in out.iterdir())
    assert (
        names
        == sorted(p.name for p in again.iterdir())
        == [
            "bbscript_model-one.summary.json",
            "bbscript_model-two.summary.json",
            "comparison.json",
            "forest.png",
            "report.html",
            "report.md",
        ]
    )
    for name in (
        "bbscript_model-one.summary.json",
        "bbscript_model-two.summary.json",
        "comparison.json",
        "report.md",
    ):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name

    for model in (A, B):
        summary = json.loads((out / f"{model.replace('/', '_')}.summary.json").read_text())
        validator("summary.schema.json").validate(summary)
        expected = helpers.expected_summary_numbers(logs, model)
        assert summary["complete"] is True
        assert (summary["cases_completed"], summary["cases_failed"]) == (250, 0)
        for name in BENCHMARK_NAMES:
            entry = summary["benchmarks"][name]
            assert {k: entry[k] for k in ("n", "failed", "mean", "ci95")} == expected["benchmarks"][
                name
            ], name
        assert summary["overall"] == expected["overall"]
        assert summary["notes"][0] == (
            "public split: n = 25 per benchmark; not comparable with 50-case results"
        )
        assert summary["data_source"] == str(Path(real_release).resolve())
        assert summary["usage"]["answer"]["input_tokens"] == 250 * 100
        assert summary["usage"]["judge"]["output_tokens"] == 250 * 30

    comparison = json.loads((out / "comparison.json").read_text())
    expected_pairs = helpers.expected_paired(logs, A, B)
    for name in BENCHMARK_NAMES:
        assert comparison["benchmarks"][name]["pairs"] == [{"a": A, "b": B, **expected_pairs[name]}]
    assert comparison["overall"]["pairs"] == [{"a": A, "b": B, **expected_pairs["overall"]}]
    assert comparison["overall"]["pairs"][0]["n"] == 250

    page = (out / "report.html").read_text()
    assert "data:image/png;base64," in page and "public split: n = 25" in page
