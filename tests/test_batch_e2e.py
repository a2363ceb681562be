"""Batch mode end to end: `bedside-bench sweep --batch` and the plain `inspect eval` recipe, run
as a user runs them against the provider double's Files + Batches (OpenAI) and Message
Batches (Anthropic) endpoints, through Inspect's real batchers.

What the double received decides what was batched: every answer and judge call must reach it
as a line of a batch (only the Responses API's one probe per model is a direct call, which
Inspect makes outside its batcher). Expected scores are computed independently
(tests/independent.py and the double's scripted answers and decisions).
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.model import BatchConfig

from bedside_bench.doubles import ProviderDouble, RecordedRequest
from tests.e2e_helpers import (
    answered_model,
    assert_scored_once,
    expected_scores,
    ok,
    output,
    read_logs,
    run_sweep_cli,
    run_tool,
    scores_by_case,
    start_sweep,
    stop,
    summaries,
    sweep_args,
    sweep_env,
    wait_for,
)
from tests.independent import read_cases
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, Inspect evals and provider doubles

MODELS = ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-6"]  # Chat Completions, Messages
JUDGE = "openai/gpt-5.6-sol"  # the Responses API
BENCHMARKS = ["drug_safety", "guideline_adherence"]
PER_BENCHMARK = 3
CASES = len(MODELS) * len(BENCHMARKS) * PER_BENCHMARK  # (model, case) pairs
BATCH_LATENCY = 0.2  # seconds a batch stays in progress at the double
FAST = {"send_delay": 0.1, "tick": 0.1}  # Inspect's defaults are 15 s each


@dataclass
class Run:
    code: int
    text: str
    seconds: float
    double: ProviderDouble  # stopped; its records stay readable
    logs: list[EvalLog]


def batch_file(folder: Path, **values: float) -> Path:
    path = folder / "batch.yaml"
    path.write_text("".join(f"{name}: {value}\n" for name, value in values.items()))
    return path


def sweep(
    tmp: Path,
    release: Path,
    name: str,
    *extra: str,
    prepare: Callable[[ProviderDouble], object] = lambda double: None,
) -> Run:
    """One whole `bedside-bench sweep` against a double of its own."""
    with ProviderDouble(batch_latency=BATCH_LATENCY) as double:
        prepare(double)
        args = sweep_args(
            MODELS,
            tmp / name,
            "--benchmarks",
            ",".join(BENCHMARKS),
            "--judge",
            JUDGE,
            *extra,
            data_dir=release,
        )
        started = time.monotonic()
        result = run_sweep_cli(args, sweep_env(double, tmp), tmp)
        seconds = time.monotonic() - started
    return Run(result.returncode, output(result), seconds, double, read_logs(tmp / name))


def case_of(record: RecordedRequest) -> tuple[str, str]:
    """(answer model's wire name, case prompt) a model request belongs to."""
    if record.kind == "judge":
        return answered_model(record), record.request.judge.prompt
    return record.model, record.request.user


def lines_per_case(records: list[RecordedRequest]) -> Counter[tuple[str, str]]:
    return Counter(case_of(r) for r in records if r.batch_id is not None)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release")
    write_release(root, per_benchmark=PER_BENCHMARK)
    return root


@pytest.fixture(scope="module")
def expected(release: Path) -> dict[tuple[str, str], float]:
    return expected_scores(release, MODELS, BENCHMARKS)


@pytest.fixture(scope="module")
def direct_and_batched(tmp_path_factory: pytest.TempPathFactory, release: Path) -> tuple[Run, Run]:
    tmp = tmp_path_factory.mktemp("sweeps")
    direct = sweep(tmp, release, "direct")
    batched = sweep(tmp, release, "batched", "--batch", str(batch_file(tmp, **FAST)))
    print(
        f"\ndirect: {direct.seconds:.1f} s, {direct.double.count()} direct calls; "
        f"batched: {batched.seconds:.1f} s, {batched.double.count(batched=True)} batched lines "
        f"in {len(batched.double.batches.jobs)} batches, "
        f"{len(batched.double.batch_calls)} Files/Batches calls, "
        f"{batched.double.count(batched=False)} direct calls"
    )
    return direct, batched


def test_a_batch_sweep_scores_as_a_direct_one_with_every_call_in_batches(
    direct_and_batched: tuple[Run, Run], expected: dict[tuple[str, str], float]
) -> None:
    direct, batched = direct_and_batched
    assert direct.code == 0, direct.text
    assert batched.code == 0, batched.text
    assert_scored_once(direct.logs, expected, CASES)
    assert_scored_once(batched.logs, expected, CASES)
    assert {k: [s.value for s in v] for k, v in scores_by_case(batched.logs).items()} == {
        k: [s.value for s in v] for k, v in scores_by_case(direct.logs).items()
    }

    # the batch sweep: every answer and judge call of both providers was a batch line
    double = batched.double
    assert [r.kind for r in double.requests(batched=False)] == ["probe"]
    lines = double.requests(batched=True)
    assert Counter((r.kind, r.api) for r in ok(lines)) == {
        ("answer", "chat"): CASES // 2,
        ("answer", "anthropic"): CASES // 2,
        ("judge", "responses"): CASES,
    }
    assert len(lines) == 2 * CASES  # nothing failed, nothing asked twice
    assert set(lines_per_case(lines).values()) == {2}  # one answer, one judge line per case
    assert {(job.provider, job.endpoint) for job in double.batches.jobs.values()} == {
        ("anthropic", ""),
        ("openai", "/v1/chat/completions"),
        ("openai", "/v1/responses"),
    }
    paths = Counter((c.provider, c.method, c.path.split("/dbl")[0]) for c in double.batch_calls)
    assert paths[("openai", "POST", "/v1/files")] >= 2  # answers, judging
    assert paths[("anthropic", "POST", "/v1/messages/batches")] >= 1
    # the direct sweep made no batch call at all
    assert direct.double.batch_calls == [] and direct.double.count(batched=True) == 0
    assert (
        direct.double.count(kind="answer") == CASES and direct.double.count(kind="judge") == CASES
    )


def test_the_logs_record_the_batch_setting_of_answers_and_judge(
    direct_and_batched: tuple[Run, Run],
) -> None:
    """Inspect's own record says a run was batched: the answer model's generate config and
    the grader role's config, each with the BatchConfig the sweep was given."""
    direct, batched = direct_and_batched
    wanted = BatchConfig(**FAST)
    for log in batched.logs:
        assert log.eval.model_generate_config.batch == wanted
        assert log.eval.model_roles is not None
        assert log.eval.model_roles["grader"].config.batch == wanted
    for log in direct.logs:
        assert log.eval.model_generate_config.batch is None


def failed_cases(logs: list[EvalLog]) -> set[tuple[str, str]]:
    """(answer model, case id) of every sample that ended in an error."""
    return {
        (log.eval.model, str(sample.id))
        for log in logs
        for sample in log.samples or []
        if sample.error is not None
    }


def test_a_failed_or_expired_line_is_retried_or_fails_its_case_never_scored(
    tmp_path: Path, release: Path, expected: dict[tuple[str, str], float]
) -> None:
    """An expired and an errored Anthropic answer line are asked again by Inspect in later
    batches, and their cases complete. An expired OpenAI answer line and a failed OpenAI judge
    line fail their cases: Inspect 0.3.285 fails every request of such an OpenAI batch (it
    cannot parse the line), so each of those cases has no score, is counted failed, and is
    all the same command buys again."""
    case_ids = {
        (model.split("/", 1)[1], case["prompt"]): (model, case["case_id"])
        for benchmark in BENCHMARKS
        for case in read_cases(release, benchmark)
        for model in MODELS
    }

    def faults(double: ProviderDouble) -> None:
        double.inject_batch("expired", "error", kind="answer", api="anthropic")
        double.inject_batch("expired", kind="answer", api="chat")
        double.inject_batch("error", kind="judge", api="responses")

    config = str(batch_file(tmp_path, **FAST))
    first = sweep(
        tmp_path, release, "logs", "--batch", config, "--retry-attempts", "0", prepare=faults
    )
    assert first.code == 3, first.text  # ran, some cases without a score
    lines = first.double.requests(batched=True)
    faulted = [r for r in lines if r.outcome in ("expired", "batch_error")]
    assert Counter((r.api, r.kind, r.outcome) for r in faulted) == {
        ("anthropic", "answer", "expired"): 1,
        ("anthropic", "answer", "batch_error"): 1,
        ("chat", "answer", "expired"): 1,
        ("responses", "judge", "batch_error"): 1,
    }
    # Anthropic: each faulted answer was asked again in another batch, and its case judged
    retried = {case_of(r) for r in faulted if r.api == "anthropic"}
    for case in retried:
        again = [r for r in lines if r.kind == "answer" and case_of(r) == case]
        assert [r.outcome for r in again[1:]] == ["ok"], again
        assert again[0].batch_id != again[1].batch_id
    # OpenAI: every case with a line in a batch holding a faulted line ended in an error
    failed_batches = {r.batch_id for r in faulted if r.api != "anthropic"}
    lost = {case_of(r) for r in lines if r.batch_id in failed_batches}
    assert len(lost) >= 2 and not retried & lost
    failed = {case_ids[case] for case in lost}
    assert failed_cases(first.logs) == failed
    for log in first.logs:  # and only those have no score
        for sample in log.samples or []:
            key = (log.eval.model, str(sample.id))
            assert (key in failed) == (not sample.scores), key
    for model, summary in summaries(tmp_path / "logs" / "report").items():
        assert summary["cases_failed"] == sum(1 for m, _ in failed if m == model), model

    second = sweep(tmp_path, release, "logs", "--batch", config)
    assert second.code == 0, second.text
    rebought = lines_per_case(second.double.requests())
    assert set(rebought) == lost and set(rebought.values()) == {2}
    print(
        f"\nfailed OpenAI lines: {len(lost)} cases failed (their whole batches), "
        f"{sum(rebought.values())} lines bought again on the rerun; "
        f"{len(retried)} Anthropic lines retried by Inspect"
    )
    final = [log for log in read_logs(tmp_path / "logs") if log.status == "success"]
    assert_scored_once(final, expected, CASES)


def test_a_sweep_killed_with_batches_in_flight_buys_no_completed_case_again(
    tmp_path: Path, release: Path, expected: dict[tuple[str, str], float]
) -> None:
    """SIGKILL while batches are in flight, then the same command: Inspect cannot re-attach
    to the batches the killed process sent (they live in its memory only), so every case not
    complete is sent again; a completed case is never sent again."""
    logs = tmp_path / "logs"
    args = sweep_args(
        MODELS,
        logs,
        "--benchmarks",
        ",".join(BENCHMARKS),
        "--judge",
        JUDGE,
        "--batch",
        str(batch_file(tmp_path, **FAST)),
        "--max-connections",
        "2",  # two answers per model at a time: batches, and cases, finish in waves
        data_dir=release,
    )
    with ProviderDouble(batch_latency=BATCH_LATENCY) as double:
        process = start_sweep(args, sweep_env(double, tmp_path), tmp_path)
        try:
            judged = lambda: len(ok(double.requests(kind="judge", batched=True))) >= 2  # noqa: E731
            wait_for(judged, 180, process)
            double.configure(batch_latency=3600)  # batches sent from now on stay in flight
            time.sleep(4 * FAST["tick"] + 2)  # ended batches fetched, their cases logged
            stop(process, signal.SIGKILL)
        finally:
            stop(process)
        assert process.returncode == -signal.SIGKILL
        before = double.requests(batched=True)
    done = {case_of(r) for r in ok(before) if r.kind == "judge"}
    in_flight = [r for r in before if r.outcome == "queued"]
    assert in_flight and 0 < len(done) < CASES

    with ProviderDouble(batch_latency=BATCH_LATENCY) as double:
        result = run_sweep_cli(args, sweep_env(double, tmp_path), tmp_path)
        assert result.returncode == 0, output(result)
        after = double.requests()
    rebought = lines_per_case(after)
    assert not set(rebought) & done  # no completed case bought again
    assert len(set(rebought)) == CASES - len(done)
    assert [r.kind for r in after if r.batch_id is None] == ["probe"]
    answered = [r for r in before if case_of(r) not in done and r.outcome == "ok"]
    print(
        f"\nkilled with {len(done)}/{CASES} cases complete: {len(answered)} lines answered for "
        f"cases not complete (paid, results lost) and {len(in_flight)} lines in batches in "
        f"flight (paid when the provider runs them); the resumed run sent "
        f"{sum(rebought.values())} lines, none for a completed case"
    )
    final = [log for log in read_logs(logs) if log.status == "success"]
    assert_scored_once(final, expected, CASES)


def test_plain_inspect_eval_batches_the_judge_through_the_grader_role_config(
    tmp_path: Path, release: Path, expected: dict[tuple[str, str], float]
) -> None:
    """The README's recipe: `--batch` batches the eval's model only; the grader role is
    batched by its own config in `--model-role`."""
    model, benchmark = MODELS[1], BENCHMARKS[0]
    batch = ", ".join(f"{name}: {value}" for name, value in FAST.items())
    role = f"grader={{model: {JUDGE}, batch: {{{batch}}}}}"
    logs = tmp_path / "logs"
    with ProviderDouble(batch_latency=BATCH_LATENCY) as double:
        env = sweep_env(double, tmp_path)
        result = run_tool(
            "inspect",
            "eval",
            f"bedside_bench/{benchmark}",
            "--model",
            model,
            "--batch",
            str(batch_file(tmp_path, **FAST)),
            "--model-role",
            role,
            "-T",
            f"data_dir={release}",
            "--log-dir",
            str(logs),
            "--display",
            "plain",
            env=env,
            cwd=tmp_path,
        )
        assert result.returncode == 0, output(result)
    assert [r.kind for r in double.requests(batched=False)] == ["probe"]
    assert Counter((r.kind, r.api) for r in ok(double.requests(batched=True))) == {
        ("answer", "anthropic"): PER_BENCHMARK,
        ("judge", "responses"): PER_BENCHMARK,
    }
    [log] = read_logs(logs)
    assert_scored_once([log], expected, PER_BENCHMARK)
    assert {key[0] for key in scores_by_case([log])} == {model}
