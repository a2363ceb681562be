"""Which answer counts when a case was answered in more than one run of a group (pure).

A run group pools every log with its key, so a separate `inspect eval bedside_bench/drug_safety`
written beside a sweep falls into the sweep's group. Each case then counts once, with its newest
successful score (`groups.merge_benchmark`: the log that started last). A retry (`inspect
eval-retry`, a sweep resumed by `eval_set`) keeps its task id and carries the answers it
already had, so only answers from logs of different task ids are separate runs, and only those
get a note.
"""

from __future__ import annotations

from bedside_bench.core.safe_text import printable
from bedside_bench.logs.records import LogRecord, newest_first
from bedside_bench.report.groups import RunGroup

# how a summary note says a benchmark's cases were answered in more than one run
ANSWERED_AGAIN = "were answered in more than one run of this group"


def answered_again(group: RunGroup) -> list[str]:
    """One note per benchmark whose cases were answered in more than one run, saying which
    answer counts and why."""
    notes = []
    for name in group.benchmarks:
        logs = newest_first([log for log in group.logs if log.benchmark == name])
        if len({log.task_id for log in logs}) < 2:
            continue
        counted: dict[str, LogRecord] = {}  # case -> the log whose answer counts
        older: dict[str, None] = {}  # logs with an answer that does not count, newest first
        superseded: set[str] = set()
        for log in logs:  # newest first: the first successful answer seen counts
            for case_id, case in log.cases.items():
                if not case.completed:
                    continue
                first = counted.setdefault(case_id, log)
                if first.task_id != log.task_id:
                    superseded.add(case_id)
                    older[log.location] = None
        if not superseded:
            continue
        counting = dict.fromkeys(counted[c].location for c in sorted(superseded))
        notes.append(
            f"{name}: {len(superseded)} case(s) {ANSWERED_AGAIN} "
            "(separate runs with the same model, judge and settings); each counts once, "
            f"with its newest successful answer, from the run that started last "
            f"({', '.join(counting)}); the older answers in {', '.join(older)} are not used. "
            "Write a separate run to another log directory to keep it out of this group."
        )
    return notes


# how a summary note says its scores come from `bedside-bench rejudge`
REJUDGED = "re-judged"


def source_folder(location: str) -> str:
    """The folder of a log's location (a path or a URL such as s3://bucket/logs/x.eval)."""
    folder, _, _ = location.rstrip("/").rpartition("/")
    return folder or location


def rejudged_notes(group: RunGroup) -> list[str]:
    """A group whose scores come (in part) from `bedside-bench rejudge` says so, with the
    folders of the answers' own run: its answers were bought, and are billed, there."""
    rejudged = [log for log in group.logs if log.rejudged_from]
    if not rejudged:
        return []
    folders = list(dict.fromkeys(source_folder(log.rejudged_from) for log in rejudged))
    shown = ", ".join(printable(f, 300) for f in folders[:3])
    if len(folders) > 3:
        shown += f" and {len(folders) - 3} more"
    share = (
        "" if len(rejudged) == len(group.logs) else f" ({len(rejudged)} of {len(group.logs)} logs)"
    )
    return [
        f"{REJUDGED}{share}: scores written by `bedside-bench rejudge` (judge "
        f"{group.key.judge_model}) for answers bought by an earlier run, whose logs are in "
        f"{shown}; this summary counts no answer tokens or cost for the re-judged logs (their "
        "answers were paid for in that run)"
    ]
