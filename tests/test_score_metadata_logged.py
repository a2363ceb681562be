"""The score metadata a log holds, key order and number types included, is what logs have held
since before the scorer built it as a model (`core/score_metadata.py`): each way of scoring a
case (binary and three-level grading, one judge pass and two, points and F1, an answer without
text, an invalid judge reply asked again, a case over two epochs) run through Inspect's `eval()`
with scripted `mockllm` models, written to a `.json` log by Inspect and compared, as the JSON text
of every score's metadata, with `score_metadata_logged.json`. That file was written by the
scorer as it was when score metadata was a TypedDict of literal dicts."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval

from bedside_bench.task import tasks as bedside_tasks
from tests.independent import read_cases
from tests.mockllm_scripts import SYNTHETIC, Scripted, answer_text, decisions_reply

pytestmark = pytest.mark.slow  # Inspect evals

LOGGED = Path(__file__).with_name("score_metadata_logged.json")
POINTS, F1 = "drug_safety", "safety_therapeutic"
LEVELS = ("MET", "PARTIALLY_MET", "NOT_MET")
# what each run asks: (name, benchmark, task options, epochs, cases)
RUNS: tuple[tuple[str, str, dict[str, object], int, int], ...] = (
    ("binary, two passes, two epochs", POINTS, {"judge_passes": 2}, 2, 2),
    ("three-level, two passes", F1, {"grading": "three_level", "judge_passes": 2}, 1, 1),
    ("three-level, one pass, two epochs", F1, {"grading": "three_level"}, 2, 1),
    ("binary, one pass", F1, {}, 1, 1),
)


def _case_of(cases: list[dict[str, Any]], text: str) -> int:
    """The case whose every item id the judge message names."""
    (number,) = [
        n for n, c in enumerate(cases) if all(i["item_id"] in text for i in c["rubric_items"])
    ]
    return number


def _levels_reply(case: Mapping[str, Any]) -> str:
    """Levels in turn (MET, PARTIALLY_MET, NOT_MET); the first MET's rationale says something
    is missing, so the grading tightens it (an override)."""
    entries = []
    for n, item in enumerate(case["rubric_items"]):
        level = LEVELS[n % 3]
        entries.append(
            {
                "item_id": item["item_id"],
                "decision": level,
                "rationale": "Stated, but the dose is missing." if n == 0 else "As judged.",
                "evidence": "" if level == "NOT_MET" else "Scripted answer",
            }
        )
    return json.dumps({"decisions": entries})


def _models(benchmark: str, grading: str) -> tuple[Scripted, Scripted]:
    """The answer model (the first case of a points run answers with no text) and the judge
    (every other item matched, or levels in turn; the first case of an F1 binary run gets one
    invalid reply first). Replies depend only on what a call was sent, so each run is the same
    whatever order its calls come in."""
    cases = read_cases(SYNTHETIC, benchmark)
    asked: Counter[str] = Counter()
    lock = threading.Lock()

    def answer(text: str) -> tuple[str, str]:
        (case,) = [c for c in cases if c["prompt"] in text]
        empty = benchmark == POINTS and case is cases[0]
        return case["case_id"], "" if empty else answer_text(case)

    def judge(text: str) -> tuple[str, str]:
        number = _case_of(cases, text)
        case = cases[number]
        if grading == "three_level":
            return case["case_id"], _levels_reply(case)
        with lock:
            asked[case["case_id"]] += 1
            first = asked[case["case_id"]] == 1
        if benchmark == F1 and number == 0 and first:
            return case["case_id"], "The decisions follow."
        decisions = {
            i["item_id"]: (k + number) % 2 == 0 for k, i in enumerate(case["rubric_items"])
        }
        return case["case_id"], decisions_reply(decisions)

    return Scripted(answer), Scripted(judge)


def logged_score_metadata(log_dir: Path) -> dict[str, list[str]]:
    """Per run, the JSON text of every score's metadata in its log file: each sample's (by case
    and epoch), then, over two epochs, each case's (the epoch reducer's)."""
    found: dict[str, list[str]] = {}
    for name, benchmark, options, epochs, cases in RUNS:
        answers, judge = _models(benchmark, str(options.get("grading", "binary")))
        task = getattr(bedside_tasks, benchmark)(data_dir=str(SYNTHETIC), **options)
        (log,) = inspect_eval(
            task,
            model=answers.model(),
            model_roles={"grader": judge.model()},
            epochs=epochs,
            limit=cases,
            log_dir=str(log_dir / name.replace(" ", "_").replace(",", "")),
            log_format="json",
            display="none",
        )
        assert log.status == "success", log.error
        written = json.loads(Path(log.location).read_text(encoding="utf-8"))
        samples = sorted(written["samples"], key=lambda s: (s["id"], s["epoch"]))
        texts = [json.dumps(s["scores"]["rubric_judge"]["metadata"]) for s in samples]
        # one epoch: the reducer gives the sample's score as it is
        for reduction in written["reductions"] if epochs > 1 else []:
            reduced = sorted(reduction["samples"], key=lambda s: s["sample_id"])
            texts += [json.dumps(r["metadata"]) for r in reduced]
        found[name] = texts
    return found


def test_logs_hold_the_score_metadata_they_always_held(tmp_path: Path) -> None:
    expected = json.loads(LOGGED.read_text(encoding="utf-8"))
    assert list(expected) == [name for name, *_ in RUNS]
    assert logged_score_metadata(tmp_path) == expected
