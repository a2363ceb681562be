"""How an answer ended, and the settings it was generated with, through `inspect eval`, the
report and the export, against the provider double in all three wire formats.

One eval answers five cases with three models (Chat Completions, Responses, Anthropic
Messages): the double ends case 0 on its own, case 1 at the token limit, case 2 by the content
filter, case 3 as a refusal, and gives case 4 an answer with no text. Every score records the
stop reason and condition Inspect's provider client made of it; the answer with no text is the
model's answer, scored as stating nothing without a judge call; the summary counts them per
benchmark and the report warns. Limits (`--message-limit 1`, `--token-limit`), which the
harness hit before an answer came, fail their case without a judge call. A run with other
generation settings (`--max-tokens`, `--seed`) is a group of its own, compared only with
`--force`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog

from bedside_bench.core.answer_condition import NO_ANSWER_PREFIX
from bedside_bench.doubles import ParsedRequest, ProviderDouble, Reply, Script, scripted_answer
from bedside_bench.doubles.script import Stop
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import (
    JUDGE_MODEL,
    bedside_bench_in_process,
    eval_against,
    eval_args,
    ok,
    output,
    read_logs,
    run_cli,
    run_tool,
    summaries,
    wire_name,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # Inspect evals, the report and a provider double

BENCHMARK = "drug_safety"
CHAT, RESPONSES, ANTHROPIC = (
    "openai/gpt-4.1-mini",
    "openai/gpt-5.4-mini",
    "anthropic/claude-sonnet-4-5",
)
MODELS = (CHAT, RESPONSES, ANTHROPIC)
# how the double ends each case's answer (None: an answer with no text)
EMPTY = 4
STOP_BY_CASE: dict[int, Stop | None] = {
    0: "stop",
    1: "max_tokens",
    2: "content_filter",
    3: "refusal",
    4: None,
}
CASES = len(STOP_BY_CASE)
CASE_NUMBER = re.compile(r"Synthetic question (\d+) for")
# (Inspect's stop reason, condition) per model and case; case 4 has no text (scored unjudged).
# A refusal is a refusal part on OpenAI (stop reason "stop"); on Anthropic `stop_reason:
# refusal`, which Inspect maps to content_filter, and the stop details say "refusal" (case 3)
# or nothing (case 2: a content filter as far as anyone can tell).
EXPECTED: dict[str, dict[int, tuple[str, str]]] = {
    model: {
        0: ("stop", "complete"),
        1: ("max_tokens", "truncated"),
        2: ("content_filter", "filtered"),
        3: ("content_filter" if model == ANTHROPIC else "stop", "refused"),
        4: ("stop", "complete"),
    }
    for model in MODELS
}
COUNTS = {"truncated": 1, "filtered": 1, "refused": 1, "unknown": 0, "not_recorded": 0}


def case_number(prompt: str) -> int:
    found = CASE_NUMBER.search(prompt)
    assert found is not None, prompt
    return int(found.group(1))


def scripted_stop_answer(req: ParsedRequest) -> Reply:
    stop = STOP_BY_CASE[case_number(req.user)]
    if stop is None:
        return Reply("")
    return Reply(scripted_answer(req.model, req.user), stop)


@pytest.fixture(scope="module")
def double() -> Iterator[ProviderDouble]:
    with ProviderDouble(script=Script(answer=scripted_stop_answer)) as server:
        yield server


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release")
    write_release(root, per_benchmark=CASES)
    return root


def run_eval(
    double: ProviderDouble, release: Path, log_dir: Path, *extra: str, model: str = CHAT
) -> list[EvalLog]:
    result = run_cli(
        eval_args(BENCHMARK, log_dir, *extra, model=model, task_args=[f"data_dir={release}"]),
        cwd=log_dir.parent,
        env=double.subprocess_env(),
    )
    assert result.returncode == 0, output(result)
    return read_logs(log_dir)


def eval_here(
    double: ProviderDouble,
    release: Path,
    log_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    **options: Any,
) -> list[EvalLog]:
    """`run_eval`'s run through Inspect's `eval()` in this process, with `options` as its
    keyword arguments (`token_limit=20` for `--token-limit 20`): the run of this file that
    starts `inspect eval` is `stops_run` (and the message limit's)."""
    task = bedside_tasks.drug_safety(data_dir=str(release))
    eval_against(double, task, log_dir, model=CHAT, grader=JUDGE_MODEL, **options)
    return read_logs(log_dir)


@pytest.fixture(scope="module")
def stops_run(
    double: ProviderDouble, release: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, EvalLog], dict[tuple[str, int], int]]:
    """The five cases with the three models in one `inspect eval`; the logs by model, and the
    judge calls the double answered per (model, case)."""
    double.reset()
    log_dir = tmp_path_factory.mktemp("stops") / "logs"
    logs = run_eval(double, release, log_dir, model=",".join(MODELS))
    judged: dict[tuple[str, int], int] = {}
    for request in ok(double.requests(kind="judge")):
        answer = request.request.judge.answer
        model = answer.removeprefix("Answer from ").split(":", 1)[0]
        key = (model, case_number(request.request.judge.prompt))
        judged[key] = judged.get(key, 0) + 1
    return log_dir, {log.eval.model: log for log in logs}, judged


