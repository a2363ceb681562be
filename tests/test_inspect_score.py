"""Deferred scoring with Inspect's own `inspect score`: `--no-score` now, judge later, another
judge appended or swapped in; the report reads each judge and prices each judge's own tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import bedside_bench_in_process, output, run_console_script, run_tool
from tests.independent import case_score, read_cases
from tests.judge_scripts import (
    JUDGE_A,
    JUDGE_B,
    STRONG,
    agreement,
    cohen,
    decisions_for,
    two_judges,
    wire,
)
from tests.release_factory import write_release

BENCHMARK = "safety_therapeutic"
PRICES = {
    JUDGE_A: {"input": 1.0, "output": 4.0, "cached_input": 0.25},
    JUDGE_B: {"input": 2.5, "output": 10.0, "cached_input": 1.25},
    STRONG: {"input": 0.4, "output": 1.6},
}


def billed(server: ProviderDouble, judge: str, since: int) -> dict[str, int]:
    usage = [
        r.usage
        for r in server.requests(kind="judge", model=wire(judge))
        if r.seq > since and r.usage is not None
    ]
    return {
        "input_tokens": sum(u.input_tokens - u.cached_tokens for u in usage),
        "input_tokens_cache_read": sum(u.cached_tokens for u in usage),
        "output_tokens": sum(u.output_tokens for u in usage),
    }


def cost(tokens: dict[str, int], price: dict[str, float]) -> float:
    return (
        tokens["input_tokens"] * price["input"]
        + tokens["input_tokens_cache_read"] * price["cached_input"]
        + tokens["output_tokens"] * price["output"]
    ) / 1e6


def last_seq(server: ProviderDouble) -> int:
    return max((r.seq for r in server.requests()), default=0)


def report(logs: Path, out: Path, env: dict[str, str], cwd: Path) -> list[dict[str, object]]:
    """`bedside-bench report` in this process (the first `inspect score` is this file's process
    of its own; the report reads only the logs and the prices file)."""
    result = bedside_bench_in_process(
        "report",
        str(logs),
        "-o",
        str(out),
        "--prices",
        str(cwd / "prices.json"),
        "--resamples",
        "100",
    )
    assert result.returncode == 0, output(result)
    return [json.loads(p.read_text()) for p in sorted(out.glob("*.summary.json"))]


@pytest.mark.slow
def test_no_score_then_inspect_score_with_two_judges(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=3)
    server = provider_double
    server.script = two_judges()
    env = server.subprocess_env()
    env["XDG_DATA_HOME"] = str(tmp_path / "data-home")
    (tmp_path / "prices.json").write_text(json.dumps(PRICES))
    logs = tmp_path / "logs"

    evaluated = run_tool(
        "inspect",
        "eval",
        f"bedside_bench/{BENCHMARK}",
        "--model",
        STRONG,
        "--model-role",
        f"grader={JUDGE_A}",
        "-T",
        f"data_dir={release}",
        "-T",
        "judge_passes=2",
        "--no-score",
        "--log-dir",
        str(logs),
        "--display",
        "none",
        env=env,
        cwd=tmp_path,
    )
    assert evaluated.returncode == 0, output(evaluated)
    assert server.count(kind="answer") == 3 and server.count(kind="judge") == 0
    (info,) = list_eval_logs(str(logs))
    log_file = info.name.removeprefix("file://")

    # judge later, as the log was run: the recorded scorer and judge_passes=2
    before = last_seq(server)
    scored = run_console_script(  # `inspect score` as a user starts it: a process of its own
        "inspect", "score", log_file, "--overwrite", "--display", "none", env=env, cwd=tmp_path
    )
    assert scored.returncode == 0, output(scored)
    assert server.count(kind="answer") == 3
    assert server.count(kind="judge", model=wire(JUDGE_A)) == 3 * 2
    usage_a = billed(server, JUDGE_A, before)
    log = read_eval_log(log_file)
    cases = {c["case_id"]: c for c in read_cases(release, BENCHMARK)}
    for sample in log.samples or []:
        score = (sample.scores or {})["rubric_judge"]
        assert score.metadata and score.metadata["judge_passes"] == 2
        assert score.metadata["judge_model"] == JUDGE_A
        expected = decisions_for(cases[str(sample.id)], STRONG, JUDGE_A)
        assert score.metadata["decisions"] == expected
        assert score.value == pytest.approx(case_score(cases[str(sample.id)], expected))

    # a second judge appended: rubric_judge1, read by the report as judge B
    before = last_seq(server)
    appended = run_tool(
        "inspect",
        "score",
        log_file,
        "--overwrite",
        "--action",
        "append",
        "--model-role",
        f"grader={JUDGE_B}",
        "--display",
        "none",
        env=env,
        cwd=tmp_path,
    )
    assert appended.returncode == 0, output(appended)
    assert server.count(kind="answer") == 3
    assert server.count(kind="judge", model=wire(JUDGE_B)) == 3 * 2
    usage_b = billed(server, JUDGE_B, before)
    log = read_eval_log(log_file)
    assert all(set(s.scores or {}) == {"rubric_judge", "rubric_judge1"} for s in log.samples or [])
    summaries = report(logs, tmp_path / "report", env, tmp_path)
    by_judge = {s["judge_model"]: s for s in summaries}
    assert set(by_judge) == {JUDGE_A, JUDGE_B}
    for judge, usage in ((JUDGE_A, usage_a), (JUDGE_B, usage_b)):
        got = by_judge[judge]["usage"]["judge"]  # type: ignore[index]
        assert {k: got[k] for k in usage} == usage, judge
        assert by_judge[judge]["cost"]["judge"] == pytest.approx(cost(usage, PRICES[judge]))  # type: ignore[index]
    judges = json.loads((tmp_path / "report" / "judges.json").read_text())
    (comparison,) = judges["comparisons"]
    (pair,) = comparison["agreement"]["pairs"]
    a: list[bool] = []
    b: list[bool] = []
    for case in cases.values():
        da, db = decisions_for(case, STRONG, JUDGE_A), decisions_for(case, STRONG, JUDGE_B)
        a += [da[i["item_id"]] for i in case["rubric_items"]]
        b += [db[i["item_id"]] for i in case["rubric_items"]]
    assert pair["overall"]["n_items"] == 15
    assert pair["overall"]["agreement"] == pytest.approx(agreement(a, b)) == pytest.approx(0.8)
    assert pair["overall"]["kappa"] == pytest.approx(cohen(a, b))
    assert pair["points"]["+3"]["agreement"] == 0.0  # B flips each case's first (+3) item
    (effect,) = comparison["models"][0]["effects"]
    diffs = [
        case_score(c, decisions_for(c, STRONG, JUDGE_B))
        - case_score(c, decisions_for(c, STRONG, JUDGE_A))
        for c in cases.values()
    ]
    assert effect["benchmarks"][BENCHMARK]["b_minus_a"] == pytest.approx(sum(diffs) / 3)

    # B swapped in with -S judge_model (over a log whose grader role is A): B's tokens, B's price
    before = last_seq(server)
    swapped = run_tool(
        "inspect",
        "score",
        log_file,
        "--overwrite",
        "--action",
        "overwrite",
        "--scorer",
        "bedside_bench/rubric_judge",
        "-S",
        f"judge_model={JUDGE_B}",
        "--display",
        "none",
        env=env,
        cwd=tmp_path,
    )
    assert swapped.returncode == 0, output(swapped)
    # judge_passes=2 is kept from the run although only judge_model was given
    assert sum(1 for r in server.requests(kind="judge") if r.seq > before) == 3 * 2
    usage_b2 = billed(server, JUDGE_B, before)
    summaries = report(logs, tmp_path / "report2", env, tmp_path)
    (summary,) = summaries
    assert summary["judge_model"] == JUDGE_B
    got = summary["usage"]["judge"]  # type: ignore[index]
    assert {k: got[k] for k in usage_b2} == usage_b2
    assert summary["cost"]["judge"] == pytest.approx(cost(usage_b2, PRICES[JUDGE_B]))  # type: ignore[index]
    assert summary["judge_passes_per_answer"] == 2
    assert not (tmp_path / "report2" / "judges.json").exists()
