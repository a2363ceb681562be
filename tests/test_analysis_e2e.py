"""`bedside_bench.analysis` end to end: Inspect's `samples_df`, `evals_df` and the per-item
frame over logs of a real eval, against the report of the same logs and the case files.

One eval in process against the provider double: a points benchmark and an F1 benchmark with
the reference (binary) grading, and a points benchmark graded three-level (fractional points),
so the frame holds both grading methods and both variants. The frame's per-benchmark means
equal the report's exactly; every number is a number; each case's points, recall and precision
equal the protocol's formulas over the double's scripted decisions (tests/independent.py, exact
fractions); each item row equals the decision its log stores; `data export` has the same
recall and precision. The points benchmark's log re-judged by a second judge
(`bedside-bench rejudge`, into a folder of its own) is read beside its source: both logs'
rows are in every frame.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.analysis import evals_df, samples_df
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from bedside_bench.analysis import EVAL_COLUMNS, SAMPLE_COLUMNS, item_decisions
from bedside_bench.doubles import (
    ProviderDouble,
    scripted_answer,
    scripted_decision,
    scripted_three_level,
)
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import ANSWER_MODEL, JUDGE_MODEL, bedside_bench_in_process, output, wire_name
from tests.independent import f1_parts, points_score, read_cases, three_level_matches
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # an Inspect eval against a provider double, the report

PER_BENCHMARK = 3
# benchmark -> grading variant; one benchmark per variant, so (model, benchmark) names a group
RUNS = {
    "drug_safety": "binary",
    "safety_diagnostic": "binary",
    "guideline_adherence": "three_level",
}
NUMBERS = ("score", "recall", "precision", "severe_rate", "points_matched", "points_available")
REJUDGED = "drug_safety"  # the benchmark whose log is re-judged
SECOND_JUDGE = "openai/gpt-4o"


@dataclass(frozen=True)
class Run:
    release: Path
    logs: Path
    report: Path
    export: Path
    rejudged: Path  # the folder holding the re-judged log of REJUDGED


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("analysis")
    release, logs = root / "release", root / "logs"
    write_release(release, per_benchmark=PER_BENCHMARK)
    tasks = [
        getattr(bedside_tasks, b)(data_dir=str(release), grading=grading)
        for b, grading in RUNS.items()
    ]
    with ProviderDouble() as double, pytest.MonkeyPatch.context() as patch:
        double.apply_env(patch)
        reset_inspect_model_cache()
        try:
            done = inspect_eval(
                tasks,
                model=ANSWER_MODEL,
                model_roles={"grader": JUDGE_MODEL},
                log_dir=str(logs),
                display="none",
            )
            assert [log.status for log in done] == ["success"] * len(RUNS)
            [source] = [log.location for log in done if log.eval.task.endswith(REJUDGED)]
            rejudge = bedside_bench_in_process(
                "rejudge",
                source,
                "--judge",
                SECOND_JUDGE,
                "--output-dir",
                str(root / "rejudged"),
                "--display",
                "none",
            )
            assert rejudge.returncode == 0, output(rejudge)
        finally:
            reset_inspect_model_cache()
    # --force: the three-level run is another protocol, which the report refuses to compare
    report = bedside_bench_in_process("report", str(logs), "-o", str(root / "report"), "--force")
    assert report.returncode == 0, output(report)
    export = bedside_bench_in_process("data", "export", str(logs), "-o", str(root / "export"))
    assert export.returncode == 0, output(export)
    yield Run(
        release, logs, root / "report", root / "export" / "results.parquet", root / "rejudged"
    )


@pytest.fixture(scope="module")
def frame(run: Run) -> pd.DataFrame:
    return samples_df(str(run.logs), columns=SAMPLE_COLUMNS, quiet=True)


def report_benchmarks(run: Run) -> dict[str, dict[str, Any]]:
    """benchmark -> its entry in the report's summaries (one benchmark per summary here)."""
    found: dict[str, dict[str, Any]] = {}
    for path in run.report.glob("*.summary.json"):
        summary = json.loads(path.read_text())
        assert summary["answer_model"] == ANSWER_MODEL
        for name, entry in summary["benchmarks"].items():
            assert name not in found
            found[name] = entry
    assert sorted(found) == sorted(RUNS)
    return found


def matches(case: dict[str, Any], grading: str) -> dict[str, Fraction | bool]:
    """The match value of every item of `case` under the double's scripted judge."""
    answer = scripted_answer(wire_name(ANSWER_MODEL), case["prompt"])
    items = case["rubric_items"]
    if grading == "three_level":
        levels = {i["item_id"]: scripted_three_level(answer, i["item_id"]) for i in items}
        return dict(three_level_matches(items, levels))
    return {i["item_id"]: scripted_decision(answer, i["item_id"]) for i in items}


