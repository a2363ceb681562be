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

from bedside_bench.review.labels import Label, ReviewLabels, read_all, read_labels
from bedside_bench.review.logs import ReviewInputError
from bedside_bench.review.page import page_data, render_page
from bedside_bench.review.records import (
    AnsweredCase,
    ItemKey,
    ReviewItem,
    ReviewSource,
    answer_digest,
)
from bedside_bench.review.score import case_bootstrap, majority, outcomes, review_document
from bedside_bench.review.select import allocate, fill, select_items, spread
from tests.review_files import labels_doc, write_labels

REVIEW_ID = "0123456789abcdef"


def source_of(
    cases: dict[str, list[int]], decisions: dict[str, dict[str, list[bool]]]
) -> ReviewSource:
    """Cases of model m (case id -> item points) and, per judge, each case's decisions."""
    source = ReviewSource()
    for case_id, points in cases.items():
        items = tuple(ReviewItem(f"{case_id}_{n}", f"item {n}", p) for n, p in enumerate(points))
        case = AnsweredCase(
            "m", bench_of(case_id), case_id, 1, f"question {case_id}", f"answer {case_id}", items
        )
        source.cases[case.key] = case
    for judge, by_case in decisions.items():
        source.judges.add(judge)
        for case_id, values in by_case.items():
            for n, value in enumerate(values):
                source.decisions.setdefault(("m", case_id, 1, f"{case_id}_{n}"), {})[judge] = value
    return source


def bench_of(case_id: str) -> str:
    return "safety_diagnostic" if case_id.startswith("s") else "drug_safety"


def label(case_id: str, n: int, matched: bool | None) -> Label:
    return Label(
        case_id=case_id,
        item_id=f"{case_id}_{n}",
        answer_model="m",
        epoch=1,
        matched=matched,
        benchmark=bench_of(case_id),
        answer_sha256=answer_digest(f"answer {case_id}"),
    )


def review_of(labels: dict[str, dict[ItemKey, Label]]) -> ReviewLabels:
    return ReviewLabels(REVIEW_ID, labels)


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
    doc = review_document(SOURCE, review_of(labels), resamples=500, seed=7).model_dump(mode="json")
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
    doc = review_document(SOURCE, review_of({"x": x, "y": y}), resamples=200, seed=1).model_dump(
        mode="json"
    )
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
    bad_case = review_of({"r": labels_of(("zz", 0, True))})
    with pytest.raises(ReviewInputError) as refused:
        review_document(SOURCE, bad_case)
    assert str(refused.value) == "reviewer 'r': case zz of m, epoch 1: no judged answer in the logs"
    bad_item = review_of({"r": {("m", "d1", 1, "d1_9"): label("d1", 9, True)}})
    with pytest.raises(ReviewInputError, match="item d1_9 is not in its rubric"):
        review_document(SOURCE, bad_item)
    other_answer = label("d1", 0, True).model_copy(update={"answer_sha256": "0" * 64})
    with pytest.raises(ReviewInputError, match="the logs hold another answer to this case"):
        review_document(SOURCE, review_of({"r": {other_answer.key: other_answer}}))
    other_benchmark = label("d1", 0, True).model_copy(update={"benchmark": "health_equity"})
    with pytest.raises(
        ReviewInputError, match="labelled as health_equity, but the logs' case is of drug_safety"
    ):
        review_document(SOURCE, review_of({"r": {other_benchmark.key: other_benchmark}}))


def row(case_id: str, n: int, matched: bool | None) -> dict[str, object]:
    return {
        "answer_model": "m",
        "case_id": case_id,
        "epoch": 1,
        "item_id": f"{case_id}_{n}",
        "benchmark": bench_of(case_id),
        "answer_sha256": answer_digest(f"answer {case_id}"),
        "matched": matched,
        "note": "",
    }


PAGE = [row("d1", n, None) for n in range(3)]  # the review page of the files below


def test_the_same_item_twice_from_one_reviewer_is_an_error(tmp_path: Path) -> None:
    twice = write_labels(tmp_path / "a.json", "x", [row("d1", 0, True), row("d1", 0, False)], PAGE)
    with pytest.raises(ReviewInputError) as refused:
        read_labels(twice)
    assert str(refused.value) == (
        f"{twice}: reviewer 'x' labelled item d1_0 of case d1 (m, epoch 1) twice"
    )
    one = write_labels(tmp_path / "b.json", "x", [row("d1", 0, True)], PAGE)
    again = write_labels(tmp_path / "c.json", "X ", [row("d1", 0, False), row("d1", 1, True)], PAGE)
    with pytest.raises(ReviewInputError) as refused:
        read_all([one, again])
    assert str(refused.value) == (
        f"{again}: field labels.0: reviewer 'x' labelled item d1_0 of case d1 (m, epoch 1) "
        f"already in {one}: field labels.0"
    )
    other = write_labels(tmp_path / "d.json", "x", [row("d1", 1, True)], PAGE)
    assert len(read_all([one, other]).by_reviewer["x"]) == 2
    bad = tmp_path / "e.json"
    bad.write_text(json.dumps(labels_doc("x", [{**row("d1", 0, True), "matched": "yes"}], PAGE)))
    with pytest.raises(ReviewInputError) as refused:
        read_labels(bad)
    assert str(refused.value) == f"{bad}: field labels.0.matched: Input should be a valid boolean"


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

    labels = write_labels(tmp_path / "labels.json", "x", [row("d1", 0, True)], PAGE)
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