@pytest.mark.parametrize("model", MODELS)
def test_each_score_records_how_its_answer_ended(
    stops_run: tuple[Path, dict[str, EvalLog], dict[tuple[str, int], int]], model: str
) -> None:
    _, logs, judged = stops_run
    log = logs[model]
    assert log.error is None  # the failed case fails alone (status "error": redo it)
    assert log.samples is not None and len(log.samples) == CASES
    for sample in log.samples:
        n = case_number(sample.input if isinstance(sample.input, str) else "")
        expected = EXPECTED[model][n]
        assert sample.error is None, sample.error
        score = sample.scores["rubric_judge"]  # type: ignore[index]
        meta = score.metadata or {}
        stop_reason, condition = expected
        assert (meta["answer_stop_reason"], meta["answer_condition"]) == expected, n
        assert meta["answer_complete"] is (condition == "complete")
        assert meta["answer_empty"] is (n == EMPTY)
        assert stop_reason == sample.output.stop_reason
        if n == EMPTY:  # states nothing: no item matched, no judge asked
            assert score.value == 0.0 and not any(meta["decisions"].values())
            assert judged.get((wire_name(model), n), 0) == 0
            assert all(k[1] != n for k in judged)  # no model's empty answer was judged
        else:
            assert judged[(wire_name(model), n)] == 1, (model, n)


@pytest.fixture(scope="module")
def stops_report(
    stops_run: tuple[Path, dict[str, EvalLog], dict[tuple[str, int], int]],
) -> tuple[Path, str]:
    log_dir = stops_run[0]
    out = log_dir.parent / "report"
    result = run_tool("bedside-bench", "report", str(log_dir), "-o", str(out))
    assert result.returncode == 0, output(result)
    return out, result.stdout


def test_the_summary_counts_the_answers_that_did_not_end_on_their_own(
    stops_report: tuple[Path, str],
) -> None:
    out, terminal = stops_report
    found = summaries(out)
    assert set(found) == set(MODELS)
    for summary in found.values():
        entry = summary["benchmarks"][BENCHMARK]
        assert (entry["n"], entry["failed"], entry["failed_no_answer"]) == (CASES, 0, 0)
        assert entry["answer_conditions"] == COUNTS
        assert (
            entry["answers_without_text"]["total"] == entry["answers_without_text"]["complete"] == 1
        )
        assert summary["generation_settings"] == {}
    warning = (
        f"every model: {BENCHMARK}: answers judged as they came, not ended on their own: "
        "1 truncated, 1 filtered, 1 refused."
    )
    assert f"! {warning}" in terminal
    markdown = (out / "report.md").read_text()
    assert warning in markdown
    # above the ranking (or where it would stand: no full run here, so none is ranked)
    ranking = "| rank |" if "| rank |" in markdown else "No full run to rank"
    assert markdown.index(warning) < markdown.index(ranking)
    assert warning in (out / "report.html").read_text()


