"""`bedside-bench demo` end to end: the whole job without a key, as a user types it.

One demo runs in this process through the console script's own `main` (`--cases 2`), with a
user's provider settings in the environment that must neither be used nor changed: a base
URL of a closed port, recognisable keys and an OAuth token. Each test asserts one thing of that
run. One more demo runs as the console script itself, in a new folder with the default `--out`.
Expected scores are the protocol's, computed independently from the case files and the
doubles' scripted answers and decisions (tests/independent.py).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.core.contracts import DEMO_TAG
from bedside_bench.demo.run import ANSWER_MODELS, JUDGE_MODEL
from bedside_bench.report.summary import DEMO_NOTE
from tests.conftest import REAL_RELEASE, SYNTHETIC_RELEASE
from tests.e2e_helpers import (
    ANTHROPIC_SECRET,
    CONSOLE_SCRIPTS,
    OPENAI_SECRET,
    Result,
    assert_scored_once,
    bedside_bench_in_process,
    expected_scores,
    file_texts,
    leaks,
    output,
    read_logs,
    run_console_script,
    summaries,
)
from tests.independent import read_cases

pytestmark = pytest.mark.slow

OAUTH_SECRET = "anthropic-oauth-SECRET-5d1e"
# a user's own provider settings: the demo must use none of them and change none
USER_SETTINGS = {
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "OPENAI_API_KEY": OPENAI_SECRET,
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "ANTHROPIC_API_KEY": ANTHROPIC_SECRET,
    "ANTHROPIC_AUTH_TOKEN": OAUTH_SECRET,
}
SECRETS = (OPENAI_SECRET, ANTHROPIC_SECRET, OAUTH_SECRET)
FIRST_LINE = (
    "bedside-bench demo: every answer and judge decision is a scripted stand-in from local "
    "provider doubles, not model output; no key is used and nothing leaves 127.0.0.1"
)
LAST_LINE = re.compile(
    r"bedside-bench demo: done in \d+ s; the answers and scores above are scripted stand-ins, "
    r"not model output\. For real ones: bedside-bench sweep --model "
    + re.escape(",".join(ANSWER_MODELS))
    + r" with OPENAI_API_KEY and ANTHROPIC_API_KEY set\."
)
CASES = 2


@dataclass(frozen=True)
class Demo:
    out: Path
    result: Result
    environ_before: dict[str, str]
    environ_after: dict[str, str]

    @property
    def lines(self) -> list[str]:
        return self.result.stdout.splitlines()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    out = tmp_path_factory.mktemp("demo") / "out"
    main = CONSOLE_SCRIPTS["bedside-bench"]
    seen: dict[str, dict[str, str]] = {}

    def watched(argv: list[str]) -> int | None:
        """The console script's own main, the environment read just around it (the test
        harness restores its own after every command, which would hide a change)."""
        seen["before"] = dict(os.environ)
        try:
            return main(argv)
        finally:
            seen["after"] = dict(os.environ)

    with pytest.MonkeyPatch.context() as patch:
        for name, value in USER_SETTINGS.items():
            patch.setenv(name, value)
        patch.setenv("INSPECT_CACHE_DIR", str(out.parent / "inspect-cache"))
        patch.setitem(CONSOLE_SCRIPTS, "bedside-bench", watched)
        result = bedside_bench_in_process("demo", "--out", str(out), "--cases", str(CASES))
    yield Demo(out, result, seen["before"], seen["after"])


def the_release() -> Path:
    """The release the demo takes its cases from: the public one when the tests have it."""
    return Path(REAL_RELEASE) if REAL_RELEASE else SYNTHETIC_RELEASE


def first_cases() -> set[str]:
    return {
        case["case_id"]
        for name in BENCHMARK_NAMES
        for case in read_cases(the_release(), name)[:CASES]
    }


def test_it_exits_0_saying_first_and_last_that_the_answers_are_scripted(demo: Demo) -> None:
    assert demo.result.returncode == 0, output(demo.result)
    assert demo.lines[0] == FIRST_LINE
    assert LAST_LINE.fullmatch(demo.lines[-1]), demo.lines[-1]


def test_it_names_the_cases_and_where_the_models_are(demo: Demo) -> None:
    origin = "$BEDSIDE_BENCH_DATA" if REAL_RELEASE else "the synthetic release shipped with the "
    assert f"demo: cases: {10 * CASES} " in demo.result.stdout
    assert f"{CASES} per benchmark" in demo.result.stdout and origin in demo.result.stdout
    said = [line for line in demo.lines if line.startswith(f"demo: {ANSWER_MODELS[0]} and ")]
    assert len(said) == 1 and re.fullmatch(
        rf"demo: {' and '.join(ANSWER_MODELS)} answer, {JUDGE_MODEL} judges: all three are the "
        r"provider doubles at http://127\.0\.0\.1:\d+",
        said[0],
    ), said


def test_every_case_is_scored_as_the_protocol_scores_the_scripted_answers(demo: Demo) -> None:
    logs = read_logs(demo.out / "logs")
    assert len(logs) == len(ANSWER_MODELS) * len(BENCHMARK_NAMES)
    expected = expected_scores(the_release(), ANSWER_MODELS)
    chosen = first_cases()
    expected = {key: value for key, value in expected.items() if key[1] in chosen}
    assert_scored_once(logs, expected, cases=len(ANSWER_MODELS) * len(chosen))


def test_the_doubles_answered_each_case_once_per_model_and_judged_it_once(demo: Demo) -> None:
    calls = len(ANSWER_MODELS) * 10 * CASES
    assert re.search(
        rf"^demo: the doubles answered {calls} answer and {calls} judge calls \(\d+ requests "
        r"in all\); no API key was read or sent$",
        demo.result.stdout,
        re.MULTILINE,
    ), output(demo.result)


def headline(demo: Demo) -> list[list[str]]:
    """The ranking's rows (rank, model, overall, ...), as the terminal shows them."""
    start = next(i for i, line in enumerate(demo.lines) if line.startswith("rank  model"))
    rows = []
    for line in demo.lines[start + 2 :]:
        if not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


