"""`bedside-bench report` on real Inspect logs of the ten tasks (a small synthetic release), and
the pure parts of reading them (`logs/read.py`).

Two scripted models run all ten tasks; the judge breaks on two cases, so both models' logs have
errored samples; model A's are then completed by `inspect_ai.eval_retry`, model B's are not.
Every figure is compared with a recomputation from the fully read logs in plain numpy.
"""

from __future__ import annotations

import base64
import html
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import genai_prices
import numpy as np
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.log import (
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
    write_eval_log,
)
from inspect_ai.scorer import match
from inspect_ai.solver import generate
from markdown_it import MarkdownIt

from bedside_bench.cli.main import main as cli_main
from bedside_bench.core import exit_codes
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.schema_files import validator
from bedside_bench.logs.read import Progress, display_location, finish_record, read_records
from bedside_bench.logs.records import LogRecord
from bedside_bench.report import BootstrapOptions, ReportOptions, build_report
from bedside_bench.report.run import ReportResult
from tests import report_helpers as helpers
from tests.e2e_helpers import run_tool
from tests.release_factory import write_release
from tests.report_helpers import case_record, log_record

A, B, C = "bbscript/answer-a", "bbscript/answer-b", "bbscript/answer-c"
SMALL = BootstrapOptions(resamples=2_000, seed=42)


@dataclass(frozen=True)
class Runs:
    root: Path
    release: Path
    logs: Path  # A and B, with A's retry logs
    other_judge: Path  # C judged by another judge, two benchmarks


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    root = tmp_path_factory.mktemp("report-runs")
    cases = write_release(root / "release", per_benchmark=3)
    logs, other = root / "logs", root / "other-judge"
    helpers.BRAIN.poisoned = helpers.poison(
        [cases["drug_safety"][0], cases["safety_diagnostic"][1]]
    )
    try:
        first = helpers.run_tasks(root / "release", [A, B], logs)
        assert sum(log.status != "success" for log in first) == 4
        helpers.BRAIN.poisoned = set()
        retried = helpers.retry([log for log in first if log.eval.model == A], logs)
        assert [log.status for log in retried] == ["success", "success"]
        helpers.run_tasks(
            root / "release",
            [C],
            other,
            judge="bbscript/judge-2",
            benchmarks=["drug_safety", "health_equity"],
        )
    finally:
        helpers.BRAIN.poisoned = set()
    yield Runs(root, root / "release", logs, other)


def report(paths: list[Path], out: Path, **options: Any) -> ReportResult:
    return build_report(
        ReportOptions(
            log_paths=[str(p) for p in paths],
            out_dir=out,
            bootstrap=options.pop("bootstrap", SMALL),
            **options,
        ),
        out=io.StringIO(),
        err=io.StringIO(),
    )


