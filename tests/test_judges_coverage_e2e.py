"""Judge agreement over every item of the public release: the large rubrics of the safety
benchmarks make a case's decisions longer than the 1 kB Inspect keeps in a sample summary, so
`judges.json` must read those samples whole. Three benchmarks of the release are judged by A
through Inspect's `eval()`, re-judged by B through `bedside-bench rejudge`, and the report's
agreement figures are compared with a computation from the case files (tests/judge_scripts.py).
A log re-scored by another scorer (`inspect score --scorer match`) is named as such."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log_sample_summaries

from bedside_bench.doubles import ProviderDouble
from bedside_bench.logs.read import THINNED_VALUE
from tests.e2e_helpers import bedside_bench_in_process, output, run_cli, run_tool
from tests.judge_scripts import (
    JUDGE_A,
    JUDGE_B,
    STRONG,
    agreement,
    answer_then_rejudge,
    cohen,
    item_pairs,
)

BENCHMARKS = ("drug_safety", "safety_diagnostic", "safety_therapeutic")
RELEASE = os.environ.get("BEDSIDE_BENCH_DATA")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not RELEASE, reason="needs the public release (BEDSIDE_BENCH_DATA)"),
]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ProviderDouble, Path]:
    """The three benchmarks answered once, judged by A and re-judged by B; the report."""
    assert RELEASE
    release = Path(RELEASE).resolve()
    root = tmp_path_factory.mktemp("coverage")
    with ProviderDouble() as server:
        env = answer_then_rejudge(root, release, BENCHMARKS, server)
        report = run_tool(
            "bedside-bench",
            "report",
            str(root / "logs"),
            str(root / "rejudged"),
            "-o",
            str(root / "report"),
            "--resamples",
            "200",
            env=env,
            cwd=root,
        )
        assert report.returncode == 0, output(report)
        yield root, server, release


def expected_pairs(
    release: Path, benchmark: str | None = None, points: int | None = None
) -> tuple[list[bool], list[bool]]:
    names = BENCHMARKS if benchmark is None else (benchmark,)
    a: list[bool] = []
    b: list[bool] = []
    for name in names:
        x, y = item_pairs(release, (STRONG,), benchmark=name, points=points)
        a += x
        b += y
    return a, b


def test_the_summaries_really_are_thinned(judged: tuple[Path, ProviderDouble, Path]) -> None:
    """The premise: without reading samples whole, most safety decisions would be missing."""
    root, _, _ = judged
    thinned = 0
    for log in (root / "logs").glob("*safety*.eval"):
        for s in read_eval_log_sample_summaries(str(log)):
            thinned += s.scores["rubric_judge"].metadata["decisions"] == THINNED_VALUE  # type: ignore[index,union-attr]
    assert thinned >= 40


def test_agreement_covers_every_item(judged: tuple[Path, ProviderDouble, Path]) -> None:
    root, server, release = judged
    assert server.count(kind="answer") == 75  # one answer per case, judged twice
    document = json.loads((root / "report" / "judges.json").read_text())
    (comparison,) = document["comparisons"]
    assert comparison["judges"] == [JUDGE_A, JUDGE_B]
    (pair,) = comparison["agreement"]["pairs"]
    a, b = expected_pairs(release)
    assert pair["coverage"] == {
        "cases": 75,
        "cases_decided": 75,
        "items": len(a),
        "rubric_items": len(a),
        "complete": True,
        "shortfall": [],
    }
    assert pair["overall"]["n_items"] == len(a)
    assert pair["overall"]["n_cases"] == 75
    assert pair["overall"]["agreement"] == pytest.approx(agreement(a, b))
    assert pair["overall"]["kappa"] == pytest.approx(cohen(a, b))
    for name in BENCHMARKS:
        x, y = expected_pairs(release, benchmark=name)
        got = pair["benchmarks"][name]
        assert (got["n_items"], got["n_cases"]) == (len(x), 25)
        assert got["agreement"] == pytest.approx(agreement(x, y))
    for points in (3, -3):
        x, y = expected_pairs(release, points=points)
        got = pair["points"][f"{points:+d}"]
        assert got["n_items"] == len(x) > 0
        assert got["agreement"] == pytest.approx(agreement(x, y))
    text = (root / "report" / "report.md").read_text()
    line = (
        f"{JUDGE_A} vs {JUDGE_B}: {len(a)} of {len(a)} rubric items of the 75 cases every "
        "judge completed (every item)"
    )
    assert line in text


def test_a_log_rescored_by_another_scorer_is_named_not_failed(
    judged: tuple[Path, ProviderDouble, Path], tmp_path: Path
) -> None:
    """`inspect score --scorer match --action overwrite` over one log: the report lists it as
    scored by `match` (not failed cases to redo with eval-retry) and reports the other log."""
    root, server, _ = judged
    (rescored,) = (root / "logs").glob("*drug-safety*.eval")
    (kept,) = (root / "logs").glob("*safety-diagnostic*.eval")
    (tmp_path / "logs").mkdir()
    for log in (rescored, kept):
        shutil.copy(log, tmp_path / "logs" / log.name)
    calls = len(server.requests())
    score = run_cli(
        ["score", str(tmp_path / "logs" / rescored.name), "--scorer", "match"]
        + ["--action", "overwrite", "--overwrite"],
        cwd=tmp_path,
        env=server.subprocess_env(),
    )
    assert score.returncode == 0, output(score)
    assert len(server.requests()) == calls  # `match` calls no model
    # the report, in this process as every command of this file
    report = bedside_bench_in_process(
        "report", str(tmp_path / "logs"), "-o", str(tmp_path / "report"), "--resamples", "200"
    )
    assert report.returncode == 0, output(report)
    reason = "scored by `match`, not by this suite's judge (re-score it with this suite's judge)"
    assert f"report: skipped {tmp_path / 'logs' / rescored.name}: {reason}" in report.stderr
    (summary_file,) = (tmp_path / "report").glob("*.summary.json")
    summary = json.loads(summary_file.read_text())
    assert list(summary["benchmarks"]) == ["safety_diagnostic"]
    assert summary["cases_failed"] == 0
    text = (tmp_path / "report" / "report.md").read_text()
    assert reason in text
    assert "eval-retry" not in text
