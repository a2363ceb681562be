"""Physician review's pure parts (`review/select.py`, `labels.py`, `score.py`, `page.py`) on
hand-built records, figures by hand or recomputed here in plain Python."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bedside_bench.review.labels import Label, read_all, read_labels
from bedside_bench.review.logs import ReviewInputError
from bedside_bench.review.page import page_data, render_page
from bedside_bench.review.records import AnsweredCase, ItemKey, ReviewItem, ReviewSource
from bedside_bench.review.score import case_bootstrap, majority, outcomes, review_document
from bedside_bench.review.select import allocate, select_items


def source_of(
    cases: dict[str, list[int]], decisions: dict[str, dict[str, list[bool]]]
) -> ReviewSource:
    """Cases of model m (case id -> item points) and, per judge, each case's decisions."""
    source = ReviewSource()
    for case_id, points in cases.items():
        items = tuple(ReviewItem(f"{case_id}_{n}", f"item {n}", p) for n, p in enumerate(points))
        bench = "safety_diagnostic" if case_id.startswith("s") else "drug_safety"
        case = AnsweredCase(
            "m", bench, case_id, 1, f"question {case_id}", f"answer {case_id}", items
        )
        source.cases[case.key] = case
    for judge, by_case in decisions.items():
        source.judges.add(judge)
        for case_id, values in by_case.items():
            for n, value in enumerate(values):
                source.decisions.setdefault(("m", case_id, 1, f"{case_id}_{n}"), {})[judge] = value
    return source


def label(case_id: str, n: int, matched: bool | None) -> Label:
    return Label(
        case_id=case_id, item_id=f"{case_id}_{n}", answer_model="m", epoch=1, matched=matched
    )


def labels_of(*rows: tuple[str, int, bool | None]) -> dict[ItemKey, Label]:
    return {one.key: one for one in (label(*r) for r in rows)}


SOURCE = source_of(
    {"d1": [3, 1, -2], "d2": [2, 0], "s1": [3, -3]},
    {
        "A": {"d1": [True, True, False], "d2": [False, True], "s1": [True, False]},
        "B": {"d1": [True, False, False], "d2": [False, True], "s1": [False, False]},
    },
)


def test_disagreements_come_first_then_a_stratified_sample() -> None:
    picked = select_items(SOURCE, budget=4, seed=3)
    # A and B disagree on d1_1 and s1_0 only
    assert picked.disagreements == 2
    assert {("m", "d1", 1, "d1_1"), ("m", "s1", 1, "s1_0")} <= set(picked.items)
    assert len(picked.items) == 4
    assert select_items(SOURCE, budget=4, seed=3) == picked  # seeded
    everything = select_items(SOURCE, budget=100)
    assert len(everything.items) == 7
    # presentation order: case by case, rubric order
    assert [k[1:] for k in everything.items[:3]] == [(("d1", 1, f"d1_{n}")) for n in range(3)]


def test_allocation_is_proportional_with_one_per_stratum_first() -> None:
    assert allocate({("a", 1): 10, ("b", 1): 30}, 4) == {("a", 1): 1, ("b", 1): 3}
    assert allocate({("a", 1): 1, ("b", 1): 99}, 2) == {("a", 1): 1, ("b", 1): 1}
    assert allocate({("a", 1): 2, ("b", 1): 3}, 10) == {("a", 1): 2, ("b", 1): 3}


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.dictionaries(
        st.tuples(st.sampled_from("abc"), st.integers(-3, 3)), st.integers(1, 30), min_size=1
    ),
    budget=st.integers(0, 120),
)
def test_allocation_spends_the_budget_within_each_stratum(
    sizes: dict[tuple[str, int], int], budget: int
) -> None:
    counts = allocate(sizes, budget)
    assert sum(counts.values()) == min(budget, sum(sizes.values()))
    assert all(0 <= counts[s] <= sizes[s] for s in sizes)


