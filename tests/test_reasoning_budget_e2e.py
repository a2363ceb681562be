"""A reasoning model that spends its whole budget on reasoning, through `inspect eval` (in this
process) and the report: the answers it returned without text are its answers.

`landmark_trials`, ten cases, answered by a reasoning model on the Responses API with
`max_tokens=2000` and `reasoning_effort=high`; the double spends the budget of three cases
(30%) on reasoning alone (a reasoning item, no message, `incomplete: max_output_tokens`).
Every case is scored: those three as answers that state nothing (no item matched: 0), the
others as the judge decided; the ledger shows one answer per case and no judge call for the
three; the summary counts them (`answers_without_text`) and the report names them at its top.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from bedside_bench.doubles import ParsedRequest, ProviderDouble, Reply, Script, scripted_answer
from bedside_bench.doubles.script import scripted_decision
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import JUDGE_MODEL, bedside_bench_in_process, output, summaries, wire_name
from tests.independent import exact_case_score
from tests.ledger import assert_bought_once, ledger
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # an Inspect eval, the report and a provider double

BENCHMARK = "landmark_trials"
MODEL = "openai/gpt-5.4-mini"  # a reasoning model: the Responses API
CASES = 10
SPENT = {1, 4, 7}  # the cases whose budget goes to reasoning (30%)
CASE_NUMBER = re.compile(r"Synthetic question (\d+) for")
REASONING = "Weighing the trial's endpoints, population and effect size before answering. " * 20


def case_number(prompt: str) -> int:
    found = CASE_NUMBER.search(prompt)
    assert found is not None, prompt
    return int(found.group(1))


def spend_some_budgets(req: ParsedRequest) -> Reply:
    if case_number(req.user) in SPENT:
        return Reply("", "max_tokens", reasoning=REASONING)
    return Reply(scripted_answer(req.model, req.user), reasoning="Brief reasoning.")


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp("release")
    written = write_release(root, per_benchmark=CASES)
    return root, written[BENCHMARK]


@pytest.fixture(scope="module")
def run(
    cases: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ProviderDouble, EvalLog, Path]]:
    """The eval (`inspect eval bedside_bench/landmark_trials --max-tokens 2000
    --reasoning-effort high`, in this process), then `bedside-bench report`."""
    release, _ = cases
    log_dir = tmp_path_factory.mktemp("spent") / "logs"
    with ProviderDouble(script=Script(answer=spend_some_budgets)) as double:
        with pytest.MonkeyPatch.context() as monkeypatch:
            double.apply_env(monkeypatch)
            reset_inspect_model_cache()
            try:
                (log,) = inspect_eval(
                    bedside_tasks.landmark_trials(data_dir=str(release)),
                    model=MODEL,
                    model_roles={"grader": JUDGE_MODEL},
                    log_dir=str(log_dir),
                    display="none",
                    max_tokens=2000,
                    reasoning_effort="high",
                )
            finally:
                reset_inspect_model_cache()
        out = log_dir.parent / "report"
        report = bedside_bench_in_process("report", str(log_dir), "-o", str(out))
        assert report.returncode == 0, output(report)
        yield double, log, out


def expected_score(case: dict[str, Any]) -> Fraction:
    """The protocol's score on an independent path: an answer without text matches nothing."""
    n = case_number(case["prompt"])
    if n in SPENT:
        matched = {item["item_id"]: False for item in case["rubric_items"]}
    else:
        answer = scripted_answer(wire_name(MODEL), case["prompt"])
        matched = {
            i["item_id"]: scripted_decision(answer, i["item_id"]) for i in case["rubric_items"]
        }
    return exact_case_score(case, matched)


