"""One headline: a run with `--epochs 2 --epochs-reducer max` (through Inspect's `eval()` in
this process) and the report. Inspect's log, `inspect view` and `evals_df` show the mean of
each case's best epoch; the report's headline is the protocol's mean over epochs and cases;
the summary keeps Inspect's number beside it (`inspect_scores`) and the report's top names
both. A second run asks for two reducers (`--epochs-reducer mean,max`): Inspect's headline is
then the mean's (the first reducer's, as `evals_df` shows), and the report says the log also
holds the max, not as its headline. Each number is computed on an independent path from the
case files and the double's scripted answers and decisions."""

from __future__ import annotations

import threading
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Epochs
from inspect_ai import eval as inspect_eval
from inspect_ai.analysis import evals_df
from inspect_ai.log import EvalLog

from bedside_bench.doubles import ParsedRequest, ProviderDouble, Script, scripted_answer
from bedside_bench.doubles.script import scripted_decision
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import (
    ANSWER_MODEL,
    JUDGE_MODEL,
    bedside_bench_in_process,
    output,
    summaries,
    wire_name,
)
from tests.independent import exact_case_score
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # an Inspect eval, the report and a provider double

BENCHMARK = "drug_safety"
CASES = 4
EPOCHS = 2


def answer_of(model: str, prompt: str, epoch: int) -> str:
    """The k-th answer the double gives to a prompt (k = 0, 1): each epoch its own."""
    return f"{scripted_answer(model, prompt)} Variant {epoch}."


def answers_by_arrival() -> Any:
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def answer(req: ParsedRequest) -> str:
        with lock:
            k = seen[req.user]
            seen[req.user] += 1
        return answer_of(req.model, req.user, k)

    return answer


def eval_and_report(root: Path, reducers: str | list[str]) -> tuple[EvalLog, Path, list[Any]]:
    """One eval of CASES cases with EPOCHS epochs reduced by `reducers`, and the report."""
    cases = write_release(root / "release", per_benchmark=CASES)[BENCHMARK]
    log_dir = root / "logs"
    with (
        ProviderDouble(script=Script(answer=answers_by_arrival())) as double,
        pytest.MonkeyPatch.context() as monkeypatch,
    ):
        double.apply_env(monkeypatch)
        reset_inspect_model_cache()
        try:
            (log,) = inspect_eval(
                bedside_tasks.drug_safety(data_dir=str(root / "release")),
                model=ANSWER_MODEL,
                model_roles={"grader": JUDGE_MODEL},
                log_dir=str(log_dir),
                display="none",
                epochs=Epochs(EPOCHS, reducers),  # `--epochs 2 --epochs-reducer R`
            )
        finally:
            reset_inspect_model_cache()
    report = bedside_bench_in_process("report", str(log_dir), "-o", str(root / "report"))
    assert report.returncode == 0, output(report)
    return log, root / "report", cases


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Path, list[Any]]:
    return eval_and_report(tmp_path_factory.mktemp("reducer"), "max")


@pytest.fixture(scope="module")
def two_reducers(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, Path, list[Any]]:
    return eval_and_report(tmp_path_factory.mktemp("reducers"), ["mean", "max"])


def epoch_scores(case: dict[str, Any]) -> list[Fraction]:
    scores = []
    for k in range(EPOCHS):
        answer = answer_of(wire_name(ANSWER_MODEL), case["prompt"], k)
        items = case["rubric_items"]
        scores.append(
            exact_case_score(
                case, {i["item_id"]: scripted_decision(answer, i["item_id"]) for i in items}
            )
        )
    return scores


def test_inspect_and_the_report_each_give_their_number_and_the_top_names_both(
    run: tuple[EvalLog, Path, list[Any]],
) -> None:
    log, out, cases = run
    best = float(sum((max(epoch_scores(c)) for c in cases), Fraction(0)) / CASES)
    mean = float(sum((sum(epoch_scores(c)) / EPOCHS for c in cases), Fraction(0)) / CASES)
    assert best - mean > 0.01  # the scripted epochs differ, so the reducers do
    # Inspect's number: its log's results and evals_df
    assert log.results is not None
    (score,) = log.results.scores
    assert score.reducer == "max"
    assert score.metrics["mean"].value == pytest.approx(best, abs=1e-12)
    (row,) = evals_df(log.location, quiet=True).to_dict("records")
    assert row["score_headline_value"] == pytest.approx(best, abs=1e-12)
    # the report's: the protocol's mean, with Inspect's beside it
    (summary,) = summaries(out).values()
    entry = summary["benchmarks"][BENCHMARK]
    assert entry["mean"] == pytest.approx(mean, abs=1e-12)
    assert entry["inspect_scores"] == [
        {"reducer": "max", "mean": pytest.approx(best, abs=1e-12), "headline": True}
    ]
    warning = (
        f"{BENCHMARK}: two numbers: Inspect's log, `inspect view` and `evals_df` say "
        f"{best:.3f} (epoch reducer `max`); this report says {mean:.3f}, the protocol's mean "
        "over epochs and cases, which the ranking and every interval use."
    )
    markdown = (out / "report.md").read_text()
    assert warning in markdown
    assert markdown.index(warning) < markdown.index("## ")  # at the top, before any section
    html = (out / "report.html").read_text()
    assert f"{BENCHMARK}: two numbers: Inspect&#x27;s log, <code>inspect view</code>" in html
    assert f"say {best:.3f} (epoch reducer <code>max</code>); this report says {mean:.3f}" in html


def test_with_two_reducers_the_headline_is_the_one_inspect_shows(
    two_reducers: tuple[EvalLog, Path, list[Any]],
) -> None:
    log, out, cases = two_reducers
    best = float(sum((max(epoch_scores(c)) for c in cases), Fraction(0)) / CASES)
    mean = float(sum((sum(epoch_scores(c)) / EPOCHS for c in cases), Fraction(0)) / CASES)
    # Inspect's log holds a score per reducer; its headline (evals_df's) is the mean's
    assert log.results is not None
    assert [(s.reducer, s.metrics["mean"].value) for s in log.results.scores] == [
        ("mean", pytest.approx(mean, abs=1e-12)),
        ("max", pytest.approx(best, abs=1e-12)),
    ]
    (row,) = evals_df(log.location, quiet=True).to_dict("records")
    assert row["score_headline_value"] == pytest.approx(mean, abs=1e-12)
    # the summary keeps the max, marked as not the headline
    (summary,) = summaries(out).values()
    entry = summary["benchmarks"][BENCHMARK]
    assert entry["mean"] == pytest.approx(mean, abs=1e-12)
    assert entry["inspect_scores"] == [
        {"reducer": "max", "mean": pytest.approx(best, abs=1e-12), "headline": False}
    ]
    warning = (
        f"{BENCHMARK}: two numbers: Inspect's log also holds {best:.3f} (epoch reducer `max`, "
        "not the headline `inspect view` and `evals_df` show); this report says "
        f"{mean:.3f}, the protocol's mean over epochs and cases, which the ranking and every "
        "interval use."
    )
    markdown = (out / "report.md").read_text()
    assert warning in markdown
    assert markdown.index(warning) < markdown.index("## ")
    assert "`inspect view` and `evals_df` say" not in markdown
