"""Judge reliability through `inspect eval`: repeated judging, three-level grading and the
judge_check task, against the provider double with scripted judges whose behaviour is known."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.scorer import SampleScore, Score

from bedside_bench.core.contracts import metadata_keys
from bedside_bench.core.protocol import THREE_LEVEL_PROTOCOL_VERSION
from bedside_bench.core.score_metadata import ScoreMetadata
from bedside_bench.doubles import (
    NEUTRAL_RATIONALE,
    THREE_LEVELS,
    JudgeInput,
    ParsedRequest,
    ProviderDouble,
    Script,
    scripted_answer,
    scripted_decision,
    scripted_evidence,
    scripted_three_level,
)
from bedside_bench.report import ReportOptions, build_report
from bedside_bench.scoring.metrics import judge_agreement
from bedside_bench.task import tasks as bedside_tasks
from bedside_bench.task.judge_check import judge_check
from tests.e2e_helpers import decisions_reply, eval_in_process, eval_one, judge_by_call
from tests.independent import exact_case_score, fleiss_kappa, read_cases, three_level_matches
from tests.release_factory import write_release

REPO = Path(__file__).resolve().parent.parent
ANSWER_MODEL, JUDGE_MODEL = "openai/gpt-4.1-mini", "openai/gpt-4.1"


def h(text: str) -> int:
    return int(hashlib.md5(text.encode()).hexdigest()[:8], 16)


def run(task: Any, log_dir: Path, model: str = ANSWER_MODEL) -> EvalLog:
    log = eval_in_process(task, log_dir, model, JUDGE_MODEL)
    assert log.status == "success", log.error
    return log


# ---- repeated judging -----------------------------------------------------------------------


def pass_rule(k: int, answer: str, item_id: str) -> bool:
    """Pass k of the scripted judge: the default decision, flipped on a known subset."""
    base = scripted_decision(answer, item_id)
    flip = (k == 1 and h(item_id) % 3 == 0) or (k == 2 and h(item_id) % 5 == 0)
    return base != flip


def varying_judge() -> Any:
    return judge_by_call(
        lambda k, parsed: decisions_reply(
            {i: pass_rule(k, parsed.answer, i) for i in parsed.item_ids}
        )
    )


@pytest.mark.parametrize("passes", [2, 3])
@pytest.mark.slow
def test_repeated_judging_majority_agreement_and_kappa(
    tmp_path: Path, provider_env: ProviderDouble, passes: int
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=3)
    provider_env.configure(script=Script(judge=varying_judge()))
    log = run(
        bedside_tasks.safety_diagnostic(data_dir=str(release), judge_passes=passes),
        tmp_path / "logs",
    )
    assert log.eval.metadata["judge_passes"] == passes  # type: ignore[index]
    cases = {c["case_id"]: c for c in read_cases(release, "safety_diagnostic")}
    agreements, rows = [], []
    for sample in log.samples or []:
        case = cases[str(sample.id)]
        answer = scripted_answer("gpt-4.1-mini", case["prompt"])
        meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
        ids = [i["item_id"] for i in case["rubric_items"]]
        per_pass = [{i: pass_rule(k, answer, i) for i in ids} for k in range(passes)]
        # every pass is kept (in the order the calls finished)
        assert sorted(map(json.dumps, meta["pass_decisions"])) == sorted(map(json.dumps, per_pass))
        # each pass's own case score, beside its decisions (what the report resamples)
        assert meta["pass_scores"] == pytest.approx(
            [float(exact_case_score(case, decisions)) for decisions in meta["pass_decisions"]]
        )
        votes = {i: sum(p[i] for p in per_pass) for i in ids}
        majority = {i: votes[i] * 2 > passes for i in ids}  # a tie is not matched
        assert meta["decisions"] == majority
        assert meta["judge_passes"] == passes
        unanimous = sum(1 for i in ids if votes[i] in (0, passes)) / len(ids)
        assert meta["judge_agreement"] == pytest.approx(unanimous)
        agreements.append(unanimous)
        rows += [[passes - votes[i], votes[i]] for i in ids]
        assert len(meta["judge_attempts"]) == passes
        assert {a["pass"] for a in meta["judge_attempts"]} == set(range(1, passes + 1))
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["judge_agreement"].value == pytest.approx(float(np.mean(agreements)))
    assert metrics["judge_kappa"].value == pytest.approx(fleiss_kappa(rows))
    assert provider_env.count(kind="judge") == passes * 3


def test_kappa_metric_hand_computed() -> None:
    # 4 items, 3 passes. Matched counts per item: 3, 0, 2, 1 (of 3)
    # P_i = [1, 1, 1/3, 1/3] -> P_bar = 2/3 ; p(matched) = 6/12 -> P_e = 1/2 ; kappa = 1/3
    passes = [
        {"a": True, "b": False, "c": True, "d": True},
        {"a": True, "b": False, "c": True, "d": False},
        {"a": True, "b": False, "c": False, "d": False},
    ]
    scores = [
        SampleScore(
            score=Score(value=0.5, metadata={"judge_agreement": 0.5, "pass_decisions": passes}),
            sample_id="x",
        )
    ]
    result = judge_agreement()(scores)
    assert result == {"judge_agreement": 0.5, "judge_kappa": pytest.approx(1 / 3)}
    # one pass: nothing to say
    single = [SampleScore(score=Score(value=0.5, metadata={}), sample_id="x")]
    assert judge_agreement()(single) == {"judge_agreement": None, "judge_kappa": None}


# ---- three-level grading ----------------------------------------------------------------------


def expected_three_level(case: dict[str, Any], answer: str) -> Fraction:
    levels = {
        i["item_id"]: scripted_three_level(answer, i["item_id"]) for i in case["rubric_items"]
    }
    return exact_case_score(case, three_level_matches(case["rubric_items"], levels))


@pytest.mark.parametrize("bench_name", ["guideline_adherence", "safety_therapeutic"])
@pytest.mark.slow
def test_three_level_scores(tmp_path: Path, provider_env: ProviderDouble, bench_name: str) -> None:
    release = REPO / "data" / "synthetic"
    task = getattr(bedside_tasks, bench_name)(data_dir=str(release), grading="three_level")
    log = run(task, tmp_path / "logs")
    assert log.eval.metadata["protocol_version"] == THREE_LEVEL_PROTOCOL_VERSION  # type: ignore[index]
    cases = {c["case_id"]: c for c in read_cases(release, bench_name)}
    for sample in log.samples or []:
        case = cases[str(sample.id)]
        answer = scripted_answer("gpt-4.1-mini", case["prompt"])
        meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
        assert meta["decisions"] == {
            i["item_id"]: scripted_three_level(answer, i["item_id"]) for i in case["rubric_items"]
        }
        assert meta["overrides"] == []
        assert sample.scores["rubric_judge"].value == pytest.approx(  # type: ignore[index]
            float(expected_three_level(case, answer)), abs=1e-12
        )
        for j in meta["judgements"]:
            assert j["evidence"] == scripted_evidence(answer, j["item_id"], j["decision"])


@pytest.mark.slow
def test_three_level_bad_evidence_is_asked_again_and_overrides_recorded(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=1)
    calls: Counter[str] = Counter()

    def judge(req: ParsedRequest) -> str:
        parsed = req.judge
        calls[parsed.prompt] += 1
        first = calls[parsed.prompt] == 1
        decisions = []
        for n, item_id in enumerate(parsed.item_ids):
            sentence = parsed.answer.split(". ")[0]
            decisions.append(
                {
                    "item_id": item_id,
                    "decision": "MET",
                    "rationale": "Names the drug but is missing the dose."
                    if n == 0
                    else NEUTRAL_RATIONALE,
                    # the first reply quotes something the answer never says
                    "evidence": "Give 10 mg of morphine." if first else sentence,
                }
            )
        return json.dumps({"decisions": decisions})

    provider_env.configure(script=Script(judge=judge))
    log = run(
        bedside_tasks.drug_safety(data_dir=str(release), grading="three_level"), tmp_path / "logs"
    )
    (sample,) = log.samples or []
    meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
    attempts = meta["judge_attempts"]
    assert len(attempts) == 2
    assert "the evidence quote does not occur in the answer" in attempts[0]["error"]
    first_id = sample.metadata["rubric_items"][0]["item_id"]
    assert meta["overrides"] == [
        {"item_id": first_id, "from": "MET", "to": "PARTIALLY_MET", "phrase": "missing"}
    ]
    # factory items: +2 (now partial) +1 -1 0, all MET otherwise: (1 + 1 - 1) / 3
    assert meta["decisions"][first_id] == "PARTIALLY_MET"
    assert sample.scores["rubric_judge"].value == pytest.approx(1 / 3)  # type: ignore[index]


def three_level_pass(k: int, answer: str, item_id: str) -> str:
    """Pass k of a scripted three-level judge: the default level, moved one level on a known
    subset of items in the second pass."""
    level = scripted_three_level(answer, item_id)
    if k == 1 and h(item_id) % 3 == 0:
        return THREE_LEVELS[(THREE_LEVELS.index(level) + 1) % 3]
    return level


def varying_three_level_judge() -> Any:
    def reply(k: int, parsed: JudgeInput) -> str:
        decisions = []
        for item_id in parsed.item_ids:
            level = three_level_pass(k, parsed.answer, item_id)
            decisions.append(
                {
                    "item_id": item_id,
                    "decision": level,
                    "rationale": NEUTRAL_RATIONALE,
                    "evidence": scripted_evidence(parsed.answer, item_id, level),
                }
            )
        return json.dumps({"decisions": decisions})

    return judge_by_call(reply)


@pytest.mark.slow
def test_three_level_repeated_judging_kappa_is_the_same_in_the_summary(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    """The summary's judge_kappa is the kappa Inspect shows: over the three levels."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=3)
    provider_env.configure(script=Script(judge=varying_three_level_judge()))
    task = bedside_tasks.guideline_adherence(
        data_dir=str(release), grading="three_level", judge_passes=2
    )
    log = run(task, tmp_path / "logs")
    cases = {c["case_id"]: c for c in read_cases(release, "guideline_adherence")}
    rows = []
    for sample in log.samples or []:
        case = cases[str(sample.id)]
        answer = scripted_answer("gpt-4.1-mini", case["prompt"])
        meta = sample.scores["rubric_judge"].metadata  # type: ignore[index, union-attr]
        assert set(meta) <= metadata_keys(ScoreMetadata)
        assert {"judge_passes", "pass_decisions", "judgements", "match_values"} <= set(meta)
        assert meta["pass_scores"] == pytest.approx(
            [
                float(exact_case_score(case, three_level_matches(case["rubric_items"], levels)))
                for levels in meta["pass_decisions"]
            ]
        )
        for item in case["rubric_items"]:
            levels = [three_level_pass(k, answer, item["item_id"]) for k in range(2)]
            rows.append([levels.count(level) for level in THREE_LEVELS])
    expected = fleiss_kappa(rows)
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["judge_kappa"].value == pytest.approx(expected)

    result = build_report(
        ReportOptions(log_paths=[str(tmp_path / "logs")], out_dir=tmp_path / "out"),
        out=io.StringIO(),
        err=io.StringIO(),
    )
    (summary,) = result.summaries
    entry = summary.benchmarks["guideline_adherence"]
    assert entry.judge_kappa == pytest.approx(expected)
    assert entry.judge_kappa == pytest.approx(metrics["judge_kappa"].value)
    assert entry.judge_agreement == pytest.approx(metrics["judge_agreement"].value)


