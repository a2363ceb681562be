"""Inspect habits end to end: `inspect eval ... --epochs 3` against the local provider double,
then `bedside-bench report`, as a user types them (each command's own `main`, in this process:
their start as a process of their own is tested by tests/test_console.py and
tests/test_entry_points.py); `--limit 1` and `-T smoke=true` (their flags are typed on other
files' command lines) through Inspect's `eval()`, and their reports.

Each result must say exactly what it is: a limited or smoke run is never `complete` and says so
at the top of every output; with epochs a case's score is the mean over its epochs, recomputed
here from the release and the double's scripted decisions (exact fractions), not from the logs.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval as eval_in_inspect
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.schema_files import validator
from bedside_bench.doubles import (
    ParsedRequest,
    ProviderDouble,
    Script,
    scripted_answer,
    scripted_decision,
)
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import bedside_bench_in_process, run_tool
from tests.independent import case_score, read_cases
from tests.release_factory import write_release
from tests.report_helpers import JointCase, expected_interval, expected_joint, expected_stratified

pytestmark = pytest.mark.slow

PER_BENCHMARK = 3
EPOCHS = 3
JUDGE = "openai/gpt-5.6-sol"
LIMITED = ("openai/gpt-4.1-mini", "openai/gpt-4.1-nano")
SMOKE = "openai/gpt-4.1-mini"
EPOCHS_MODEL = "openai/gpt-4.1"


class AttemptAnswers:
    """Answers that name the attempt (0, 1, 2, ... per model and prompt), so every epoch of a
    case gets its own answer and, through the judge's scripted decisions, its own score."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], int] = {}
        self.lock = threading.Lock()

    @staticmethod
    def text(model: str, prompt: str, attempt: int) -> str:
        return f"{scripted_answer(model, prompt)} Attempt {attempt}."

    def __call__(self, req: ParsedRequest) -> str:
        with self.lock:
            attempt = self.counts.get((req.model, req.user), 0)
            self.counts[(req.model, req.user)] = attempt + 1
        return self.text(req.model, req.user, attempt)


@dataclass(frozen=True)
class Run:
    logs: Path
    out: Path
    report: subprocess.CompletedProcess[str]

    def summary(self, model: str) -> dict[str, Any]:
        path = self.out / f"{model.replace('/', '_')}.summary.json"
        summary: dict[str, Any] = json.loads(path.read_text())
        validator("summary.schema.json").validate(summary)
        return summary

    def text(self, name: str) -> str:
        return (self.out / name).read_text()


@dataclass(frozen=True)
class Runs:
    release: Path
    limited: Run
    smoke: Run
    epochs: Run
    double: ProviderDouble


