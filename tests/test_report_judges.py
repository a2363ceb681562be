"""The judge comparison (`report/judges.py`, `report/judges_section.py`): its statistics and
grouping on hand-built records, numbers by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES, get_benchmark
from bedside_bench.logs.records import LogRecord
from bedside_bench.report.groups import group_records
from bedside_bench.report.judges import find_judge_sets, judge_comparison, reference_groups
from bedside_bench.report.judges_section import judges_section
from bedside_bench.report.run import analyse
from bedside_bench.report.summary import BootstrapOptions
from tests.report_helpers import case_record, log_record

OPTIONS = BootstrapOptions(resamples=50, seed=1)


def record(
    model: str,
    judge: str,
    benchmark: str,
    decisions: list[dict[str, bool]],
    source: str = "T",
    judge_of_cases: str | None = None,
) -> LogRecord:
    cases = {}
    for n, d in enumerate(decisions):
        score = sum(d.values()) / len(d)
        cases[f"{benchmark}-{n}"] = case_record(
            case_id=f"{benchmark}-{n}",
            score=score,
            judge_model=judge_of_cases or judge,
            decisions=d,
        )
    return log_record(
        cases,
        benchmark=benchmark,
        answer_model=model,
        judge_model=judge_of_cases or judge,
        location=f"{model}-{judge}-{benchmark}",
        task_id=f"{source}-{model}-{benchmark}",
        answer_source=f"{source}-{model}-{benchmark}",
    )


def test_judge_effect_agreement_and_ranking_on_one_benchmark() -> None:
    name = "drug_safety"
    # judge A vs B on model m1: items x (agree), y (disagree on case 0)
    m1_a = [{"x": True, "y": True}, {"x": False, "y": False}]
    m1_b = [{"x": True, "y": False}, {"x": False, "y": False}]
    m2_a = [{"x": False, "y": False}, {"x": False, "y": True}]
    m2_b = [{"x": True, "y": True}, {"x": True, "y": True}]
    records = [
        record("m1", "A", name, m1_a),
        record("m1", "B", name, m1_b),
        record("m2", "A", name, m2_a),
        record("m2", "B", name, m2_b),
    ]
    groups = group_records(records)
    doc = judge_comparison(groups, OPTIONS, {"x": 2, "y": -1})
    assert doc is not None
    data = doc.model_dump(mode="json")  # judges.json as written
    (comp,) = data["comparisons"]
    assert comp["judges"] == ["A", "B"]
    m1, m2 = comp["models"]
    # m1: A scores (1, 0), B scores (0.5, 0): effect mean((-0.5, 0)) = -0.25
    assert m1["judges"]["A"]["benchmarks"][name]["mean"] == 0.5
    assert m1["judges"]["B"]["benchmarks"][name]["mean"] == 0.25
    assert m1["effects"][0]["benchmarks"][name]["b_minus_a"] == -0.25
    assert m1["judges"]["A"]["overall"] is None  # nine benchmarks missing
    # m2: A (0, 0.5), B (1, 1): +0.75
    assert m2["effects"][0]["benchmarks"][name]["b_minus_a"] == 0.75
    # 8 items: disagreements m1 y0; m2 x0, x1, y0 -> 4 of 8 agree
    # A matched 3 of 8, B 5 of 8: p_e = 2 * 3/8 * 5/8 = 30/64; kappa = (1/2 - 30/64) / (34/64)
    (pair,) = comp["agreement"]["pairs"]
    assert pair["overall"]["n_items"] == 8
    assert pair["overall"]["agreement"] == 0.5
    assert pair["overall"]["kappa"] == pytest.approx((0.5 - 30 / 64) / (34 / 64))
    # x (+2): m1 agrees twice, m2 disagrees twice; y (-1): each model disagrees on case 0
    assert pair["points"]["+2"]["agreement"] == 0.5
    assert pair["points"]["-1"]["agreement"] == 0.5
    assert comp["agreement"]["fleiss"] is None
    ranking = comp["ranking"]
    assert ranking["basis"] == "mean of shared benchmark means: drug_safety"
    assert ranking["order"] == {"A": ["m1", "m2"], "B": ["m2", "m1"]}
    assert ranking["pairs"][0]["kendall_tau"] == -1.0
    assert ranking["pairs"][0]["swapped"] == [["m1", "m2"]]
    # the model comparison takes only the reference judge's groups
    picked = [groups[i] for i in reference_groups(groups)]
    assert {g.key.judge_model for g in picked} == {"A"}
    text = repr(judges_section(doc))
    assert "CHANGES with the judge" in text


def test_three_judges_give_fleiss_kappa() -> None:
    name = "drug_safety"
    a = [{"x": True, "y": False}]
    b = [{"x": True, "y": True}]
    c = [{"x": False, "y": True}]
    groups = group_records([record("m", j, name, d) for j, d in (("A", a), ("B", b), ("C", c))])
    doc = judge_comparison(groups, OPTIONS, {})
    assert doc is not None
    data = doc.model_dump(mode="json")  # judges.json as written
    fleiss = data["comparisons"][0]["agreement"]["fleiss"]
    # item x: 2 matched 1 not; item y: 2 matched 1 not -> P_i = 1/3 each; p_j = (2/3, 1/3)
    # P_e = 4/9 + 1/9 = 5/9 -> kappa = (1/3 - 5/9) / (4/9) = -1/2
    assert fleiss["overall"]["kappa"] == pytest.approx(-0.5)
    assert fleiss["overall"]["unanimous"] == 0.0
    assert len(data["comparisons"][0]["agreement"]["pairs"]) == 3


def test_other_answers_and_mixed_judges_are_never_paired() -> None:
    name = "drug_safety"
    d = [{"x": True}]
    records = [
        record("m", "A", name, d),
        record("m", "B", name, d, source="another-run"),
        record("n", "A", name, d, judge_of_cases="mixed: A, B"),
        record("n", "B", name, d),
    ]
    sets, excluded = find_judge_sets(group_records(records))
    assert sets == []
    reasons = " | ".join(f"{g}: {r}" for g, r in excluded)
    # B judged more groups than A, so B is the reference
    assert "m judged by A: its answers are not those B judged" in reasons
    assert "n judged by A, B: its cases were scored by several judges" in reasons
    assert judge_comparison(group_records(records), OPTIONS, {}) is None


def test_overall_effect_uses_all_ten_benchmarks() -> None:
    records = []
    for name in BENCHMARK_NAMES:
        records.append(record("m", "A", name, [{"x": True}, {"x": False}]))
        records.append(record("m", "B", name, [{"x": True}, {"x": True}]))
    doc = judge_comparison(group_records(records), OPTIONS, {})
    assert doc is not None
    data = doc.model_dump(mode="json")  # judges.json as written
    (model,) = data["comparisons"][0]["models"]
    assert model["judges"]["A"]["overall"]["mean"] == 0.5
    assert model["judges"]["B"]["overall"]["mean"] == 1.0
    effect = model["effects"][0]["overall"]
    assert effect["b_minus_a"] == 0.5 and effect["n"] == 20
    assert get_benchmark("drug_safety").grading_method == "points_rubric"


def test_model_comparison_keeps_every_group_unless_the_judges_cover_every_model() -> None:
    d = [{"x": True}]
    both = [record(m, j, "drug_safety", d) for m in ("m", "n") for j in ("A", "B")]
    groups = group_records(both)
    assert [groups[i].key.judge_model for i in reference_groups(groups)] == ["A", "A"]
    # model o only judged by C: every group goes to the comparison, which then refuses
    groups = group_records([*both, record("o", "C", "drug_safety", d)])
    assert reference_groups(groups) == list(range(len(groups)))


def test_agreement_states_its_coverage_and_names_every_shortfall() -> None:
    """Three cases both judges completed, rubric x, y, z each: case 0 fully decided by both;
    case 1 without decisions from B (not recorded); case 2 with item z missing from A's."""
    name = "drug_safety"
    a = [{"x": True, "y": True, "z": False}, {"x": True, "y": False, "z": True}]
    a.append({"x": False, "y": True})
    b = [{"x": True, "y": False, "z": False}, {"x": True}, {"x": False, "y": True, "z": True}]
    records = [record("m", "A", name, a), record("m", "B", name, b)]
    cases = dict(records[1].cases)
    cases["drug_safety-1"] = case_record(
        case_id="drug_safety-1", score=0.5, judge_model="B", decisions=None
    )
    records[1] = replace(records[1], cases=cases)
    rubrics = {(name, f"{name}-{n}"): ("x", "y", "z") for n in range(3)}
    doc = judge_comparison(group_records(records), OPTIONS, {}, rubrics)
    assert doc is not None
    data = doc.model_dump(mode="json")  # judges.json as written
    (pair,) = data["comparisons"][0]["agreement"]["pairs"]
    assert pair["coverage"] == {
        "cases": 3,
        "cases_decided": 2,
        "items": 5,  # case 0: x, y, z; case 2: x, y
        "rubric_items": 9,
        "complete": False,
        "shortfall": [
            "1 of 3 cases have no item decisions from every judge (three-level grading, "
            "decisions not recorded, or an answer without text, which no judge is asked about)",
            "4 of 9 rubric items are not compared",
        ],
    }
    assert (pair["overall"]["n_items"], pair["overall"]["n_cases"]) == (5, 2)
    # case 0: y disagrees; case 2: x, y agree -> 4 of 5
    assert pair["overall"]["agreement"] == pytest.approx(4 / 5)
    text = repr(judges_section(doc))
    assert "A vs B: 5 of 9 rubric items of the 3 cases every judge completed. SHORTFALL: " in text


