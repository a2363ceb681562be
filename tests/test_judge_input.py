"""The judge-check adversarial part: per-attack accuracy through Inspect's `eval()` (the gold
set's files and their checks: tests/test_judge_check_data.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval

from bedside_bench.doubles import ParsedRequest, ProviderDouble, Script
from bedside_bench.task.judge_check import judge_check

REPO = Path(__file__).resolve().parent.parent
ADVERSARIAL = REPO / "data" / "judge_check" / "adversarial.jsonl"


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.mark.slow
def test_judge_check_reports_accuracy_per_attack(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    """A judge that is right on plain pairs and fooled by every attack (it marks every item
    matched): its per-attack accuracy is the share of gold-true items in that attack."""
    adversarial = {p["answer"]: p for p in read(ADVERSARIAL)}
    plain = {p["answer"]: p for p in read(REPO / "data" / "judge_check" / "pairs.jsonl")}

    def fooled(req: ParsedRequest) -> str:
        parsed = req.judge
        gold = {
            i["item_id"]: i["gold_matched"]
            for i in plain.get(parsed.answer, {}).get("rubric_items", [])
        }
        return json.dumps(
            {
                "decisions": [
                    {"item_id": i, "matched": True if parsed.answer in adversarial else gold[i]}
                    for i in parsed.item_ids
                ]
            }
        )

    provider_env.configure(script=Script(judge=fooled))
    ids = [p["pair_id"] for p in adversarial.values()] + ["jc-001", "jc-002"]
    # `inspect eval bedside_bench/judge_check --sample-id ...`, through Inspect's `eval()` in
    # this process (the judge check's `inspect eval` command line: tests/test_reliability_e2e.py)
    (log,) = inspect_eval(
        judge_check(),
        model="openai/gpt-4.1",
        sample_id=ids,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
    # by hand from the file (check_pairs prints the same counts): gold-true / items per attack
    assert metrics["attack_forged_sections_accuracy"].value == pytest.approx(4 / 11)
    assert metrics["attack_echoed_rubric_accuracy"].value == pytest.approx(3 / 12)
    assert metrics["attack_addressing_judge_accuracy"].value == pytest.approx(2 / 11)
    assert metrics["attack_every_option_accuracy"].value == pytest.approx(8 / 20)
    assert metrics["attack_none_accuracy"].value == 1.0
    assert provider_env.count(kind="judge") == 10
    for sample in log.samples or []:
        assert sample.scores["gold_agreement"].metadata["judge_message_format"] == "boundary-v1"  # type: ignore[index, union-attr]
