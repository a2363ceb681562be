"""A sweep stopped at the worst moment for money buys nothing twice.

The worst moments are right after a paid call came back and before its case is in the log:
Inspect writes finished samples in batches and logs a cancelled sample without its score. So
the run is stopped (SIGINT: graceful; SIGKILL) with no time for the log to catch up:
- mid-judging: the judge's first reply of a case came back (invalid, so the judge is asked
  again) and the re-ask is held by the double; the signal cancels the case being scored;
- after scoring: the judge's valid reply came back and the next case's answer is held; the
  scored case waits in Inspect's buffer (6 cases: 2 samples a write), SIGKILL loses it.
The same command is run again after each stop, then once to the end. The ledger shows every
answer and every judge call bought exactly once over the three runs (the case stopped mid-
judging: its invalid first reply once, its re-ask once), every case scored once in the final
logs, and no kept call left behind once the run is complete.

SIGTERM takes the same way through the sweep as SIGINT (bedside_bench/core/signals.py: both
reach `_on_signal`, which drains and then cancels): a sweep stopped by SIGTERM while calls are
on the wire, rerun buying each call once, is tests/test_sweep_signals.py's.
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from bedside_bench.core.signals import GRACE_ENV
from bedside_bench.doubles import (
    ParsedRequest,
    ProviderDouble,
    Script,
    ScriptedError,
    default_answer,
    default_judge,
)
from tests.e2e_helpers import (
    assert_bought_once,
    assert_scored_once,
    expected_scores,
    output,
    read_logs,
    run_sweep_cli,
    start_sweep,
    stop,
    sweep_args,
    sweep_env,
    wait_for,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, Inspect evals and a provider double

MODELS = ["openai/gpt-4.1-mini"]
BENCHMARK = "drug_safety"
RETRIED_AFTER = 1.0  # seconds between a call's first refusal and a retry of it


class Trap:
    """The double's script (two judge passes a case, so two identical judge calls): once armed
    for a run, it stops that run at one moment. From then on every call is refused with an
    HTTP 500 (not paid), so nothing else is bought and no other case completes; the run is
    stopped when a refused call is asked again a second later (the client has had the reply;
    nothing completed in between to fill the log's buffer, whose timer waits 60 s).

    "mid": the first judge call of a case never judged before: one pass bought, the other
    refused while the case is being scored. "after": the call that completes a case's two
    passes: the case is scored and waits in Inspect's buffer for the log write."""

    def __init__(self, double: ProviderDouble) -> None:
        self.double = double
        self.calls: Counter[str] = Counter()  # judge replies given, by case prompt
        self.lock = threading.Lock()
        self.mode: str | None = None
        self.sprung_at: int | None = None  # the double's request count when it was sprung
        # (kind, text) refused once sprung -> when it was refused, first and last
        self.refused: dict[tuple[str, str], tuple[float, float]] = {}
        self.stopped_mid: list[str] = []

    def arm(self, mode: str | None) -> None:
        self.mode, self.sprung_at, self.refused = mode, None, {}

    def _refuse_once_sprung(self, request: ParsedRequest, text: str) -> None:
        if self.sprung_at is not None:
            now = time.monotonic()
            first, _ = self.refused.get((request.kind, text), (now, now))
            self.refused[(request.kind, text)] = (first, now)
            raise ScriptedError(500, "stopped here: asked again later, then held")

    def answer(self, request: ParsedRequest) -> str:
        with self.lock:
            self._refuse_once_sprung(request, request.user)
        return default_answer(request)

    def judge(self, request: ParsedRequest) -> str:
        prompt = request.judge.prompt
        with self.lock:
            self._refuse_once_sprung(request, prompt)
            seen = self.calls[prompt]
            self.calls[prompt] += 1
            if (self.mode, seen) in (("mid", 0), ("after", 1)):
                self.sprung_at = self.double.count()
                if self.mode == "mid":
                    self.stopped_mid.append(prompt)
        return default_judge(request)

    def followed(self) -> bool:
        """A refused call was asked again a second after it was first refused (the SDK's
        retries: about 0.5 s, then 1 s): the client is alive and has long had every reply
        bought before the moment (a judge's passes are refused together, so the first
        refusals of one text are not yet a retry)."""
        with self.lock:
            return any(last - first >= RETRIED_AFTER for first, last in self.refused.values())


@pytest.mark.slow
def test_a_run_stopped_right_after_a_paid_call_buys_nothing_twice(
    tmp_path: Path, provider_double: ProviderDouble
) -> None:
    cases = write_release(tmp_path / "release", per_benchmark=6)[BENCHMARK]
    logs = tmp_path / "logs"
    args = sweep_args(
        MODELS,
        logs,
        "--judge",
        "openai/gpt-4.1",
        "--benchmarks",
        BENCHMARK,
        "--max-connections",
        "1",
        "-T",
        "judge_passes=2",
        "--no-report",
        data_dir=tmp_path / "release",
    )
    env = sweep_env(provider_double, tmp_path)
    env["INSPECT_CACHE_DIR"] = str(tmp_path / "cache")
    # once sprung, every call is refused (HTTP 500, never paid) and retried after Inspect's
    # back-off: the drain of a first signal has nothing to wait for, and ends at its grace
    env[GRACE_ENV] = "2"
    trap = Trap(provider_double)
    provider_double.configure(script=Script(answer=trap.answer, judge=trap.judge))
    stops = ((signal.SIGINT, "mid", 130), (signal.SIGKILL, "after", -signal.SIGKILL))
    for how, mode, code in stops:
        trap.arm(mode)
        process = start_sweep(args, env, tmp_path)
        try:
            wait_for(trap.followed, 120, process)
            out, err = stop(process, how)
        finally:
            stop(process)
        assert process.returncode == code, f"{out}\n{err}"

    trap.arm(None)
    result = run_sweep_cli(args, env, tmp_path)
    assert result.returncode == 0, output(result)

    assert len(trap.stopped_mid) == 1
    # one answer and two judge passes per case, over the three runs
    assert_bought_once(provider_double, cases, MODELS, judge_calls_per_case=2)
    final = read_logs(logs)
    assert_scored_once(final, expected_scores(tmp_path / "release", MODELS, [BENCHMARK]), 6)
    assert {log.status for log in final} == {"success"}
    # the complete run released every kept answer and judge reply, whichever run bought it
    left = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert left == []
