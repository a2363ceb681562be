"""`bedside-bench sweep -T judge_model=M` is `--judge M`: the grader role and its connection
limits, the judge the logs record (`eval.metadata["judge_model"]`, in every task the sweep
builds) and the report's; `--judge X -T judge_model=Y` names two judges and is refused before
any call. And the sweep's `-T` takes a number only as a plain decimal: YAML 1.1 reads `010` as
8, `1_5` as 15, `1:30` as 90, and a task given 8 cannot tell it was written `010`.

Through the command's `main(argv)`: the options with the sweep replaced by a recorder
(`swept_options`), the tasks the sweep builds from them, and two sweeps against the provider
double (the slow tests at the end)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from bedside_bench.core import exit_codes
from bedside_bench.core.contracts import GRADER_ROLE
from bedside_bench.core.protocol import DEFAULT_JUDGE_MODEL
from bedside_bench.doubles import ProviderDouble
from bedside_bench.sweep.options import (
    SweepError,
    SweepOptions,
    build_tasks,
    judge_role,
    task_arguments,
)
from bedside_bench.sweep.run import plan
from tests.conftest import SYNTHETIC_RELEASE
from tests.e2e_helpers import (
    ANSWER_MODEL,
    JUDGE_MODEL,
    SCORER,
    Result,
    ok,
    only_log,
    output,
    run_sweep_cli,
    summaries,
    sweep_args,
    sweep_env,
    swept_options,
)
from tests.ledger import assert_bought_once, ledger
from tests.release_factory import write_release

JUDGE = JUDGE_MODEL  # openai/gpt-4.1, not the protocol's default judge
OTHER = "anthropic/claude-sonnet-4-6"
ERROR = "bedside-bench sweep: error: "
ADVICE = "write a plain decimal such as 3, -2 or 1.5, or quote the value for text"
# what the environment may hold that would choose models or a judge of its own
CHOOSING = ("INSPECT_EVAL_MODEL", "INSPECT_EVAL_MODEL_ROLE")


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No model or judge from the environment, no `.env` above, keys to build models with
    (never used: nothing is called)."""
    monkeypatch.chdir(tmp_path)
    for name in CHOOSING:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unit")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-unit")


def swept(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, list[SweepOptions]]:
    return swept_options(monkeypatch, "--model", ANSWER_MODEL, "--no-report", *argv)


def one_sweep(monkeypatch: pytest.MonkeyPatch, *argv: str) -> SweepOptions:
    code, seen = swept(monkeypatch, *argv)
    assert code == exit_codes.OK
    (options,) = seen
    return options


# --------------------------------------------------------------------------------------------
# -T judge_model=M is --judge M


@pytest.mark.usefixtures("clean")
@pytest.mark.parametrize("limits", [(), ("--max-connections", "3")])
def test_a_judge_named_by_t_is_the_sweeps_judge_as_judge_names_it(
    monkeypatch: pytest.MonkeyPatch, limits: tuple[str, ...]
) -> None:
    common = ("--smoke", "-T", "severe_gate=true", *limits)
    by_flag = one_sweep(monkeypatch, "--judge", JUDGE, *common)
    by_t = one_sweep(monkeypatch, "-T", f"judge_model={JUDGE}", *common)
    both = one_sweep(monkeypatch, "--judge", JUDGE, "-T", f"judge_model={JUDGE}", *common)
    assert by_t == by_flag == both  # every option, field for field
    assert by_t.judge == JUDGE
    assert dict(by_t.task_args) == {"severe_gate": True}  # no judge_model beside the role
    assert task_arguments(by_t) == {"smoke": True, "severe_gate": True}
    role = judge_role(by_t)
    if not limits:
        assert role == JUDGE  # the role as a name: Inspect's adaptive limits
    else:
        assert isinstance(role, Model) and str(role) == JUDGE and role.role == GRADER_ROLE
        # the judge's own pool: 2 headroom x 3 connections x 1 pass x 1 answer model
        assert role.config.max_connections == 6


@pytest.mark.usefixtures("clean")
def test_a_judge_named_by_t_wins_over_the_environments_grader_as_judge_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("INSPECT_EVAL_MODEL_ROLE", f"grader={OTHER}")
    assert one_sweep(monkeypatch).judge == OTHER
    assert one_sweep(monkeypatch, "--judge", JUDGE).judge == JUDGE
    assert one_sweep(monkeypatch, "-T", f"judge_model={JUDGE}").judge == JUDGE