def test_an_answer_without_text_is_no_agreement_between_judges() -> None:
    """Both judges' scores of an answer without text say "not matched" by rule: counted as a
    case no judge decided, never as agreement."""
    name = "drug_safety"
    a = [{"x": True, "y": False}, {"x": False, "y": False}]
    b = [{"x": True, "y": True}, {"x": False, "y": False}]
    records = [record("m", "A", name, a), record("m", "B", name, b)]
    for n, r in enumerate(records):
        cases = dict(r.cases)
        cases["drug_safety-1"] = replace(cases["drug_safety-1"], answer_empty=True)
        records[n] = replace(r, cases=cases)
    rubrics = {(name, f"{name}-{n}"): ("x", "y") for n in range(2)}
    doc = judge_comparison(group_records(records), OPTIONS, {}, rubrics)
    assert doc is not None
    (pair,) = doc.model_dump(mode="json")["comparisons"][0]["agreement"]["pairs"]
    assert (pair["coverage"]["cases"], pair["coverage"]["cases_decided"]) == (2, 1)
    assert pair["overall"]["n_items"] == 2 and pair["overall"]["agreement"] == pytest.approx(1 / 2)


def test_agreement_pairs_each_epoch_of_a_case() -> None:
    """With two epochs a case's decisions live in its epoch records: each epoch is compared."""
    name = "drug_safety"

    def two_epochs(judge: str, first: dict[str, bool], second: dict[str, bool]) -> LogRecord:
        epochs = tuple(
            case_record(case_id="c", score=0.5, judge_model=judge, decisions=d)
            for d in (first, second)
        )
        case = case_record(case_id="c", score=0.5, judge_model=judge, epoch_records=epochs)
        return log_record(
            {"c": case},
            benchmark=name,
            answer_model="m",
            judge_model=judge,
            location=f"m-{judge}",
            task_id="T",
            answer_source="T",
            epochs=2,
        )

    records = [
        two_epochs("A", {"x": True, "y": True}, {"x": False, "y": True}),
        two_epochs("B", {"x": True, "y": False}, {"x": False, "y": True}),
    ]
    doc = judge_comparison(group_records(records), OPTIONS, {}, {(name, "c"): ("x", "y")})
    assert doc is not None
    data = doc.model_dump(mode="json")  # judges.json as written
    (pair,) = data["comparisons"][0]["agreement"]["pairs"]
    assert pair["coverage"]["items"] == pair["coverage"]["rubric_items"] == 4
    assert pair["coverage"]["cases"] == 2 and pair["coverage"]["complete"]
    assert pair["overall"]["agreement"] == pytest.approx(3 / 4)