def test_per_benchmark_means_equal_the_reports_exactly(run: Run, frame: pd.DataFrame) -> None:
    reported = report_benchmarks(run)
    means = frame.groupby("benchmark")[["score", "recall", "precision"]].mean()
    for benchmark, entry in reported.items():
        rows = frame[frame["benchmark"] == benchmark]
        assert len(rows) == entry["n"] == PER_BENCHMARK and entry["failed"] == 0
        # the report's mean (numpy over the case scores) and the frame's, bit for bit
        assert float(np.mean(rows["score"].to_numpy(dtype=float))) == entry["mean"]
        assert float(means.loc[benchmark, "score"]) == entry["mean"]
        if "mean_recall" in entry:
            assert float(means.loc[benchmark, "recall"]) == entry["mean_recall"]
            assert float(means.loc[benchmark, "precision"]) == entry["mean_precision"]


def test_numbers_are_numbers_with_both_grading_methods(frame: pd.DataFrame) -> None:
    assert set(frame["grading_method"]) == {"points_rubric", "f1_weighted_rubric"}
    for name in NUMBERS:
        assert pd.api.types.is_float_dtype(frame[name]), (name, frame[name].dtype)
    assert pd.api.types.is_integer_dtype(frame["epoch"])
    for name in ("model", "benchmark", "case_id", "judge_model", "answer_condition"):
        assert pd.api.types.is_string_dtype(frame[name]), (name, frame[name].dtype)
    points = frame["grading_method"] == "points_rubric"
    # each method's numbers where they apply, null elsewhere (never 0, never a string)
    assert frame.loc[points, ["points_matched", "points_available"]].notna().all().all()
    assert frame.loc[points, ["recall", "precision"]].isna().all().all()
    assert frame.loc[~points, ["points_matched", "points_available"]].isna().all().all()
    assert frame.loc[~points, "recall"].notna().all()
    # three-level grading gives half points: the column holds fractions beside whole numbers
    assert (frame["points_matched"].dropna().to_numpy(dtype=float) % 1 != 0).any()


def test_read_in_parallel_the_frame_is_the_same(run: Run, frame: pd.DataFrame) -> None:
    """`parallel=True` reads each log apart and concatenates: a points log's recall has no
    value there at all. Columns left to Inspect then come back as objects mixing numbers and
    strings; the suite's stay float, and the frame equals the serial one."""
    parallel = samples_df(str(run.logs), columns=SAMPLE_COLUMNS, quiet=True, parallel=2)
    ordered = parallel.set_index("sample_id").loc[frame["sample_id"]].reset_index()
    assert list(ordered.columns) == list(frame.columns)
    assert dict(ordered.dtypes) == dict(frame.dtypes)
    pd.testing.assert_frame_equal(ordered, frame.reset_index(drop=True))


def test_each_case_is_the_protocols_numbers_over_the_scripted_decisions(
    run: Run, frame: pd.DataFrame
) -> None:
    assert set(frame["judge_model"]) == {JUDGE_MODEL}
    assert set(frame["answer_condition"]) == {"complete"}
    assert set(frame["model"]) == {ANSWER_MODEL}
    for benchmark, grading in RUNS.items():
        for case in read_cases(run.release, benchmark):
            [row] = frame[frame["case_id"] == case["case_id"]].to_dict("records")
            matched = matches(case, grading)
            items = case["rubric_items"]
            if case["grading_method"] == "points_rubric":
                available = sum(max(i["points"], 0) for i in items)
                signed = sum(Fraction(matched[i["item_id"]]) * i["points"] for i in items)
                assert (row["points_matched"], row["points_available"]) == (signed, available)
                assert row["score"] == float(points_score(items, matched))
            else:
                # the package computes F1 in floats: within rounding of the exact fraction
                recall, precision, f1, severe = f1_parts(items, matched)
                assert row["recall"] == pytest.approx(float(recall), abs=1e-12)
                assert row["score"] == pytest.approx(float(f1), abs=1e-12)
                assert row["severe_rate"] == severe
                if precision is None:
                    assert pd.isna(row["precision"])
                else:
                    assert row["precision"] == pytest.approx(float(precision), abs=1e-12)


def stored_logs_in(folder: Path) -> list[EvalLog]:
    return [read_eval_log(info) for info in list_eval_logs(str(folder))]


def stored_logs(run: Run) -> list[EvalLog]:
    return stored_logs_in(run.logs)


