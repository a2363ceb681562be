"""The judge check's `-T` options reach its solver through `inspect eval`, as a user runs it.

`judge_retries=N`: a judge that never replies validly is asked 1 + N times for the case
(counted at the provider double), and the log keeps those 1 + N attempts; a judge that replies
validly at once is asked once. `data_file`: the run holds exactly the file's pairs. The
benchmark judge's other options are refused by name (fast tests below).
"""

from __future__ import annotations

import inspect
import json
from collections import Counter
from pathlib import Path

import pytest

from bedside_bench.core.options import SCORER_DEFAULTS, SCORER_OPTIONS, TaskOptionError
from bedside_bench.doubles import ParsedRequest, ProviderDouble, Script
from bedside_bench.task.judge_check.scorer import JUDGE_CHECK_KEY
from bedside_bench.task.judge_check.task import OPTIONS, JudgeCheckOptions, judge_check
from tests.e2e_helpers import decisions_reply, eval_args, only_log, output, run_cli

REPO = Path(__file__).resolve().parent.parent
JUDGE_MODEL = "openai/gpt-4.1"
INVALID = "I cannot grade this answer."


@pytest.mark.slow  # two `inspect eval` runs against the provider double
def test_judge_retries_and_data_file_reach_the_judge_check(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    lines = (REPO / "data" / "judge_check" / "pairs.jsonl").read_text().splitlines()
    refused, accepted = (json.loads(line) for line in lines[:2])
    gold_set = tmp_path / "two_pairs.jsonl"
    gold_set.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")

    def judge(req: ParsedRequest) -> str:
        """Never a valid reply for the first pair; the gold decisions at once for the other."""
        if req.judge.answer == refused["answer"]:
            return INVALID
        return decisions_reply({i["item_id"]: i["gold_matched"] for i in accepted["rubric_items"]})

    provider_double.configure(script=Script(judge=judge))
    for retries in (0, 2):
        before = len(provider_double.requests(kind="judge"))
        log_dir = tmp_path / f"retries-{retries}"
        args = eval_args(
            "judge_check",
            log_dir,
            model=JUDGE_MODEL,
            grader=None,
            task_args=[f"judge_retries={retries}", f"data_file={gold_set}"],
        )
        result = run_cli(args, cwd=tmp_path, env=provider_double.subprocess_env())
        requests = provider_double.requests(kind="judge")[before:]
        calls = Counter(r.request.judge.answer for r in requests)
        assert calls == {refused["answer"]: 1 + retries, accepted["answer"]: 1}, output(result)
        log = only_log(log_dir)
        assert log.eval.task_args["judge_retries"] == retries
        assert log.eval.task_args["data_file"] == str(gold_set)
        samples = {str(s.id): s for s in log.samples or []}
        assert set(samples) == {refused["pair_id"], accepted["pair_id"]}
        # the case the judge never answered validly failed, naming its 1 + N attempts (no
        # decision, so no gold agreement computed from it); the other was judged once
        error = samples[refused["pair_id"]].error
        assert error is not None
        assert f"gave no valid reply in {1 + retries} attempts" in error.message
        record = samples[accepted["pair_id"]].metadata[JUDGE_CHECK_KEY]
        assert [a["error"] for a in record["judge_attempts"]] == [None]
        metrics = log.results.scores[0].metrics  # type: ignore[union-attr]
        assert metrics["item_accuracy"].value == 1.0


@pytest.mark.parametrize("name", sorted(set(SCORER_OPTIONS) - set(OPTIONS)))
def test_the_benchmark_judge_options_the_judge_check_has_not_are_refused(name: str) -> None:
    """An option of the benchmark judge that the judge check does not take (the judge is the
    model under evaluation, judged once, binary) is refused by name, never silently ignored."""
    value = getattr(SCORER_DEFAULTS, name)
    with pytest.raises(TaskOptionError, match=rf"-T {name} is not an option"):
        judge_check(**{name: value})


def test_every_judge_check_option_is_a_parameter_of_the_task() -> None:
    """Each option of `JudgeCheckOptions` is a named parameter of the task, so Inspect hands a
    `-T` value of it to the function that builds the solver (and records it in the log)."""
    parameters = inspect.signature(judge_check).parameters
    assert [p for p in parameters if p != "options"] == list(OPTIONS)
    defaults = JudgeCheckOptions(judge_retries=SCORER_DEFAULTS.judge_retries)
    for name in OPTIONS:
        assert parameters[name].default == getattr(defaults, name)
