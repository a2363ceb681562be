"""Provider and model faults end to end through `inspect eval` and the provider double.

- A temperature is dropped only when the provider refused it: a realistic refusal (HTTP 400,
  `param: "temperature"`, `code: "unsupported_value"`) is asked again without it and recorded
  as `null`; an unrelated 400 (an invalid `max_output_tokens`; Inspect's error text still
  quotes the request, temperature and all) is that call's error, for the answer model and the
  judge alike.
- No model output can crash a task: a judge that always replies with a lone-surrogate item
  id, control characters and a megabyte of text ends only its own case, in an error with a
  readable message; every other case is scored, the log ends as it does for a plain judge
  failure, and the terminal shows no traceback.
- A judge reply split over two Anthropic text blocks (inside a JSON string) is one reply.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, EvalSample

from bedside_bench.doubles import (
    INVALID_JUDGE_REPLY,
    JudgeInput,
    ParsedRequest,
    ProviderDouble,
    RecordedRequest,
    Script,
    TextBlocks,
    default_answer,
    default_judge,
    refusing_temperature,
    scripted_answer,
    scripted_decision,
    temperature_refusal_error,
    unrelated_bad_request,
)
from bedside_bench.task import tasks as bedside_tasks
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.e2e_helpers import (
    ANSWER_MODEL,
    JUDGE_MODEL,
    Result,
    eval_args,
    eval_in_process,
    judge_by_call,
    logs_by_task,
    output,
    run_cli,
    run_tool,
)
from tests.independent import case_score
from tests.release_factory import write_release

pytestmark = pytest.mark.slow

SCORER = "rubric_judge"
ANTHROPIC_JUDGE = "anthropic/claude-sonnet-4-5"


def prompt_of(n: int, benchmark: str = "drug_safety") -> str:
    return f"Synthetic question {n} for {benchmark}: what is the next step?"


@dataclass
class Run:
    release: Path
    result: Result | None  # None: run in this process
    logs: dict[str, EvalLog]
    double: ProviderDouble
    rejudge: Result | None = None
    report: Result | None = None

    def sample(self, n: int, benchmark: str = "drug_safety") -> EvalSample:
        log = self.logs[benchmark]
        (found,) = [s for s in log.samples or [] if s.input == prompt_of(n, benchmark)]
        return found

    def requests(self, kind: str, n: int, benchmark: str = "drug_safety") -> list[RecordedRequest]:
        prompt = prompt_of(n, benchmark)
        if kind == "answer":
            return [r for r in self.double.requests(kind="answer") if r.request.user == prompt]
        return [r for r in self.double.requests(kind="judge") if r.request.judge.prompt == prompt]


def expected_score(release: Path, n: int, benchmark: str = "drug_safety") -> float:
    (case,) = [
        json.loads(p.read_text())
        for p in (release / "data" / benchmark / "cases").glob("*.json")
        if json.loads(p.read_text())["prompt"] == prompt_of(n, benchmark)
    ]
    answer = scripted_answer(ANSWER_MODEL.split("/")[1], case["prompt"])
    matched = {i["item_id"]: scripted_decision(answer, i["item_id"]) for i in case["rubric_items"]}
    return case_score(case, matched)


def run_eval(
    root: Path,
    double: ProviderDouble,
    tasks: list[str],
    per_benchmark: int,
    grader: str = JUDGE_MODEL,
) -> Run:
    release = root / "release"
    write_release(release, per_benchmark=per_benchmark)
    args = eval_args(tasks, root / "logs", grader=grader, task_args=[f"data_dir={release}"])
    result = run_cli(args, cwd=root, env={**double.subprocess_env(), "COLUMNS": "200"})
    return Run(release, result, logs_by_task(root / "logs"), double)


# --------------------------------------------------------------------------------------------
# temperature: a refusal versus an unrelated 400

ANSWER_REFUSES, JUDGE_REFUSES, ANSWER_400, JUDGE_400 = 0, 1, 2, 3
TEMPERATURE_CASES = 6


def temperature_answer(req: ParsedRequest) -> str:
    if req.user == prompt_of(ANSWER_REFUSES):
        return refusing_temperature(default_answer)(req)
    if req.user == prompt_of(ANSWER_400):
        raise unrelated_bad_request(req.api)
    return default_answer(req)


def temperature_judge(req: ParsedRequest) -> str:
    prompt = req.judge.prompt
    if prompt == prompt_of(JUDGE_REFUSES):
        return refusing_temperature(default_judge)(req)
    if prompt == prompt_of(JUDGE_400):
        raise unrelated_bad_request(req.api)
    return default_judge(req)


@pytest.fixture(scope="module")
def temperature_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """In this process (Inspect's retry of a refused temperature is the same there; the
    hostile run below is the `inspect eval` command line of this file)."""
    root = tmp_path_factory.mktemp("temperature")
    release = root / "release"
    write_release(release, per_benchmark=TEMPERATURE_CASES)
    script = Script(answer=temperature_answer, judge=temperature_judge)
    with ProviderDouble(script=script) as double, pytest.MonkeyPatch.context() as patch:
        double.apply_env(patch)
        reset_inspect_model_cache()
        try:
            eval_in_process(bedside_tasks.drug_safety(data_dir=str(release)), root / "logs")
        finally:
            reset_inspect_model_cache()
        yield Run(release, None, logs_by_task(root / "logs"), double)


def test_a_refused_answer_temperature_is_asked_again_without_it_and_recorded_null(
    temperature_run: Run,
) -> None:
    run = temperature_run
    sample = run.sample(ANSWER_REFUSES)
    assert sample.error is None
    score = sample.scores[SCORER]  # type: ignore[index]
    assert score.value == pytest.approx(expected_score(run.release, ANSWER_REFUSES), abs=1e-12)
    assert score.metadata["answer_temperature"] is None  # type: ignore[index]
    assert score.metadata["judge_temperature"] == 0.0  # type: ignore[index]
    sent = [(r.status, r.temperature_present) for r in run.requests("answer", ANSWER_REFUSES)]
    assert sent == [(400, True), (200, False)]


def test_a_refused_judge_temperature_is_asked_again_without_it_and_recorded_null(
    temperature_run: Run,
) -> None:
    run = temperature_run
    sample = run.sample(JUDGE_REFUSES)
    assert sample.error is None
    score = sample.scores[SCORER]  # type: ignore[index]
    assert score.value == pytest.approx(expected_score(run.release, JUDGE_REFUSES), abs=1e-12)
    assert score.metadata["judge_temperature"] is None  # type: ignore[index]
    assert score.metadata["answer_temperature"] == 1.0  # type: ignore[index]
    sent = [(r.status, r.temperature_present) for r in run.requests("judge", JUDGE_REFUSES)]
    assert sent == [(400, True), (200, False)]


@pytest.mark.parametrize(("n", "kind"), [(ANSWER_400, "answer"), (JUDGE_400, "judge")])
def test_an_unrelated_400_is_that_calls_error_never_a_dropped_temperature(
    temperature_run: Run, n: int, kind: str
) -> None:
    run = temperature_run
    sample = run.sample(n)
    assert sample.error is not None
    assert not sample.scores or SCORER not in sample.scores  # no score, null or otherwise
    assert "max_output_tokens" in sample.error.message
    # asked once, with its temperature: never again without it
    sent = [(r.status, r.temperature_present) for r in run.requests(kind, n)]
    assert sent == [(400, True)]


def test_the_other_cases_are_scored_at_the_temperatures_asked_for(temperature_run: Run) -> None:
    run = temperature_run
    for n in range(4, TEMPERATURE_CASES):
        score = run.sample(n).scores[SCORER]  # type: ignore[index]
        assert score.value == pytest.approx(expected_score(run.release, n), abs=1e-12)
        assert score.metadata["answer_temperature"] == 1.0  # type: ignore[index]
        assert score.metadata["judge_temperature"] == 0.0  # type: ignore[index]
    log = run.logs["drug_safety"]
    assert len(log.samples or []) == TEMPERATURE_CASES
    assert sum(1 for s in log.samples or [] if s.error is not None) == 2


# --------------------------------------------------------------------------------------------
# a hostile judge ends only its own case

HOSTILE, HOSTILE_CASES = 0, 4
UNSENT_REFUSED = 2  # a guideline_adherence case
MEGABYTE_ID_PAIRS = 83_000  # "\u001b\ud800" as JSON escapes: 12 characters a pair, ~1 MB


def hostile_reply(attempt: int, judge: JudgeInput) -> str:
    """Attempt 1: a lone-surrogate item id and one of control characters; 2: a reply of about
    a megabyte whose item id is all control characters and surrogates; 3: a lone surrogate and
    a terminal escape in the reply text itself."""
    ids = judge.item_ids
    if attempt == 0:
        decisions = [{"item_id": "\ud800", "matched": True}]
        decisions += [{"item_id": "\x1b[31m\x07\r\nforged", "matched": False}]
        decisions += [{"item_id": i, "matched": True} for i in ids[2:]]
        return json.dumps({"decisions": decisions})
    if attempt == 1:
        huge = "\x1b\ud800" * MEGABYTE_ID_PAIRS
        return json.dumps({"decisions": [{"item_id": huge, "matched": True}]})
    return '{"decisions": [{"item_id": "\ud800\x1b[2J", "matched": true}]}\ud800'


def hostile_judge(req: ParsedRequest) -> str:
    prompt = req.judge.prompt
    if prompt == prompt_of(HOSTILE):
        return HOSTILE_SCRIPT(req)
    if prompt == prompt_of(HOSTILE, "guideline_adherence"):
        return INVALID_JUDGE_REPLY  # the plain failure to compare with
    if prompt == prompt_of(UNSENT_REFUSED, "guideline_adherence"):
        # Inspect sends Anthropic no temperature: a "refusal" of it is no reason to ask again
        raise temperature_refusal_error(req.api)
    if prompt == prompt_of(1, "guideline_adherence"):
        # one valid reply split inside a JSON string over two Anthropic-style text blocks
        text = default_judge(req)
        cut = text.index('"item_id": "') + 15
        return TextBlocks([text[:cut], text[cut:]])
    return default_judge(req)


HOSTILE_SCRIPT = judge_by_call(hostile_reply)


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("hostile")
    with ProviderDouble(script=Script(judge=hostile_judge)) as double:
        run = run_eval(
            root,
            double,
            ["drug_safety", "guideline_adherence"],
            HOSTILE_CASES,
            grader=ANTHROPIC_JUDGE,
        )
        env = {**double.subprocess_env(), "COLUMNS": "200"}
        log = run.logs["drug_safety"].location
        # the failed case judged again by `rejudge` (the judge stays hostile), and the report
        run.rejudge = run_tool(
            "bedside-bench",
            "rejudge",
            log,
            "--judge",
            ANTHROPIC_JUDGE,
            "--failed-only",
            "--output-dir",
            str(root / "rejudged"),
            env=env,
            cwd=root,
        )
        run.report = run_tool(
            "bedside-bench", "report", str(root / "logs"), "-o", str(root / "report"), env=env
        )
        yield run


def test_the_hostile_judge_ends_only_its_own_case_with_a_readable_error(hostile_run: Run) -> None:
    run = hostile_run
    sample = run.sample(HOSTILE)
    assert sample.error is not None
    message = sample.error.message
    assert f"the judge {ANTHROPIC_JUDGE} gave no valid reply in 3 attempts" in message, message
    # Inspect keeps the error's repr, so the escapes the message made are escaped once more
    assert r"attempt 1: unknown item_id \\x1b[31m\\x07\\r\\nforged, \\ud800" in message
    assert r"attempt 2: unknown item_id \\x1b\\ud800\\x1b" in message
    assert "characters in all)" in message
    assert "attempt 3: not JSON: Invalid control character at line 1" in message
    assert message.isprintable(), ascii(message[:300])
    message.encode("utf-8")
    assert len(message) < 10_000
    # asked, and asked again twice; then the same again by `rejudge --failed-only`
    assert len(run.requests("judge", HOSTILE)) == 6
    # each attempt is kept in the transcript with its reason and its (cut, encodable) reply
    infos = [
        e.data
        for e in sample.events
        if e.event == "info" and e.source == "judge: invalid reply"  # type: ignore[union-attr]
    ]
    assert [i["attempt"] for i in infos] == [1, 2, 3]  # type: ignore[index]
    assert infos[1]["raw_chars"] == len(
        hostile_reply(1, run.requests("judge", HOSTILE)[0].request.judge)
    )  # type: ignore[index]
    for info in infos:
        json.dumps(info).encode("utf-8")


def test_every_other_case_runs_and_is_scored(hostile_run: Run) -> None:
    run = hostile_run
    assert run.result is not None and run.result.returncode == 0, output(run.result)
    for benchmark in ("drug_safety", "guideline_adherence"):
        assert len(run.logs[benchmark].samples or []) == HOSTILE_CASES  # none lost or cancelled
    scored = [(n, "drug_safety") for n in range(1, HOSTILE_CASES)]
    scored += [(1, "guideline_adherence"), (3, "guideline_adherence")]
    for n, benchmark in scored:
        sample = run.sample(n, benchmark)
        assert sample.error is None, sample.error
        score = sample.scores[SCORER]  # type: ignore[index]
        assert score.value == pytest.approx(expected_score(run.release, n, benchmark), abs=1e-12)
        assert score.metadata["judge_temperature"] is None  # type: ignore[index]


def test_an_anthropic_refusal_of_a_temperature_never_sent_is_the_calls_error(
    hostile_run: Run,
) -> None:
    run = hostile_run
    sample = run.sample(UNSENT_REFUSED, "guideline_adherence")
    assert sample.error is not None
    assert "temperature: Extra inputs are not permitted" in sample.error.message
    requests = run.requests("judge", UNSENT_REFUSED, "guideline_adherence")
    assert [(r.api, r.status, r.temperature_present) for r in requests] == [
        ("anthropic", 400, False)
    ]


def test_the_log_ends_as_for_a_plain_judge_failure(hostile_run: Run) -> None:
    run = hostile_run
    hostile, plain = run.logs["drug_safety"], run.logs["guideline_adherence"]
    plain_failed = run.sample(HOSTILE, "guideline_adherence")
    assert plain_failed.error is not None
    assert f"the judge {ANTHROPIC_JUDGE} gave no valid reply in 3 attempts" in (
        plain_failed.error.message
    )
    assert hostile.status == plain.status
    assert (hostile.error is None) == (plain.error is None)
    assert len(plain.samples or []) == HOSTILE_CASES


def test_the_terminal_shows_no_traceback(hostile_run: Run) -> None:
    assert hostile_run.result is not None
    text = run_text = hostile_run.result.stdout + hostile_run.result.stderr
    for word in ("Traceback", "UnicodeEncodeError", "MarkupError"):
        assert word not in text, run_text[-3000:]


def test_rejudge_and_report_over_the_hostile_case_stay_readable(hostile_run: Run) -> None:
    run = hostile_run
    assert run.rejudge is not None and run.report is not None
    assert run.rejudge.returncode == 3, output(run.rejudge)  # a case could not be judged
    (failed,) = [line for line in run.rejudge.stderr.splitlines() if "failed:" in line]
    assert (
        f"JudgeFailedError: the judge {ANTHROPIC_JUDGE} gave no valid reply in 3 attempts" in failed
    )
    assert failed.isprintable(), ascii(failed[:300])
    assert run.report.returncode == 0, output(run.report)
    for result in (run.rejudge, run.report):
        assert "Traceback" not in result.stdout + result.stderr, output(result)


def test_a_reply_split_over_two_text_blocks_is_one_reply(hostile_run: Run) -> None:
    run = hostile_run
    sample = run.sample(1, "guideline_adherence")
    (request,) = run.requests("judge", 1, "guideline_adherence")
    assert request.api == "anthropic"
    score = sample.scores[SCORER]  # type: ignore[index]
    (attempt,) = score.metadata["judge_attempts"]  # type: ignore[index]
    assert attempt["error"] is None and attempt["raw"] == request.reply
    assert score.value == pytest.approx(
        expected_score(run.release, 1, "guideline_adherence"), abs=1e-12
    )
