"""Which answer counts when a case was answered in more than one run of a group (pure).

A run group pools every log with its key, so a separate `inspect eval bedside_bench/drug_safety`
written beside a sweep falls into the sweep's group. Each case then counts once, with its newest
successful score (`groups.merge_benchmark`: the log that started last). A retry (`inspect
eval-retry`, a sweep resumed by `eval_set`) keeps its task id and carries the answers it
already had, so only answers from logs of different task ids are separate runs, and only those
get a note.
"""

from __future__ import annotations

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
