"""`bedside-bench demo`'s parts that need no eval: its folder, which cases it runs, the
environment it leaves as it found it, and what the report says of a demo's logs. The demo
itself runs in tests/test_demo_e2e.py."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import webbrowser
from pathlib import Path

import pytest
from huggingface_hub import constants

from bedside_bench.core import exit_codes
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import DEMO_TAG
from bedside_bench.core.protocol import HF_DATASET_REPO, HF_DATASET_REVISION
from bedside_bench.demo import run as demo_run
from bedside_bench.demo.command import closing_lines, open_report
from bedside_bench.demo.release import (
    HUGGING_FACE_ORIGIN,
    SYNTHETIC_ORIGIN,
    DemoCases,
    demo_cases,
    shipped_synthetic_release,
)
from bedside_bench.demo.run import MARKER, DemoError, environment_restored, prepare_folder
from bedside_bench.demo.settings import DemoOptions, DemoResult, Requests
from bedside_bench.logs.read import header_record
from bedside_bench.release.case import DatasetError
from bedside_bench.release.dataset import load_release
from bedside_bench.release.sources import DataSource
from bedside_bench.report.document import Heading, ReportContext, group_warnings, intro_section
from bedside_bench.report.groups import group_records
from bedside_bench.report.summary import DEMO_NOTE, BootstrapOptions, summarise
from tests.conftest import SYNTHETIC_RELEASE
from tests.e2e_helpers import bedside_bench_in_process
from tests.independent import read_cases
from tests.log_factory import eval_log, sample
from tests.release_factory import write_release
from tests.report_helpers import log_record, scores_for


def test_the_synthetic_release_ships_inside_the_package() -> None:
    """In a checkout it is data/synthetic (the editable install maps it); the wheel carries
    the same files as package data (pyproject's package-dir and package-data)."""
    assert shipped_synthetic_release().resolve() == SYNTHETIC_RELEASE.resolve()


def test_a_new_folder_gets_the_marker(tmp_path: Path) -> None:
    out = tmp_path / "new" / "demo"
    prepare_folder(out)
    assert os.listdir(out) == [MARKER]
    text = (out / MARKER).read_text()
    assert "scripted stand-in" in text and "not model output" in text
    assert f"inspect view --log-dir {out / 'logs'}" in text


def test_the_markers_command_works_from_anywhere_and_in_a_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "my demo's run"
    monkeypatch.chdir(tmp_path)  # the demo's folder given relative, as typed
    prepare_folder(Path("my demo's run"))
    line = next(ln for ln in (out / MARKER).read_text().splitlines() if "inspect view" in ln)
    command = line.split(": ", 1)[1]
    assert shlex.split(command) == ["inspect", "view", "--log-dir", str(out.resolve() / "logs")]


def test_an_earlier_demo_is_replaced_whole(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    prepare_folder(out)
    (out / "logs").mkdir()
    (out / "logs" / "old.eval").write_text("x")
    (out / "report").mkdir()
    prepare_folder(out)
    assert os.listdir(out) == [MARKER]


@pytest.mark.parametrize(
    ("entries", "named"),
    [(["notes.txt"], "notes.txt"), ([MARKER, "notes.txt"], "notes.txt"), (["logs"], "logs")],
)
def test_a_folder_that_is_not_a_demos_is_refused_untouched(
    tmp_path: Path, entries: list[str], named: str
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    for name in entries:
        (out / name).write_text("keep")
    with pytest.raises(DemoError) as refused:
        prepare_folder(out)
    assert str(refused.value) == (
        f"{out} holds {named!r}, which is not a demo's; the demo replaces its whole folder, so "
        "give a new or empty one with --out"
    )
    assert sorted(os.listdir(out)) == sorted(entries)


def test_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("keep")
    with pytest.raises(DemoError, match="is not a folder"):
        prepare_folder(tmp_path / "f")


def test_the_environment_is_restored_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_TEST_KEPT", "1")
    monkeypatch.setenv("DEMO_TEST_REMOVED", "2")
    monkeypatch.delenv("DEMO_TEST_ADDED", raising=False)
    before = dict(os.environ)
    with environment_restored():
        os.environ["DEMO_TEST_KEPT"] = "changed"
        del os.environ["DEMO_TEST_REMOVED"]
        os.environ["DEMO_TEST_ADDED"] = "3"
    assert dict(os.environ) == before


@pytest.fixture
def no_release_at_hand(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Neither $BEDSIDE_BENCH_DATA nor a Hugging Face cache holding the pinned revision; the
    cache's folder is returned, for a test to fill."""
    monkeypatch.delenv("BEDSIDE_BENCH_DATA", raising=False)
    cache = tmp_path / "hf-cache"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return cache


def test_without_a_release_the_shipped_synthetic_one_runs_whole(
    no_release_at_hand: Path, tmp_path: Path
) -> None:
    cases = demo_cases(tmp_path / "release", None, synthetic_only=False)
    root = shipped_synthetic_release().resolve()
    assert (cases.origin, cases.label, cases.synthetic, cases.data_dir) == (
        SYNTHETIC_ORIGIN,
        str(root),
        True,
        root,
    )
    assert cases.describe() == (
        f"20 synthetic cases, not BedsideBench data, 2 per benchmark, from {SYNTHETIC_ORIGIN} "
        f"({root})"
    )
    assert not (tmp_path / "release").exists()


def test_the_environments_release_is_preferred_and_cut_to_the_first_cases(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "theirs"
    written = write_release(source, per_benchmark=3)
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(source))
    folder = tmp_path / "demo" / "release"
    cases = demo_cases(folder, 2, synthetic_only=False)
    assert (cases.origin, cases.synthetic, cases.data_dir, cases.subset) == (
        "$BEDSIDE_BENCH_DATA",
        False,
        folder,
        True,
    )
    assert cases.describe().startswith("20 cases, 2 per benchmark (the first of each), from ")
    kept = load_release(DataSource(root=folder, label=str(folder)))
    for name, originals in written.items():
        assert [c.json_object() for c in kept.cases[name]] == originals[:2]
        assert read_cases(folder, name) == originals[:2]  # the files as plain JSON read them
    manifest = json.loads((folder / "data" / "drug_safety" / "manifest.json").read_text())
    assert manifest["case_ids"] == [c["case_id"] for c in written["drug_safety"][:2]]


def test_more_cases_than_a_release_has_run_it_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "theirs"
    write_release(source, per_benchmark=2)
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(source))
    cases = demo_cases(tmp_path / "release", 5, synthetic_only=False)
    assert (cases.data_dir, cases.subset, cases.total) == (source.resolve(), False, 20)
    assert not (tmp_path / "release").exists()


def test_synthetic_is_chosen_over_the_environments_release(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write_release(tmp_path / "theirs", per_benchmark=3)
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(tmp_path / "theirs"))
    cases = demo_cases(tmp_path / "release", None, synthetic_only=True)
    assert (cases.origin, cases.total) == (SYNTHETIC_ORIGIN, 20)


def test_the_pinned_snapshot_in_the_hugging_face_cache_is_used_without_a_download(
    no_release_at_hand: Path, tmp_path: Path
) -> None:
    repo = no_release_at_hand / f"datasets--{HF_DATASET_REPO.replace('/', '--')}"
    write_release(repo / "snapshots" / HF_DATASET_REVISION, per_benchmark=1)
    cases = demo_cases(tmp_path / "release", None, synthetic_only=False)
    # the tasks find the snapshot themselves (no data_dir), as `inspect eval` would
    assert (cases.origin, cases.label, cases.data_dir, cases.total) == (
        HUGGING_FACE_ORIGIN,
        f"hf://{HF_DATASET_REPO}@{HF_DATASET_REVISION}",
        None,
        10,
    )


def test_a_broken_release_is_refused_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "theirs"
    written = write_release(source, per_benchmark=1)
    case = written["drug_safety"][0]
    (source / "data" / "drug_safety" / "cases" / f"{case['case_id']}.json").write_text("{")
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", str(source))
    with pytest.raises(DatasetError, match=case["case_id"]):
        demo_cases(tmp_path / "release", 1, synthetic_only=False)


# --------------------------------------------------------------------------------------------
# what the report says of a demo's logs


def test_the_demo_tag_of_a_log_is_read() -> None:
    log = eval_log([sample("c1")])
    tagged = log.model_copy(update={"eval": log.eval.model_copy(update={"tags": [DEMO_TAG]})})
    assert (header_record("a", log).demo, header_record("b", tagged).demo) == (False, True)


@pytest.mark.parametrize("demo", [True, False])
def test_a_demo_says_so_first_in_its_summary_warnings_and_heading(demo: bool) -> None:
    records = [
        log_record(scores_for(name, 1), benchmark=name, demo=demo) for name in BENCHMARK_NAMES
    ]
    (group,) = group_records(records)
    summary = summarise(group, BootstrapOptions(resamples=10, seed=1))
    context = ReportContext(summaries=[summary], labels=["test/a"], files=["a.summary.json"])
    heading = intro_section(context)[0]
    assert isinstance(heading, Heading)
    if demo:
        assert (summary.notes[0], group_warnings(summary)[0]) == (DEMO_NOTE, DEMO_NOTE)
        assert heading.text == "BedsideBench report (DEMO: scripted answers)"
    else:
        assert DEMO_NOTE not in [*summary.notes, *group_warnings(summary)]
        assert heading.text == "BedsideBench report"


@pytest.mark.parametrize(
    ("opened", "said"),
    [(True, "demo: opened {report}"), (False, "demo: no browser to open; open {report} yourself")],
)
def test_open_hands_the_report_to_the_browser(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, opened: bool, said: str
) -> None:
    asked: list[str] = []

    def browser(url: str) -> bool:
        asked.append(url)
        return opened

    monkeypatch.setattr(webbrowser, "open", browser)
    report = tmp_path / "report" / "report.html"
    assert open_report(report) == said.format(report=report)
    assert asked == [report.resolve().as_uri()]


@pytest.mark.slow
def test_a_cancel_from_inspects_own_display_ends_the_demo_as_interrupted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """In a terminal, Inspect's full-screen display takes Ctrl-C as a key and cancels its
    worker, so the eval set ends in asyncio's CancelledError, not KeyboardInterrupt: the demo
    still ends with its own line and 130, not Inspect's silent exit."""

    def cancelled(*args: object, **kwargs: object) -> None:
        raise asyncio.CancelledError

    monkeypatch.setattr(demo_run, "eval_set", cancelled)
    result = bedside_bench_in_process("demo", "--out", str(tmp_path / "out"), "--synthetic")
    assert result.returncode == exit_codes.INTERRUPTED
    assert result.stderr.splitlines()[-1] == (
        "bedside-bench demo: interrupted; nothing more was run"
    )


@pytest.mark.parametrize("opening", [False, True])
def test_the_closing_lines_point_to_open_only_when_open_was_not_given(
    tmp_path: Path, opening: bool
) -> None:
    cases = DemoCases("synthetic", "synthetic", True, {}, None, False)
    result = DemoResult(True, cases, None, Requests(2, 2, 5), 1.0)
    options = DemoOptions(out=tmp_path / "demo")
    (line,) = [ln for ln in closing_lines(options, result, opening) if "report in" in ln]
    hint = " (open it in a browser, or run the demo with --open)"
    assert line == (
        f"demo: report in {options.report_dir / 'report.html'}{'' if opening else hint}; "
        "report.md and one summary per model beside it"
    )