@pytest.mark.usefixtures("clean")
@pytest.mark.parametrize(
    "argv",
    [
        ("--judge", JUDGE, "-T", f"judge_model={OTHER}"),
        ("-T", f"judge_model={OTHER}", "--judge", JUDGE),
    ],
)
def test_two_judges_are_refused_in_one_line_before_anything_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, seen = swept(monkeypatch, *argv)
    assert (code, seen) == (exit_codes.ERROR, [])  # the exit of the sweep's other bad inputs
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"{ERROR}--judge {JUDGE} and -T judge_model={OTHER} name two judges, so nothing was "
        "run: give one of them"
    ]


@pytest.mark.usefixtures("clean")
def test_a_judge_model_that_is_not_text_stays_for_the_task_to_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = one_sweep(monkeypatch, "-T", "judge_model=3")
    assert (options.judge, dict(options.task_args)) == (DEFAULT_JUDGE_MODEL, {"judge_model": 3})
    code, seen = swept(monkeypatch, "-T", "judge_model=")  # YAML's null: not what was typed
    assert (code, seen) == (exit_codes.ERROR, [])


def test_run_sweeps_task_arguments_name_the_judge_as_its_judge_does() -> None:
    """From Python (`run_sweep(judge=..., task_args=...)`) as from the command line: the same
    judge is the role alone, another is refused before any task is built."""
    same = SweepOptions(models=[ANSWER_MODEL], judge=JUDGE, task_args={"judge_model": JUDGE})
    assert task_arguments(same) == {"smoke": False}
    other = SweepOptions(models=[ANSWER_MODEL], judge=JUDGE, task_args={"judge_model": OTHER})
    with pytest.raises(SweepError) as refused:
        task_arguments(other)
    assert str(refused.value) == (
        f"judge {JUDGE} and task argument judge_model={OTHER} name two judges, so nothing was "
        "run: give one of them"
    )


# --------------------------------------------------------------------------------------------
# every task the sweep builds records its judge


def judges_recorded(tasks: list[Any]) -> list[object]:
    return [(task.metadata or {}).get("judge_model") for task in tasks]


@pytest.mark.usefixtures("clean")
@pytest.mark.parametrize(
    ("argv", "judge"),
    [
        (("-T", f"judge_model={JUDGE}"), JUDGE),
        (("--judge", JUDGE), JUDGE),
        ((), DEFAULT_JUDGE_MODEL),
    ],
)
def test_every_task_the_sweep_builds_names_the_sweeps_judge(
    monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], judge: str
) -> None:
    """The run's tasks (whole, and a shard's, each bound to its model) and the estimate's: built
    before eval_set binds the grader role, so no task could resolve it itself."""
    data = ("--data-dir", str(SYNTHETIC_RELEASE), "--benchmarks", "drug_safety,health_equity")
    whole = one_sweep(monkeypatch, *data, *argv)
    work = plan(whole)
    assert [t.name for t in work.tasks] == ["drug_safety", "health_equity"]
    assert judges_recorded(work.tasks) == [judge, judge]
    assert judges_recorded(build_tasks(whole)) == [judge, judge]  # the estimate's
    # a task's own metadata is all there, the judge added to it
    assert (work.tasks[0].metadata or {})["benchmark"] == "drug_safety"
    shard = one_sweep(monkeypatch, *data, *argv, "--model", OTHER, "--shard", "1/2")
    shard_work = plan(shard)
    assert len(shard_work.runs) == 2  # half of 2 models x 2 benchmarks
    assert [str(t.model) for t in shard_work.tasks] == [m for m, _ in shard_work.runs]
    assert judges_recorded(shard_work.tasks) == [judge, judge]


# --------------------------------------------------------------------------------------------
# -T numbers: plain decimals only


def yaml_reading(text: str) -> str:
    """What YAML 1.1 (Inspect's `-T` reader) makes of `text`, as the refusal says it."""
    value = yaml.safe_load(text)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return f"the text {text!r}"


def refusal(name: str, text: str) -> str:
    return (
        f"{ERROR}task argument {name}={text}: {text} is not a plain decimal number (YAML "
        f"reads it as {yaml_reading(text)}); {ADVICE}"
    )


@pytest.fixture(scope="module")
def quiet_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("quiet")