def test_every_case_is_scored_those_without_text_as_stating_nothing(
    run: tuple[ProviderDouble, EvalLog, Path], cases: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, log, _ = run
    by_id = {case["case_id"]: case for case in cases[1]}
    assert log.status == "success" and log.samples is not None and len(log.samples) == CASES
    for sample in log.samples:
        case = by_id[str(sample.id)]
        assert sample.error is None, sample.error
        score = sample.scores["rubric_judge"]  # type: ignore[index]
        meta = score.metadata or {}
        spent = case_number(case["prompt"]) in SPENT
        assert score.value == float(expected_score(case))
        assert meta["answer_empty"] is spent
        if spent:
            assert (meta["answer_stop_reason"], meta["answer_condition"]) == (
                "max_tokens",
                "truncated",
            )
            assert meta["decisions"] == {i["item_id"]: False for i in case["rubric_items"]}
            assert meta["judge_attempts"] == [] and meta["judge_usage"] == {}
            assert sample.output.usage is not None and sample.output.usage.reasoning_tokens
        else:
            assert meta["answer_condition"] == "complete"


def test_the_judge_is_paid_only_for_answers_with_text(
    run: tuple[ProviderDouble, EvalLog, Path], cases: tuple[Path, list[dict[str, Any]]]
) -> None:
    double, _, _ = run
    spent = {c["case_id"]: 0 for c in cases[1] if case_number(c["prompt"]) in SPENT}
    assert len(spent) == len(SPENT)
    assert_bought_once(double, cases[1], [MODEL], {**spent, "*": 1})


def test_the_report_counts_them_in_the_mean_and_names_them_at_its_top(
    run: tuple[ProviderDouble, EvalLog, Path], cases: tuple[Path, list[dict[str, Any]]]
) -> None:
    _, _, out = run
    (summary,) = summaries(out).values()
    entry = summary["benchmarks"][BENCHMARK]
    mean = sum((expected_score(c) for c in cases[1]), Fraction(0)) / CASES
    assert (entry["n"], entry["failed"], entry["failed_no_answer"]) == (CASES, 0, 0)
    assert entry["answers_without_text"] == {
        "total": 3,
        "complete": 0,
        "truncated": 3,
        "filtered": 0,
        "refused": 0,
        "unknown": 0,
    }
    assert entry["mean"] == pytest.approx(float(mean), abs=1e-12)
    # the judged answers' conditions do not count them twice
    assert entry["answer_conditions"]["truncated"] == 0
    assert any(
        note.startswith(f"{BENCHMARK}: 3 answer(s) had no text (3 truncated)")
        for note in summary["notes"]
    )
    warning = (
        f"{BENCHMARK}: 3 answer(s) had no text (3 truncated; truncated: the budget spent before "
        "any text): scored as answers that state nothing (no item matched), in the mean, no "
        "judge asked."
    )
    markdown = (out / "report.md").read_text()
    assert warning in markdown
    assert markdown.index(warning) < markdown.index("## ")  # at the top, before any section


def test_a_rejudge_pays_only_for_answers_with_text_and_says_so(
    run: tuple[ProviderDouble, EvalLog, Path],
    cases: tuple[Path, list[dict[str, Any]]],
    tmp_path: Path,
) -> None:
    """Another judge over the same log: the answers without text are scored again as stating
    nothing, with no call to the new judge, and its line says how many of those it counted."""
    double, log, _ = run
    other = "anthropic/claude-sonnet-4-6"
    with pytest.MonkeyPatch.context() as monkeypatch:
        double.apply_env(monkeypatch)
        result = bedside_bench_in_process(
            "rejudge", log.location, "--judge", other, "-o", str(tmp_path / "rejudged")
        )
    assert result.returncode == 0, output(result)
    (line,) = result.stdout.splitlines()
    assert f": judged {CASES} ({len(SPENT)} empty answers, scored with no judge call), " in line
    judged = Counter(p.case_id for p in ledger(double, cases[1], judge=other) if p.kind == "judge")
    with_text = {c["case_id"] for c in cases[1] if case_number(c["prompt"]) not in SPENT}
    assert judged == Counter(with_text)
