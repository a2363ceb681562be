"""What `bedside-bench demo` is asked and answers: its names, options and result. Apart from
`run.py`, so that the command line is parsed without importing Inspect."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL

if TYPE_CHECKING:
    from inspect_ai.util import DisplayType

    from bedside_bench.demo.release import DemoCases
    from bedside_bench.report import ReportResult

# one model of each provider API the doubles speak, and the protocol's judge
ANSWER_MODELS = ("openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-6")
JUDGE_MODEL = DEFAULT_JUDGE_MODEL
DEFAULT_OUT = "bedside-bench-demo"
MARKER = "DEMO.txt"
LOGS = "logs"
REPORT = "report"
RELEASE = "release"
# everything a demo folder holds: a folder holding anything else is not replaced
DEMO_ENTRIES = frozenset({MARKER, LOGS, REPORT, RELEASE})
SCRIPTED = (
    "every answer and judge decision is a scripted stand-in from local provider doubles, "
    "not model output"
)
MARKER_TEXT = """\
bedside-bench demo ({written})

Every answer and judge decision in this folder is a scripted stand-in from the provider
doubles (local stand-ins of the OpenAI and Anthropic APIs on 127.0.0.1, bedside_bench.doubles),
not model output: the scores say nothing about any model. The logs carry the eval tag
"{tag}".

  logs/     the Inspect logs: inspect view --log-dir {logs}
  report/   the report: report.html (open it in a browser), report.md, one summary per model
  release/  (with --cases) the cases the demo ran

`bedside-bench demo` replaces this folder when it runs again with the same --out.
"""


class DemoError(RuntimeError):
    """A problem with the demo's inputs (its folder, the release): one line for the user."""


@dataclass(frozen=True)
class DemoOptions:
    out: Path = Path(DEFAULT_OUT)
    cases: int | None = None  # per benchmark; None: every case of the release
    synthetic: bool = False  # the shipped synthetic release even when a real one is at hand
    display: DisplayType | None = None

    @property
    def logs(self) -> Path:
        return self.out / LOGS

    @property
    def report_dir(self) -> Path:
        return self.out / REPORT


@dataclass(frozen=True)
class Requests:
    """What the doubles answered (HTTP 200) over the demo."""

    answers: int
    judge: int
    total: int


@dataclass(frozen=True)
class DemoResult:
    complete: bool  # every case of every run scored
    cases: DemoCases
    report: ReportResult | None
    requests: Requests
    seconds: float