def t_value(folder: Path, argument: str) -> tuple[int, list[SweepOptions], str, str]:
    """`sweep --model M -T ARGUMENT` through `main`, in `folder`: (exit code, the options the
    sweep was given, stdout, stderr). A fixture of its own per call, for hypothesis."""
    out, err = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as monkeypatch,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        monkeypatch.chdir(folder)
        for name in CHOOSING:
            monkeypatch.delenv(name, raising=False)
        code, seen = swept(monkeypatch, "-T", argument)
    return code, seen, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("text", "reading"),
    [("010", "8"), ("0x5", "5"), ("0o7", "the text '0o7'"), ("1_5", "15"), ("1:30", "90")],
)
def test_a_number_yaml_would_misread_is_refused_in_one_line(
    quiet_folder: Path, text: str, reading: str
) -> None:
    code, seen, out, err = t_value(quiet_folder, f"judge_passes={text}")
    assert (code, seen, out) == (exit_codes.ERROR, [], "")
    assert err.splitlines() == [
        f"{ERROR}task argument judge_passes={text}: {text} is not a plain decimal number "
        f"(YAML reads it as {reading}); {ADVICE}"
    ]


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("3", 3),
        ("-2", -2),
        ("0", 0),
        ("+4", 4),
        ("true", True),
        ("1.5", 1.5),
        ("0.25", 0.25),
        ("three_level", "three_level"),
        ("'010'", "010"),  # quoted: text, as written
        ("[1, 2]", [1, 2]),
    ],
)
def test_plain_values_are_read_as_before(quiet_folder: Path, value: str, parsed: object) -> None:
    code, seen, _, err = t_value(quiet_folder, f"x={value}")
    assert (code, err) == (exit_codes.OK, "")
    (options,) = seen
    assert dict(options.task_args) == {"x": parsed}
    assert type(options.task_args["x"]) is type(parsed)  # True is no 1, 1.5 no text


def test_a_misread_number_inside_a_list_is_refused_too(quiet_folder: Path) -> None:
    code, seen, _, err = t_value(quiet_folder, "ids=[1, 010]")
    assert (code, seen) == (exit_codes.ERROR, [])
    assert err.splitlines() == [
        f"{ERROR}task argument ids=[1, 010]: 010 is not a plain decimal number (YAML reads it "
        f"as 8); {ADVICE}"
    ]


SIGN = st.sampled_from(["", "-", "+"])
LEADING_ZERO = st.from_regex(r"\A0[0-9]{1,12}\Z")  # 010 (octal 8), 08 (text), 00
UNDERSCORED = st.from_regex(r"\A[0-9]{1,6}(_[0-9]{0,6}){1,3}\Z")  # 1_5 (15), 1_, 1__0
COLONS = st.from_regex(r"\A[0-9]{1,4}(:[0-9]{1,3}){1,3}\Z")  # 1:30 (90), 1:75 (text)
PREFIXED = st.from_regex(r"\A0[xXoObB][0-9a-fA-F]{1,8}\Z")  # 0x5, 0b1, 0o7
FRACTIONS = st.from_regex(
    r"\A([0-9]{1,4}_[0-9]{0,3}|0[0-9]{1,3}|[0-9]{1,2}:[0-9]{2})\.[0-9]{1,3}\Z"
)
ODD = st.builds(
    lambda sign, text: sign + text,
    SIGN,
    st.one_of(LEADING_ZERO, UNDERSCORED, COLONS, PREFIXED, FRACTIONS),
)


@settings(max_examples=60, deadline=None)
@given(text=ODD)
def test_every_number_not_written_as_a_plain_decimal_is_refused(
    quiet_folder: Path, text: str
) -> None:
    code, seen, out, err = t_value(quiet_folder, f"judge_passes={text}")
    assert (code, seen, out) == (exit_codes.ERROR, [], "")
    assert err.splitlines() == [refusal("judge_passes", text)]


@settings(max_examples=60, deadline=None)
@given(number=st.integers(min_value=-(10**40), max_value=10**40), plus=st.booleans())
def test_a_plain_decimal_is_the_number_pythons_int_reads(
    quiet_folder: Path, number: int, plus: bool
) -> None:
    text = f"+{number}" if plus and number >= 0 else str(number)
    code, seen, _, err = t_value(quiet_folder, f"judge_passes={text}")
    assert (code, err) == (exit_codes.OK, "")
    (options,) = seen
    value = options.task_args["judge_passes"]
    assert type(value) is int and value == int(text)


