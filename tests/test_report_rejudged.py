"""A run group with logs `bedside-bench rejudge` wrote says so (pure, over log records): which
share of its logs, the judge, and the folders of the answers' own run, bounded and printable."""

from __future__ import annotations

from bedside_bench.calls.credentials import redact_credentials
from bedside_bench.report.answers import rejudged_notes
from bedside_bench.report.groups import group_records
from tests.report_helpers import log_record

TAIL = (
    "this summary counts no answer tokens or cost for the re-judged logs (their answers were "
    "paid for in that run)"
)


def notes_of(*froms: str) -> list[str]:
    records = [
        log_record({"c1": 0.5}, benchmark=b, rejudged_from=f)
        for b, f in zip(
            ("drug_safety", "landmark_trials", "health_equity", "safety_diagnostic", "x"),
            froms,
            strict=False,
        )
    ]
    (group,) = group_records(records)
    return rejudged_notes(group)


def test_a_group_of_only_its_own_runs_says_nothing() -> None:
    assert notes_of("", "") == []


def test_all_or_some_logs_re_judged_with_the_folders_named_once() -> None:
    lead = "re-judged: scores written by `bedside-bench rejudge` (judge test/judge)"
    assert notes_of("/runs/a/x.eval", "/runs/a/y.eval") == [
        f"{lead} for answers bought by an earlier run, whose logs are in /runs/a; {TAIL}"
    ]
    (note,) = notes_of("", "s3://bucket/logs/x.eval")
    assert note.startswith("re-judged (1 of 2 logs): ") and "in s3://bucket/logs; " in note


def test_hostile_folders_are_one_bounded_line_without_credentials() -> None:
    hostile = "s3://user:secret@bucket/lo\x1b[31mgs\n" + "z" * 5000 + "/x.eval"
    many = [hostile, "/b/1.eval", "/c/1.eval", "/d/1.eval"]
    records = [
        log_record({"c1": 0.5}, benchmark=b, rejudged_from=redact_credentials(f))
        for b, f in zip(
            ("drug_safety", "landmark_trials", "health_equity", "safety_diagnostic"),
            many,
            strict=True,
        )
    ]
    (group,) = group_records(records)
    (note,) = rejudged_notes(group)
    assert "secret" not in note and "\x1b" not in note and "\n" not in note
    assert len(note) < 1200 and note.count("and 1 more") == 1