def test_accuracy_by_judge_points_and_benchmark_with_unsure_apart() -> None:
    labels = {
        "Dr X": labels_of(
            ("d1", 0, True), ("d1", 1, False), ("d2", 0, False), ("s1", 0, True), ("s1", 1, None)
        )
    }
    doc = review_document(SOURCE, labels, resamples=500, seed=7).model_dump(mode="json")
    a, b = doc["judges"]["A"], doc["judges"]["B"]
    assert "by_reviewer" not in a  # one reviewer: the key is not written
    # A: d1_0 T=T ok, d1_1 T!=F, d2_0 F=F ok, s1_0 T=T ok -> 3 of 4; s1_1 unsure
    assert (a["correct"], a["n"], a["accuracy"], a["unsure"], a["cases"]) == (3, 4, 0.75, 1, 3)
    # B: d1_0 ok, d1_1 ok, d2_0 ok, s1_0 F!=T -> 3 of 4
    assert (b["correct"], b["n"]) == (3, 4)
    assert a["by_points"] == {
        "+3": {"accuracy": 1.0, "n": 2},
        "+2": {"accuracy": 1.0, "n": 1},
        "+1": {"accuracy": 0.0, "n": 1},
    }
    assert b["by_benchmark"] == {
        "drug_safety": {"accuracy": 1.0, "n": 3},
        "safety_diagnostic": {"accuracy": 0.0, "n": 1},
    }
    assert doc["labels"] == {"items": 5, "decided": 4, "unsure_or_tied": 1, "cases": 3}
    assert doc["against"] == "reviewer Dr X" and doc["reviewer_agreement"] is None


def test_case_bootstrap_resamples_whole_answers() -> None:
    rows, _ = outcomes(SOURCE, "A", {k: True for k in SOURCE.decisions})
    got = case_bootstrap(rows, 2000, 11)
    # independent: per case (correct, n); A said True on d1: 2 of 3, d2: 1 of 2, s1: 1 of 2
    per_case = np.array([[2, 3], [1, 2], [1, 2]], dtype=float)
    picks = np.random.default_rng(11).integers(0, 3, size=(2000, 3))
    acc = per_case[picks, 0].sum(axis=1) / per_case[picks, 1].sum(axis=1)
    assert got == (float(np.percentile(acc, 2.5)), float(np.percentile(acc, 97.5)))


def test_two_reviewers_majority_and_kappa() -> None:
    x = labels_of(("d1", 0, True), ("d1", 1, True), ("d2", 0, False), ("s1", 0, True))
    y = labels_of(("d1", 0, True), ("d1", 1, False), ("d2", 0, False), ("s1", 0, None))
    doc = review_document(SOURCE, {"x": x, "y": y}, resamples=200, seed=1).model_dump(mode="json")
    ref = majority({"x": x, "y": y})
    # d1_1: True vs False -> tie; s1_0: True vs unsure -> True (the only decided label)
    assert ref[("m", "d1", 1, "d1_1")] is None and ref[("m", "s1", 1, "s1_0")] is True
    agreement = doc["reviewer_agreement"]
    # items both decided: d1_0 (T,T), d1_1 (T,F), d2_0 (F,F): p_o = 2/3;
    # x: 2 of 3 true, y: 1 of 3 true -> p_e = 2/9 + 2/9 = 4/9; kappa = (2/3-4/9)/(5/9) = 2/5
    assert agreement["n_items"] == 3 and agreement["statistic"] == "cohen_kappa"
    assert agreement["kappa"] == pytest.approx(float(Fraction(2, 5)))
    assert doc["against"] == "majority of 2 reviewers"
    assert doc["judges"]["A"]["by_reviewer"]["y"] == {"accuracy": 2 / 3, "n": 3}


def test_labels_naming_unknown_answers_or_items_are_refused_by_name() -> None:
    bad_case = {"r": labels_of(("zz", 0, True))}
    with pytest.raises(
        ReviewInputError, match="reviewer 'r': case zz of m, epoch 1: no judged answer"
    ):
        review_document(SOURCE, bad_case)
    bad_item = {"r": {("m", "d1", 1, "d1_9"): label("d1", 9, True)}}
    with pytest.raises(ReviewInputError, match="item d1_9 is not in its rubric"):
        review_document(SOURCE, bad_item)
    other_answer = Label(
        case_id="d1",
        item_id="d1_0",
        answer_model="m",
        epoch=1,
        matched=True,
        answer_sha256="0" * 64,
    )
    with pytest.raises(ReviewInputError, match="the logs hold another answer to this case"):
        review_document(SOURCE, {"r": {other_answer.key: other_answer}})


def write_labels(path: Path, reviewer: str, rows: list[dict]) -> Path:
    path.write_text(
        json.dumps({"format": "bedside-bench-labels-v1", "reviewer": reviewer, "labels": rows})
    )
    return path


def row(case_id: str, n: int, matched: bool | None) -> dict:
    return {
        "case_id": case_id,
        "item_id": f"{case_id}_{n}",
        "answer_model": "m",
        "epoch": 1,
        "matched": matched,
        "note": "",
    }


