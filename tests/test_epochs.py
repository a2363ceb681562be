"""`--epochs N`: every epoch judges its own answer, the log keeps every epoch's score, and the
metrics see a case as the mean of its epochs (diagnostics and judge agreement included)."""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval

from bedside_bench.doubles import (
    ParsedRequest,
    ProviderDouble,
    Script,
    scripted_answer,
    scripted_decision,
)
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import ANSWER_MODEL, JUDGE_MODEL, assert_bought_once
from tests.independent import case_score, f1_parts, fleiss_kappa, read_cases
from tests.release_factory import write_release


def flips(k: int, item_id: str) -> bool:
    return sum(map(ord, item_id)) % (k + 2) == 0


class EpochScript:
    """Each answer to a prompt is different (so epochs differ); the k-th judge call on one
    answer flips a known subset of decisions (so passes differ)."""

    def __init__(self) -> None:
        self.answers: Counter[str] = Counter()
        self.judged: Counter[str] = Counter()
        self.lock = threading.Lock()

    def answer(self, req: ParsedRequest) -> str:
        with self.lock:
            k = self.answers[req.user]
            self.answers[req.user] += 1
        return f"{scripted_answer(req.model, req.user)} Take {k}."

    def judge(self, req: ParsedRequest) -> str:
        parsed = req.judge
        with self.lock:
            k = self.judged[parsed.answer]
            self.judged[parsed.answer] += 1
        return json.dumps(
            {
                "decisions": [
                    {"item_id": i, "matched": scripted_decision(parsed.answer, i) != flips(k, i)}
                    for i in parsed.item_ids
                ]
            }
        )


@pytest.mark.slow
def test_two_epochs_are_judged_apart_and_reduced_per_case(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    provider_double = provider_env
    release = tmp_path / "release"
    write_release(release, per_benchmark=4)
    script = EpochScript()
    provider_double.configure(script=Script(answer=script.answer, judge=script.judge))
    # `inspect eval ... --epochs 2 -T judge_passes=3`, through Inspect's `eval()` in this
    # process (`--epochs` is typed on `inspect eval`'s command line in the report's and the
    # export's tests)
    task = bedside_tasks.safety_diagnostic(data_dir=str(release), judge_passes=3)
    (log,) = inspect_eval(
        task,
        model=ANSWER_MODEL,
        model_roles={"grader": JUDGE_MODEL},
        epochs=2,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.eval.config.epochs == 2
    cases = {c["case_id"]: c for c in read_cases(release, "safety_diagnostic")}
    # two answers per case (one per epoch), each judged by three passes
    assert_bought_once(provider_double, cases.values(), [ANSWER_MODEL], 6, answers_per_case=2)
    # three judge calls (the passes) on each of the eight distinct answers, nothing shared
    assert sorted(script.judged.values()) == [3] * 8

    per_case: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for sample in log.samples or []:
        case = cases[str(sample.id)]
        score = sample.scores["rubric_judge"]  # type: ignore[index]
        meta = score.metadata or {}
        answer = sample.output.completion
        assert score.answer == answer and answer.startswith(
            scripted_answer("gpt-4.1-mini", case["prompt"])
        )
        ids = [i["item_id"] for i in case["rubric_items"]]
        passes = [{i: scripted_decision(answer, i) != flips(k, i) for i in ids} for k in (0, 1, 2)]
        majority = {i: sum(p[i] for p in passes) >= 2 for i in ids}
        assert meta["decisions"] == majority
        assert score.value == pytest.approx(case_score(case, majority), abs=1e-12)
        recall, precision, _, severe = f1_parts(case["rubric_items"], majority)
        unanimous = sum(len({p[i] for p in passes}) == 1 for i in ids) / len(ids)
        assert meta["judge_agreement"] == pytest.approx(unanimous)
        per_case[str(sample.id)][sample.epoch] = {
            "answer": answer,
            "value": float(score.value),  # type: ignore[arg-type]
            "recall": float(recall),
            "precision": None if precision is None else float(precision),
            "severe": severe,
            "agreement": unanimous,
            "passes": passes,
        }
    assert sorted(per_case) == sorted(cases)
    for epochs in per_case.values():
        assert sorted(epochs) == [1, 2]
        assert epochs[1]["answer"] != epochs[2]["answer"]  # each epoch judged its own answer

    def case_mean(key: str) -> float:
        means = []
        for epochs in per_case.values():
            values = [e[key] for e in epochs.values() if e[key] is not None]
            if values:
                means.append(float(np.mean(values)))
        return float(np.mean(means))

    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["mean"].value == pytest.approx(case_mean("value"))
    assert metrics["recall"].value == pytest.approx(case_mean("recall"))
    assert metrics["precision"].value == pytest.approx(case_mean("precision"))
    assert metrics["severe_rate"].value == pytest.approx(case_mean("severe"))
    assert metrics["judge_agreement"].value == pytest.approx(case_mean("agreement"))
    rows = [
        [sum(not p[i] for p in e["passes"]), sum(p[i] for p in e["passes"])]
        for epochs in per_case.values()
        for e in epochs.values()
        for i in e["passes"][0]
    ]
    assert metrics["judge_kappa"].value == pytest.approx(fleiss_kappa(rows))
    # the diagnostics are not epoch 1's alone (what Inspect's reducers would report)
    epoch_one_recall = float(np.mean([e[1]["recall"] for e in per_case.values()]))
    assert metrics["recall"].value != pytest.approx(epoch_one_recall)
    # per case, the reduced score Inspect keeps is the mean of that case's two epochs
    (reduction,) = log.reductions or []
    for reduced in reduction.samples:
        epochs = per_case[str(reduced.sample_id)]
        assert reduced.value == pytest.approx((epochs[1]["value"] + epochs[2]["value"]) / 2)