def test_the_ranking_names_both_models_by_their_overall_score(demo: Demo) -> None:
    by_model = summaries(demo.out / "report")
    means = {model: by_model[model]["overall"]["mean"] for model in ANSWER_MODELS}
    best_first = sorted(ANSWER_MODELS, key=lambda m: -means[m])
    assert [row[:3] for row in headline(demo)] == [
        [
            str(rank),
            model,
            f"{means[model]:.3f} " + "[{:.3f}, {:.3f}]".format(*by_model[model]["overall"]["ci95"]),
        ]
        for rank, model in enumerate(best_first, start=1)
    ]


def test_the_verdict_line_states_their_difference(demo: Demo) -> None:
    higher, lower = (row[1] for row in headline(demo))
    comparison = json.loads((demo.out / "report" / "comparison.json").read_text())
    (verdict,) = comparison["verdicts"]
    assert (verdict["higher"], verdict["lower"]) == (higher, lower)
    at = demo.lines.index("verdict (higher-ranked minus lower-ranked, overall, paired 95% CI):")
    assert verdict["n"] == 10 * CASES
    lo, hi = verdict["ci95"]
    stated = f"  {higher} minus {lower}: {verdict['difference']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    assert demo.lines[at + 1].startswith(stated), demo.lines[at + 1]
    words = {
        "ahead": f": {higher} is ahead",
        "behind": f": {higher} is behind on the cases both completed",
        "not distinguishable": f": not distinguishable on these {verdict['n']} cases",
    }
    assert demo.lines[at + 1].endswith(words[verdict["verdict"]]), demo.lines[at + 1]


