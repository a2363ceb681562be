"""`bedside-bench rejudge` end to end: a two-model sweep judged by A, its failed judge calls
redone with `--failed-only`, every answer re-judged by B, and the report's judge comparison,
all through the CLIs against the provider double, with every figure computed independently."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import ProviderDouble, Script, invalid_judge_always
from bedside_bench.scoring.stats import paired_bootstrap, paired_bootstrap_single
from tests.e2e_helpers import Result, assert_bought_once, output, run_tool
from tests.judge_scripts import (
    JUDGE_A,
    JUDGE_B,
    MODELS,
    STRONG,
    WEAK,
    agreement,
    cohen,
    item_pairs,
    judge_reply,
    macro,
    scores,
    two_judges,
    wire,
)
from tests.release_factory import write_release

FAILING_PROMPT = "Synthetic question 0 for drug_safety:"
PRICES = {
    JUDGE_A: {"input": 1.0, "output": 4.0, "cached_input": 0.25},
    JUDGE_B: {"input": 2.5, "output": 10.0, "cached_input": 1.25},
    STRONG: {"input": 0.4, "output": 1.6},
    WEAK: {"input": 0.1, "output": 0.4},
}


def cli(*args: str, env: dict[str, str], cwd: Path) -> Result:
    return run_tool("bedside-bench", *args, env=env, cwd=cwd)


def judge_usage(server: ProviderDouble, judge: str, model: str, since: int) -> dict[str, int]:
    """What the double billed for `judge` judging `model`'s answers (Inspect's convention:
    input excludes cache reads)."""
    records = [
        r
        for r in server.requests(kind="judge", model=wire(judge))
        if r.seq > since and f"Answer from {wire(model)}:" in r.request.user
    ]
    usage = [r.usage for r in records if r.usage is not None]
    return {
        "input_tokens": sum(u.input_tokens - u.cached_tokens for u in usage),
        "input_tokens_cache_read": sum(u.cached_tokens for u in usage),
        "output_tokens": sum(u.output_tokens for u in usage),
    }


def grader(roles: dict[str, Any]) -> str:
    role = roles["grader"]
    return str((role[0] if isinstance(role, list) else role).model)


def last_seq(server: ProviderDouble) -> int:
    return max((r.seq for r in server.requests()), default=0)


@pytest.mark.slow
def test_two_model_sweep_rejudged_by_a_second_judge(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    release = tmp_path / "release"
    cases = write_release(release, per_benchmark=2)
    server = provider_double
    env = server.subprocess_env()
    env["XDG_DATA_HOME"] = str(tmp_path / "data-home")
    (tmp_path / "prices.json").write_text(json.dumps(PRICES))

    # 1. the sweep, judged by A, whose judge fails on one case for both models
    server.script = Script(judge=invalid_judge_always(FAILING_PROMPT, then=judge_reply))
    sweep = cli(
        "sweep",
        "--model",
        ",".join(MODELS),
        "--judge",
        JUDGE_A,
        "--data-dir",
        str(release),
        "--log-dir",
        str(tmp_path / "logs"),
        "--retry-attempts",
        "0",
        "--display",
        "none",
        "--no-report",
        env=env,
        cwd=tmp_path,
    )
    assert sweep.returncode == 3, output(sweep)  # incomplete: two cases have no score
    answers = server.count(kind="answer")
    assert answers == 40  # 2 models x 10 benchmarks x 2 cases

    # 2. only the failed judge calls again, with the same judge: no answer bought again
    server.script = two_judges()
    before = last_seq(server)
    fixed = cli(
        "rejudge",
        str(tmp_path / "logs"),
        "--judge",
        JUDGE_A,
        "--failed-only",
        "--output-dir",
        str(tmp_path / "fixed"),
        env=env,
        cwd=tmp_path,
    )
    assert fixed.returncode == 0, output(fixed)
    assert server.count(kind="answer") == answers
    assert sum(1 for r in server.requests(kind="judge") if r.seq > before) == 2
    assert len(list_eval_logs(str(tmp_path / "fixed"))) == 2  # drug_safety of each model

    # 3. every stored answer judged again by B; 4. the same command again judges nothing
    before = last_seq(server)
    rejudge_args = ["rejudge", str(tmp_path / "logs"), "--judge", JUDGE_B]
    rejudge_args += ["--output-dir", str(tmp_path / "rejudged")]
    first = cli(*rejudge_args, env=env, cwd=tmp_path)
    assert first.returncode == 0, output(first)
    assert server.count(kind="answer") == answers  # zero answer calls, at the double
    judged_by_b = [r for r in server.requests(kind="judge") if r.seq > before]
    assert len(judged_by_b) == 40 and {r.model for r in judged_by_b} == {wire(JUDGE_B)}
    usage_b = {m: judge_usage(server, JUDGE_B, m, before) for m in MODELS}
    again = cli(*rejudge_args, env=env, cwd=tmp_path)
    assert again.returncode == 0, output(again)
    assert last_seq(server) == before + 40
    assert "judged 0, already judged 2" in again.stdout
    # in all: one answer per case; A asked 3 times (1 + judge_retries) for the failing case
    # in the sweep, then once by rejudge --failed-only
    failing = cases["drug_safety"][0]["case_id"]
    assert_bought_once(server, cases, MODELS, {failing: 4, "*": 1}, judge=JUDGE_A)

    originals = {info.name for info in list_eval_logs(str(tmp_path / "logs"))}
    for info in list_eval_logs(str(tmp_path / "rejudged")):
        log = read_eval_log(info)
        assert log.eval.model_roles and grader(log.eval.model_roles) == JUDGE_B
        assert log.eval.metadata and log.eval.metadata["rejudge"]["judge"] == JUDGE_B
        assert "sk-test-double" not in info.name
        assert log.stats.model_usage.keys() == {JUDGE_B}
        assert log.samples and all(s.error is None for s in log.samples)
    assert {info.name for info in list_eval_logs(str(tmp_path / "logs"))} == originals
    for info in list_eval_logs(str(tmp_path / "logs")):  # the sources are untouched
        log = read_eval_log(info, header_only=True)
        assert log.eval.model_roles and grader(log.eval.model_roles) == JUDGE_A

    # 5. the report over all of it
    report = cli(
        "report",
        str(tmp_path / "logs"),
        str(tmp_path / "fixed"),
        str(tmp_path / "rejudged"),
        "-o",
        str(tmp_path / "report"),
        "--prices",
        str(tmp_path / "prices.json"),
        "--resamples",
        "200",
        env=env,
        cwd=tmp_path,
    )
    assert report.returncode == 0, output(report)
    for secret in ("sk-test-double", "sk-ant-test-double"):
        for path in (tmp_path / "report").iterdir():
            assert secret not in path.read_bytes().decode("utf-8", "replace")
    judges = json.loads((tmp_path / "report" / "judges.json").read_text())
    (comparison,) = judges["comparisons"]
    assert comparison["judges"] == [JUDGE_A, JUDGE_B]
    assert comparison["answer_models"] == list(MODELS)
    assert judges["excluded"] == []

    expected = {(m, j): scores(release, m, j) for m in MODELS for j in (JUDGE_A, JUDGE_B)}
    for entry in comparison["models"]:
        model = entry["answer_model"]
        for judge in (JUDGE_A, JUDGE_B):
            mine = entry["judges"][judge]
            for name in BENCHMARK_NAMES:
                values = expected[(model, judge)][name]
                assert mine["benchmarks"][name]["n"] == 2
                assert mine["benchmarks"][name]["mean"] == pytest.approx(sum(values) / 2)
            assert mine["overall"]["mean"] == pytest.approx(macro(expected[(model, judge)]))
        (effect,) = entry["effects"]
        assert (effect["a"], effect["b"]) == (JUDGE_A, JUDGE_B)
        diffs = {
            name: [
                b - a
                for a, b in zip(
                    expected[(model, JUDGE_A)][name], expected[(model, JUDGE_B)][name], strict=True
                )
            ]
            for name in BENCHMARK_NAMES
        }
        for name in BENCHMARK_NAMES:
            got = effect["benchmarks"][name]
            assert got["b_minus_a"] == pytest.approx(sum(diffs[name]) / 2)
            ref = paired_bootstrap_single(np.array(diffs[name]), 200)
            assert got["ci95"] == pytest.approx(list(ref.interval.as_tuple()))
        overall = paired_bootstrap([np.array(diffs[n]) for n in BENCHMARK_NAMES], 200)
        assert effect["overall"]["b_minus_a"] == pytest.approx(macro(diffs))
        assert effect["overall"]["ci95"] == pytest.approx(list(overall.interval.as_tuple()))
    weak = next(m for m in comparison["models"] if m["answer_model"] == WEAK)
    assert weak["judges"][JUDGE_A]["overall"]["mean"] == 0.0
    assert weak["judges"][JUDGE_B]["overall"]["mean"] == 1.0

    (pair,) = comparison["agreement"]["pairs"]
    a, b = item_pairs(release, MODELS)
    assert pair["overall"]["n_items"] == len(a) == 2 * (8 * 2 * 4 + 2 * 2 * 5)
    assert pair["overall"]["agreement"] == pytest.approx(agreement(a, b))
    assert pair["overall"]["kappa"] == pytest.approx(cohen(a, b))
    for name in BENCHMARK_NAMES:
        a, b = item_pairs(release, MODELS, benchmark=name)
        assert pair["benchmarks"][name]["agreement"] == pytest.approx(agreement(a, b))
    for points in (3, 2, 1, 0, -1, -2, -3):
        a, b = item_pairs(release, MODELS, points=points)
        entry = pair["points"][f"{points:+d}"]
        assert entry["n_items"] == len(a)
        assert entry["agreement"] == pytest.approx(agreement(a, b))
    # the strong model's +2/+3 items always disagree, 0-point items never do
    assert pair["points"]["+3"]["agreement"] == 0.0
    assert pair["points"]["+0"]["agreement"] == 1.0
    assert comparison["agreement"]["fleiss"] is None

    ranking = comparison["ranking"]
    strong_a, strong_b = macro(expected[(STRONG, JUDGE_A)]), macro(expected[(STRONG, JUDGE_B)])
    assert strong_a > 0.0 and strong_b < 1.0
    assert ranking["order"] == {JUDGE_A: [STRONG, WEAK], JUDGE_B: [WEAK, STRONG]}
    assert ranking["pairs"] == [
        {"a": JUDGE_A, "b": JUDGE_B, "kendall_tau": -1.0, "swapped": [[STRONG, WEAK]]}
    ]
    assert ranking["changes"] is True

    # usage and cost: B's group holds exactly what the double billed for B, at B's price.
    # Each group says which of its scores `bedside-bench rejudge` wrote, and where the
    # answers' own run is: all of B's; of A's, the drug_safety log `--failed-only` wrote
    def rejudged_note(judge: str, share: str) -> str:
        return (
            f"re-judged{share}: scores written by `bedside-bench rejudge` (judge {judge}) for "
            f"answers bought by an earlier run, whose logs are in {tmp_path / 'logs'}; this "
            "summary counts no answer tokens or cost for the re-judged logs (their answers were "
            "paid for in that run)"
        )

    warned = [line for line in report.stdout.splitlines() if "re-judged" in line]
    assert len(warned) == 4 and all(
        line.startswith("! ")
        and line.endswith(
            ": its scores are from `bedside-bench rejudge` of an earlier run's answers "
            "(the notes say which)."
        )
        for line in warned
    ), warned
    for path in (tmp_path / "report").glob("*.summary.json"):
        summary = json.loads(path.read_text())
        if summary["judge_model"] != JUDGE_B:
            assert summary["complete"], summary["notes"]  # A's failed cases were redone
            # 10 sweep logs and the one `--failed-only` wrote
            assert summary["notes"][0] == rejudged_note(JUDGE_A, " (1 of 11 logs)")
            continue
        assert summary["notes"][0] == rejudged_note(JUDGE_B, "")
        billed = usage_b[summary["answer_model"]]
        judge = summary["usage"]["judge"]
        for key, value in billed.items():
            assert judge[key] == value, key
        assert summary["usage"]["answer"]["input_tokens"] == 0  # no answer bought
        price = PRICES[JUDGE_B]
        cost = (
            billed["input_tokens"] * price["input"]
            + billed["input_tokens_cache_read"] * price["cached_input"]
            + billed["output_tokens"] * price["output"]
        ) / 1e6
        assert summary["cost"]["judge"] == pytest.approx(cost)
        assert summary["cost"]["answer"] == 0.0
    text = (tmp_path / "report" / "report.md").read_text()
    assert "## Judge dependence" in text and "CHANGES with the judge" in text


@pytest.mark.slow
def test_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    missing = cli("rejudge", str(tmp_path), "--judge", JUDGE_B, env=env, cwd=tmp_path)
    assert missing.returncode == 1
    assert "missing API credentials: set OPENAI_API_KEY" in missing.stderr
    env["OPENAI_API_KEY"] = "sk-test-double"
    empty = cli("rejudge", str(tmp_path / "none"), "--judge", JUDGE_B, env=env, cwd=tmp_path)
    assert empty.returncode == 1 and "no Inspect logs found under" in empty.stderr
    unknown = cli("rejudge", str(tmp_path), "--judge", "nosuch/judge", env=env, cwd=tmp_path)
    assert unknown.returncode == 1
    assert "judge nosuch/judge: Inspect knows no model provider 'nosuch'" in unknown.stderr
    assert "sk-test-double" not in unknown.stderr + unknown.stdout
    assert not (tmp_path / "logs").exists()