def agreeing_source(sizes: dict[str, list[int]]) -> ReviewSource:
    """Cases (id -> item points) that two judges decide alike: no disagreement."""
    decided = {c: [True] * len(p) for c, p in sizes.items()}
    return source_of(sizes, {"A": decided, "B": decided})


def test_the_page_reads_several_items_per_answer_with_their_points_spread() -> None:
    source = agreeing_source({f"d{n}": [3, 3, 2, -1, -1, -2] for n in range(20)})
    picked = select_items(source, budget=20, seed=4, per_answer=4)
    per_case: dict[str, list[int]] = {}
    for key in picked.items:
        per_case.setdefault(key[1], []).append(int(key[3].split("_")[1]))
    assert (len(picked.items), picked.answers, picked.per_answer) == (20, 5, 4.0)
    assert all(len(v) == 4 for v in per_case.values())
    # four items of an answer cover four of its four point values (+3, +2, -1, -2)
    points = [3, 3, 2, -1, -1, -2]
    assert all(len({points[i] for i in v}) == 4 for v in per_case.values())


def test_answers_with_disagreements_come_first_topped_up() -> None:
    sizes = {f"d{n}": [3, 2, 1, -1, -2] for n in range(10)}
    decided = {c: [True] * 5 for c in sizes}
    other = {**decided, "d3": [False, True, True, True, True], "d7": [False] * 3 + [True] * 2}
    source = source_of(sizes, {"A": decided, "B": other})
    picked = select_items(source, budget=8, seed=1, per_answer=4)
    # d7 (three disagreements) and its fourth item, then d3 (one) and three more
    assert picked.disagreements == 4 and picked.answers == 2
    assert {k[1] for k in picked.items} == {"d3", "d7"}
    assert {("d7", f"d7_{n}") for n in range(3)} <= {k[1:4:2] for k in picked.items}
    assert ("m", "d3", 1, "d3_0") in picked.items


def test_a_release_shaped_review_reads_about_four_items_per_answer() -> None:
    """The public release's rubric sizes (250 cases: 40 with one item, 66 with two, ... 9
    with forty). Drawn item by item, 100 items were spread over 53 to 64 of these answers
    (83 on real logs of ten benchmarks); drawn by answer, over at most 28."""
    rubric_sizes = {1: 40, 2: 66, 3: 29, 4: 40, 5: 21, 6: 1, 7: 3, 22: 2, 24: 6, 26: 7}
    rubric_sizes |= {28: 2, 31: 2, 36: 3, 37: 2, 38: 6, 39: 6, 40: 9, 41: 5}
    rng = random.Random(8)
    sizes, n = {}, 0
    for size, count in rubric_sizes.items():
        for _ in range(count):
            sizes[f"d{n:03d}"] = [rng.choice([3, 2, 1, -1, -2, -3]) for _ in range(size)]
            n += 1
    source = agreeing_source(sizes)
    for seed in range(5):
        picked = select_items(source, budget=100, seed=seed, per_answer=4)
        assert len(picked.items) == 100 and 25 <= picked.answers <= 28


def test_fill_takes_few_answers_and_more_from_them_once_all_are_open() -> None:
    a, b, c = (
        [("m", x, 1, f"{x}_{i}") for i in range(n)] for x, n in (("a", 6), ("b", 1), ("c", 5))
    )
    assert fill([a, b, c], 9, 4) == [*a[:5], b[0], *c[:3]]  # 9 / 4 ~ 2 answers: 5 each
    assert fill([a, b], 7, 4) == [*a[:4], b[0], *a[4:6]]  # both open: a gives more
    assert fill([a], 0, 4) == []


def test_spread_takes_each_point_value_before_a_second() -> None:
    source = agreeing_source({"d1": [3, 3, 3, -2, 1]})
    keys = [("m", "d1", 1, f"d1_{i}") for i in range(5)]
    for seed in range(10):
        order = spread(source, keys, random.Random(seed))
        assert sorted(order) == sorted(keys)
        assert {k[3] for k in order[:3]} >= {"d1_3", "d1_4"}