def test_the_same_item_twice_from_one_reviewer_is_an_error(tmp_path: Path) -> None:
    twice = write_labels(tmp_path / "a.json", "x", [row("d1", 0, True), row("d1", 0, False)])
    with pytest.raises(
        ReviewInputError, match="reviewer 'x' labelled item d1_0 of case d1 .* twice"
    ):
        read_labels(twice)
    one = write_labels(tmp_path / "b.json", "x", [row("d1", 0, True)])
    again = write_labels(tmp_path / "c.json", "x", [row("d1", 0, False), row("d1", 1, True)])
    with pytest.raises(ReviewInputError, match=f"already in {one}"):
        read_all([one, again])
    other = write_labels(tmp_path / "d.json", "x", [row("d1", 1, True)])
    assert len(read_all([one, other])["x"]) == 2
    bad = tmp_path / "e.json"
    bad.write_text(
        json.dumps(
            {
                "format": "bedside-bench-labels-v1",
                "reviewer": "x",
                "labels": [{**row("d1", 0, True), "matched": "yes"}],
            }
        )
    )
    with pytest.raises(ReviewInputError, match=r"e.json: field labels.0.matched"):
        read_labels(bad)


def test_the_page_holds_no_decision_and_no_way_out_of_its_script() -> None:
    source = source_of({"d1": [3]}, {"A": {"d1": [True]}})
    case = source.cases[("m", "d1", 1)]
    hostile = "</script><script>alert(1)</script> \ud800 <!--"
    source.cases[case.key] = AnsweredCase(
        "m", case.benchmark, "d1", 1, hostile, hostile, case.items
    )
    data = page_data(source, [("m", "d1", 1, "d1_0")], title="<b>review</b>")
    html = render_page(data)
    assert html.count("</script>") == 2  # the page's own two scripts, nothing from the data
    assert "<b>review</b>" not in html and "&lt;b&gt;review&lt;/b&gt;" in html
    assert '"A"' not in html and 'matched": true' not in html  # no judge, no decision
    assert (
        json.loads(html.split('type="application/json">')[1].split("</script>")[0])["cases"][0][
            "prompt"
        ]
        == hostile
    )
    assert "http://" not in html and "https://" not in html  # no network


def test_selection_is_reproducible_over_random_sources() -> None:
    rng = random.Random(5)
    cases = {
        f"d{n}": [rng.choice([3, 2, 1, -1]) for _ in range(rng.randint(1, 6))] for n in range(20)
    }
    decisions = {
        j: {c: [rng.random() < 0.5 for _ in p] for c, p in cases.items()} for j in ("A", "B")
    }
    source = source_of(cases, decisions)
    first = select_items(source, budget=25, seed=9)
    assert first == select_items(source, budget=25, seed=9)
    assert len(first.items) == 25 and len(set(first.items)) == 25


def test_each_judging_has_its_own_label() -> None:
    from bedside_bench.review.logs import judge_label

    binary = {"judge_model": "openai/j", "decisions": {"a": True}}
    levels = {"judge_model": "openai/j", "decisions": {"a": "MET"}}
    passes = {"judge_model": "openai/j", "judge_passes": 3, "decisions": {"a": True}}
    labels = [
        judge_label(binary, "x", "rubric_judge"),
        judge_label(binary, "x", "rubric_judge1"),
        judge_label(binary, "x", "bedside_bench/rubric_judge2"),
        judge_label(levels, "x", "rubric_judge"),
        judge_label(passes, "x", "rubric_judge"),
    ]
    assert labels == [
        "openai/j",
        "openai/j (rubric_judge1)",
        "openai/j (rubric_judge2)",
        "openai/j three-level",
        "openai/j x3",
    ]


def test_a_title_naming_a_placeholder_stays_text() -> None:
    source = source_of({"d1": [3]}, {"A": {"d1": [True]}})
    html = render_page(page_data(source, [("m", "d1", 1, "d1_0")], title="__DATA__ review"))
    assert "<title>__DATA__ review</title>" in html
    assert html.count("question d1") == 1  # the data once, in its script element


def test_labels_files_are_told_from_logs_by_content(tmp_path: Path) -> None:
    from bedside_bench.review.inputs import is_labels_file

    labels = write_labels(tmp_path / "labels.json", "x", [row("d1", 0, True)])
    shuffled = tmp_path / "shuffled.json"  # the format key last, after 4 kB of labels
    rows = [row("d1", 0, True)] * 60
    shuffled.write_text(json.dumps({"labels": rows, "reviewer": "x", "format": "f"}))
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"version": 2, "status": "success", "eval": {}}))
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    assert is_labels_file(str(labels)) and is_labels_file(str(shuffled))
    assert not is_labels_file(str(log)) and not is_labels_file(str(tmp_path))
    with pytest.raises(
        ReviewInputError, match="list.json: neither a labels file nor an Inspect log"
    ):
        is_labels_file(str(listed))