def test_the_export_carries_the_stop_reason(
    stops_run: tuple[Path, dict[str, EvalLog], dict[tuple[str, int], int]], release: Path
) -> None:
    log_dir = stops_run[0]
    out = log_dir.parent / "export"
    result = run_tool("bedside-bench", "data", "export", str(log_dir), "-o", str(out))
    assert result.returncode == 0, output(result)
    from datasets import load_dataset

    rows = load_dataset("parquet", data_files=str(out / "results.parquet"), split="train")
    prompts = {c_id: n for n, c_id in enumerate(case_ids(release))}
    seen = {
        (row["answer_model"], prompts[row["case_id"]]): (
            row["answer_stop_reason"],
            row["answer_condition"],
        )
        for row in rows.to_list()
    }
    assert seen == {
        (model, n): expected for model in MODELS for n, expected in EXPECTED[model].items()
    }


def case_ids(release: Path) -> list[str]:
    manifest = json.loads((release / "data" / BENCHMARK / "manifest.json").read_text())
    return list(manifest["case_ids"])


# --------------------------------------------------------------------------------------------
# limits


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--message-limit", "1"), "message limit hit before the answer"),
        ({"token_limit": 20}, "token limit hit during the answer"),  # in this process
    ],
    ids=["message-limit", "token-limit"],
)
def test_a_limit_fails_the_case_without_a_judge_call(
    double: ProviderDouble,
    release: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...] | dict[str, int],
    expected: str,
) -> None:
    double.reset()
    if isinstance(flags, dict):
        (log,) = eval_here(double, release, tmp_path / "logs", monkeypatch, limit=1, **flags)
    else:
        (log,) = run_eval(double, release, tmp_path / "logs", "--limit", "1", *flags)
    (sample,) = log.samples or []
    assert sample.error is not None and not sample.scores
    assert sample.error.message.startswith(NO_ANSWER_PREFIX + expected), sample.error.message
    assert double.count(kind="judge") == 0
    answers = double.count(kind="answer")
    assert answers == (0 if "message" in expected else 1)
    # the report counts it as failed, never as a score
    out = tmp_path / "report"
    report = bedside_bench_in_process("report", str(tmp_path / "logs"), "-o", str(out))
    assert report.returncode == 0, output(report)
    (summary,) = summaries(out).values()
    assert (summary["cases_completed"], summary["cases_failed"]) == (0, 1)
    assert summary["benchmarks"][BENCHMARK]["failed_no_answer"] == 1
    assert any("eval-retry` keeps the run's limits" in note for note in summary["notes"])


# --------------------------------------------------------------------------------------------
# generation settings


def test_other_generation_settings_are_another_group_compared_only_with_force(
    double: ProviderDouble,
    release: Path,
    stops_run: tuple[Path, dict[str, EvalLog], dict[tuple[str, int], int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    double.reset()
    settings = tmp_path / "logs"
    # `--limit 1 --max-tokens 300 --seed 7`, in this process
    eval_here(double, release, settings, monkeypatch, limit=1, max_tokens=300, seed=7)
    max_tokens = [r.request.body.get("max_tokens") for r in double.requests(kind="answer")]
    assert max_tokens == [300]  # the setting reached the answer call
    assert all(r.request.body.get("max_tokens") != 300 for r in double.requests(kind="judge"))

    paths = [str(stops_run[0]), str(settings)]
    refused = bedside_bench_in_process("report", *paths, "-o", str(tmp_path / "r1"))
    assert refused.returncode != 0
    assert "not like for like" in refused.stderr
    assert "generation differs" in refused.stderr and "max_tokens=300, seed=7" in refused.stderr

    forced = bedside_bench_in_process("report", *paths, "--force", "-o", str(tmp_path / "r2"))
    assert forced.returncode == 0, output(forced)
    groups = [json.loads(p.read_text()) for p in sorted((tmp_path / "r2").glob("*.summary.json"))]
    chat = sorted(
        (
            (s["cases_completed"] + s["cases_failed"], s["generation_settings"])
            for s in groups
            if s["answer_model"] == CHAT
        ),
        key=lambda pair: pair[0],
    )
    assert chat == [(1, {"max_tokens": 300, "seed": 7}), (CASES, {})]
    comparison: dict[str, Any] = json.loads((tmp_path / "r2" / "comparison.json").read_text())
    assert comparison["like_for_like"] is False
    assert [m["field"] for m in comparison["mismatches"]] == ["generation"]
    runs = next(
        line
        for line in (tmp_path / "r2" / "report.md").read_text().splitlines()
        if line.startswith("| answer generation settings |")
    )
    assert "max_tokens=300, seed=7" in runs and "provider defaults" in runs
