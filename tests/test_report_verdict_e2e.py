"""The verdict and the ranking end to end, as a user reaches them: `bedside-bench sweep` of two
models prints, at its end, their difference with its paired interval and verdict; a smoke run
beside them (`bedside-bench report` over both log directories) is listed unranked; a separate
`inspect eval bedside_bench/drug_safety` beside the sweep counts once per case, and the notes
say which answer counts.

Against the provider double; the expected difference, interval and ranking are recomputed from
the case files and the double's scripted decisions (tests/independent.py), not from the logs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import ProviderDouble
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import (
    Result,
    bedside_bench_in_process,
    eval_in_process,
    expected_scores,
    output,
    run_sweep_cli,
    summaries,
    sweep_args,
    sweep_env,
)
from tests.independent import read_cases
from tests.release_factory import write_release
from tests.report_helpers import cases_needed_text, expected_cases_needed, expected_stratified

pytestmark = pytest.mark.slow  # a sweep, Inspect evals and reports, a double

MODELS = ("openai/gpt-4.1-mini", "openai/gpt-4.1-nano")
SMOKE = "openai/gpt-4.1"
JUDGE = "openai/gpt-5.6-sol"  # the sweep's default judge
PER_BENCHMARK = 2


@dataclass(frozen=True)
class Runs:
    root: Path
    release: Path
    logs: Path  # the two-model sweep
    smoke_logs: Path
    extra_logs: Path  # a separate drug_safety run of MODELS[0]
    sweep: Result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    root = tmp_path_factory.mktemp("verdict")
    release = root / "release"
    write_release(release, per_benchmark=PER_BENCHMARK)
    logs, smoke_logs, extra_logs = root / "logs", root / "smoke", root / "extra"
    with ProviderDouble() as double:
        env = sweep_env(double, root)
        sweep = run_sweep_cli(sweep_args(MODELS, logs, data_dir=release), env, root)
        assert sweep.returncode == 0, output(sweep)
        # the smoke run (`sweep --smoke --no-report`: the ten tasks with -T smoke=true) and the
        # separate `inspect eval bedside_bench/drug_safety`, through Inspect's `eval()` (the
        # sweep above is this file's command line; the smoke sweep has its own tests)
        with pytest.MonkeyPatch.context() as patch:
            double.apply_env(patch)
            reset_inspect_model_cache()
            try:
                smoke = inspect_eval(
                    [
                        getattr(bedside_tasks, b)(data_dir=str(release), smoke=True)
                        for b in BENCHMARK_NAMES
                    ],
                    model=SMOKE,
                    model_roles={"grader": JUDGE},
                    log_dir=str(smoke_logs),
                    display="none",
                )
                assert [log.status for log in smoke] == ["success"] * len(BENCHMARK_NAMES)
                extra = eval_in_process(
                    bedside_tasks.drug_safety(data_dir=str(release)), extra_logs, MODELS[0], JUDGE
                )
            finally:
                reset_inspect_model_cache()
        assert extra.status == "success", extra.error
    yield Runs(root, release, logs, smoke_logs, extra_logs, sweep)


def report(runs: Runs, out: str, *log_dirs: Path) -> Result:
    """`bedside-bench report` again, in this process (the sweep ran it first)."""
    result = bedside_bench_in_process("report", *map(str, log_dirs), "-o", str(runs.root / out))
    assert result.returncode == 0, output(result)
    return result


def expected_verdict(release: Path, models: Sequence[str], resamples: int = 10_000) -> str:
    """The verdict line, from the case files and the double's scripted decisions."""
    scores = expected_scores(release, models)
    per = {
        m: {b: [scores[(m, c["case_id"])] for c in read_cases(release, b)] for b in BENCHMARK_NAMES}
        for m in models
    }
    means = {m: float(np.mean([np.mean(per[m][b]) for b in BENCHMARK_NAMES])) for m in models}
    higher, lower = sorted(models, key=lambda m: (-means[m], m))
    strata = [
        [x - y for x, y in zip(per[higher][b], per[lower][b], strict=True)] for b in BENCHMARK_NAMES
    ]
    difference = float(np.mean([np.mean(s) for s in strata]))
    lo, hi = expected_stratified(strata, resamples, 42)
    n = PER_BENCHMARK * len(BENCHMARK_NAMES)
    if lo > 0:
        verdict = f"{higher} is ahead"
    elif hi < 0:
        verdict = f"{higher} is behind on the cases both completed"
    else:
        needed = expected_cases_needed(strata)
        verdict = f"not distinguishable on these {n} cases{cases_needed_text(needed, n)}"
    numbers = f"{difference:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    numbers += "" if verdict.startswith("not distinguishable") else f" on {n} paired cases"
    return f"{higher} minus {lower}: {numbers}: {verdict}"


