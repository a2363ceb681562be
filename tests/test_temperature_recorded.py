"""The temperature a score records is the one the provider received, read back from the request
Inspect logged; where Inspect kept no record of the request, the score and the report say "not
recorded" and never "null (provider default)", which would claim no temperature was sent.

Inspect keeps no request record for the calls of `inspect score` (so of `bedside-bench
rejudge`) nor under `--no-log-model-api`. Each test asks the double what it really received:
the independent path to the truth the log may or may not hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import ModelOutput

from bedside_bench.calls.cache import TEMPERATURE_SENT_KEY, cached_temperature
from bedside_bench.core.contracts import NOT_RECORDED
from bedside_bench.doubles import ProviderDouble
from bedside_bench.report.document import temperature
from bedside_bench.report.summary import not_recorded_notes, single_value
from bedside_bench.task import tasks as bedside_tasks
from tests.e2e_helpers import ANSWER_MODEL, JUDGE_MODEL, bedside_bench_in_process, output
from tests.release_factory import write_release

BENCHMARK = "drug_safety"


def _scores(log: EvalLog) -> list[dict[str, object]]:
    return [dict(s.scores["rubric_judge"].metadata or {}) for s in log.samples or []]  # type: ignore[index]


def _run(release: Path, logs: Path, judge_passes: int = 1, **options: object) -> EvalLog:
    task = bedside_tasks.drug_safety(data_dir=str(release), judge_passes=judge_passes)
    (log,) = inspect_eval(
        task,
        model=ANSWER_MODEL,
        model_roles={"grader": JUDGE_MODEL},
        log_dir=str(logs),
        display="none",
        **options,  # type: ignore[arg-type]
    )
    assert log.status == "success", log.error
    return log


def _summary(logs: Path, out: Path) -> dict[str, object]:
    result = bedside_bench_in_process("report", str(logs), "-o", str(out), "--resamples", "50")
    assert result.returncode == 0, output(result)
    (path,) = sorted(out.glob("*.summary.json"))
    summary: dict[str, object] = json.loads(path.read_text())
    summary["report.md"] = (out / "report.md").read_text()
    return summary


@pytest.mark.slow
def test_a_rejudged_log_says_its_judge_temperature_is_not_recorded(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    server = provider_env
    release = tmp_path / "release"
    write_release(release, per_benchmark=3)
    log = _run(release, tmp_path / "logs")
    # the run's own judge calls are recorded: the double received 0, the score says 0
    assert {r.temperature for r in server.requests(kind="judge")} == {0.0}
    assert {r.temperature for r in server.requests(kind="answer")} == {1.0}
    scored = read_eval_log(log.location)
    assert [(m["answer_temperature"], m["judge_temperature"]) for m in _scores(scored)] == [
        (1.0, 0.0)
    ] * 3

    # re-judged: Inspect re-scores with no request record, yet the judge still received 0
    before = max(r.seq for r in server.requests())
    result = bedside_bench_in_process(
        "rejudge", str(tmp_path / "logs"), "--judge", JUDGE_MODEL, "-o", str(tmp_path / "re")
    )
    assert result.returncode == 0, output(result)
    rejudged_calls = [r for r in server.requests(kind="judge") if r.seq > before]
    assert len(rejudged_calls) == 3
    assert {r.temperature for r in rejudged_calls} == {0.0}
    (location,) = [info.name for info in list_eval_logs(str(tmp_path / "re"))]
    rejudged = read_eval_log(location)
    assert [(m["answer_temperature"], m["judge_temperature"]) for m in _scores(rejudged)] == [
        (1.0, NOT_RECORDED)
    ] * 3

    summary = _summary(tmp_path / "re", tmp_path / "report")
    assert summary["answer_temperature"] == 1.0
    assert summary["judge_temperature"] == NOT_RECORDED
    notes = [n for n in summary["notes"] if "not recorded" in n]  # type: ignore[attr-defined]
    assert notes == [
        "judge_temperature not recorded for 3 of 3 cases: the log keeps no record of those "
        "requests (scores of `inspect score` or `bedside-bench rejudge`, a run with "
        "--no-log-model-api); they were asked at 0, and whether the provider received it is "
        "not known"
    ]
    report_md = str(summary["report.md"])
    assert "not recorded (the log keeps no record of the request)" in report_md
    assert "null (provider default)" not in report_md


@pytest.mark.slow
def test_a_run_without_request_records_says_both_temperatures_are_not_recorded(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    server = provider_env
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    log = _run(release, tmp_path / "logs", log_model_api=False)
    # sent all the same
    assert {r.temperature for r in server.requests(kind="answer")} == {1.0}
    assert {r.temperature for r in server.requests(kind="judge")} == {0.0}
    scored = read_eval_log(log.location)
    assert [(m["answer_temperature"], m["judge_temperature"]) for m in _scores(scored)] == [
        (NOT_RECORDED, NOT_RECORDED)
    ] * 2
    summary = _summary(tmp_path / "logs", tmp_path / "report")
    assert (summary["answer_temperature"], summary["judge_temperature"]) == (
        NOT_RECORDED,
        NOT_RECORDED,
    )
    notes = [n for n in summary["notes"] if "not recorded for" in n]  # type: ignore[attr-defined]
    assert [n.split(":")[0] for n in notes] == [
        "answer_temperature not recorded for 2 of 2 cases",
        "judge_temperature not recorded for 2 of 2 cases",
    ]
    assert "they were asked at 1," in notes[0] and "they were asked at 0," in notes[1]


@pytest.mark.slow
def test_each_judge_pass_reads_its_own_request_record(
    tmp_path: Path, provider_env: ProviderDouble
) -> None:
    """A case's judge passes are asked at once: the newest model event when a pass returns is
    another pass's, still pending or (the sixth judge call of a case) one Inspect keeps no
    record of. Read from there, six passes recorded "not recorded" for the judge temperature
    of a run that logged the requests of five of them, and the report blamed `inspect score`,
    `rejudge` or `--no-log-model-api`, none of which had run."""
    server = provider_env
    server.configure(judge_latency=0.3)  # every pass is sent before any comes back
    release = tmp_path / "release"
    write_release(release, per_benchmark=2)
    log = _run(release, tmp_path / "logs", judge_passes=6)
    assert len(server.requests(kind="judge")) == 12
    assert {r.temperature for r in server.requests(kind="judge")} == {0.0}
    scored = read_eval_log(log.location)
    assert [m["judge_temperature"] for m in _scores(scored)] == [0.0, 0.0]
    summary = _summary(tmp_path / "logs", tmp_path / "report")
    assert summary["judge_temperature"] == 0.0
    assert not [n for n in summary["notes"] if "not recorded" in n]  # type: ignore[attr-defined]


def test_a_cache_entry_that_kept_no_temperature_reads_as_not_recorded() -> None:
    def output_with(metadata: dict[str, object] | None) -> ModelOutput:
        reply = ModelOutput.from_content("m", "text")
        reply.metadata = metadata
        return reply

    assert cached_temperature(output_with({TEMPERATURE_SENT_KEY: 0})) == 0.0
    assert cached_temperature(output_with({TEMPERATURE_SENT_KEY: None})) is None
    assert cached_temperature(output_with({TEMPERATURE_SENT_KEY: NOT_RECORDED})) == NOT_RECORDED
    assert cached_temperature(output_with({})) == NOT_RECORDED
    assert cached_temperature(output_with(None)) == NOT_RECORDED
    assert cached_temperature(output_with({TEMPERATURE_SENT_KEY: True})) == NOT_RECORDED


def test_the_report_tells_not_sent_from_not_recorded() -> None:
    notes: list[str] = []
    assert single_value([0.0, 0.0], "judge_temperature", notes) == 0.0
    assert single_value([None, NOT_RECORDED, 0.5, None], "judge_temperature", notes) == [
        0.5,
        None,
        NOT_RECORDED,
    ]
    assert notes == ["judge_temperature differs between cases: [0.5, None, 'not recorded']"]
    assert temperature(None) == "null (provider default)"
    assert temperature(NOT_RECORDED) == "not recorded (the log keeps no record of the request)"
    assert temperature([0.5, None, NOT_RECORDED]) == "0.5, null, not recorded"
    assert not_recorded_notes(judge=(0.0, [0.0, None])) == []
    (note,) = not_recorded_notes(judge=(0.0, [0.0, NOT_RECORDED, NOT_RECORDED]))
    assert note.startswith("judge_temperature not recorded for 2 of 3 cases:")
