"""What the end-to-end tests share: the console scripts run as a user types them (in this
process, or as a new process where the process is the point), the command lines of `inspect
eval` and `bedside-bench sweep`, a sweep started in the background and stopped mid-way, and
reading logs, scores and summaries back to compare them with the independent expected values
(tests/independent.py) and with what the provider double saw.

One home, so that a change of how a run is started or read is made once for every test.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import gzip
import io
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import zipfile_zstd  # noqa: F401  (lets zipfile read Inspect's zstd-compressed .eval members)
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from bedside_bench.calls import credentials
from bedside_bench.cli.main import main
from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import (
    DEFAULT_ANTHROPIC_KEY,
    JudgeInput,
    ParsedRequest,
    ProviderDouble,
    RecordedRequest,
    Script,
    default_judge,
    scripted_answer,
    scripted_decision,
)
from bedside_bench.sweep.command import configure_parser as configure_sweep_parser
from bedside_bench.sweep.command import run_sweep_command
from bedside_bench.sweep.run import SweepResult, Timings
from tests.doubles.fixtures import reset_inspect_model_cache
from tests.independent import case_score, read_cases
from tests.ledger import Purchase, assert_bought_once, ledger  # noqa: F401  (the money ledger)
from tests.release_factory import write_release

BIN = Path(sys.executable).parent
INSPECT = BIN / "inspect"
BEDSIDE_BENCH = BIN / "bedside-bench"
ANSWER_MODEL = "openai/gpt-4.1-mini"
JUDGE_MODEL = "openai/gpt-4.1"
SCORER = "rubric_judge"
# recognisable keys, so a test can search logs, reports and output for them
OPENAI_SECRET = "sk-test-SECRET-7f3a9"
ANTHROPIC_SECRET = "sk-ant-SECRET-91c2"

Result = subprocess.CompletedProcess[str]

# --------------------------------------------------------------------------------------------
# console scripts


def run_tool(
    tool: str, *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Result:
    """`tool ARGS` (`inspect` or `bedside-bench`) as typed, run in this process through the
    console script's own entry (`in_process`): its exit status and both streams as a
    subprocess's."""
    return in_process(tool, args, env=env, cwd=cwd)