def inspect_eval(release: Path, logs: Path, env: dict[str, str], *args: str) -> None:
    """`inspect eval` of the ten tasks as a user types it (in this process)."""
    result = run_tool(
        "inspect",
        "eval",
        *[f"bedside_bench/{b}" for b in BENCHMARK_NAMES],
        "--model-role",
        f"grader={JUDGE}",
        "-T",
        f"data_dir={release}",
        "--log-dir",
        str(logs),
        "--display",
        "plain",
        *args,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def bedside_report(logs: Path, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`bedside-bench report` as a user types it (in this process)."""
    return run_tool(
        "bedside-bench", "report", str(logs), "-o", str(out), "--resamples", "2000", env=env
    )


def eval_here(release: Path, logs: Path, model: str, **options: Any) -> None:
    """`inspect_eval`'s run through Inspect's `eval()` in this process (the double's env set),
    `options` as its keyword arguments (`limit=1` for `--limit 1`)."""
    task_args = options.pop("task_args", {})
    tasks = [getattr(bedside_tasks, b)(data_dir=str(release), **task_args) for b in BENCHMARK_NAMES]
    reset_inspect_model_cache()
    try:
        done = eval_in_inspect(
            tasks,
            model=model.split(","),
            model_roles={"grader": JUDGE},
            log_dir=str(logs),
            display="none",
            **options,
        )
    finally:
        reset_inspect_model_cache()
    assert all(log.status == "success" for log in done), [log.error for log in done]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """`--limit 1` and `-T smoke=true` through Inspect's `eval()`; `--epochs 3` as a user types
    it, `inspect eval` then `bedside-bench report` (all in this process)."""
    root = tmp_path_factory.mktemp("scope")
    release = root / "release"
    write_release(release, per_benchmark=PER_BENCHMARK)
    with (
        ProviderDouble(script=Script(answer=AttemptAnswers())) as double,
        pytest.MonkeyPatch.context() as patch,
    ):
        env = double.subprocess_env()
        double.apply_env(patch)
        made = {}
        for name, model, options in (
            ("limited", ",".join(LIMITED), {"limit": 1}),
            ("smoke", SMOKE, {"task_args": {"smoke": True}}),
        ):
            logs = root / name / "logs"
            eval_here(release, logs, model, **options)
            out = root / name / "report"
            report = bedside_bench_in_process(
                "report", str(logs), "-o", str(out), "--resamples", "2000"
            )
            made[name] = Run(logs, out, report)
        logs = root / "epochs" / "logs"
        inspect_eval(release, logs, env, "--model", EPOCHS_MODEL, "--epochs", str(EPOCHS))
        out = root / "epochs" / "report"
        made["epochs"] = Run(logs, out, bedside_report(logs, out, env))
        yield Runs(release, made["limited"], made["smoke"], made["epochs"], double)


# --------------------------------------------------------------------------------------------
# --limit and smoke


def test_a_limited_run_says_how_many_of_how_many_cases_ran(runs: Runs) -> None:
    run = runs.limited
    assert run.report.returncode == 0, run.report.stderr
    description = "partial: 10 of 30 cases ran (--limit 1)"
    for model in LIMITED:
        summary = run.summary(model)
        assert (summary["cases_completed"], summary["cases_failed"]) == (10, 0)
        assert summary["complete"] is False
        scope = summary["scope"]
        assert scope["full"] is False
        assert (scope["cases_run"], scope["cases_in_benchmarks"]) == (10, 30)
        assert (scope["reasons"], scope["limits"]) == (["limit"], ["1"])
        assert scope["description"] == description
        assert scope["benchmarks"]["drug_safety"] == {
            "cases_run": 1,
            "cases_in_benchmark": PER_BENCHMARK,
            "full": False,
            "reasons": ["limit"],
        }
        assert f"scope: {description}; not a full result" in summary["notes"]

    # the terminal: the warning, then no ranking (partial runs are never ranked) and the
    # runs listed unranked, before the benchmark table
    stdout = run.report.stdout
    warning = f"! every model: NOT A FULL RUN, {description}."
    assert warning in stdout
    assert stdout.index(warning) < stdout.index("No full run to rank")
    assert stdout.index("No full run to rank") < stdout.index("not ranked (")
    assert stdout.index("not ranked (") < stdout.index("benchmark  ")
    why = "partial run: not every case ran, never ranked with full runs"
    listed = [line for line in stdout.splitlines() if line.startswith(LIMITED) and why in line]
    # the listing's scope cell is short; the sentence is the warning above it
    assert len(listed) == 2
    assert all(f"  partial, 10 of 30  {why}" in line for line in listed)
    assert not any(description in line for line in listed)
    assert not any(line.startswith(("1 ", "2 ")) for line in stdout.splitlines())

    # report.md and report.html: in words, at the top, next to the numbers
    md = run.text("report.md")
    top = md.index(f"every model: NOT A FULL RUN, {description}.")
    listing = md.index("| why not ranked |")
    assert top < listing < md.index("## Benchmark scores") < md.index("## Runs")
    rows = [line for line in md.splitlines() if line.endswith(f"| {why} |")]
    # the same short cell as the terminal's; the sentence is the warning above the table
    assert len(rows) == 2 and all(f"| partial, 10 of 30 | {why} |" in row for row in rows)
    assert not any(description in row for row in rows)
    assert "| rank |" not in md
    page = run.text("report.html")
    assert page.index("NOT A FULL RUN") < page.index("<th>why not ranked</th>")


def test_pairs_from_partial_runs_have_no_verdict(runs: Runs) -> None:
    comparison = json.loads(runs.limited.text("comparison.json"))
    validator("comparison.schema.json").validate(comparison)
    reason = f"not a full run: {LIMITED[0]}, {LIMITED[1]} (smoke or partial scope)"
    pairs = [s["pairs"][0] for s in comparison["benchmarks"].values()]
    pairs.append(comparison["overall"]["pairs"][0])
    assert len(pairs) == 11
    for pair in pairs:
        assert pair["excludes_zero"] is None and pair["verdict_withheld"] == reason
        assert pair["ci95"] is not None  # the interval is still shown
    assert comparison["overall"]["pairs"][0]["n"] == 10
    md = runs.limited.text("report.md")
    assert "excludes 0: yes" not in md and f"no verdict: {reason}" in md
    assert "| yes |" not in md and "| no |" not in md


def test_a_smoke_run_is_never_complete(runs: Runs) -> None:
    run = runs.smoke
    assert run.report.returncode == 0, run.report.stderr
    summary = run.summary(SMOKE)
    assert (summary["cases_completed"], summary["cases_failed"]) == (10, 0)
    assert summary["complete"] is False and summary["overall"] is not None
    header = read_eval_log(list_eval_logs(str(run.logs))[0].name, header_only=True)
    counts = (header.eval.metadata or {}).get("release_case_counts")
    total = 30 if counts else None  # known only when the task records the release's counts
    scope = summary["scope"]
    assert (scope["cases_run"], scope["cases_in_benchmarks"]) == (10, total)
    assert scope["reasons"] == ["smoke"] and scope["full"] is False
    of = "10 of 30" if total else "10 of an unrecorded number of"
    description = f"smoke: {of} cases ran (smoke run, one case per benchmark)"
    assert scope["description"] == description
    assert f"! {SMOKE}: NOT A FULL RUN, {description}." in run.report.stdout
    assert f"{SMOKE}: INCOMPLETE (0 failed, missing: none; {description})" in run.report.stdout
    cell = f"smoke, 10 of {total or 'an unrecorded number'}"
    why = "smoke run: a set-up check, never ranked with full runs"
    stdout = run.report.stdout.splitlines()
    (listed,) = [line for line in stdout if line.startswith(f"{SMOKE} ") and why in line]
    assert listed.rstrip().endswith(f"  {cell}  {why}")
    assert not any(line.startswith("1 ") for line in stdout)
    assert "  no verdict: no full run (smoke and partial runs carry none)" in stdout
    md = run.text("report.md")
    assert md.index("NOT A FULL RUN") < md.index("| why not ranked |")


# --------------------------------------------------------------------------------------------
# --epochs


def protocol_case_means(release: Path, benchmark: str) -> list[float]:
    """Each case's mean over its epochs, in dataset order, from the release and the double's
    scripted decisions for each attempt's answer (exact fractions, one rounding)."""
    wire = EPOCHS_MODEL.split("/", 1)[1]
    means = []
    for case in read_cases(release, benchmark):
        scores = []
        for attempt in range(EPOCHS):
            answer = AttemptAnswers.text(wire, case["prompt"], attempt)
            matched = {
                i["item_id"]: scripted_decision(answer, i["item_id"]) for i in case["rubric_items"]
            }
            scores.append(Fraction(case_score(case, matched)))
        means.append(float(sum(scores) / EPOCHS))
    return means


def logged_case_means(log: EvalLog, ids: list[str]) -> list[float]:
    """Each case's exact mean over the epoch scores the log holds, rounded once."""
    by_case: dict[str, list[Fraction]] = {}
    for sample in log.samples or []:
        value = sample.scores["rubric_judge"].value  # type: ignore[index]
        by_case.setdefault(str(sample.id), []).append(Fraction(float(value)))  # type: ignore[arg-type]
    assert all(len(v) == EPOCHS for v in by_case.values())
    return [float(sum(by_case[i]) / EPOCHS) for i in ids]


def test_epochs_score_each_case_by_its_mean_and_resample_cases(runs: Runs) -> None:
    run = runs.epochs
    assert run.report.returncode == 0, run.report.stderr
    summary = run.summary(EPOCHS_MODEL)
    assert summary["epochs"] == EPOCHS and summary["complete"] is True
    assert (summary["cases_completed"], summary["cases_failed"]) == (30, 0)
    strata, sources = [], []
    varied = 0  # cases whose epochs scored differently: the mean is really over epochs
    logs = {
        log.eval.task.split("/")[-1]: log
        for log in (read_eval_log(i.name) for i in list_eval_logs(str(run.logs)))
    }
    for name in BENCHMARK_NAMES:
        ids = [c["case_id"] for c in read_cases(runs.release, name)]
        means = logged_case_means(logs[name], ids)
        # every epoch was scored by the protocol (the scorer works in floats: last-bit slack)
        assert means == pytest.approx(protocol_case_means(runs.release, name), abs=1e-12)
        epoch_values: dict[str, set[Any]] = {}
        by_epoch: dict[str, list[tuple[int, float]]] = {}
        for sample in logs[name].samples or []:
            score = (sample.scores or {})["rubric_judge"]
            epoch_values.setdefault(str(sample.id), set()).add(score.value)
            by_epoch.setdefault(str(sample.id), []).append((sample.epoch, float(score.value)))  # type: ignore[arg-type]
        varied += sum(len(v) > 1 for v in epoch_values.values())
        # Inspect's own mean reducer agrees, case by case, bit for bit
        reductions = logs[name].reductions
        assert reductions is not None
        inspect_means = {str(s.sample_id): s.value for s in reductions[0].samples}
        assert [inspect_means[i] for i in ids] == means, name
        entry = summary["benchmarks"][name]
        assert entry["n"] == PER_BENCHMARK and entry["failed"] == 0
        assert entry["mean"] == float(np.mean(means)), name
        assert entry["ci95"] == expected_interval(means, 2000, 42), name
        # beside it, the interval that resamples each drawn case's epochs too
        cases: list[JointCase] = [([v for _, v in sorted(by_epoch[i])], None) for i in ids]
        joint = expected_joint([means], [[(1.0, cases)]], "epochs", 2000, 42)
        assert entry["ci95_cases_and_epochs"] == list(joint), name
        strata.append(means)
        sources.append([(1.0, cases)])
    assert summary["overall"] == {
        "mean": float(np.mean([np.mean(s) for s in strata])),
        "ci95": expected_stratified(strata, 2000, 42),
        "ci95_cases_and_epochs": list(expected_joint(strata, sources, "epochs", 2000, 42)),
        "n": 30,
    }
    assert varied >= 10
    assert any(n.startswith(f"{EPOCHS} epochs per case:") for n in summary["notes"])
    assert f"{EPOCHS} epochs per case" in run.text("report.md").split("| rank |")[0]


def test_epochs_usage_per_epoch_and_in_total(runs: Runs) -> None:
    usage = runs.epochs.summary(EPOCHS_MODEL)["usage"]
    by_epoch = usage["by_epoch"]
    assert [e["epoch"] for e in by_epoch] == [1, 2, 3]
    for part in ("answer", "judge"):
        for key in usage[part]:
            assert sum(e[part][key] for e in by_epoch) == usage[part][key], (part, key)
    # every epoch asks the same prompts, and the attempt texts have the same length
    assert len({json.dumps(e["answer"]) for e in by_epoch}) == 1
    answers = [r for r in runs.double.requests(kind="answer", model="gpt-4.1")]
    assert len(answers) == 30 * EPOCHS
    assert usage["answer"]["output_tokens"] == sum(
        r.usage.output_tokens
        for r in answers
        if r.usage is not None  # always set for a finished request
    )
