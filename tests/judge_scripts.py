"""Two scripted judges that disagree on known items, and the figures they must produce,
computed from the case files with plain Python (not through the package)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import (
    ParsedRequest,
    ProviderDouble,
    Script,
    scripted_answer,
    scripted_decision,
)
from tests.independent import case_score, read_cases

JUDGE_A = "openai/gpt-4.1"
JUDGE_B = "openai/gpt-4o"
STRONG = "openai/gpt-4.1-mini"
WEAK = "openai/gpt-4.1-nano"
MODELS = (STRONG, WEAK)


def wire(model: str) -> str:
    return model.split("/")[-1]


def decision(judge: str, answer: str, item_id: str, points: int) -> bool:
    """Judge A: the double's hashed decision, and every item wrong for the weak model's
    answers. Judge B: A flipped on each case's first item, and every item right for the weak
    model. So they disagree on exactly the first items (+2 / +3) of the strong model's answers
    and on every non-zero item of the weak model's."""
    weak = f"Answer from {wire(WEAK)}:" in answer
    if wire(judge) == wire(JUDGE_A):
        return points < 0 if weak else scripted_decision(answer, item_id)
    if weak:
        return points > 0
    base = scripted_decision(answer, item_id)
    return not base if item_id.endswith("_0") else base


def judge_reply(req: ParsedRequest) -> str:
    parsed = req.judge
    return json.dumps(
        {
            "decisions": [
                {
                    "item_id": i.item_id,
                    "matched": decision(req.model, parsed.answer, i.item_id, i.points),
                }
                for i in parsed.items
            ]
        }
    )


def two_judges() -> Script:
    return Script(judge=judge_reply)


# --------------------------------------------------------------------------------------------
# expected figures


def decisions_for(case: Mapping[str, Any], model: str, judge: str) -> dict[str, bool]:
    answer = scripted_answer(wire(model), case["prompt"])
    return {
        i["item_id"]: decision(judge, answer, i["item_id"], i["points"])
        for i in case["rubric_items"]
    }


def scores(release: Path, model: str, judge: str) -> dict[str, list[float]]:
    return {
        b: [case_score(c, decisions_for(c, model, judge)) for c in read_cases(release, b)]
        for b in BENCHMARK_NAMES
    }


def cohen(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Cohen's kappa written out with fractions."""
    n = len(a)
    p_o = Fraction(sum(x == y for x, y in zip(a, b, strict=True)), n)
    pa, pb = Fraction(sum(a), n), Fraction(sum(b), n)
    p_e = pa * pb + (1 - pa) * (1 - pb)
    return float((p_o - p_e) / (1 - p_e))


def item_pairs(
    release: Path, models: Sequence[str], benchmark: str | None = None, points: int | None = None
) -> tuple[list[bool], list[bool]]:
    a: list[bool] = []
    b: list[bool] = []
    for model, name in itertools.product(models, BENCHMARK_NAMES):
        if benchmark is not None and name != benchmark:
            continue
        for case in read_cases(release, name):
            da, db = decisions_for(case, model, JUDGE_A), decisions_for(case, model, JUDGE_B)
            for item in case["rubric_items"]:
                if points is None or item["points"] == points:
                    a.append(da[item["item_id"]])
                    b.append(db[item["item_id"]])
    return a, b


def agreement(a: Sequence[bool], b: Sequence[bool]) -> float:
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def macro(per_benchmark: Mapping[str, Sequence[float]]) -> float:
    return sum(sum(v) / len(v) for v in per_benchmark.values()) / len(per_benchmark)


# --------------------------------------------------------------------------------------------
# the same answers judged by both


def answer_then_rejudge(
    root: Path, release: Path, benchmarks: Sequence[str], server: ProviderDouble
) -> dict[str, str]:
    """STRONG answers `benchmarks` of `release` once, judged by A (`inspect eval`, through
    Inspect's `eval()`), and every answer is judged again by B (`bedside-bench rejudge`), both
    in this process (each command has a test of its own process elsewhere): logs in root/logs
    and root/rejudged. Each case is bought once and judged once by each judge (the ledger).
    Returns the environment the CLIs ran with."""
    import pytest
    from inspect_ai import eval as inspect_eval

    from bedside_bench.task import tasks as bedside_tasks
    from tests.doubles.fixtures import reset_inspect_model_cache
    from tests.e2e_helpers import output, run_tool
    from tests.ledger import assert_bought_once

    server.script = two_judges()
    env = server.subprocess_env()
    env["XDG_DATA_HOME"] = str(root / "data-home")
    with pytest.MonkeyPatch.context() as patch:
        server.apply_env(patch)
        reset_inspect_model_cache()
        try:
            logs = inspect_eval(
                [getattr(bedside_tasks, b)(data_dir=str(release)) for b in benchmarks],
                model=STRONG,
                model_roles={"grader": JUDGE_A},
                max_connections=25,
                log_dir=str(root / "logs"),
                display="none",
            )
        finally:
            reset_inspect_model_cache()
    assert [log.status for log in logs] == ["success"] * len(benchmarks)
    rejudge = run_tool(
        "bedside-bench",
        "rejudge",
        str(root / "logs"),
        "--judge",
        JUDGE_B,
        "--output-dir",
        str(root / "rejudged"),
        env=env,
        cwd=root,
    )
    assert rejudge.returncode == 0, output(rejudge)
    cases = [c for name in benchmarks for c in read_cases(release, name)]
    for judge in (JUDGE_A, JUDGE_B):
        assert_bought_once(server, cases, [STRONG], judge=judge)
    return env