def run_console_script(
    tool: str,
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 600,
) -> Result:
    """`tool ARGS` as a new process of the console script beside this interpreter: only where
    the process is the point (its own start, one test per command a user types)."""
    return subprocess.run(
        [str(BIN / tool), *args],
        env=None if env is None else dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_cli(args: list[str], cwd: Path, env: Mapping[str, str]) -> Result:
    """`inspect ARGS`, in this process."""
    return run_tool("inspect", *args, env=env, cwd=cwd)


def output(result: Result) -> str:
    """The exit status and the tails of both streams, for an assertion message."""
    return (
        f"exit {result.returncode}\n--- stdout\n{result.stdout[-4000:]}\n--- stderr\n"
        + result.stderr[-4000:]
    )


def eval_args(
    tasks: str | Iterable[str],
    log_dir: Path,
    *extra: str,
    model: str = ANSWER_MODEL,
    grader: str | None = JUDGE_MODEL,
    task_args: Iterable[str] = (),
    command: str = "eval",
    display: str = "plain",
) -> list[str]:
    """`eval TASKS --model M --model-role grader=J -T A ... --log-dir L --display D EXTRA`;
    bare benchmark names get the `bedside_bench/` prefix; `grader=None` leaves the role out."""
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    args = [command, *(t if "/" in t else f"bedside_bench/{t}" for t in names)]
    args += ["--model", model]
    if grader is not None:
        args += ["--model-role", f"grader={grader}"]
    for arg in task_args:
        args += ["-T", arg]
    return [*args, "--log-dir", str(log_dir), "--display", display, *extra]


def eval_ok(
    tasks: str | Iterable[str],
    log_dir: Path,
    *extra: str,
    env: Mapping[str, str],
    cwd: Path,
    **options: Any,
) -> dict[str, EvalLog]:
    """`inspect eval` (see `eval_args`) that must exit 0; its logs by benchmark."""
    result = run_cli(eval_args(tasks, log_dir, *extra, **options), cwd=cwd, env=env)
    assert result.returncode == 0, output(result)
    return logs_by_task(log_dir)


def eval_one(
    task: str, log_dir: Path, *extra: str, env: Mapping[str, str], cwd: Path, **options: Any
) -> EvalLog:
    """`inspect eval` of one task that must exit 0; its one log."""
    (log,) = eval_ok(task, log_dir, *extra, env=env, cwd=cwd, **options).values()
    return log


def eval_in_process(
    task: Any, log_dir: Path, model: str = ANSWER_MODEL, grader: str = JUDGE_MODEL
) -> EvalLog:
    """One task through Inspect's `eval()` in this process (the double's env must be set)."""
    (log,) = inspect_eval(
        task, model=model, model_roles={"grader": grader}, log_dir=str(log_dir), display="none"
    )
    return log


def eval_against(
    double: ProviderDouble,
    task: Any,
    log_dir: Path,
    model: str = ANSWER_MODEL,
    grader: str | None = JUDGE_MODEL,
    **options: Any,
) -> list[EvalLog]:
    """`task` through Inspect's `eval()` in this process against `double` (its environment set
    for the call only, Inspect's model cache reset around it), `options` as `eval()`'s keyword
    arguments (`token_limit=20` for `--token-limit 20`); every log the call wrote."""
    arguments = {
        "model": model,
        "model_roles": {} if grader is None else {"grader": grader},
        "log_dir": str(log_dir),
        "display": "none",
        **options,
    }
    with pytest.MonkeyPatch.context() as monkeypatch:
        double.apply_env(monkeypatch)
        reset_inspect_model_cache()
        try:
            return inspect_eval(task, **arguments)
        finally:
            reset_inspect_model_cache()


def judge_by_call(
    reply: Callable[[int, JudgeInput], str], key: str = "prompt"
) -> Callable[[ParsedRequest], str]:
    """A judge script whose reply depends on how often the same case (`key`: "prompt", or
    "answer" for one epoch's answer) was judged before: `reply(k, judge_input)`, k = 0, 1, ...
    Inspect runs samples concurrently, so the count is kept under a lock."""
    calls: Counter[str] = Counter()
    lock = threading.Lock()

    def judge(req: ParsedRequest) -> str:
        parsed = req.judge
        seen = getattr(parsed, key)
        with lock:
            k = calls[seen]
            calls[seen] += 1
        return reply(k, parsed)

    return judge


def decisions_reply(decisions: Mapping[str, bool]) -> str:
    """A binary judge's JSON reply with these decisions, in order."""
    return json.dumps({"decisions": [{"item_id": i, "matched": m} for i, m in decisions.items()]})


# --------------------------------------------------------------------------------------------
# logs, scores and summaries


def read_logs(log_dir: Path | str) -> list[EvalLog]:
    return [read_eval_log(info) for info in list_eval_logs(str(log_dir))]


def local_path(location: str) -> Path:
    """A local log's path from the location Inspect gives it (`file://...` or `file:...`)."""
    return Path(location.removeprefix("file://").removeprefix("file:"))


def logs_by_task(log_dir: Path | str) -> dict[str, EvalLog]:
    """The logs of a directory by benchmark name (one log per benchmark expected)."""
    return {log.eval.task.split("/")[-1]: log for log in read_logs(log_dir)}


def only_log(log_dir: Path | str) -> EvalLog:
    (log,) = read_logs(log_dir)
    return log


def wire_name(model: str) -> str:
    """The model name as the provider receives it (the double names it in its answers)."""
    return model.split("/", 1)[1]


def scores_by_case(logs: Iterable[EvalLog]) -> dict[tuple[str, str], list[Any]]:
    """(answer model, case id) -> every score found for it across the logs."""
    found: dict[tuple[str, str], list[Any]] = {}
    for log in logs:
        for sample in log.samples or []:
            key = (log.eval.model, str(sample.id))
            found.setdefault(key, [])
            if sample.scores and SCORER in sample.scores:
                found[key].append(sample.scores[SCORER])
    return found


def expected_scores(
    release: Path, models: Iterable[str], benchmarks: Iterable[str] = BENCHMARK_NAMES
) -> dict[tuple[str, str], float]:
    """(answer model, case id) -> the protocol score of the double's scripted answer."""
    expected = {}
    for benchmark in benchmarks:
        for case in read_cases(release, benchmark):
            for model in models:
                answer = scripted_answer(wire_name(model), case["prompt"])
                matched = {
                    i["item_id"]: scripted_decision(answer, i["item_id"])
                    for i in case["rubric_items"]
                }
                expected[(model, case["case_id"])] = case_score(case, matched)
    return expected


def assert_scored_once(
    logs: list[EvalLog], expected: Mapping[tuple[str, str], float], cases: int
) -> None:
    """Exactly one score per (model, case) in the final logs, equal to the independent value."""
    found = scores_by_case(logs)
    assert len(found) == cases
    counts = Counter(len(scores) for scores in found.values())
    assert counts == {1: cases}, counts
    for key, (score,) in found.items():
        assert score.value == pytest.approx(expected[key], abs=1e-12), key


def summaries(report_dir: Path) -> dict[str, dict[str, Any]]:
    """The report's `*.summary.json` files by answer model."""
    by_model = {}
    for path in report_dir.glob("*.summary.json"):
        summary = json.loads(path.read_text())
        by_model[summary["answer_model"]] = summary
    return by_model


# --------------------------------------------------------------------------------------------
# what the provider double received


def ok(requests: Iterable[RecordedRequest]) -> list[RecordedRequest]:
    return [r for r in requests if r.status == 200]


def header(request: RecordedRequest, name: str) -> str | None:
    for key, value in request.request.headers.items():
        if key.lower() == name:
            return value
    return None


def credential_sent(request: RecordedRequest) -> str | None:
    """The key a request carried (Bearer authorization, or Anthropic's x-api-key)."""
    bearer = header(request, "authorization")
    return bearer.removeprefix("Bearer ") if bearer else header(request, "x-api-key")


def answered_model(request: RecordedRequest) -> str:
    """The wire name of the model whose answer a judge request grades."""
    answer = request.request.judge.answer
    return answer.removeprefix("Answer from ").split(":", 1)[0]


def judged_cases(requests: Iterable[RecordedRequest]) -> set[tuple[str, str]]:
    """(answer model's wire name, case prompt) of every successful judge call."""
    return {(answered_model(r), r.request.judge.prompt) for r in ok(requests) if r.kind == "judge"}


def judged_at_least(double: ProviderDouble, count: int) -> Callable[[], bool]:
    """A condition for `wait_for`: the double has answered `count` judge calls."""
    return lambda: len(ok(double.requests(kind="judge"))) >= count


def holding_at_judge_replies(double: ProviderDouble, *counts: int) -> Script:
    """A script that answers as the default one and, as it gives its k-th judge reply (k in
    `counts`, counted over the script's life), holds every request still waiting or yet to
    come (`configure(latency=3600)`, until the test configures another latency): past that
    reply nothing more completes, however late the test looks, so a run cannot end before
    its signal. The double calls the script on its event loop after a request's latency, with
    no wait before the reply is built, so exactly k judge replies have been given."""
    given = 0

    def judge(request: ParsedRequest) -> str:
        nonlocal given
        given += 1
        if given in counts:
            double.configure(latency=3600)  # a provider that stops answering
        return default_judge(request)

    return Script(judge=judge)


def asked_again(
    rerun: Iterable[RecordedRequest], done: set[tuple[str, str]]
) -> list[RecordedRequest]:
    """Requests of a resumed run that answer or judge a case already complete before it."""
    return [
        r
        for r in rerun
        if r.kind == "answer"
        and (r.model, r.request.user) in done
        or r.kind == "judge"
        and (answered_model(r), r.request.judge.prompt) in done
    ]


def release_held(double: ProviderDouble) -> None:
    """Let go of the requests a double holds with `hold_until_in_flight=N` while N - 1 are in
    flight: this sends the N-th (recorded as an answer call for model "release"), and the
    double lets them all go, and every later one."""
    body = {"model": "release", "max_tokens": 8, "messages": [{"role": "user", "content": "go"}]}
    request = urllib.request.Request(
        f"{double.url}/v1/messages",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": DEFAULT_ANTHROPIC_KEY},
    )
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with direct.open(request, timeout=60) as response:
        response.read()


def file_texts(root: Path) -> Iterable[tuple[str, bytes]]:
    """Every file under `root` as bytes; .eval members and .gz files decompressed."""
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        yield str(path), data
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    yield f"{path}!{member}", archive.read(member)
        elif path.suffix == ".gz":
            yield f"{path}!gunzip", gzip.decompress(data)


def leaks(secrets: Iterable[str], named: Iterable[tuple[str, bytes]]) -> list[str]:
    found = []
    for name, data in named:
        for secret in secrets:
            if secret.encode() in data:
                found.append(f"{secret} in {name}")
    return found


# --------------------------------------------------------------------------------------------
# bedside-bench sweep


def sweep_env(
    double: ProviderDouble,
    tmp_path: Path,
    openai_key: str | None = "sk-test-double",
    anthropic_key: str | None = "sk-ant-test-double",
    openai_access_token: str | None = None,
) -> dict[str, str]:
    """The double's environment with chosen credentials (None: unset), and Inspect's data
    folder (sample buffer, traces) inside the test's folder, where a test can read it."""
    env = double.subprocess_env()
    for name in credentials.PROVIDER_SECRET_VARIABLES:
        env.pop(name, None)
    for name, value in (
        (credentials.OPENAI_API_KEY, openai_key),
        (credentials.ANTHROPIC_API_KEY, anthropic_key),
        (credentials.OPENAI_ACCESS_TOKEN, openai_access_token),
    ):
        if value is not None:
            env[name] = value
    env["XDG_DATA_HOME"] = str(tmp_path / "data-home")
    env["HF_HUB_OFFLINE"] = "1"
    env.pop("INSPECT_EVAL_MODEL", None)
    return env


def sweep_args(
    models: Iterable[str], log_dir: Path | str, *extra: str, data_dir: Path | str | None = None
) -> list[str]:
    args = ["--model", ",".join(models), "--log-dir", str(log_dir), "--display", "plain"]
    if data_dir is not None:
        args += ["--data-dir", str(data_dir)]
    return args + list(extra)


def run_sweep_cli(args: list[str], env: Mapping[str, str], cwd: Path) -> Result:
    """`bedside-bench sweep ARGS`, in this process."""
    return run_tool("bedside-bench", "sweep", *args, env=env, cwd=cwd)


def start_tool(
    tool: str,
    *args: str,
    env: Mapping[str, str],
    cwd: Path,
) -> subprocess.Popen[str]:
    """Console script `tool ARGS` as a process in the background, both streams read by `stop`:
    for a test that signals or kills it, or runs two at once. (A signal disposition the child
    should inherit is set by a shell before the exec, as tests/test_sweep_signals.py does: no
    Python runs in a child forked from this threaded process.)"""
    return subprocess.Popen(
        [str(BIN / tool), *args],
        env=dict(env),
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def start_sweep(args: list[str], env: Mapping[str, str], cwd: Path) -> subprocess.Popen[str]:
    """`bedside-bench sweep ARGS` as a process in the background (stop it with `stop`)."""
    return start_tool("bedside-bench", "sweep", *args, env=env, cwd=cwd)


def wait_for(
    condition: Callable[[], bool],
    timeout: float,
    process: subprocess.Popen[str],
    what: str = "the sweep made too little progress",
) -> None:
    """Poll `condition` until it holds; fail if `process` ends first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"the process ended early ({process.returncode}):\n{out}\n{err}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout} s")
        time.sleep(0.05)


def stop(
    process: subprocess.Popen[str], how: int | None = signal.SIGKILL, timeout: float = 120
) -> tuple[str, str]:
    """Send `how` (None: nothing) and wait up to `timeout` for the process to end, killing it
    if it does not; its output. A process already stopped and read gives ("", "")."""
    if process.stdout is not None and process.stdout.closed:
        return "", ""
    if how is not None and process.poll() is None:
        process.send_signal(how)
    try:
        return process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


# --------------------------------------------------------------------------------------------
# a command in this process


def bedside_bench_in_process(*args: str) -> Result:
    """`bedside-bench ARGS` in this process, in its environment and folder (`in_process`)."""
    return in_process("bedside-bench", args)


def _inspect_main(argv: list[str]) -> None:
    """`inspect ARGS` as its console script runs it (`inspect_ai._cli.main:main`, which reads
    `sys.argv`): the `.env` file, then the click group, which ends in SystemExit."""
    from inspect_ai._cli.main import inspect
    from inspect_ai._util.dotenv import init_dotenv

    init_dotenv()
    inspect.main(args=argv, prog_name="inspect", auto_envvar_prefix="INSPECT")


def _bedside_bench_main(argv: list[str]) -> int:
    from bedside_bench.cli.main import main

    return main(argv)


CONSOLE_SCRIPTS: dict[str, Callable[[list[str]], int | None]] = {
    "inspect": _inspect_main,
    "bedside-bench": _bedside_bench_main,
}


def _uncaught(tool: str, error: Exception) -> int:
    """What the interpreter does with an exception a command lets out: Inspect's console
    script prints it through its own hook (a PrerequisiteError as its message alone), any
    other shows the traceback; exit 1."""
    if tool == "inspect":
        from inspect_ai._util.error import exception_hook

        try:
            exception_hook()(type(error), error, error.__traceback__)
        except SystemExit as stopped:
            return stopped.code if isinstance(stopped.code, int) else 1
    else:
        traceback.print_exception(error)
    return 1


def forget_inspect_process_state() -> None:
    """Forget what Inspect keeps for the rest of a process after its first command, so that
    each command run in this process starts as a new process would: the models (and their
    clients, bound to a double's port), the prices a `--model-cost-config` registered, the log
    handler (made once, writing to the stderr,
    display level and trace file of the command that made it), the display (chosen once, by
    the first command's `--display`), rich's console (`--display none` leaves it quiet).
    Private names of Inspect, read from its source."""
    import rich
    from inspect_ai._display.core import active
    from inspect_ai._util import logger as inspect_logger
    from inspect_ai.model._model_info import clear_model_info_cache
    from inspect_ai.util import _display

    reset_inspect_model_cache()
    clear_model_info_cache()
    handler = inspect_logger._logHandler["handler"]
    if handler is not None:
        for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
            if isinstance(logger, logging.Logger) and handler in logger.handlers:
                logger.removeHandler(handler)
        for file_handler in (handler.trace_logger, handler.file_logger, handler):
            if file_handler is not None:
                file_handler.close()
        inspect_logger._logHandler["handler"] = None
    active._active_display = None
    _display._display_type = None
    rich.reconfigure()


@contextlib.contextmanager
def _process_state(
    argv: list[str], env: Mapping[str, str] | None, cwd: Path | None
) -> Iterator[None]:
    """The command's environment, folder and argv, and a fresh Inspect made in them (rich's
    console reads COLUMNS when made); this process's back after (with the signal handlers and
    logger levels a command may change)."""
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    loggers = [logging.getLogger(name) for name in ("", "inspect_ai", "httpx", "httpx2")]
    levels = [(lg, lg.level, lg.propagate) for lg in loggers]
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        forget_inspect_process_state()
        yield
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        for lg, level, propagate in levels:
            lg.setLevel(level)
            lg.propagate = propagate
        forget_inspect_process_state()


# read once, when Python starts or a library is imported (huggingface_hub's HF_HUB_CACHE,
# matplotlib's MPLCONFIGDIR, the locale, ...): a command whose environment sets one otherwise
# than this process's needs a process of its own (`run_console_script`)
IMPORT_TIME_PREFIXES = ("PYTHON", "HF_", "HUGGINGFACE_", "LANG", "LC_", "MPL", "FSSPEC_", "S3FS_")


def import_time_settings(env: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if name.startswith(IMPORT_TIME_PREFIXES)}


def in_process(
    tool: str,
    args: Sequence[str],
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Result:
    """Console script `tool ARGS` in this process, with the environment `env` (None: this
    process's) in folder `cwd` (None: this one): its own `main` with the argv, exit status
    and both streams a subprocess would have. A command is started as a process only where
    the process is the point (`run_console_script`, `start_tool`); in process a command
    costs no start of Python and Inspect's import (3 to 5 s of CPU each)."""
    argv = list(args)
    if env is not None and import_time_settings(env) != import_time_settings(os.environ):
        differ = import_time_settings(env).items() ^ import_time_settings(os.environ).items()
        raise AssertionError(
            f"{tool} {' '.join(argv)}: the environment sets {sorted({n for n, _ in differ})} "
            "otherwise than this process, and they are read at import: use run_console_script"
        )
    out, err = io.StringIO(), io.StringIO()
    with (
        _process_state([str(BIN / tool), *argv], env, cwd),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            # an empty context, as a new process has: an eval sets Inspect's active model and
            # model roles in its caller's context, where the next command's tasks would find
            # them (the last sweep's judge, bound to its double's port)
            returned = contextvars.Context().run(CONSOLE_SCRIPTS[tool], argv)
            code = 0 if returned is None else returned
        except SystemExit as stopped:  # argparse's and click's exits, --help
            if stopped.code is None or isinstance(stopped.code, int):
                code = stopped.code or 0
            else:  # sys.exit("message"): printed, exit 1
                print(stopped.code, file=sys.stderr)
                code = 1
        except Exception as error:
            code = _uncaught(tool, error)
        sys.stdout.flush()
    return subprocess.CompletedProcess([tool, *argv], code, out.getvalue(), err.getvalue())


def swept_options(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, list[Any]]:
    """`bedside-bench sweep ARGV` through the command's `main`, the sweep itself replaced by one
    that keeps the `SweepOptions` it was given and succeeds at once (nothing is run)."""
    seen: list[Any] = []

    def run_sweep(options: Any) -> SweepResult:
        seen.append(options)
        timings = Timings(preparation=0.0, evaluation=0.0, report=0.0, total=0.0)
        return SweepResult(success=True, logs=[], report=None, timings=timings, runs=[])

    monkeypatch.setattr("bedside_bench.sweep.run.run_sweep", run_sweep)
    return main(["sweep", *argv]), seen


# what a release the project does not know (every synthetic one) warns of, on the first load
UNKNOWN_RELEASE = " is not a known BedsideBench release (cases per benchmark: "


def without_unknown_release_warning(err: str) -> str:
    """`err` without the unknown-release warning. A real process always prints it once (before
    Inspect starts, through Python's last-resort handler); in a test process, whether it
    reaches stderr depends on the display an earlier test left Inspect in."""
    return "".join(line for line in err.splitlines(keepends=True) if UNKNOWN_RELEASE not in line)


def sweep_into_s3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], store: str = "s3://team/sweeps/run1"
) -> tuple[int, str, str]:
    """A one-benchmark sweep of a synthetic release into `store`, through the sweep's handler
    (its `main` ends the process once the sweep is done): its exit code, stdout and stderr
    (`without_unknown_release_warning`). For the refusals that come before any call."""
    write_release(tmp_path / "release", per_benchmark=1)
    parser = argparse.ArgumentParser(prog="bedside-bench sweep")
    configure_sweep_parser(parser)
    argv = ["--model", "openai/gpt-4.1-mini", "--judge", "openai/gpt-4.1"]
    argv += ["--benchmarks", "drug_safety", "--data-dir", str(tmp_path / "release")]
    argv += ["--log-dir", store, "--display", "none"]
    code = run_sweep_command(parser.parse_args(argv))
    out, err = capsys.readouterr()
    return code, out, without_unknown_release_warning(err)