# --------------------------------------------------------------------------------------------
# against the provider double: what the logs and the report record


@pytest.fixture(scope="module")
def double() -> Iterator[ProviderDouble]:
    with ProviderDouble() as started:
        yield started


class Swept:
    """Two sweeps of one log directory: `-T judge_model=J`, then the same with `--judge J`."""

    def __init__(self, root: Path, double: ProviderDouble) -> None:
        self.double = double
        self.cases = write_release(root / "release", per_benchmark=1)["drug_safety"]
        self.logs = root / "logs"
        env = sweep_env(double, root)
        common = ("--benchmarks", "drug_safety", "--max-connections", "2")
        self.by_t = run_sweep_cli(
            sweep_args(
                [ANSWER_MODEL],
                self.logs,
                *common,
                "-T",
                f"judge_model={JUDGE}",
                data_dir=root / "release",
            ),
            env,
            root,
        )
        self.bought_by_t = ledger(double, self.cases)
        self.judged_by = {r.model for r in ok(double.requests(kind="judge"))}
        self.by_flag = run_sweep_cli(
            sweep_args(
                [ANSWER_MODEL], self.logs, *common, "--judge", JUDGE, data_dir=root / "release"
            ),
            env,
            root,
        )
        self.log: EvalLog = only_log(self.logs)


@pytest.fixture(scope="module")
def sweeps(double: ProviderDouble, tmp_path_factory: pytest.TempPathFactory) -> Swept:
    double.reset()
    return Swept(tmp_path_factory.mktemp("judge-named"), double)


@pytest.mark.slow
def test_the_judge_named_by_t_judged_and_the_log_records_it_as_the_role(sweeps: Swept) -> None:
    assert sweeps.by_t.returncode == exit_codes.OK, output(sweeps.by_t)
    assert sweeps.judged_by == {"gpt-4.1"}  # the protocol's default judge was never asked
    eval_spec = sweeps.log.eval
    role = (eval_spec.model_roles or {})[GRADER_ROLE]
    assert not isinstance(role, list)  # one judge
    assert role.model == JUDGE
    assert role.config.max_connections == 4  # 2 headroom x 2 connections x 1 pass x 1 model
    assert (eval_spec.metadata or {})["judge_model"] == JUDGE
    assert "judge_model" not in eval_spec.task_args_passed
    assert eval_spec.task_args["judge_model"] is None
    (sample,) = sweeps.log.samples or []
    assert (sample.scores or {})[SCORER].metadata["judge_model"] == JUDGE  # type: ignore[index]


@pytest.mark.slow
def test_the_report_names_the_judge_named_by_t(sweeps: Swept) -> None:
    assert summaries(sweeps.logs / "report")[ANSWER_MODEL]["judge_model"] == JUDGE


@pytest.mark.slow
def test_the_same_sweep_with_judge_is_the_same_run(sweeps: Swept) -> None:
    """`--judge J` on the logs of `-T judge_model=J` finds every run complete: the same task
    identity in eval_set (task arguments, roles), nothing asked again."""
    result: Result = sweeps.by_flag
    assert result.returncode == exit_codes.OK, output(result)
    assert "sweep: 1/1 benchmark runs complete" in result.stdout
    assert ledger(sweeps.double, sweeps.cases) == sweeps.bought_by_t
    assert_bought_once(sweeps.double, sweeps.cases, [ANSWER_MODEL])


@pytest.mark.slow
def test_two_judges_stop_the_sweep_before_any_call(double: ProviderDouble, tmp_path: Path) -> None:
    requests = len(double.requests())
    logs = tmp_path / "logs"
    args = sweep_args(
        [ANSWER_MODEL],
        logs,
        "--judge",
        JUDGE,
        "-T",
        f"judge_model={OTHER}",
        data_dir=SYNTHETIC_RELEASE,
    )
    result = run_sweep_cli(args, sweep_env(double, tmp_path), tmp_path)
    assert result.returncode == exit_codes.ERROR, output(result)
    assert (result.stdout, result.stderr.splitlines()) == (
        "",
        [
            f"{ERROR}--judge {JUDGE} and -T judge_model={OTHER} name two judges, so nothing "
            "was run: give one of them"
        ],
    )
    assert len(double.requests()) == requests  # nothing asked
    assert not logs.exists()
