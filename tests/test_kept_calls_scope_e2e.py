"""Installed, bedside-bench shows and leaves nothing in an eval of another suite.

Inspect loads every installed package's entry point before an eval (ours registers the ten
tasks), lists the hooks registered by then ("hooks enabled: ...") and calls each at the end of
every task of the process. So the hook releasing kept calls (`kept_calls`) is registered only
when one of our solvers or scorers is built, and acts only at the end of a task whose log
names one of them. A task of the user's own, in a folder of its own, is run with
`mockllm/model`: through the `inspect eval` console script, started cold (the banner is the
command's own start), and through `inspect_ai.eval` in a process that built our solver and
scorer before (the hook registered, as in a notebook that ran a benchmark first). Neither
prints anything of bedside_bench nor writes anything beside its log: Inspect's cache folder
(where kept calls and their index live) is never even created.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from tests.e2e_helpers import output, read_logs, run_console_script

pytestmark = pytest.mark.slow  # an Inspect eval, in process and as a subprocess

# the user's own task: its scripted reply carries usage, so mockllm counts no tokens (it
# would with tiktoken, which downloads its encoding)
USER_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import exact
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def reply() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scripted = ModelOutput.from_content(model="mockllm/model", content="hello")
        scripted.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)
        model = get_model("mockllm/model", custom_outputs=[scripted], memoize=False)
        state.output = await model.generate(state.messages)
        state.messages.append(state.output.message)
        return state

    return solve


@task
def greeting() -> Task:
    return Task(
        dataset=[Sample(input="Say hello.", target="hello")], solver=reply(), scorer=exact()
    )
"""


def user_task(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "greeting.py"
    path.parent.mkdir()
    path.write_text(USER_TASK, encoding="utf-8")
    return path


def everything_but_the_log(tmp_path: Path) -> list[str]:
    """Every file and folder under the test's folder (Inspect's cache and log folders are in
    it, tests/conftest.py), but the one log and Python's bytecode of the task file."""
    (log,) = (tmp_path / "logs").iterdir()
    return sorted(
        path.relative_to(tmp_path).as_posix()
        for path in tmp_path.rglob("*")
        if path != log and "__pycache__" not in path.parts
    )


def assert_ran(log: EvalLog) -> None:
    """The user's eval really ran: its one sample answered by mockllm and scored."""
    assert log.status == "success"
    assert log.eval.model == "mockllm/model"
    (sample,) = log.samples or []
    assert sample.output.completion == "hello"
    assert sample.scores is not None and sample.scores["exact"].value == "C"


def test_inspect_eval_of_another_suite_shows_and_leaves_nothing_of_bedside_bench(
    tmp_path: Path,
) -> None:
    task_file = user_task(tmp_path)
    # a process of its own: the banner is printed by the command's own start
    result = run_console_script(
        "inspect",
        "eval",
        task_file.name,  # as a user types it in the task's folder (Inspect 0.3.285 globs it)
        "--model",
        "mockllm/model",
        "--display",
        "plain",
        env=os.environ,  # the test's INSPECT_LOG_DIR and INSPECT_CACHE_DIR
        cwd=task_file.parent,
    )
    assert result.returncode == 0, output(result)
    shown = result.stdout + result.stderr
    assert "bedside_bench" not in shown, output(result)
    assert "hooks enabled" not in shown, output(result)  # no other package here has a hook
    (log,) = read_logs(tmp_path / "logs")
    assert_ran(log)
    assert everything_but_the_log(tmp_path) == ["logs", "work", "work/greeting.py"]


def test_an_eval_of_another_suite_after_ours_was_built_leaves_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bedside_bench.calls import kept_calls
    from bedside_bench.scoring.scorer import rubric_judge
    from bedside_bench.task.solver import physician_answer

    task_file = user_task(tmp_path)
    monkeypatch.chdir(task_file.parent)
    # Inspect prints its banner once a process, at its first model or eval; what it lists
    # depends on the tests this process ran before, so it is printed (and set aside) here
    get_model("mockllm/model")
    capfd.readouterr()
    physician_answer()
    rubric_judge()
    assert kept_calls._registered  # the hook is called at the end of the task below

    (log,) = inspect_eval(
        task_file.name, model="mockllm/model", log_dir=str(tmp_path / "logs"), display="plain"
    )
    shown = capfd.readouterr()
    assert "bedside_bench" not in shown.out + shown.err
    assert_ran(log)
    assert everything_but_the_log(tmp_path) == ["logs", "work", "work/greeting.py"]
