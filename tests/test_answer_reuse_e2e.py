"""An answer is bought once: a case whose judge failed is judged again from its stored answer
under every way a run is redone (the same sweep again, `inspect eval-retry`), while a fresh
run buys fresh answers; within one run (the sweep's task retries, `--retry-on-error`) the
judge is not asked again once its re-asks are spent.

The money ledger (tests/ledger.py) counts what the provider double was paid for per
(model, case, kind); every phase asserts the exact count the design allows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bedside_bench import sweep
from bedside_bench.doubles import (
    ParsedRequest,
    ProviderDouble,
    Script,
    default_judge,
    invalid_judge_always,
)
from bedside_bench.sweep.options import DEFAULT_RETRY_ATTEMPTS
from tests.e2e_helpers import (
    eval_args,
    output,
    read_logs,
    run_cli,
    run_console_script,
    run_sweep_cli,
    run_tool,
    summaries,
    sweep_args,
    sweep_env,
    wire_name,
)
from tests.ledger import Purchase, assert_bought_once, ledger
from tests.release_factory import write_release

MODEL = "openai/gpt-4.1-mini"
JUDGE = "openai/gpt-4.1"
OTHER_JUDGE = "openai/gpt-4.1-nano"
JUDGE_RETRIES = 2  # the protocol's default re-asks
ASKS = 1 + JUDGE_RETRIES  # judge calls per run that judges a case


def kept_answers(tmp_path: Path) -> int:
    """Entries in Inspect's cache (tests/conftest.py puts it in the test's folder), not the
    index of kept calls beside it."""
    generate = tmp_path / "inspect-cache" / "generate"
    return sum(1 for path in generate.rglob("*") if path.is_file())


@pytest.fixture
def broken_judge(tmp_path: Path, provider_double: ProviderDouble) -> dict[str, Any]:
    """Two drug_safety cases; JUDGE never gives a valid reply for the second (OTHER_JUDGE
    does)."""
    cases = write_release(tmp_path / "release", per_benchmark=2)["drug_safety"]
    broken = cases[1]
    fails = invalid_judge_always(broken["prompt"])

    def judge(request: ParsedRequest) -> str:
        return fails(request) if request.model == wire_name(JUDGE) else default_judge(request)

    provider_double.configure(script=Script(judge=judge))
    return {"cases": cases, "ok": cases[0]["case_id"], "broken": broken["case_id"]}


@pytest.mark.slow
def test_a_failing_judge_never_buys_the_answer_again(
    tmp_path: Path, provider_double: ProviderDouble, broken_judge: dict[str, Any]
) -> None:
    cases, broken = broken_judge["cases"], broken_judge["broken"]
    logs = tmp_path / "logs"
    env = sweep_env(provider_double, tmp_path)
    args = sweep_args(
        [MODEL],
        logs,
        "--judge",
        JUDGE,
        "--benchmarks",
        "drug_safety",
        data_dir=tmp_path / "release",
    )

    # the sweep: its default task retries (DEFAULT_RETRY_ATTEMPTS) neither answer nor ask the
    # judge again: one answer, the judge's re-asks, then the case fails
    assert DEFAULT_RETRY_ATTEMPTS == 2
    first = run_sweep_cli(args, env, tmp_path)
    assert first.returncode == sweep.EXIT_INCOMPLETE, output(first)
    assert_bought_once(provider_double, cases, [MODEL], {broken: ASKS, "*": 1})
    # which judge failed, how often, and the cheap way on, in the terminal and the report
    told = first.stdout + first.stderr
    assert (
        f"the judge {JUDGE} gave no valid reply for 1 case (asked 3 times per try, 3 judge "
        "calls in all)" in told
    ), output(first)
    assert f"bedside-bench rejudge --failed-only --judge OTHER_JUDGE {logs}" in told
    summary = summaries(logs / "report")[MODEL]
    (note,) = [n for n in summary["notes"] if "gave no valid reply" in n]
    assert f"the judge {JUDGE} gave no valid reply for 1 case" in note
    assert "bedside-bench rejudge --failed-only" in note
    report = (logs / "report" / "report.md").read_text()
    assert f"the judge {JUDGE} gave no valid reply for 1 case" in report

    # the same command again is a new run: the judge is asked again, the answer is not bought
    again = run_sweep_cli(args, env, tmp_path)
    assert again.returncode == sweep.EXIT_INCOMPLETE, output(again)
    assert_bought_once(provider_double, cases, [MODEL], {broken: 2 * ASKS, "*": 1})
    assert "(asked 3 times per try, 6 judge calls in all)" in again.stdout, output(again)

    # inspect eval-retry of the failed log: one more run of judging, no answer
    (failed,) = [log for log in read_logs(logs) if log.status == "error"]
    # as a user starts it: a process of its own
    retried = run_console_script(
        "inspect", "eval-retry", failed.location, "--log-dir", str(logs), env=env, cwd=tmp_path
    )
    assert retried.returncode == 0, output(retried)  # the task goes on past a failed case
    assert_bought_once(provider_double, cases, [MODEL], {broken: 3 * ASKS, "*": 1})

    # the cheap path the sweep suggested: another judge, the stored answer, one call
    rejudged = run_tool(
        "bedside-bench",
        "rejudge",
        "--failed-only",
        "--judge",
        OTHER_JUDGE,
        str(logs),
        "--output-dir",
        str(tmp_path / "rejudged"),
        env=env,
        cwd=tmp_path,
    )
    assert rejudged.returncode == 0, output(rejudged)
    by_other = ledger(provider_double, cases, judge=OTHER_JUDGE)
    assert {k: n for k, n in by_other.items() if k.kind == "judge"} == {
        Purchase(MODEL, broken, "judge"): 1
    }
    assert_bought_once(provider_double, cases, [MODEL], {broken: 3 * ASKS, "*": 1}, judge=JUDGE)


@pytest.mark.slow
def test_retry_on_error_asks_nothing_again_and_a_fresh_run_buys_fresh_answers(
    tmp_path: Path, provider_double: ProviderDouble, broken_judge: dict[str, Any]
) -> None:
    cases, broken = broken_judge["cases"], broken_judge["broken"]
    env = sweep_env(provider_double, tmp_path)
    command = eval_args(
        "drug_safety",
        tmp_path / "logs",
        "--retry-on-error",
        "2",
        task_args=[f"data_dir={tmp_path / 'release'}"],
    )
    result = run_cli(command, tmp_path, env)
    assert result.returncode == 0, output(result)
    # the sample's two retries neither answer again nor ask the judge that failed it again
    assert_bought_once(provider_double, cases, [MODEL], {broken: ASKS, "*": 1})
    # a scored case's answer is in its log and no longer kept; the failed one's is
    assert kept_answers(tmp_path) == 1

    # the same command is a new run: fresh answers for every case, not the stored ones
    provider_double.reset()
    again = run_cli(command, tmp_path, env)
    assert again.returncode == 0, output(again)
    assert_bought_once(provider_double, cases, [MODEL], {broken: ASKS, "*": 1})
    assert kept_answers(tmp_path) == 2
