"""What a newcomer meets in the first hour, kept true: the README's test command is the one CI
runs, what the README's commands write is ignored by git, and the docs' offline example of an
unrelated `mockllm` eval runs without a tokenizer download."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e_helpers import forget_inspect_process_state, read_logs

REPO = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first is not None
    install, test = first.group(1).strip().splitlines()
    assert "pip install" in install
    return test.split("#")[0].strip()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    command = readme_test_command()
    assert command == ".venv/bin/python -m pytest -n 2 --dist loadfile"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in [line.strip() for line in ci]


def test_the_readme_says_how_long_and_gives_the_fast_tier_its_own_line() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    setup = text.split("## Set up", 1)[1].split("## Run", 1)[0]
    assert "minutes on two cores" in setup
    assert '\n.venv/bin/python -m pytest -m "not slow" -n 2\n' in setup
    assert "bedside-bench data pull" in setup and "BEDSIDE_BENCH_DATA=" in setup


# what the README's (and docs') commands write in the working folder
WRITTEN = [
    "logs/sweep/2026-01-01T00-00-00+00-00_drug-safety_x.eval",  # inspect eval, sweep
    "logs/sweep/estimate-2026-01-01T00-00-00.json",  # sweep --estimate
    "reports/report.md",  # bedside-bench report
    "bedside-bench-demo/report/report.html",  # bedside-bench demo
    "results/results.parquet",  # data export -o results/
    "review/review.html",  # review export -o review/
    "review-score/review.json",  # review score -o review-score/
    "labels-dr-a-1234.json",  # the review page's download, scored from here
    "doubles.env",  # doubles serve --env-file doubles.env (docs/doubles.md)
    ".env",  # keys, read by Inspect and the sweep
]


@pytest.mark.slow
@pytest.mark.parametrize("path", WRITTEN)
def test_what_the_readme_commands_write_is_ignored_by_git(path: str) -> None:
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run([git, "check-ignore", "--no-index", "-q", path], cwd=REPO, check=False)
    assert ignored.returncode == 0, f"{path} is not ignored by .gitignore"


@pytest.mark.slow
def test_the_cache_docs_mockllm_example_runs_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mockllm counts the tokens of an output without usage with an encoding tiktoken
    downloads: here counting fails, as offline, and the example still runs."""
    from inspect_ai.model._providers.mockllm import MockLLM

    async def no_tokenizer(*args: object, **kwargs: object) -> int:
        raise OSError("tiktoken would download its encoding here")

    text = (REPO / "docs" / "cache.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?mockllm.*?)```", text, re.S)
    assert block is not None
    (tmp_path / "my_task.py").write_text(
        "from inspect_ai import Task, task\n"
        "from inspect_ai.dataset import Sample\n"
        "from inspect_ai.scorer import match\n"
        "from inspect_ai.solver import generate\n\n\n"
        "@task\n"
        "def my_task() -> Task:\n"
        '    return Task(dataset=[Sample(input="Say 4", target="4")], solver=generate(), '
        "scorer=match())\n"
    )
    monkeypatch.setattr(MockLLM, "count_tokens", no_tokenizer)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    forget_inspect_process_state()
    try:
        exec(compile(block.group(1), "docs/cache.md", "exec"), {})
    finally:
        forget_inspect_process_state()
    (log,) = read_logs(tmp_path / "logs")
    assert log.status == "success", log.error
    assert log.results is not None and log.results.scores[0].metrics["accuracy"].value == 1.0