def test_every_output_says_it_is_a_demo(demo: Demo) -> None:
    marker = (demo.out / "DEMO.txt").read_text()
    assert "scripted stand-in" in marker and f'"{DEMO_TAG}"' in marker
    for log in read_logs(demo.out / "logs"):
        assert log.eval.tags == [DEMO_TAG], log.location
    for model, summary in summaries(demo.out / "report").items():
        assert summary["notes"][0] == DEMO_NOTE, model
    markdown = (demo.out / "report" / "report.md").read_text()
    assert markdown.startswith("# BedsideBench report (DEMO: scripted answers)\n")
    assert "(DEMO: scripted answers)</h1>" in (demo.out / "report" / "report.html").read_text()
    assert "<title>BedsideBench report (DEMO: scripted answers)</title>" in (
        (demo.out / "report" / "report.html").read_text()
    )
    assert f"! every model: {DEMO_NOTE}" in demo.lines


def test_it_says_where_the_logs_and_report_are_and_how_to_open_them(demo: Demo) -> None:
    logs, report = demo.out / "logs", demo.out / "report" / "report.html"
    assert f"demo: logs in {logs}: browse every answer and judge decision with " in (
        demo.result.stdout
    )
    assert f"`inspect view --log-dir {logs}`" in demo.result.stdout
    assert f"demo: report in {report} (open it in a browser, or run the demo with --open)" in (
        demo.result.stdout
    )
    assert report.is_file()


def test_the_environment_is_as_it_was(demo: Demo) -> None:
    assert demo.environ_before.items() >= USER_SETTINGS.items()
    assert demo.environ_after == demo.environ_before


def test_no_setting_of_the_user_reached_anything(demo: Demo) -> None:
    """The answers came from the doubles (the user's base URL is a closed port) and no key of
    the user's is in any file, log or line the demo wrote."""
    logs = read_logs(demo.out / "logs")
    base_urls = {log.eval.model_base_url for log in logs}
    base_urls |= {log.eval.model_roles["grader"].base_url for log in logs if log.eval.model_roles}
    assert len(base_urls) == 2 and all(
        re.fullmatch(r"http://127\.0\.0\.1:\d+(/v1)?", str(url)) for url in base_urls
    ), base_urls
    named = [
        *file_texts(demo.out),
        ("stdout", demo.result.stdout.encode()),
        ("stderr", demo.result.stderr.encode()),
    ]
    assert leaks(SECRETS, named) == []


def test_the_console_script_runs_the_demo_in_its_own_folder(tmp_path: Path) -> None:
    """As typed in a new folder, a process of its own with a user's provider settings:
    `bedside-bench demo --cases 1` writes ./bedside-bench-demo."""
    env = {**os.environ, **USER_SETTINGS}
    result = run_console_script(
        "bedside-bench", "demo", "--cases", "1", "--synthetic", env=env, cwd=tmp_path
    )
    assert result.returncode == 0, output(result)
    lines = result.stdout.splitlines()
    assert (lines[0], bool(LAST_LINE.fullmatch(lines[-1]))) == (FIRST_LINE, True)
    out = tmp_path / "bedside-bench-demo"
    assert sorted(os.listdir(out)) == ["DEMO.txt", "logs", "release", "report"]
    assert (out / "report" / "report.html").is_file()
    named = [
        *file_texts(out),
        ("stdout", result.stdout.encode()),
        ("stderr", result.stderr.encode()),
    ]
    assert leaks(SECRETS, named) == []


def test_piped_it_shows_plain_progress_lines_not_inspects_panels(demo: Demo) -> None:
    """Its output here is not a terminal, as in a CI log or `| tee`: Inspect's display is
    off and the last progress line counts every case of both models."""
    runs = CASES * len(BENCHMARK_NAMES) * len(ANSWER_MODELS)
    progress = [line for line in demo.lines if line.startswith("demo: ") and "cases done" in line]
    assert progress and progress[-1].startswith(f"demo: {runs} cases done, 0 to go, 0 failed ")
    assert not any(mark in demo.result.stdout for mark in ("╭", "│", "╰"))
