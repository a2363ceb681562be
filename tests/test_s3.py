"""Sweeps and reports on an S3 log store, against a real S3-compatible server (moto, started by
the tests on 127.0.0.1) and the provider double.

Nothing here is S3-specific code of ours: Inspect writes and reads `s3://` through fsspec and
s3fs, which find the server through the standard AWS_ENDPOINT_URL and the keys through the
standard AWS variables. The tests show that the sweep's resume, crash clean-up and report work
the same on the store as on a local directory, and that no credential reaches the store.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import (
    ANTHROPIC_SECRET,
    OPENAI_SECRET,
    asked_again,
    assert_scored_once,
    expected_scores,
    file_texts,
    holding_at_judge_replies,
    judged_at_least,
    judged_cases,
    leaks,
    ok,
    output,
    run_sweep_cli,
    run_tool,
    start_sweep,
    stop,
    sweep_args,
    sweep_env,
    wait_for,
)
from tests.independent import read_cases
from tests.release_factory import write_release
from tests.s3_server import SECRET_ACCESS_KEY, S3Server

pytestmark = pytest.mark.slow

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]
JUDGE = "openai/gpt-4.1"
BENCHMARKS = "drug_safety,safety_diagnostic"  # one of each grading method


def read_store(url: str) -> list[EvalLog]:
    return [read_eval_log(info) for info in list_eval_logs(url)]


def report_cli(log_path: str, out_dir: Path, env: dict[str, str], cwd: Path) -> Any:
    """`bedside-bench report LOG_PATH -o OUT_DIR`, as a user runs it."""
    return run_tool("bedside-bench", "report", log_path, "-o", str(out_dir), env=env, cwd=cwd)


def figures(report_dir: Path, log_location: str) -> dict[str, Any]:
    """Every JSON file of a report, with the log location (the only thing that differs between
    a report of the store and one of a local copy) replaced by a placeholder."""
    found = {
        path.name: json.loads(path.read_text().replace(log_location.rstrip("/"), "LOGS"))
        for path in sorted(report_dir.glob("*.json"))
    }
    assert found, f"no report files in {report_dir}"
    return found


def test_two_model_sweep_on_s3_reports_like_a_local_dir(
    tmp_path: Path, provider_double: ProviderDouble, s3_server: S3Server
) -> None:
    """A sweep into an `s3://` store: its logs, its own report, `report s3://` and `data
    export s3://` equal what the same logs give in a local directory; no credential anywhere.

    A whole sweep over a store whose runs are all complete (no call, no new log) is shown by
    test_shard's `test_two_shards_at_once_into_an_s3_store` (the runs complete in the shards'
    folders); the same command again over a complete local folder, by test_sweep's
    two-provider sweep; a sweep resumed on a store its killed run left unfinished (reading the
    store's eval-set.json), by the test below."""
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    store = s3_server.url("team/sweep-1")
    env = sweep_env(
        provider_double, tmp_path, openai_key=OPENAI_SECRET, anthropic_key=ANTHROPIC_SECRET
    )
    args = sweep_args(
        MODELS,
        store,  # type: ignore[arg-type]
        "--judge",
        JUDGE,
        "--benchmarks",
        BENCHMARKS,
        "--report-dir",
        str(tmp_path / "report-s3"),
        data_dir=release,
    )
    started = time.monotonic()
    first = run_sweep_cli(args, env, tmp_path)
    first_seconds = time.monotonic() - started
    assert first.returncode == 0, output(first)
    first_requests = provider_double.count()
    # 2 models x 2 benchmarks x 2 cases, one answer and one judging each
    assert len(ok(provider_double.requests(kind="answer"))) == 8
    assert len(ok(provider_double.requests(kind="judge"))) == 8
    assert first_requests == 16

    # the logs are in the bucket under the prefix, one per (benchmark, model), all complete
    keys = s3_server.keys("team/sweep-1/")
    eval_keys = [k for k in keys if k.endswith(".eval")]
    assert len(eval_keys) == 4, keys
    logs = read_store(store)
    assert len(logs) == 4 and {log.status for log in logs} == {"success"}
    expected = expected_scores(release, MODELS, BENCHMARKS.split(","))
    assert_scored_once(logs, expected, cases=8)

    # `bedside-bench report s3://...` equals the report of the same logs in a local directory
    local = tmp_path / "local-copy"
    s3_server.download("team/sweep-1/", local)
    local_logs = local / "team" / "sweep-1"
    report_s3 = report_cli(store, tmp_path / "report-from-s3", env, tmp_path)
    assert report_s3.returncode == 0, output(report_s3)
    report_local = report_cli(str(local_logs), tmp_path / "report-from-local", env, tmp_path)
    assert report_local.returncode == 0, output(report_local)
    from_s3 = figures(tmp_path / "report-from-s3", store)
    assert from_s3 == figures(tmp_path / "report-from-local", str(local_logs))
    assert from_s3 == figures(tmp_path / "report-s3", store)  # the sweep's own report
    summaries = {v["answer_model"]: v for k, v in from_s3.items() if k.endswith(".summary.json")}
    assert set(summaries) == set(MODELS)
    for summary in summaries.values():
        assert (summary["cases_completed"], summary["cases_failed"]) == (4, 0)
        assert len(summary["logs"]) == 2
        assert all(f.startswith("LOGS/") for f in summary["logs"])
        for benchmark, entry in summary["benchmarks"].items():
            scores = [
                expected[(summary["answer_model"], case["case_id"])]
                for case in read_cases(release, benchmark)
            ]
            assert entry["n"] == 2 and entry["mean"] == pytest.approx(sum(scores) / 2)
    md_s3 = (tmp_path / "report-from-s3" / "report.md").read_text()
    md_local = (tmp_path / "report-from-local" / "report.md").read_text()
    assert _without_locations(md_s3, store) == _without_locations(md_local, str(local_logs))

    # `bedside-bench data export s3://...` gives the rows of the local copy's export
    exported = {}
    for name, where in (("s3", store), ("local", str(local_logs))):
        run = run_tool(
            "bedside-bench",
            "data",
            "export",
            where,
            "-o",
            str(tmp_path / f"export-{name}"),
            env=env,
            cwd=tmp_path,
        )
        assert run.returncode == 0, output(run)
        exported[name] = _rows(tmp_path / f"export-{name}" / "results.parquet", where)
    assert exported["s3"] == exported["local"]
    assert len(exported["s3"]) == 2 * (2 * 4 + 2 * 5)  # models x cases x items per case
    for row in exported["s3"]:
        key = (row["answer_model"], row["case_id"])
        assert row["case_score"] == pytest.approx(expected[key], abs=1e-12), key

    # no credential in the store (every object, .eval zips unpacked), reports or terminal
    secrets = [OPENAI_SECRET, ANTHROPIC_SECRET, SECRET_ACCESS_KEY]
    written = list(file_texts(local)) + [
        item
        for folder in ("report-s3", "report-from-s3", "export-s3", "data-home")
        for item in file_texts(tmp_path / folder)
    ]
    assert any("!samples/" in name for name, _ in written)  # the zips were unpacked
    terminal = [
        (f"{name} {stream}", text.encode())
        for name, run in (
            ("sweep", first),
            ("report", report_s3),
        )
        for stream, text in (("stdout", run.stdout), ("stderr", run.stderr))
    ]
    assert leaks(secrets, written + terminal) == []
    assert leaks(["Bearer ", "x-api-key", "AWS4-HMAC-SHA256"], written) == []
    print(f"s3 sweep: {first_requests} requests in {first_seconds:.1f} s")


def _rows(parquet: Path, log_location: str) -> list[dict[str, Any]]:
    from datasets import load_dataset

    rows = load_dataset("parquet", data_files=str(parquet), split="train").to_list()
    for row in rows:
        assert row.pop("log").startswith(log_location.rstrip("/") + "/")
    return rows


def _without_locations(text: str, location: str) -> str:
    return text.replace(location.rstrip("/"), "LOGS")


def test_sweep_killed_mid_way_resumes_on_s3_without_losing_or_doubling_a_case(
    tmp_path: Path, provider_double: ProviderDouble, s3_server: S3Server
) -> None:
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)  # 2 benchmarks x 2 cases x 2 models = 8
    # the double stops answering as it gives its 3rd judge reply: exactly 3 cases complete
    # before the kill, whatever the machine's load, and at least two runs have one left
    provider_double.configure(latency=0.25, script=holding_at_judge_replies(provider_double, 3))
    store = s3_server.url("team/killed")
    env = sweep_env(provider_double, tmp_path)
    args = sweep_args(
        MODELS,
        store,  # type: ignore[arg-type]
        "--judge",
        JUDGE,
        "--benchmarks",
        BENCHMARKS,
        "--max-connections",
        "2",
        "--report-dir",
        str(tmp_path / "report"),
        data_dir=release,
    )
    process = start_sweep(args, env, tmp_path)
    try:
        wait_for(judged_at_least(provider_double, 3), 180, process)
        # every later request is held: let the replies given reach the sweep, then kill
        time.sleep(3)
        stop(process, signal.SIGKILL, timeout=60)
    finally:
        stop(process)
    assert process.returncode == -signal.SIGKILL

    judged_before = judged_cases(provider_double.requests())
    seen = provider_double.count()
    assert len(judged_before) == 3
    left_started = [read_eval_log(i, header_only=True).status for i in list_eval_logs(store)]
    assert "started" in left_started  # the kill left unfinished logs in the store

    provider_double.configure(latency=0.02)
    started = time.monotonic()
    result = run_sweep_cli(args, env, tmp_path)
    resume_seconds = time.monotonic() - started
    assert result.returncode == 0, output(result)

    rerun = provider_double.requests()[seen:]
    assert asked_again(rerun, judged_before) == []
    answered_now = {(r.model, r.request.user) for r in ok(rerun) if r.kind == "answer"}
    answered_before = {
        (r.model, r.request.user)
        for r in ok(provider_double.requests()[:seen])
        if r.kind == "answer"
    }
    # every case answered; none judged before the kill bought again, nor any answer that came
    # back before it (kept for the resume: `call_cache.answer_cache`)
    assert len(answered_now | answered_before) == 8
    assert answered_now.isdisjoint(answered_before)
    final = read_store(store)
    expected = expected_scores(release, MODELS, BENCHMARKS.split(","))
    assert_scored_once(final, expected, cases=8)
    # one finished log per (benchmark, model): the killed run's "started" logs were removed
    assert len(final) == 4 and {log.status for log in final} == {"success"}
    print(
        f"s3 kill: {len(judged_before)}/8 cases complete before SIGKILL ({seen} requests); "
        f"resume made {len(rerun)} requests in {resume_seconds:.1f} s"
    )
