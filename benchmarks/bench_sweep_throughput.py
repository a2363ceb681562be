"""Time `bedside-bench sweep` over all ten benchmarks against the provider double, against the
pipeline bound.

Workload: the public release (250 cases), one answer model and a different judge model, every
answer call taking L_a seconds and every judge call L_j, C_a answer connections and C_j judge
connections. Inspect keeps one connection pool per (API key, model), so answers of later cases
overlap the judging of earlier ones, and the lower bound for N cases is

    bound = max(ceil(N / C_a) x L_a, ceil(N / C_j) x L_j) + min(L_a, L_j)

That closed form is reached when both stages take as long; when the judge is slower no schedule
reaches it (the judging of the last answer round still follows that round), so the script
measures against the exact bound: the makespan of the ideal pipeline, simulated with no
overhead, which is ceil(N / C_a) x L_a + L_j when the judge pool is never the bottleneck.

Two scenarios, each the whole command as a user meets it (a new process, eval_set, report):

    equal   L_a = L_j = L,   C_j = the sweep's default (2 x C x judge_passes x models)
    slow    L_j = 3 L,       --judge-max-connections 3 C

and Inspect's floor, measured in the same run: a bare `inspect eval` of a trivial one-sample
task against the same double, minus its one call. Printed per scenario:

    request phase     first request -> last response at the double
    request eff.      bound / request phase                          target >= 0.95
    whole command     command start -> exit
    whole eff.        (bound + floor) / whole command                target >= 0.90 (equal)
    tail              last response -> exit, split into eval_set's finalisation (last
                      response -> eval_set returned), the report, and process exit
    sweep CPU         CPU seconds the sweep process used in the request phase, per request,
                      and as a share of one core; with the machine's load average, this says
                      whether the figures were taken on a quiet machine (Linux /proc only)

and the start-up comparison: the time from command start to the first request at the double
for the sweep and for the trivial `inspect eval`, and their difference (target <= 1.5 s: a
sweep's own preparation may hold its first call back by no more than that).

and a phase table: per answer round (the answer requests in arrival order, C_a at a time) its
first and last request against the ideal start (k - 1) x L_a, the answer connection-seconds
left idle from its first request to the next round's, and the judging that follows the last
answer against the ideal L_j.

Where the rest of the request phase goes: the sweep is one process with one event loop, and
every call costs it CPU (~20 ms per request on these machines, ~98% of it Inspect's per-call
work: transcript events and their realtime sample buffer, the openai SDK, httpx). The
responses of a round arrive together, and the next round's requests leave only as the loop
works through that burst, so each round starts later than the last; see docs/sweep.md.

The double runs as its own process (`bedside-bench doubles serve`) and records every request; the
sweep's own summary line (printed, flushed, the moment the report is done) gives the report
time, so the tail is split without instrumenting the sweep.

    python3 benchmarks/bench_sweep_throughput.py [--latency 5] [--max-connections 50]
        [--scenarios equal,slow] [--data-dir ../shared/bedside-bench]

`--first-request-only [--repeats 5]` runs only the start-up comparison: each repetition starts
the sweep (all ten benchmarks, the whole release) and the trivial `inspect eval`, one after
the other and each against its own double, stops each at its first request, and prints the
medians, the median of the paired differences (the verdict), and the CPU each process used
up to its first request, with the machine's load average: on a busy machine both start-ups
stretch with the load, their CPU seconds far less.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGET_REQUEST = 0.95
TARGET_WHOLE = 0.90
TARGET_FIRST_REQUEST_GAP = 1.5  # seconds the sweep's first request may trail Inspect's
SCENARIOS = ("equal", "slow")
TRIVIAL_TASK = textwrap.dedent(
    """
    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate


    @task
    def trivial():
        return Task(dataset=[Sample(input="Say hello.", target="hello")], solver=generate())
    """
)


def closed_form_seconds(
    cases: int, answer_latency: float, answer_conns: int, judge_latency: float, judge_conns: int
) -> float:
    """max(ceil(N/C_a) L_a, ceil(N/C_j) L_j) + min(L_a, L_j): a lower bound, but one that no
    schedule reaches when the judge is slower (a case's judging cannot start before its
    answer ends, so the last answer round's judging still follows it)."""
    answers = math.ceil(cases / answer_conns) * answer_latency
    judging = math.ceil(cases / judge_conns) * judge_latency
    return max(answers, judging) + min(answer_latency, judge_latency)


def bound_seconds(
    cases: int, answer_latency: float, answer_conns: int, judge_latency: float, judge_conns: int
) -> float:
    """The pipeline bound: the makespan of the ideal pipeline with no overhead at all, each
    case answered as soon as an answer connection is free and judged as soon as its answer has
    ended and a judge connection is free. With identical calls this greedy schedule is optimal,
    so nothing can be faster; when the judge pool is never the bottleneck it equals
    ceil(N/C_a) L_a + L_j, and it is never below the closed form."""
    answer_free = [0.0] * answer_conns
    judge_free = [0.0] * judge_conns
    end = 0.0
    for _ in range(cases):
        answer_free.sort()
        answered = answer_free[0] + answer_latency
        answer_free[0] = answered
        judge_free.sort()
        judged = max(judge_free[0], answered) + judge_latency
        judge_free[0] = judged
        end = max(end, judged)
    return end


@dataclass(frozen=True)
class Scenario:
    name: str
    answer_latency: float
    judge_latency: float
    answer_conns: int
    judge_conns: int  # what the sweep uses (its default, or the flag given)
    judge_flag: int | None  # --judge-max-connections, if given


@dataclass(frozen=True)
class Figures:
    scenario: Scenario
    cases: int
    requests: int
    probes: int
    started: float  # command start (epoch seconds)
    first_request: float
    last_answer_end: float
    last_response_end: float
    report_done: float  # when the sweep printed its summary line
    report_seconds: float
    exited: float
    answers: tuple[tuple[float, float], ...]  # (arrival, end) of every answer, epoch seconds
    cpu: tuple[tuple[float, float, float], ...]  # (time, sweep CPU seconds, load average)

    @property
    def bound(self) -> float:
        s = self.scenario
        return bound_seconds(
            self.cases, s.answer_latency, s.answer_conns, s.judge_latency, s.judge_conns
        )

    @property
    def closed_form(self) -> float:
        s = self.scenario
        return closed_form_seconds(
            self.cases, s.answer_latency, s.answer_conns, s.judge_latency, s.judge_conns
        )

    @property
    def request_phase(self) -> float:
        return self.last_response_end - self.first_request

    @property
    def whole(self) -> float:
        return self.exited - self.started

    @property
    def finalisation(self) -> float:
        return self.report_done - self.report_seconds - self.last_response_end

    def cpu_between(self, start: float, stop: float) -> tuple[float, float] | None:
        """(CPU seconds the sweep used, highest load average) from start to stop."""
        inside = [c for c in self.cpu if start <= c[0] <= stop]
        before = [c for c in self.cpu if c[0] <= start]
        if not inside or not before:
            return None
        return inside[-1][1] - before[-1][1], max(c[2] for c in inside)


@dataclass(frozen=True)
class Round:
    """One answer round: the k-th C_a answer requests in arrival order."""

    number: int
    ideal: float  # (k - 1) x L_a
    first: float  # its first and last request, seconds after the first request
    last: float
    idle: float  # answer connection-seconds idle from its first request to the next round's


def idle_connection_seconds(
    spans: Sequence[tuple[float, float]], connections: int, start: float, stop: float
) -> float:
    """The integral of (connections - requests in flight), where positive, over [start,
    stop]: connection time the pool left unused."""
    edges = {t for span in spans for t in span if start < t < stop}
    points = sorted({start, stop, *edges})
    idle = 0.0
    for a, b in zip(points, points[1:], strict=False):
        middle = (a + b) / 2
        level = sum(1 for x, y in spans if x <= middle < y)
        idle += max(0, connections - level) * (b - a)
    return idle


def answer_rounds(f: Figures) -> list[Round]:
    s = f.scenario
    spans = sorted(f.answers)
    starts = [a - f.first_request for a, _ in spans]
    relative = [(a - f.first_request, b - f.first_request) for a, b in spans]
    rounds = []
    for k, i in enumerate(range(0, len(starts), s.answer_conns), start=1):
        chunk = starts[i : i + s.answer_conns]
        following = i + s.answer_conns
        stop = starts[following] if following < len(starts) else chunk[-1]
        idle = idle_connection_seconds(relative, s.answer_conns, chunk[0], stop)
        rounds.append(Round(k, (k - 1) * s.answer_latency, chunk[0], chunk[-1], idle))
    return rounds


def phase_table(f: Figures) -> list[str]:
    s = f.scenario
    lines = [
        "answer round   ideal start   first request   last request   late by   idle conn-s",
    ]
    for r in answer_rounds(f):
        lines.append(
            f"{r.number:>12}   {r.ideal:>9.2f} s   {r.first:>11.2f} s   {r.last:>10.2f} s"
            f"   {r.first - r.ideal:>5.2f} s   {r.idle:>9.1f}"
        )
    last_answer = f.last_answer_end - f.first_request
    judging = f.last_response_end - f.last_answer_end
    lines.append(
        f"{'answers end':>12}   {math.ceil(f.cases / s.answer_conns) * s.answer_latency:>9.2f} s"
        f"   {last_answer:>11.2f} s"
    )
    lines.append(
        f"{'judging':>12}   {s.judge_latency:>9.2f} s   {judging:>11.2f} s   (last answer -> "
        "last judge response)"
    )
    return lines


def sweep_command() -> list[str]:
    script = Path(sys.executable).parent / "bedside-bench"
    if script.exists():
        return [str(script), "sweep"]
    return [sys.executable, "-m", "bedside_bench.sweep"]


def inspect_command() -> list[str]:
    script = Path(sys.executable).parent / "inspect"
    return [str(script)] if script.exists() else [sys.executable, "-m", "inspect_ai"]


def start_double(
    latency: float, judge_latency: float, record: Path
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """The double in its own process (so it never competes with the sweep for the GIL)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bedside_bench.cli.main",
            "doubles",
            "serve",
            "--port",
            "0",
            "--latency",
            str(latency),
            "--judge-latency",
            str(judge_latency),
            "--record",
            str(record),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    url = f"http://127.0.0.1:{int(process.stdout.readline())}"
    env = {
        "OPENAI_BASE_URL": f"{url}/v1",
        "OPENAI_API_KEY": "sk-test-double",
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test-double",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "HF_HUB_OFFLINE": "1",
    }
    return process, env


def read_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def end(record: dict[str, Any]) -> float:
    return float(record["time"]) + float(record["duration"] or 0.0)


def trivial_eval_command(args: argparse.Namespace, work: Path, logs: Path) -> list[str]:
    """`inspect eval` of the trivial one-sample task (written into `work`, run from there:
    Inspect globs task files from the working folder)."""
    (work / "trivial.py").write_text(TRIVIAL_TASK)
    return [
        *inspect_command(),
        "eval",
        "trivial.py",
        "--model",
        args.model,
        "--log-dir",
        str(logs),
        "--display",
        "none",
    ]


def sweep_scenario_command(
    args: argparse.Namespace, scenario: Scenario, log_dir: Path
) -> list[str]:
    command = [
        *sweep_command(),
        "--model",
        args.model,
        "--judge",
        args.judge,
        "--data-dir",
        args.data_dir,
        "--max-connections",
        str(scenario.answer_conns),
        "--log-dir",
        str(log_dir),
        "--display",
        "none",
    ]
    if scenario.judge_flag is not None:
        command += ["--judge-max-connections", str(scenario.judge_flag)]
    return command


@dataclass(frozen=True)
class Floor:
    seconds: float  # the trivial eval's wall time minus its one call
    first_request: float  # command start -> its request at the double


def measure_floor(args: argparse.Namespace, work: Path) -> Floor:
    """Inspect's own cost of one `inspect eval` process: a trivial one-sample task against the
    same double, minus the time its one call spent at the double."""
    record = work / "floor.jsonl"
    double, double_env = start_double(args.latency, args.latency, record)
    try:
        env = {**os.environ, **double_env, "XDG_DATA_HOME": str(work / "data-home")}
        command = trivial_eval_command(args, work, work / "floor-logs")
        started = time.time()
        result = subprocess.run(command, env=env, capture_output=True, text=True, cwd=work)
        wall = time.time() - started
        if result.returncode != 0:
            sys.exit(f"trivial eval failed:\n{result.stdout}\n{result.stderr}")
    finally:
        double.terminate()
        double.wait(10)
    records = read_records(record)
    calls = sum(float(r["duration"] or 0.0) for r in records)
    return Floor(wall - calls, min(float(r["time"]) for r in records) - started)


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc (Linux; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def until_first_request(
    command: list[str], work: Path, timeout: float = 600.0
) -> tuple[float, float]:
    """(seconds, CPU seconds) from starting `command` (in `work`, against a double of its own
    answering at once) to its first request at the double; the command is then killed, with
    anything it started (its own session), since only its start-up is measured. The CPU
    seconds are what the process itself used by then (read every 10 ms): on a loaded machine
    the wall time stretches with the load, the CPU time much less."""
    record = work / "requests.jsonl"
    double, double_env = start_double(0.0, 0.0, record)
    stderr = work / "stderr.txt"
    try:
        env = {**os.environ, **double_env, "XDG_DATA_HOME": str(work / "data-home")}
        with stderr.open("w") as err:
            started = time.time()
            process = subprocess.Popen(
                command,
                env=env,
                cwd=work,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )
            cpu = 0.0
            try:
                while not (records := read_records(record)):
                    cpu = cpu_seconds(process.pid)
                    if process.poll() is not None:
                        sys.exit(
                            f"{command[0]} ended ({process.returncode}) before any request:\n"
                            + stderr.read_text()
                        )
                    if time.time() - started > timeout:
                        sys.exit(f"{command[0]}: no request within {timeout:.0f} s")
                    time.sleep(0.01)
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    finally:
        double.terminate()
        double.wait(10)
    return min(float(r["time"]) for r in records) - started, cpu


def first_request_row(sweep: float, trivial: float, gap: float | None = None) -> tuple[str, bool]:
    """The comparison's line and whether it meets the target; `gap` is the difference judged
    (the median of paired differences when there are repeats), else sweep - trivial."""
    gap = sweep - trivial if gap is None else gap
    met = gap <= TARGET_FIRST_REQUEST_GAP
    verdict = "PASS" if met else "FAIL"
    return (
        f"sweep {sweep:.2f} s, trivial `inspect eval` {trivial:.2f} s (command start -> first "
        f"request); difference {gap:+.2f} s (target <= {TARGET_FIRST_REQUEST_GAP:g} s: "
        f"{verdict})",
        met,
    )


def first_request_only(args: argparse.Namespace, work: Path) -> bool:
    """The start-up comparison alone: `--repeats` pairs, sweep and trivial eval alternating
    (which goes first alternates too, so a load change favours neither), medians."""
    scenario = scenarios(args)[0]
    sweeps: list[float] = []
    trivials: list[float] = []
    cpus: dict[str, list[float]] = {"sweep": [], "trivial": []}
    loads: list[float] = [os.getloadavg()[0]]
    for k in range(args.repeats):
        pair = {}
        order = ("sweep", "trivial") if k % 2 == 0 else ("trivial", "sweep")
        for which in order:
            folder = work / f"{which}-{k}"
            folder.mkdir()
            if which == "sweep":
                command = sweep_scenario_command(args, scenario, folder / "logs")
            else:
                command = trivial_eval_command(args, folder, folder / "logs")
            pair[which], cpu = until_first_request(command, folder)
            cpus[which].append(cpu)
            loads.append(os.getloadavg()[0])
        sweeps.append(pair["sweep"])
        trivials.append(pair["trivial"])
        print(
            f"repeat {k + 1}: sweep {pair['sweep']:.2f} s ({cpus['sweep'][-1]:.2f} s CPU), "
            f"trivial {pair['trivial']:.2f} s ({cpus['trivial'][-1]:.2f} s CPU), difference "
            f"{pair['sweep'] - pair['trivial']:+.2f} s (load average {loads[-1]:.2f})",
            flush=True,
        )
    sweep, trivial = statistics.median(sweeps), statistics.median(trivials)
    gaps = [a - b for a, b in zip(sweeps, trivials, strict=True)]
    text, met = first_request_row(sweep, trivial, statistics.median(gaps))
    print()
    print(
        f"{'first request':<20}  medians of {args.repeats} pairs; the difference is the median "
        f"of the paired differences (min {min(gaps):+.2f}, max {max(gaps):+.2f}): {text}"
    )
    cpu_sweep, cpu_trivial = statistics.median(cpus["sweep"]), statistics.median(cpus["trivial"])
    print(
        f"{'CPU to first request':<20}  sweep {cpu_sweep:.2f} s, trivial {cpu_trivial:.2f} s, "
        f"difference {cpu_sweep - cpu_trivial:+.2f} s (medians; the process's own CPU)"
    )
    print(
        f"{'load average':<20}  {min(loads):.2f} to {max(loads):.2f} (1 min) on "
        f"{os.cpu_count()} cores"
    )
    return met


def run_scenario(args: argparse.Namespace, scenario: Scenario, work: Path) -> Figures:
    folder = work / scenario.name
    folder.mkdir()
    record = folder / "requests.jsonl"
    double, double_env = start_double(scenario.answer_latency, scenario.judge_latency, record)
    try:
        env = {**os.environ, **double_env, "XDG_DATA_HOME": str(folder / "data-home")}
        command = sweep_scenario_command(args, scenario, folder / "logs")
        started = time.time()
        process = subprocess.Popen(
            command, env=env, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        cpu: list[tuple[float, float, float]] = []
        sampler = threading.Thread(target=sample_cpu, args=(process, cpu), daemon=True)
        sampler.start()
        assert process.stdout is not None
        report_done, report_seconds, out = math.nan, math.nan, []
        for line in process.stdout:
            out.append(line)
            timing = re.search(r"benchmark runs complete.* report (\d+(?:\.\d+)?) s\)", line)
            if timing:
                report_done, report_seconds = time.time(), float(timing.group(1))
        err = process.stderr.read() if process.stderr else ""
        process.wait()
        exited = time.time()
        sampler.join()
        if process.returncode != 0:
            sys.exit(f"sweep failed ({process.returncode}):\n{''.join(out)}\n{err}")
    finally:
        double.terminate()
        double.wait(10)
    records = read_records(record)
    ok = [r for r in records if r["status"] == 200]
    answers = [r for r in ok if r["kind"] == "answer"]
    return Figures(
        scenario=scenario,
        cases=len({r["seq"] for r in answers}),
        requests=len(records),
        probes=sum(1 for r in records if r["kind"] == "probe"),
        started=started,
        first_request=min(r["time"] for r in records),
        last_answer_end=max(end(r) for r in answers),
        last_response_end=max(end(r) for r in records),
        report_done=report_done,
        report_seconds=report_seconds,
        exited=exited,
        answers=tuple((float(r["time"]), end(r)) for r in answers),
        cpu=tuple(cpu),
    )


def sample_cpu(process: subprocess.Popen[str], out: list[tuple[float, float, float]]) -> None:
    """(time, CPU seconds, load average) of the sweep every 50 ms, from /proc (Linux)."""
    stat = Path(f"/proc/{process.pid}/stat")
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    while process.poll() is None:
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return  # not Linux, or the process is gone
        out.append((time.time(), (int(fields[11]) + int(fields[12])) / tick, os.getloadavg()[0]))
        time.sleep(0.05)


def scenarios(args: argparse.Namespace) -> list[Scenario]:
    c, latency = args.max_connections, args.latency
    out = []
    for name in args.scenarios:
        if name == "equal":
            # the sweep's default judge limit: 2 x C x judge_passes (1) x models (1)
            out.append(Scenario(name, latency, latency, c, 2 * c, None))
        elif name == "slow":
            out.append(Scenario(name, latency, 3 * latency, c, 3 * c, 3 * c))
    return out


def report(f: Figures, floor: Floor) -> tuple[list[tuple[str, str]], bool]:
    s = f.scenario
    request_eff = f.bound / f.request_phase
    whole_eff = (f.bound + floor.seconds) / f.whole
    first_request, first_met = first_request_row(f.first_request - f.started, floor.first_request)
    tail = f.exited - f.last_response_end
    rows = [
        (
            "scenario",
            f"{s.name}: answers {s.answer_latency:g} s x {s.answer_conns} connections, "
            f"judge {s.judge_latency:g} s x {s.judge_conns} connections",
        ),
        ("cases", f"{f.cases} ({f.requests} requests at the double, {f.probes} probes)"),
        (
            "bound",
            f"{f.bound:.1f} s (the ideal pipeline: no overhead, each call the moment a "
            "connection is free)",
        ),
        (
            "closed form",
            f"{f.closed_form:.1f} s = max(ceil({f.cases}/{s.answer_conns}) x "
            f"{s.answer_latency:g}, ceil({f.cases}/{s.judge_conns}) x {s.judge_latency:g}) + "
            f"{min(s.answer_latency, s.judge_latency):g} (a lower bound; unreachable when "
            "the judge is slower)",
        ),
        ("first request", first_request),
        (
            "request phase",
            f"{f.request_phase:.1f} s (first request -> last response; last "
            f"answer ends at {f.last_answer_end - f.first_request:.1f} s)",
        ),
        (
            "request efficiency",
            f"{request_eff:.2f} (bound / request phase; target >= {TARGET_REQUEST})",
        ),
        ("whole command", f"{f.whole:.1f} s"),
        (
            "whole efficiency",
            f"{whole_eff:.2f} ((bound + floor) / whole command; target >= "
            f"{TARGET_WHOLE} at equal latencies)",
        ),
        (
            "tail",
            f"{tail:.2f} s (last response -> exit): eval_set finalisation "
            f"{f.finalisation:.2f} s, report {f.report_seconds:.2f} s, process exit "
            f"{f.exited - f.report_done:.2f} s",
        ),
    ]
    used = f.cpu_between(f.first_request, f.last_response_end)
    if used is not None:
        seconds, load = used
        rows.append(
            (
                "sweep CPU",
                f"{seconds:.1f} s in the request phase ({1000 * seconds / f.requests:.0f} ms "
                f"per request, {100 * seconds / f.request_phase:.0f}% of one core); load "
                f"average up to {load:.1f} on {os.cpu_count()} cores",
            )
        )
    met = (
        request_eff >= TARGET_REQUEST
        and (s.name != "equal" or whole_eff >= TARGET_WHOLE)
        and first_met
    )
    return rows, met


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=5.0, help="seconds per answer call")
    parser.add_argument("--max-connections", type=int, default=50)
    parser.add_argument("--model", default="openai/gpt-4.1-mini")
    parser.add_argument(
        "--judge",
        default="openai/gpt-4.1",
        help="a different model from --model (its own pool); a non-reasoning one, so Inspect "
        "sends no reasoning-summary probe",
    )
    parser.add_argument(
        "--scenarios",
        type=lambda t: [s for s in t.split(",") if s],
        default=list(SCENARIOS),
        help=f"comma list from {','.join(SCENARIOS)}",
    )
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("BEDSIDE_BENCH_DATA", str(REPO.parent / "shared" / "bedside-bench")),
        help="the public release (default $BEDSIDE_BENCH_DATA, else ../shared/bedside-bench)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the logs and request records")
    parser.add_argument(
        "--first-request-only",
        action="store_true",
        help="only the start-up comparison: command start -> first request, sweep (the first "
        "scenario's command) against the trivial `inspect eval`",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="pairs measured by --first-request-only (medians are printed)",
    )
    args = parser.parse_args(argv)
    unknown = set(args.scenarios) - set(SCENARIOS)
    if unknown:
        parser.error(f"unknown scenarios {sorted(unknown)}")
    work = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    if args.first_request_only:
        try:
            met = first_request_only(args, work)
        finally:
            if args.keep:
                print(f"\nlogs and requests kept in {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
        print("\ntarget met" if met else "\nTARGET MISSED")
        return 0 if met else 1
    try:
        floor = measure_floor(args, work)
        print(
            f"{'Inspect floor':<20}  {floor.seconds:.2f} s (trivial one-sample `inspect eval`, "
            f"minus its one call; its first request {floor.first_request:.2f} s after start)"
        )
        all_met = True
        for scenario in scenarios(args):
            figures = run_scenario(args, scenario, work)
            rows, met = report(figures, floor)
            all_met = all_met and met
            print()
            for name, value in rows:
                print(f"{name:<20}  {value}")
            print()
            print("\n".join(phase_table(figures)))
    finally:
        if args.keep:
            print(f"\nlogs and requests kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("\ntargets met" if all_met else "\nTARGETS MISSED")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