def test_a_two_model_sweep_prints_the_difference_its_interval_and_verdict(runs: Runs) -> None:
    line = expected_verdict(runs.release, MODELS)
    stdout = runs.sweep.stdout.splitlines()
    assert f"  {line}" in stdout, output(runs.sweep)
    header = next(i for i, row in enumerate(stdout) if row.startswith("rank "))
    benchmarks = next(i for i, row in enumerate(stdout) if row.startswith("benchmark "))
    assert header < stdout.index(f"  {line}") < benchmarks
    ranked = [row.split()[1] for row in stdout[header + 2 : header + 4]]
    assert sorted(ranked) == sorted(MODELS) and line.startswith(f"{ranked[0]} minus {ranked[1]}")

    # the same line, right after the ranking, in report.md and report.html
    out = runs.logs / "report"
    # Markdown escapes `]:` (a link definition) as `\]:`; the text is the same
    markdown = (out / "report.md").read_text().replace("\\]", "]")
    assert f"- {line}" in markdown
    assert markdown.index("| rank |") < markdown.index("## Verdict") < markdown.index(line)
    assert markdown.index(line) < markdown.index("## Benchmark scores")
    page = (out / "report.html").read_text()
    assert page.index("<h2>Verdict</h2>") < page.index("<h2>Benchmark scores</h2>")
    (verdict,) = json.loads((out / "comparison.json").read_text())["verdicts"]
    assert verdict["higher"] == ranked[0] and verdict["n"] == 20


def test_a_smoke_run_beside_two_full_runs_is_listed_unranked(runs: Runs) -> None:
    result = report(runs, "with-smoke", runs.logs, runs.smoke_logs)
    stdout = result.stdout.splitlines()
    rank_rows = [row for row in stdout if row[:2] in ("1 ", "2 ", "3 ")]
    assert sorted(row.split()[1] for row in rank_rows) == sorted(MODELS)
    (listing,) = [row for row in stdout if row.startswith(f"{SMOKE} ")]
    assert "smoke, 10 of" in listing and "smoke run: a set-up check" in listing
    assert stdout.index(listing) > stdout.index(f"  {expected_verdict(runs.release, MODELS)}")

    out = runs.root / "with-smoke"
    comparison = json.loads((out / "comparison.json").read_text())
    assert sorted(m["label"] for m in comparison["models"]) == sorted(MODELS)
    markdown = (out / "report.md").read_text()
    assert markdown.index("## Verdict") < markdown.index(f"| {SMOKE} |")
    assert "| 3 |" not in markdown


def test_a_separate_run_beside_the_sweep_counts_once_and_the_notes_say_which(
    runs: Runs,
) -> None:
    report(runs, "with-extra", runs.logs, runs.extra_logs)
    out = runs.root / "with-extra"
    summary = summaries(out)[MODELS[0]]
    assert summary["benchmarks"]["drug_safety"]["n"] == PER_BENCHMARK
    assert summary["cases_completed"] == PER_BENCHMARK * len(BENCHMARK_NAMES)
    (extra_log,) = runs.extra_logs.glob("*.eval")
    (note,) = [n for n in summary["notes"] if n.startswith("drug_safety: ")]
    assert note.startswith(
        f"drug_safety: {PER_BENCHMARK} case(s) were answered in more than one run of this group"
    )
    assert f"from the run that started last ({extra_log.resolve()})" in note or (
        f"from the run that started last ({extra_log})" in note
    ), note
    assert note in (out / "report.md").read_text().replace("\\", "")
    other = summaries(out)[MODELS[1]]
    assert not any("more than one run" in n for n in other["notes"])