def test_one_row_per_item_decision_as_the_logs_store_them(run: Run, frame: pd.DataFrame) -> None:
    items = item_decisions(str(run.logs), quiet=True)
    stored = {}
    for log in stored_logs(run):
        for sample in log.samples or []:
            decisions = sample.scores["rubric_judge"].metadata["decisions"]  # type: ignore[index,union-attr]
            for item in sample.metadata["rubric_items"]:
                stored[(str(sample.id), sample.epoch, item["item_id"])] = (
                    item["points"],
                    decisions[item["item_id"]],
                )
    got = {
        (r["case_id"], r["epoch"], r["item_id"]): (r["points"], r["decision"], r["match_value"])
        for r in items.to_dict("records")
    }
    assert len(items) == len(got) == len(stored)
    named = {True: ("matched", 1.0), False: ("not_matched", 0.0)}
    half = {"MET": 1.0, "PARTIALLY_MET": 0.5, "NOT_MET": 0.0}
    for key, (points, decision) in stored.items():
        expected = named[decision] if isinstance(decision, bool) else (decision, half[decision])
        assert got[key] == (points, *expected), key
    assert pd.api.types.is_integer_dtype(items["points"])
    assert pd.api.types.is_float_dtype(items["match_value"])
    # keyed like the samples frame: each item row carries its case's score
    joined = items.merge(frame[["sample_id", "score"]], on="sample_id", suffixes=("", "_case"))
    assert len(joined) == len(items) and (joined["score"] == joined["score_case"]).all()


def test_evals_frame_one_row_per_log(run: Run) -> None:
    evals = evals_df(str(run.logs), columns=EVAL_COLUMNS, quiet=True)
    assert sorted(evals["benchmark"]) == sorted(RUNS)
    assert set(evals["judge_model"]) == {JUDGE_MODEL} and set(evals["model"]) == {ANSWER_MODEL}
    by_benchmark = evals.set_index("benchmark")
    assert {b: by_benchmark.loc[b, "grading"] for b in RUNS} == RUNS
    assert set(evals["completed_samples"]) == {PER_BENCHMARK}
    assert pd.api.types.is_integer_dtype(evals["judge_passes"])


def test_data_export_has_the_frames_recall_and_precision(run: Run, frame: pd.DataFrame) -> None:
    exported = pq.read_table(run.export).to_pandas()
    per_case = exported.drop_duplicates("case_id").set_index("case_id")
    for row in frame.to_dict("records"):
        for name in ("recall", "precision"):
            got = per_case.loc[row["case_id"], name]
            assert (pd.isna(got) and pd.isna(row[name])) or got == row[name], (row, name)


# --------------------------------------------------------------------------------------------
# a log and its re-judged copy, read together


def rubric_size(run: Run, benchmark: str) -> int:
    """The rubric items of `benchmark`'s cases, from the case files."""
    return sum(len(case["rubric_items"]) for case in read_cases(run.release, benchmark))


def test_a_log_and_its_rejudged_copy_keep_both_their_rows(run: Run, frame: pd.DataFrame) -> None:
    """The re-judged log's samples are copies of the source's; each has a uuid of its own,
    so Inspect's frames (which drop a repeated uuid) keep the rows of both logs."""
    [rejudged] = stored_logs_in(run.rejudged)
    assert rejudged.eval.eval_id not in set(frame["eval_id"])
    paths = [str(run.logs), str(run.rejudged)]
    both = samples_df(paths, columns=SAMPLE_COLUMNS, quiet=True)
    assert len(frame) == PER_BENCHMARK * len(RUNS)
    assert len(both) == PER_BENCHMARK * (len(RUNS) + 1)  # 12: the source's 9, the copy's 3
    assert both["sample_id"].is_unique
    copy = both[both["eval_id"] == rejudged.eval.eval_id]
    assert set(copy["judge_model"]) == {SECOND_JUDGE} and set(copy["benchmark"]) == {REJUDGED}
    cases = read_cases(run.release, REJUDGED)
    assert sorted(copy["case_id"]) == sorted(c["case_id"] for c in cases)
    # every row of the source logs is still there, as it was read alone
    source_rows = both[both["eval_id"] != rejudged.eval.eval_id]
    assert sorted(source_rows["sample_id"]) == sorted(frame["sample_id"])
    assert not set(copy["sample_id"]) & set(frame["sample_id"])
    # read in parallel (each log apart, then deduplicated by uuid): the same rows
    parallel = samples_df(paths, columns=SAMPLE_COLUMNS, quiet=True, parallel=2)
    assert sorted(parallel["sample_id"]) == sorted(both["sample_id"])


def test_item_decisions_of_a_log_and_its_rejudged_copy_keep_both(run: Run) -> None:
    alone = item_decisions(str(run.logs), quiet=True)
    both = item_decisions([str(run.logs), str(run.rejudged)], quiet=True)
    assert len(alone) == sum(rubric_size(run, b) for b in RUNS)
    assert len(both) == len(alone) + rubric_size(run, REJUDGED)
    assert set(both[both["judge_model"] == SECOND_JUDGE]["benchmark"]) == {REJUDGED}
    assert len(both[both["judge_model"] == SECOND_JUDGE]) == rubric_size(run, REJUDGED)