def test_a_judge_left_out_of_the_comparison_is_not_sent_to_a_judge_comparison() -> None:
    """Models answered once and judged by A, answered again in another run and judged by B (the
    same judge in more passes, say): the model comparison takes A's groups, and no judge
    comparison holds B's (their answers are another run's). B's groups must say why they are
    out, not point at a judge comparison the report does not have."""
    d = [{"x": True}, {"x": False}]
    records = [
        record(m, j, name, d, source=s)
        for name in BENCHMARK_NAMES
        for m in ("m", "n")
        for j, s in (("A", "T"), ("B", "another-run"))
    ]
    assert judge_comparison(group_records(records), OPTIONS, {}) is None
    analysis = analyse(records, OPTIONS)
    whys = {analysis.labels[i]: why for i, why in analysis.standing.unranked}
    ranked = analysis.standing.ranked
    assert sorted(analysis.groups[i].key.judge_model for i in ranked) == ["A", "A"]
    assert len(whys) == 2, whys
    for why in whys.values():
        assert "see the judge comparison" not in why, why
        assert why == (
            "another judge's scores, in no judge comparison: its answers are not those "
            "A judged (another answer run)"
        ), why


def test_a_judge_in_the_judge_comparison_is_sent_there() -> None:
    d = [{"x": True}, {"x": False}]
    records = [
        record(m, j, name, d) for name in BENCHMARK_NAMES for m in ("m", "n") for j in ("A", "B")
    ]
    assert judge_comparison(group_records(records), OPTIONS, {}) is not None
    analysis = analyse(records, OPTIONS)
    whys = [why for _, why in analysis.standing.unranked]
    assert whys == ["another judge's scores (see the judge comparison)"] * 2