# ---- judge_check ---------------------------------------------------------------------------


def load_gold() -> dict[str, dict[str, Any]]:
    pairs = [
        json.loads(line)
        for name in ("pairs.jsonl", "adversarial.jsonl")
        for line in (REPO / "data" / "judge_check" / name).read_text().splitlines()
        if line
    ]
    return {p["pair_id"]: p for p in pairs}


def mistaken(item_id: str, answer: str) -> bool:
    """The scripted judge under test errs on a known subset of items."""
    return h(item_id + answer) % 6 == 0


@pytest.mark.slow
def test_judge_check_scores_a_judge_with_known_mistakes(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    gold_pairs = load_gold()
    gold = {
        (p["answer"], i["item_id"]): i["gold_matched"]
        for p in gold_pairs.values()
        for i in p["rubric_items"]
    }

    def judge(req: ParsedRequest) -> str:
        parsed = req.judge
        return json.dumps(
            {
                "decisions": [
                    {
                        "item_id": i,
                        "matched": gold[(parsed.answer, i)] != mistaken(i, parsed.answer),
                    }
                    for i in parsed.item_ids
                ]
            }
        )

    provider_env.configure(script=Script(judge=judge))
    (log,) = inspect_eval(
        judge_check(), model=JUDGE_MODEL, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "success"
    assert len(log.samples or []) == len(gold_pairs) >= 60
    items = [(i, p) for p in gold_pairs.values() for i in p["rubric_items"]]
    assert len(items) >= 400
    right = [not mistaken(i["item_id"], p["answer"]) for i, p in items]
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert 0 < right.count(False) < len(right)
    assert metrics["item_accuracy"].value == pytest.approx(sum(right) / len(right))
    for rule in range(1, 6):
        hits = [r for r, (i, _) in zip(right, items, strict=True) if i["rule"] == rule]
        assert metrics[f"rule_{rule}_accuracy"].value == pytest.approx(sum(hits) / len(hits))
    f1s = []
    for label in (True, False):
        judged = [i["gold_matched"] != mistaken(i["item_id"], p["answer"]) for i, p in items]
        golds = [i["gold_matched"] for i, _ in items]
        tp = sum(j == label and g == label for j, g in zip(judged, golds, strict=True))
        fp = sum(j == label and g != label for j, g in zip(judged, golds, strict=True))
        fn = sum(j != label and g == label for j, g in zip(judged, golds, strict=True))
        f1s.append(2 * tp / (2 * tp + fp + fn))
    assert metrics["macro_f1"].value == pytest.approx(sum(f1s) / 2)
    errors = []
    for pair in gold_pairs.values():
        g = {i["item_id"]: i["gold_matched"] for i in pair["rubric_items"]}
        j = {k: v != mistaken(k, pair["answer"]) for k, v in g.items()}
        case = {"grading_method": pair["grading_method"], "rubric_items": pair["rubric_items"]}
        from tests.independent import case_score

        errors.append(abs(case_score(case, j) - case_score(case, g)))
    assert metrics["case_score_error"].value == pytest.approx(float(np.mean(errors)))
    # the judge saw exactly the benchmark judge's messages, at temperature 0
    requests = provider_env.requests(kind="judge")
    assert {r.temperature for r in requests} == {0.0}
    assert all(r.request.system.startswith("You are grading a clinical answer") for r in requests)


@pytest.mark.slow
def test_judge_check_through_the_inspect_cli(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    gold = {
        (p["answer"], i["item_id"]): i["gold_matched"]
        for p in load_gold().values()
        for i in p["rubric_items"]
    }

    def perfect(req: ParsedRequest) -> str:
        parsed = req.judge
        return json.dumps(
            {
                "decisions": [
                    {"item_id": i, "matched": gold[(parsed.answer, i)]} for i in parsed.item_ids
                ]
            }
        )

    provider_double.configure(script=Script(judge=perfect))
    log = eval_one(
        "judge_check",
        tmp_path / "logs",
        "--limit",
        "5",
        model=JUDGE_MODEL,
        grader=None,
        cwd=tmp_path,
        env=provider_double.subprocess_env(),
    )
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    assert metrics["item_accuracy"].value == 1.0
    assert metrics["macro_f1"].value == 1.0
    assert metrics["case_score_error"].value == 0.0
    assert provider_double.count(kind="judge") == 5
