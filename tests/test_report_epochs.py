"""Epochs of one log (`logs/epochs.py`), on hand-built records (no I/O): a case's score is the
mean over its epochs, and a case counts only when every epoch scored."""

from __future__ import annotations

from fractions import Fraction

from bedside_bench.logs.epochs import reduce_case, reduce_epochs
from bedside_bench.logs.records import CaseRecord
from bedside_bench.report.summary import judge_kappa
from tests.independent import fleiss_kappa
from tests.report_helpers import case_record


def epoch(score: float | None, **fields: object) -> CaseRecord:
    return case_record("c1", score, None if score is not None else "judge failed", **fields)


def test_one_epoch_is_passed_through_unchanged() -> None:
    record = epoch(0.1 + 0.2, recall=0.5)
    assert reduce_case("c1", {1: record}, 1) is record


def test_the_case_score_is_the_exact_mean_of_its_epochs() -> None:
    values = [0.1, 0.2, 0.7000000000000001]
    records = {e + 1: epoch(v, recall=v, precision=None) for e, v in enumerate(values)}
    case = reduce_case("c1", records, 3)
    expected = float(sum(Fraction(v) for v in values) / 3)
    assert case.completed and case.score == expected
    assert case.recall == expected and case.precision is None
    assert case.epoch_records == tuple(records[e] for e in (1, 2, 3))


def test_a_case_counts_only_when_every_epoch_scored() -> None:
    failed = reduce_case("c1", {1: epoch(0.5), 2: epoch(None), 3: epoch(0.5)}, 3)
    assert not failed.completed and failed.score is None
    assert failed.error == "epoch 2 of 3: judge failed"
    missing = reduce_case("c1", {1: epoch(0.5), 3: epoch(0.5)}, 3)
    assert missing.error == "epoch 2 of 3: not run"


def test_epochs_beyond_the_configured_number_are_ignored() -> None:
    cases = reduce_epochs({("a", 1): epoch(0.25), ("a", 2): epoch(0.75), ("a", 3): epoch(0.0)}, 2)
    assert list(cases) == ["a"] and cases["a"].score == 0.5


def test_kappa_takes_each_epochs_answer_as_its_own_subject() -> None:
    def passes(*rows: tuple[bool, bool]) -> tuple[dict[str, bool], ...]:
        return tuple({"i1": a, "i2": b} for a, b in rows)

    first = epoch(0.5, pass_decisions=passes((True, False), (True, True)))
    second = epoch(0.5, pass_decisions=passes((False, False), (False, True)))
    case = reduce_case("c1", {1: first, 2: second}, 2)
    # subjects: (epoch 1, i1) (epoch 1, i2) (epoch 2, i1) (epoch 2, i2); raters: 2 passes
    rows = [[2, 0], [1, 1], [0, 2], [1, 1]]
    assert judge_kappa([case]) == fleiss_kappa(rows)
