"""`bedside-bench sweep ... --estimate --json` as a user runs it, against the provider double
(OpenAI and Anthropic answer models, an OpenAI judge), then the real sweep it estimated: the
estimate asks nothing, takes no lock, writes no log; its call counts are exact and its tokens
close to what the double counted; the report sets it beside the actual figures.

One module-scoped run serves every test: one benchmark, then the same command with a second
benchmark added (eval_set reuses the first's logs, so the estimate leaves its cases out and
reads its answers' lengths). The release is the public one when BEDSIDE_BENCH_DATA names it,
else the synthetic one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.doubles import ProviderDouble, RecordedRequest
from tests.conftest import REAL_RELEASE, SYNTHETIC_RELEASE
from tests.e2e_helpers import (
    answered_model,
    ok,
    output,
    read_logs,
    run_sweep_cli,
    run_tool,
    sweep_args,
    sweep_env,
    wire_name,
)
from tests.independent import read_cases

pytestmark = pytest.mark.slow

DATA = Path(REAL_RELEASE) if REAL_RELEASE else SYNTHETIC_RELEASE
MODELS = ("openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6")
JUDGE = "openai/gpt-4.1"
PASSES = 2
FIRST = ("drug_safety",)
BOTH = ("drug_safety", "safety_diagnostic")
PRICES = {
    "gpt-4.1-mini": {"input": 0.4, "output": 1.6},
    "claude-sonnet-4-6": {"input": 3.0, "output": 15.0},
    "gpt-4.1": {"input": 2.0, "output": 8.0},
}
TOLERANCE = 0.30  # the done-when of the estimate: answer input within 30% of the double's


@dataclass
class Phase:
    """One estimate (its JSON and exit) and the sweep that followed it (its requests)."""

    estimate: dict[str, Any]
    estimate_exit: int
    calls_during_estimate: int
    files_before_estimate: list[str]
    files_after_estimate: list[str]
    sweep_exit: int
    requests: list[RecordedRequest]


@dataclass
class Run:
    first: Phase
    both: Phase
    after: dict[str, Any]  # the estimate made once everything was done
    calls_during_last_estimate: int
    logs: Path
    report_after_last_estimate: str  # `bedside-bench report` once the last estimate was made


def files_in(logs: Path) -> list[str]:
    return sorted(str(p.relative_to(logs)) for p in logs.rglob("*")) if logs.exists() else []


def phase(
    double: ProviderDouble,
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    logs: Path,
    *sweep_only: str,
) -> Phase:
    """The estimate of `args`, then the sweep of `args` (plus `sweep_only`)."""
    before = double.count()
    files_before = files_in(logs)
    estimated = run_sweep_cli([*args, "--estimate", "--json"], env, cwd)
    assert estimated.returncode == 0, output(estimated)
    calls = double.count() - before
    files = files_in(logs)
    swept = run_sweep_cli([*args, *sweep_only], env, cwd)
    assert swept.returncode == 0, output(swept)
    return Phase(
        estimate=json.loads(estimated.stdout),
        estimate_exit=estimated.returncode,
        calls_during_estimate=calls,
        files_before_estimate=files_before,
        files_after_estimate=files,
        sweep_exit=swept.returncode,
        requests=list(double.requests())[before:],
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    tmp = tmp_path_factory.mktemp("estimate")
    logs = tmp / "logs"
    prices = tmp / "prices.json"
    prices.write_text(json.dumps(PRICES))
    with ProviderDouble() as double:
        env = sweep_env(double, tmp)
        common = ["--judge", JUDGE, "-T", f"judge_passes={PASSES}", "--prices", str(prices)]

        def args(benchmarks: tuple[str, ...]) -> list[str]:
            return sweep_args(
                MODELS, logs, *common, "--benchmarks", ",".join(benchmarks), data_dir=DATA
            )

        # the first sweep's report would be replaced by the second's unread: not made
        first = phase(double, args(FIRST), env, tmp, logs, "--no-report")
        both = phase(double, args(BOTH), env, tmp, logs)
        full_args = args(BOTH)
        before = double.count()
        last = run_sweep_cli([*full_args, "--estimate", "--json"], env, tmp)
        assert last.returncode == 0, output(last)
        # the report once more, after the estimate of nothing left to do
        again = run_tool(
            "bedside-bench", "report", str(logs), "-o", str(tmp / "again"), env=env, cwd=tmp
        )
        assert again.returncode == 0, output(again)
        yield Run(
            first,
            both,
            json.loads(last.stdout),
            double.count() - before,
            logs,
            (tmp / "again" / "report.md").read_text(),
        )


def answers_of(requests: list[RecordedRequest], model: str) -> list[RecordedRequest]:
    return [r for r in ok(requests) if r.kind == "answer" and r.model == wire_name(model)]


def judging_of(requests: list[RecordedRequest], model: str) -> list[RecordedRequest]:
    return [r for r in ok(requests) if r.kind == "judge" and answered_model(r) == wire_name(model)]


def counted(requests: list[RecordedRequest], what: str) -> int:
    total = 0
    for r in requests:
        assert r.usage is not None
        total += getattr(r.usage, what)
    return total


def error(estimate: float, actual: float) -> float:
    return abs(estimate - actual) / actual


def cases_of(benchmarks: tuple[str, ...]) -> int:
    return sum(len(read_cases(DATA, b)) for b in benchmarks)


def test_the_estimate_asks_nothing_takes_no_lock_and_writes_no_log(run: Run) -> None:
    for p in (run.first, run.both):
        assert p.estimate_exit == 0 and p.calls_during_estimate == 0
        assert p.estimate["provider_calls"] == 0
    assert run.calls_during_last_estimate == 0
    # the estimate adds itself to the log directory and nothing else: no log, no lock; a
    # later one is kept beside the earlier ones
    (kept,) = run.first.files_after_estimate
    assert re.fullmatch(r"estimate-[0-9T-]+\.json", kept)
    added = set(run.both.files_after_estimate) - set(run.both.files_before_estimate)
    assert len(added) == 1 and re.fullmatch(r"estimate-[0-9T-]+\.json", added.pop())
    assert kept in run.both.files_after_estimate


def test_call_counts_are_exact(run: Run) -> None:
    first, second = cases_of(FIRST), cases_of(BOTH) - cases_of(FIRST)
    for p, cases, done in ((run.first, first, 0), (run.both, second, first)):
        for model in MODELS:
            m = p.estimate["models"][model]
            answers, judging = answers_of(p.requests, model), judging_of(p.requests, model)
            # the second estimate leaves out the first run's cases, as the resume did
            assert (m["runs"], m["cases"], m["cases_done"]) == (1, cases, done)
            assert m["answer_calls"] == len(answers) == cases
            assert m["judge_calls"] == len(judging) == PASSES * cases
    # once the run is done, a resume has nothing left to do
    for model in MODELS:
        m = run.after["models"][model]
        assert (m["answer_calls"], m["judge_calls"]) == (0, 0)
        assert m["cases_done"] == cases_of(BOTH)
        assert m["cost_usd"]["expected"] == 0


def test_answer_input_tokens_are_within_30_percent_of_the_doubles(run: Run) -> None:
    for p in (run.first, run.both):
        for model in MODELS:
            actual = counted(answers_of(p.requests, model), "input_tokens")
            estimate = p.estimate["models"][model]["answer_input_tokens"]
            assert error(estimate, actual) < TOLERANCE, (model, estimate, actual)


def test_with_earlier_logs_every_token_figure_is_close(run: Run) -> None:
    """The second estimate reads the first run's logs for the output lengths: the answers'
    output exactly as the double counted them (its scripted answers have one length per
    model), the judge figures within 30%."""
    for model in MODELS:
        m = run.both.estimate["models"][model]
        assert m["answer_output"]["source"] == "logs"
        assert m["answer_output"]["samples"] == cases_of(FIRST)
        assert m["judge_output"]["source"] == "logs"
        answers = answers_of(run.both.requests, model)
        judging = judging_of(run.both.requests, model)
        assert m["answer_output_tokens"] == counted(answers, "output_tokens")
        for figure, actual in (
            ("judge_input_tokens", counted(judging, "input_tokens")),
            ("judge_output_tokens", counted(judging, "output_tokens")),
        ):
            assert error(m[figure], actual) < TOLERANCE, (model, figure, m[figure], actual)


def test_cost_is_priced_from_the_prices_file(run: Run) -> None:
    for model in MODELS:
        m = run.both.estimate["models"][model]
        answer, judge = PRICES[model.split("/")[1]], PRICES["gpt-4.1"]
        expected_answer = (
            m["answer_input_tokens"] * answer["input"]
            + m["answer_output_tokens"] * answer["output"]
        ) / 1e6
        expected_judge = (
            m["judge_input_tokens"] * judge["input"] + m["judge_output_tokens"] * judge["output"]
        ) / 1e6
        cost = m["cost_usd"]
        assert cost["answer"] == pytest.approx(expected_answer)
        assert cost["judge"] == pytest.approx(expected_judge)
        assert cost["low"] < cost["expected"] < cost["high"]


def test_the_report_shows_the_estimate_beside_the_actual_figures(run: Run) -> None:
    report = (run.logs / "report" / "report.md").read_text()
    assert "Estimate made by `sweep --estimate`" in report
    for model in MODELS:
        m = run.both.estimate["models"][model]
        actual = counted(answers_of(run.both.requests, model), "input_tokens")
        estimated = m["answer_input_tokens"]
        # the second run's logs only: the first run's were there before the estimate
        rows = [
            line.replace("\\-", "-")  # Markdown escapes a leading minus
            for line in report.splitlines()
            if "answer input tokens" in line
        ]
        assert (
            f"| {model} | answer input tokens (fresh + cached) | {estimated:,} | {actual:,} | "
            f"{(estimated - actual) / actual:+,.1%} | case files ("
        ) in "\n".join(rows), rows
    # the cost headline: per model, answers and judge apart, and per full run
    assert "per full run (USD)" in report
    summaries = [json.loads(p.read_text()) for p in (run.logs / "report").glob("*.summary.json")]
    assert len(summaries) == 2
    for s in summaries:
        assert s["cost"]["per_full_run"]["total"] > s["cost"]["total"] > 0
    assert len(read_logs(run.logs)) == 2 * len(BOTH)


def test_a_later_estimate_leaves_each_run_beside_the_estimate_it_started_from(run: Run) -> None:
    """The estimate made once all was done (nothing left: zeros) replaces neither earlier one:
    the report made after it sets each run beside the estimate made before it, says where
    each figure came from, why the prior's answer output is far off, and names the last
    estimate, which no run followed."""
    report = run.report_after_last_estimate
    assert report.count("Estimate made by `sweep --estimate`") == 2
    for p, from_logs in ((run.first, False), (run.both, True)):
        assert f"at {p.estimate['created_at']} (no provider call)" in report
        for model in MODELS:
            m = p.estimate["models"][model]
            actual = counted(answers_of(p.requests, model), "output_tokens")
            estimated = m["answer_output_tokens"]
            source = (
                f"earlier logs ({cases_of(FIRST):,} answers)"
                if from_logs
                else f"prior ({m['answer_output']['per_call']:,.0f} tokens per answer)"
            )
            row = (
                f"| {model} | answer output tokens (reasoning included) | {estimated:,} | "
                f"{actual:,} | "
                f"{(estimated - actual) / actual:+,.1%} | {source} |"
            )
            assert row in report.replace("\\+", "+").replace("\\-", "-"), row
    for model in MODELS:  # the first estimate's prior, and only it, gets the why
        assert report.count(f"{model}: its answer output was estimated from the prior of") == 1
    assert (
        f"No run in these logs started after the estimate made at {run.after['created_at']} "
        "(0 case(s) to do)"
    ) in report