@pytest.fixture(scope="module")
def both(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> ReportResult:
    return report([runs.logs], tmp_path_factory.mktemp("out"))


def out_dir(result: ReportResult) -> Path:
    return result.files[0].parent


def summary_of(result: ReportResult, model: str) -> dict[str, Any]:
    (summary,) = [s.as_json() for s in result.summaries if s.answer_model == model]
    return summary


# --------------------------------------------------------------------------------------------
# numbers


@pytest.mark.parametrize("model", [A, B])
@pytest.mark.slow
def test_summary_numbers_equal_recomputation_from_the_logs(
    runs: Runs, both: ReportResult, model: str
) -> None:
    written = json.loads((out_dir(both) / f"{model.replace('/', '_')}.summary.json").read_text())
    expected = helpers.expected_summary_numbers(runs.logs, model, 2_000, 42)
    assert list(written["benchmarks"]) == list(BENCHMARK_NAMES)
    for name, entry in written["benchmarks"].items():
        want = expected["benchmarks"][name]
        assert {k: entry[k] for k in ("n", "failed", "mean", "ci95")} == want, name
    assert written["overall"] == expected["overall"]
    assert written == summary_of(both, model)


@pytest.mark.slow
def test_errored_cases_completed_by_a_retry_count_as_completed(both: ReportResult) -> None:
    a, b = summary_of(both, A), summary_of(both, B)
    assert (a["cases_completed"], a["cases_failed"], a["complete"]) == (30, 0, True)
    assert (b["cases_completed"], b["cases_failed"], b["complete"]) == (28, 2, False)
    assert b["benchmarks"]["drug_safety"]["failed"] == 1
    assert b["benchmarks"]["safety_diagnostic"]["failed"] == 1
    assert b["overall"] is not None  # every benchmark still has completed cases
    assert len(a["logs"]) == 12 and len(b["logs"]) == 10
    assert (
        "incomplete: 2 case(s) have no successful score (drug_safety 1, safety_diagnostic 1); "
        "they are left out of the means, not scored 0; redo them with `inspect eval-retry`"
    ) in b["notes"]


@pytest.mark.slow
def test_checklist_fields(runs: Runs, both: ReportResult) -> None:
    a = summary_of(both, A)
    header = read_eval_log(list_eval_logs(str(runs.logs))[0].name, header_only=True)
    assert header.eval.metadata is not None
    assert a["protocol_version"] == "bedside-bench-grading-v1"
    assert a["judge_model"] == helpers.JUDGE
    assert a["judge_passes_per_answer"] == 1
    assert (a["answer_temperature"], a["judge_temperature"]) == (1.0, 0.0)
    assert a["dataset_sha256"] == header.eval.metadata["dataset_sha256"]
    assert a["data_source"] == header.eval.metadata["data_source"]
    assert a["bootstrap"] == {
        "resamples": 2000,
        "seed": 42,
        "method": "percentile",
        "overall": "stratified",
    }
    assert "n per benchmark (cases in the dataset): drug_safety 3" in a["notes"][0]
    assert a["cost"] is None


@pytest.mark.slow
def test_f1_diagnostics_equal_recomputation(runs: Runs, both: ReportResult) -> None:
    cases = helpers.expected_cases(runs.logs, A)
    for name in ("safety_diagnostic", "safety_therapeutic"):
        ids, scored = cases[name]
        entry = summary_of(both, A)["benchmarks"][name]
        for key, meta_key in (
            ("mean_recall", "recall"),
            ("mean_precision", "precision"),
            ("severe_rate", "severe_rate"),
        ):
            present = [scored[i][meta_key] for i in ids if scored[i][meta_key] is not None]
            assert entry[key] == (float(np.mean(present)) if present else None)


@pytest.mark.slow
def test_usage_counts_each_call_once_despite_retry_logs(runs: Runs, both: ReportResult) -> None:
    def tokens(usage: Any, calls: int) -> dict[str, int]:
        return {
            "input_tokens": usage.input_tokens * calls,
            "output_tokens": usage.output_tokens * calls,
            "input_tokens_cache_read": (usage.input_tokens_cache_read or 0) * calls,
            "input_tokens_cache_write": 0,
            "reasoning_tokens": (usage.reasoning_tokens or 0) * calls,
            "total_tokens": usage.total_tokens * calls,
        }

    a, b = summary_of(both, A)["usage"], summary_of(both, B)["usage"]
    # A: 30 answers and 30 judge calls, then the retry judges its 2 stored answers again
    # (the answers are not bought twice: `call_cache.answer_cache`)
    assert a["answer"] == tokens(helpers.ANSWER_USAGE, 30)
    assert a["judge"] == tokens(helpers.JUDGE_USAGE, 32)
    assert b["answer"] == tokens(helpers.ANSWER_USAGE, 30)
    assert b["judge"] == tokens(helpers.JUDGE_USAGE, 30)
    assert len(a["counted_logs"]) == 10
    headers = [read_eval_log(i.name, header_only=True) for i in list_eval_logs(str(runs.logs))]
    mine = [h for h in headers if h.eval.model == A]
    spans = [
        (datetime.fromisoformat(h.stats.started_at), datetime.fromisoformat(h.stats.completed_at))
        for h in mine
    ]
    wall = a["wall_time_seconds"]
    assert wall["sum_over_logs"] == sum((e - s).total_seconds() for s, e in spans)
    assert (
        wall["first_start_to_last_finish"]
        == (max(e for _, e in spans) - min(s for s, _ in spans)).total_seconds()
    )


@pytest.mark.slow
def test_the_usage_table_names_each_kind_of_token_in_the_ranking_order(
    both: ReportResult,
) -> None:
    """report.md's token table in one vocabulary (fresh input, cached input, output, reasoning),
    from the scripted calls' usage times the calls counted above, best overall mean first."""
    means = {m: summary_of(both, m)["overall"]["mean"] for m in (A, B)}
    calls = {A: (30, 32), B: (30, 30)}  # answers, judge calls (A's retry judged 2 again)
    rows = []
    for model in sorted((A, B), key=lambda m: (-means[m], m)):
        answers, judged = calls[model]
        for part, usage, n in (
            ("answers", helpers.ANSWER_USAGE, answers),
            ("judge", helpers.JUDGE_USAGE, judged),
        ):
            fresh = (usage.input_tokens + (usage.input_tokens_cache_write or 0)) * n
            cached = (usage.input_tokens_cache_read or 0) * n
            reasoning = (usage.reasoning_tokens or 0) * n
            rows.append(
                f"| {model} | {part} | {fresh:,} | {cached:,} | {usage.output_tokens * n:,} | "
                f"{reasoning:,} |"
            )
    text = (out_dir(both) / "report.md").read_text()
    header = "| model | calls | fresh input | cached input | output | reasoning (in output) |"
    assert "\n".join([header, "|---|---|---|---|---|---|", *rows]) in text


@pytest.mark.slow
def test_cost_with_a_prices_file(runs: Runs, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({A: {"input": 0.25, "output": 2.0, "cached_input": 0.025}}))
    result = report([runs.logs], tmp_path / "out", prices_file=prices)
    cost = summary_of(result, A)["cost"]
    u = helpers.ANSWER_USAGE
    expected = (
        30  # the retry bought no answer again
        * (u.input_tokens * 0.25 + (u.input_tokens_cache_read or 0) * 0.025 + u.output_tokens * 2.0)
        / 1e6
    )
    assert cost["answer"] == pytest.approx(expected, rel=1e-12)
    assert cost["judge"] is None and cost["total"] is None
    assert cost["prices"] == {A: {"input": 0.25, "output": 2.0, "cached_input": 0.025}}
    assert (
        f"no price for {helpers.JUDGE} (not in the prices file nor in genai-prices "
        f"{genai_prices.__version__}), and the logs record no Inspect cost for it "
        "(--model-cost-config at run time): cost.judge is null" in summary_of(result, A)["notes"]
    )


# --------------------------------------------------------------------------------------------
# comparison


@pytest.mark.slow
def test_comparison_equals_recomputation(runs: Runs, both: ReportResult) -> None:
    comparison = json.loads((out_dir(both) / "comparison.json").read_text())
    validator("comparison.schema.json").validate(comparison)
    assert comparison["like_for_like"] is True
    expected = helpers.expected_paired(runs.logs, A, B, 2_000, 42)
    for name in BENCHMARK_NAMES:
        (pair,) = comparison["benchmarks"][name]["pairs"]
        assert pair == {"a": A, "b": B, **expected[name]}, name
        assert (
            comparison["benchmarks"][name]["models"][A]["mean"]
            == summary_of(both, A)["benchmarks"][name]["mean"]
        )
    (overall,) = comparison["overall"]["pairs"]
    assert overall == {"a": A, "b": B, **expected["overall"]}
    assert comparison["benchmarks"]["drug_safety"]["pairs"][0]["n"] == 2


@pytest.fixture(scope="module")
def unlike(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A's logs again under another protocol version: a full run not like for like with A's
    and B's."""
    target = tmp_path_factory.mktemp("unlike") / "logs"
    return copy_logs(runs.logs, target, model=A, protocol_version="bedside-bench-grading-v9")


@pytest.mark.slow
def test_refuses_to_compare_unlike_full_runs_unless_forced(
    runs: Runs, unlike: Path, tmp_path: Path
) -> None:
    (tmp_path / "comparison.json").write_text("{}")  # a stale one must not survive
    refused = report([runs.logs, unlike], tmp_path)
    assert refused.exit_code == exit_codes.REFUSED
    assert refused.refused is not None and "protocol_version differs" in refused.refused
    assert not (tmp_path / "comparison.json").exists()
    assert len(list(tmp_path.glob("*.summary.json"))) == 3
    md = (tmp_path / "report.md").read_text()
    assert "protocol_version differs" in md and "| rank |" not in md  # none is ranked
    assert "no verdict: the runs are not like for like" in md
    forced = report([runs.logs, unlike], tmp_path / "forced", force=True)
    assert forced.exit_code == 0
    assert forced.comparison is not None and forced.comparison.like_for_like is False
    assert [m.field for m in forced.comparison.mismatches] == ["protocol_version"]
    assert "NOT LIKE FOR LIKE" in (tmp_path / "forced" / "report.md").read_text()


@pytest.mark.slow
def test_a_partial_run_of_another_judge_is_neither_compared_nor_ranked_unless_forced(
    runs: Runs, tmp_path: Path
) -> None:
    result = report([runs.logs, runs.other_judge], tmp_path)
    assert result.exit_code == 0 and result.refused is None
    assert result.comparison is not None
    assert [m.label for m in result.comparison.models] == [A, B]
    assert [result.labels[i] for i in sorted(result.standing.ranked)] == [A, B]
    md = (tmp_path / "report.md").read_text()
    (row,) = [line for line in md.splitlines() if "never ranked with full runs |" in line]
    assert row.startswith(f"| {C} |") and "| partial run: not every case ran," in row
    assert md.index("## Verdict") < md.index(row) < md.index("## Benchmark scores")
    forced = report([runs.logs, runs.other_judge], tmp_path / "forced", force=True)
    assert forced.exit_code == 0
    assert forced.comparison is not None and forced.comparison.like_for_like is False
    assert [m.field for m in forced.comparison.mismatches] == ["judge_model"]
    c = summary_of(forced, C)
    assert c["overall"] is None and len(c["missing_benchmarks"]) == 8


@pytest.mark.slow
def test_cli_exit_codes(
    runs: Runs, unlike: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [
        "report",
        str(runs.logs),
        str(unlike),
        "-o",
        str(tmp_path / "report"),
        "--resamples",
        "200",
    ]
    assert cli_main(args) == exit_codes.REFUSED
    assert "refusing to compare" in capsys.readouterr().err
    assert cli_main([*args, "--force"]) == 0
    out = capsys.readouterr().out
    assert "overall" in out and "(n=30, failed=0)" in out and "INCOMPLETE" in out
    assert (
        cli_main(["report", str(runs.logs), str(runs.other_judge), "-o", str(tmp_path / "r2")]) == 0
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli_main(["report", str(empty), "-o", str(tmp_path / "report")]) == 1
    assert "no Inspect logs found" in capsys.readouterr().err
    bad = tmp_path / "prices.json"
    bad.write_text("{not json")
    assert (
        cli_main(["report", str(runs.logs), "-o", str(tmp_path / "report"), "--prices", str(bad)])
        == 1
    )
    assert "cannot use prices file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["report", str(runs.logs), "--resamples", "0"])


# --------------------------------------------------------------------------------------------
# files


@pytest.mark.slow
def test_written_summaries_validate_against_the_schema(both: ReportResult) -> None:
    check = validator("summary.schema.json")
    files = sorted(out_dir(both).glob("*.summary.json"))
    assert [f.name for f in files] == [
        "bbscript_answer-a.summary.json",
        "bbscript_answer-b.summary.json",
    ]
    for path in files:
        summary = json.loads(path.read_text())
        check.validate(summary)
        broken = {**summary, "extra": 1}
        assert not check.is_valid(broken)
        missing = {k: v for k, v in summary.items() if k != "overall"}
        assert not check.is_valid(missing)


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.external: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if tag == "img":
            self.images.append(values.get("src") or "")
        for key in ("src", "href"):
            value = values.get(key) or ""
            if value and not value.startswith("data:"):
                self.external.append(value)


@pytest.mark.slow
def test_html_is_self_contained_and_embeds_the_plot(both: ReportResult) -> None:
    out = out_dir(both)
    page = (out / "report.html").read_text()
    parser = _Images()
    parser.feed(page)
    parser.close()
    assert parser.external == [] and "script" not in parser.tags and "link" not in parser.tags
    (src,) = parser.images
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    png = base64.b64decode(src[len(prefix) :])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert png == (out / "forest.png").read_bytes()
    for text in (
        "Runs",
        "Benchmark scores",
        "Pairwise differences",
        "Forest plot",
        "dataset digest",
        "judge passes per answer",
        A,
        B,
    ):
        assert text in page
    md = (out / "report.md").read_text()
    assert "![Benchmark means with 95% intervals, one colour per model](forest.png)" in md
    assert "| overall |" in md


@pytest.mark.slow
def test_without_matplotlib_the_report_says_how_to_get_the_plot(
    runs: Runs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bedside_bench.report import plot

    (tmp_path / "forest.png").write_bytes(b"stale")
    monkeypatch.setattr(plot, "matplotlib_available", lambda: False)
    report([runs.logs], tmp_path)
    assert not (tmp_path / "forest.png").exists()
    for name in ("report.md", "report.html"):
        text = html.unescape((tmp_path / name).read_text())
        assert "pip install -e '.[report]'" in text and "base64" not in text


@pytest.mark.slow
def test_no_secret_from_the_environment_reaches_the_outputs(
    runs: Runs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-DO-NOT-LEAK-123")
    report([runs.logs], tmp_path)
    for path in tmp_path.iterdir():
        assert b"DO-NOT-LEAK" not in path.read_bytes(), path


# --------------------------------------------------------------------------------------------
# reading


@pytest.mark.slow
def test_log_files_and_directories_and_foreign_logs(runs: Runs, tmp_path: Path) -> None:
    foreign = inspect_eval(
        Task(dataset=[Sample(input="hi", target="x")], solver=generate(), scorer=match()),
        model="bbscript/other",
        log_dir=str(tmp_path / "mixed"),
        display="none",
    )[0]
    one = list_eval_logs(str(runs.other_judge))[0].name
    shutil.copy(one.removeprefix("file://"), tmp_path / "mixed")
    (tmp_path / "mixed" / "2026-01-01T00-00-00+00-00_broken_x.eval").write_bytes(b"not a zip")
    result = read_records([str(tmp_path / "mixed"), one])
    assert len(result.records) == 2  # the copy and the original
    reasons = sorted(r for _, r in result.skipped)
    assert len(reasons) == 2 and reasons[0].startswith("cannot be read (")
    assert reasons[1] == f"task {foreign.eval.task!r} is not a BedsideBench benchmark"
    assert all(not r.location.startswith("file://") for r in result.records)


@pytest.mark.slow
def test_repeated_judging_kappa_from_thinned_summaries(runs: Runs, tmp_path: Path) -> None:
    """A log rewritten as if judged 8 times: per-pass decisions are too big for Inspect's
    sample summaries (over 1 kB), so the report must read them from the samples."""
    passes_n = 8
    info = next(
        i
        for i in list_eval_logs(str(runs.logs))
        if read_eval_log(i.name, header_only=True).eval.model == B and "health-equity" in i.name
    )
    log = read_eval_log(info.name)
    assert log.eval.metadata is not None and log.samples
    log.eval.metadata["judge_passes"] = passes_n
    rows: list[list[bool]] = []
    agreements = []
    for n, sample in enumerate(log.samples):
        score = sample.scores["rubric_judge"]  # type: ignore[index]
        decisions = score.metadata["decisions"]  # type: ignore[index]
        # odd items: one pass (which one depends on the case) flips the decision
        passes = [
            {
                item: (not v if k % 2 and p == n % passes_n else bool(v))
                for k, (item, v) in enumerate(decisions.items())
            }
            for p in range(passes_n)
        ]
        score.metadata["pass_decisions"] = passes  # type: ignore[index]
        rows += [[p[item] for p in passes] for item in decisions]
        agree = sum(len({p[i] for p in passes}) == 1 for i in decisions) / len(decisions)
        score.metadata["judge_agreement"] = agree  # type: ignore[index]
        agreements.append(agree)
    (tmp_path / "passes").mkdir()
    target = tmp_path / "passes" / "eight-passes.eval"
    write_eval_log(log, str(target))
    summaries = read_eval_log_sample_summaries(str(target))
    thinned = summaries[0].scores["rubric_judge"].metadata["pass_decisions"]  # type: ignore[index]
    assert isinstance(thinned, str)  # Inspect dropped it from the summary

    result = report([tmp_path / "passes"], tmp_path / "out")
    (summary,) = [s.as_json() for s in result.summaries]
    entry = summary["benchmarks"]["health_equity"]
    assert summary["judge_passes_per_answer"] == passes_n
    assert entry["judge_agreement"] == float(np.mean(agreements))
    counts = np.array([[sum(r), passes_n - sum(r)] for r in rows], dtype=float)
    p_i = ((counts**2).sum(axis=1) - passes_n) / (passes_n * (passes_n - 1))
    p_j = counts.sum(axis=0) / counts.sum()
    kappa = (p_i.mean() - (p_j**2).sum()) / (1 - (p_j**2).sum())
    assert entry["judge_kappa"] == pytest.approx(kappa, abs=1e-12)
    assert f"{passes_n} judge passes per answer (reference: 1)" in summary["notes"]
    validator("summary.schema.json").validate(summary)


def test_progress_is_printed_only_when_slow() -> None:
    quiet, loud = io.StringIO(), io.StringIO()
    Progress(2, quiet, after=60).step("file:///x/a.eval")
    progress = Progress(2, loud, after=0)
    progress.step("file:///x/a.eval")
    progress.step("s3://b/c.eval")
    assert quiet.getvalue() == ""
    assert loud.getvalue().splitlines()[0].startswith("report: read 1/2 logs")
    assert loud.getvalue().splitlines()[1].endswith("s3://b/c.eval")


def test_locations_never_carry_credentials() -> None:
    assert display_location("file:///tmp/logs/x%20y.eval") == "/tmp/logs/x y.eval"
    assert display_location("https://user:secret@host/logs/a.eval") == "https://host/logs/a.eval"
    assert display_location("s3://bucket/logs/a.eval") == "s3://bucket/logs/a.eval"
    assert (
        display_location("hf://doximity/bedside-bench@90d0") == "hf://doximity/bedside-bench@90d0"
    )


def header(**fields: Any) -> LogRecord:
    return log_record(
        {},
        location="/logs/a.eval",
        answer_model="m/a",
        judge_model="m/configured",
        **fields,
    )


def test_the_judge_the_scores_name_is_the_groups_judge() -> None:
    failed = case_record("c2", None, "boom")
    cases = {("c1", 1): case_record("c1", 0.5, judge_model="m/j"), ("c2", 1): failed}
    record = finish_record(header(), cases, [])
    assert record.judge_model == "m/j" and record.judges_seen == ()
    assert list(record.cases) == ["c1", "c2"] and record.sample_ids == ("c1", "c2")
    # no successful score names a judge: the configured one
    assert finish_record(header(), {("c2", 1): failed}, []).judge_model == "m/configured"


def test_a_log_whose_scores_name_several_judges_is_never_filed_under_one() -> None:
    cases = {
        ("c1", 1): case_record("c1", 0.5, judge_model="m/j1"),
        ("c1", 2): case_record("c1", 0.5, judge_model="m/j2"),
    }
    record = finish_record(header(epochs=2), cases, [])
    assert record.judge_model == "mixed: m/j1, m/j2"
    assert record.judges_seen == ("m/j1", "m/j2")


# --------------------------------------------------------------------------------------------
# what the outputs must never hide


def copy_logs(
    source: Path,
    target: Path,
    model: str | None = None,
    drop: tuple[str, ...] = (),
    **metadata: Any,
) -> Path:
    """Every log of `source` (of `model`, if given) rewritten into `target` with Inspect's own
    writer, its task metadata without the keys in `drop` and updated with `metadata`."""
    target.mkdir(parents=True, exist_ok=True)
    for info in list_eval_logs(str(source)):
        log = read_eval_log(info.name)
        if model is not None and log.eval.model != model:
            continue
        assert log.eval.metadata is not None
        for key in drop:
            log.eval.metadata.pop(key, None)
        log.eval.metadata.update(metadata)
        write_eval_log(log, str(target / Path(info.name).name))
    return target


@pytest.mark.slow
def test_skipped_logs_are_listed_in_the_summary_and_the_report(runs: Runs, tmp_path: Path) -> None:
    mixed = copy_logs(runs.other_judge, tmp_path / "mixed")
    broken = mixed / "2026-01-01T00-00-00+00-00_broken_x.eval"
    broken.write_bytes(b"not a zip")
    inspect_eval(
        Task(dataset=[Sample(input="hi", target="x")], solver=generate(), scorer=match()),
        model="bbscript/other",
        log_dir=str(mixed),
        display="none",
    )
    result = report([mixed], tmp_path / "out")
    assert result.exit_code == 0 and len(result.skipped) == 2
    (summary,) = [s.as_json() for s in result.summaries]
    skipped_notes = [n for n in summary["notes"] if n.startswith("skipped log ")]
    assert len(skipped_notes) == 2
    assert any(n.startswith(f"skipped log {broken}: cannot be read (") for n in skipped_notes)
    assert any("is not a BedsideBench benchmark" in n for n in skipped_notes)
    md = (tmp_path / "out" / "report.md").read_text()
    assert "## Skipped logs" in md and "2 log(s) found were not used" in md
    assert md.index("2 log(s) found were not used") < md.index("## Verdict")
    # the bullet shows the log's location and reason exactly as the summary's note names them
    (note,) = [n for n in skipped_notes if n.startswith(f"skipped log {broken}: ")]
    shown = html.escape(note.removeprefix("skipped log "), quote=False)
    assert f"<li>{shown}</li>" in MarkdownIt("commonmark").render(md)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k in ("href", "src")]


@pytest.mark.slow
def test_text_from_logs_is_escaped_in_markdown_and_html(runs: Runs, tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script> [click](javascript:alert(2)) <img src=x onerror=y> *b*"
    logs = copy_logs(runs.logs, tmp_path / "logs", model=A, data_source=hostile)
    result = report([logs], tmp_path / "out")
    (summary,) = [s.as_json() for s in result.summaries]
    assert summary["data_source"] == hostile  # the JSON keeps the text as it is
    md = (tmp_path / "out" / "report.md").read_text()
    rendered = MarkdownIt("commonmark").enable("table").render(md)
    tags = _Tags()
    tags.feed(rendered)
    assert not {"script", "a", "em", "strong"} & set(tags.tags)
    # the only image is the forest plot; no link or image came from the log's text
    assert tags.hrefs == ["forest.png"]
    assert html.escape(hostile, quote=False) in rendered  # shown as text, exactly
    page = (tmp_path / "out" / "report.html").read_text()
    page_tags = _Tags()
    page_tags.feed(page)
    assert "script" not in page_tags.tags and "a" not in page_tags.tags
    assert html.escape(hostile) in page


@pytest.mark.slow
def test_release_is_part_of_the_group_and_shown(runs: Runs, tmp_path: Path) -> None:
    counts = dict.fromkeys(BENCHMARK_NAMES, 3)
    logs = tmp_path / "logs"
    # as logs written before releases were recorded
    copy_logs(runs.logs, logs, model=A, drop=("release", "release_case_counts"))
    copy_logs(runs.logs, logs, model=B, release="unrecognised", release_case_counts=counts)
    refused = report([logs], tmp_path / "out")
    assert refused.refused is not None and "release differs" in refused.refused
    a, b = summary_of(refused, A), summary_of(refused, B)
    assert (a["release"], a["release_case_counts"]) == (None, None)
    assert (b["release"], b["release_case_counts"]) == ("unrecognised", counts)
    assert b["scope"]["cases_in_benchmarks"] == 30
    md = (tmp_path / "out" / "report.md").read_text()
    shown = ", ".join(f"{name} 3" for name in BENCHMARK_NAMES)
    assert f"{B}: release: unrecognised (cases found: {shown})." in md
    assert f"{A}: release: unknown (not recorded in the logs)." in md
    assert "release: unknown (the logs do not record" in " ".join(a["notes"])
    forced = report([logs], tmp_path / "forced", force=True)
    assert forced.comparison is not None
    assert [m.field for m in forced.comparison.mismatches] == ["release"]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e400", "-1", "1e7"])
@pytest.mark.slow
def test_prices_that_are_not_prices_stop_before_anything_is_written(
    runs: Runs, tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text('{"bbscript/answer-a": {"input": 1, "output": ' + value + "}}")
    out = tmp_path / "out"
    assert cli_main(["report", str(runs.logs), "-o", str(out), "--prices", str(prices)]) == 1
    err = capsys.readouterr().err
    assert f"cannot use prices file {prices}" in err
    assert "prices['bbscript/answer-a']['output']" in err
    assert "Traceback" not in err
    assert not out.exists()


@pytest.mark.slow
def test_a_tampered_log_fails_its_case_or_is_skipped_through_the_cli(
    runs: Runs, tmp_path: Path
) -> None:
    """Real logs edited by hand, then `bedside-bench report` as a user runs it: a malformed
    score metadata value fails that case (one stderr line naming log, case and field) and the
    benchmark's mean is the other cases' own; a malformed task metadata value skips that log
    (named in the summary's notes too). Nothing is pooled from either, nothing crashes."""
    logs = copy_logs(runs.other_judge, tmp_path / "logs")
    by_benchmark = {read_eval_log(str(p), header_only=True).eval.task: p for p in logs.iterdir()}
    tampered_case = by_benchmark["drug_safety"]
    log = read_eval_log(str(tampered_case))
    samples = log.samples or []
    assert len(samples) == 3 and all(s.error is None and s.scores for s in samples)
    first = samples[0]
    assert first.scores is not None and first.scores["rubric_judge"].metadata is not None
    first.scores["rubric_judge"].metadata["judge_model"] = 7
    write_eval_log(log, str(tampered_case))
    honest = [float(s.scores["rubric_judge"].value) for s in samples[1:] if s.scores]  # type: ignore[arg-type]
    skipped = by_benchmark["health_equity"]
    header = read_eval_log(str(skipped))
    assert header.eval.metadata is not None
    header.eval.metadata["judge_passes"] = "three"
    write_eval_log(header, str(skipped))

    out = tmp_path / "out"
    result = run_tool("bedside-bench", "report", str(logs), "-o", str(out), "--resamples", "200")
    assert "Traceback" not in result.stderr
    assert result.returncode == exit_codes.OK, result.stderr
    lines = result.stderr.splitlines()
    assert (
        f"report: failed {tampered_case}: case {first.id}: score metadata judge_model: input "
        "should be a valid string, got 7 (the case counts as failed; `inspect score` on the log "
        "re-scores it with honest values)"
    ) in lines
    assert (
        f"report: skipped {skipped}: task metadata judge_passes: input should be a valid "
        "integer, got 'three'"
    ) in lines
    (summary,) = [json.loads(p.read_text()) for p in out.glob("*.summary.json")]
    drug_safety = summary["benchmarks"]["drug_safety"]
    assert (drug_safety["n"], drug_safety["failed"]) == (2, 1)
    assert drug_safety["mean"] == pytest.approx(float(np.mean(honest)), abs=1e-12)
    assert "health_equity" not in summary["benchmarks"]
    assert f"skipped log {skipped}: task metadata judge_passes: " in " ".join(summary["notes"])
