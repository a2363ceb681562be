"""`bedside-bench demo`'s work: the provider doubles on a free 127.0.0.1 port, a two-provider
sweep of the demo's cases against them (one Inspect `eval_set`: an OpenAI and an Anthropic
answer model, one judge, every benchmark), then the report, all in one folder that says it is
a demo (`DEMO.txt`, the eval tag `DEMO_TAG` that `inspect view` shows and the report reads).

The user's own provider settings are neither used nor changed. Each model is pointed at the
doubles by its own arguments (`Endpoints.model_args`: the base URL and the doubles' key), not
by variables, so a real `OPENAI_BASE_URL`, key or `.env` is not read for it and no real key
reaches even the local doubles. While the models are made, `ANTHROPIC_AUTH_TOKEN` is out of
the environment (Inspect's Anthropic client would send it in place of any key); 127.0.0.1 is
added to `NO_PROXY`, so a proxy set for the real providers is not asked to reach the doubles.
Every change to the process's environment, Inspect's loading of `.env` included, is undone at
the end (`environment_restored`): a caller of `run_demo` finds `os.environ` as it left it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from inspect_ai import eval_set
from inspect_ai.model import get_model

from bedside_bench.calls.progress import piped, progress_lines
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import DEMO_TAG, GRADER_ROLE
from bedside_bench.core.owned_output import write_text
from bedside_bench.demo.release import DemoCases, demo_cases
from bedside_bench.demo.settings import (
    ANSWER_MODELS as ANSWER_MODELS,
)
from bedside_bench.demo.settings import (
    DEFAULT_OUT as DEFAULT_OUT,
)
from bedside_bench.demo.settings import (
    DEMO_ENTRIES as DEMO_ENTRIES,
)
from bedside_bench.demo.settings import (
    JUDGE_MODEL as JUDGE_MODEL,
)
from bedside_bench.demo.settings import (
    LOGS as LOGS,
)
from bedside_bench.demo.settings import (
    MARKER as MARKER,
)
from bedside_bench.demo.settings import (
    MARKER_TEXT as MARKER_TEXT,
)
from bedside_bench.demo.settings import (
    RELEASE as RELEASE,
)
from bedside_bench.demo.settings import (
    REPORT as REPORT,
)
from bedside_bench.demo.settings import (
    SCRIPTED as SCRIPTED,
)
from bedside_bench.demo.settings import (
    DemoError as DemoError,
)
from bedside_bench.demo.settings import (
    DemoOptions as DemoOptions,
)
from bedside_bench.demo.settings import (
    DemoResult as DemoResult,
)
from bedside_bench.demo.settings import (
    Requests as Requests,
)
from bedside_bench.doubles import CONFLICTING_ENV, provider_doubles
from bedside_bench.report import ReportOptions, build_report
from bedside_bench.task import tasks as registered

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.model import Model

    from bedside_bench.doubles import Endpoints


def prepare_folder(out: Path) -> None:
    """An empty folder for the demo, with its marker: a new or empty one, or an earlier demo's
    (replaced whole). Anything else is refused rather than emptied."""
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise DemoError(f"{out} is not a folder; give a new or empty folder with --out")
        names = sorted(os.listdir(out))
        foreign = [n for n in names if n not in DEMO_ENTRIES]
        if foreign or (names and MARKER not in names):
            shown = foreign[0] if foreign else names[0]
            raise DemoError(
                f"{out} holds {shown!r}, which is not a demo's; the demo replaces its whole "
                "folder, so give a new or empty one with --out"
            )
        for name in names:
            path = out / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    out.mkdir(parents=True, exist_ok=True)
    written = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    # the folder as a path from anywhere, quoted for a shell
    logs = shlex.quote(str((out / LOGS).resolve()))
    text = MARKER_TEXT.format(written=written, tag=DEMO_TAG, logs=logs)
    write_text(out / MARKER, text)


@contextmanager
def environment_restored() -> Iterator[None]:
    """`os.environ` as it was before the block, whatever the block (or Inspect) set."""
    before = dict(os.environ)
    try:
        yield
    finally:
        for name in set(os.environ) - set(before):
            del os.environ[name]
        for name, value in before.items():
            if os.environ.get(name) != value:
                os.environ[name] = value


def doubled_models(endpoints: Endpoints) -> tuple[list[Model], Model]:
    """The answer models and the judge, each bound to the doubles by its own arguments."""

    for name in CONFLICTING_ENV:  # read when a client is made; restored by the caller
        os.environ.pop(name, None)
    answer = [get_model(m, memoize=False, **endpoints.model_args(m)) for m in ANSWER_MODELS]
    judge = get_model(
        JUDGE_MODEL, role=GRADER_ROLE, memoize=False, **endpoints.model_args(JUDGE_MODEL)
    )
    return answer, judge


def evaluate(options: DemoOptions, cases: DemoCases, endpoints: Endpoints) -> list[EvalLog]:
    """One eval set: every benchmark for both answer models, judged by the one judge. Raises
    KeyboardInterrupt when Ctrl-C stopped it (Inspect may return the cancelled logs instead)."""

    args = {} if cases.data_dir is None else {"data_dir": str(cases.data_dir)}
    tasks = [getattr(registered, name)(**args) for name in BENCHMARK_NAMES]
    models, judge = doubled_models(endpoints)
    # piped (a CI log, `| tee`): plain progress lines instead of Inspect's panels, as a sweep
    display = "none" if piped(options.display) else options.display
    quiet = display != options.display
    with progress_lines(command="demo") if quiet else contextlib.nullcontext():
        _, logs = eval_set(
            tasks,
            log_dir=str(options.logs),
            model=models,
            model_roles={GRADER_ROLE: judge},
            tags=[DEMO_TAG],
            metadata={"bedside_bench_demo": SCRIPTED},
            # the doubles are local and scripted: a failure is worth seeing at once, not retried
            retry_attempts=0,
            retry_immediate=False,
            max_tasks=len(tasks) * len(models),
            display=display,
        )
    if any(log.status == "cancelled" for log in logs):
        raise KeyboardInterrupt
    return list(logs)


def every_case_scored(logs: list[EvalLog]) -> bool:
    """Every run has its log, and every log every case (the folder is new: one log a run)."""
    runs = len(ANSWER_MODELS) * len(BENCHMARK_NAMES)
    return len(logs) == runs and all(
        log.status == "success"
        and log.results is not None
        and log.results.completed_samples >= log.results.total_samples
        for log in logs
    )


def run_demo(options: DemoOptions, out: TextIO) -> DemoResult:
    """The whole demo; the report's table goes to `out`. Raises `DemoError` (its folder) or
    `DatasetError` (the release) before any eval, KeyboardInterrupt when interrupted."""

    started = time.monotonic()
    prepare_folder(options.out)
    cases = demo_cases(options.out / RELEASE, options.cases, options.synthetic)
    print(f"demo: cases: {cases.describe()}", file=out, flush=True)
    with environment_restored(), provider_doubles() as endpoints:
        print(
            f"demo: {' and '.join(ANSWER_MODELS)} answer, {JUDGE_MODEL} judges: all three are "
            f"the provider doubles at {endpoints.anthropic_base_url}",
            file=out,
            flush=True,
        )
        no_proxy = endpoints.env()["NO_PROXY"]
        os.environ["NO_PROXY"] = os.environ["no_proxy"] = no_proxy
        logs = evaluate(options, cases, endpoints)
        server = endpoints.server
        requests = Requests(
            answers=server.count(kind="answer", status=200),
            judge=server.count(kind="judge", status=200),
            total=server.count(),
        )
    complete = every_case_scored(logs)
    report = build_report(
        ReportOptions(log_paths=[str(options.logs)], out_dir=options.report_dir), out=out
    )
    return DemoResult(complete, cases, report, requests, time.monotonic() - started)
