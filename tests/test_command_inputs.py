"""Any command line ends in an exit code of `core/exit_codes.py`, never a traceback, and a
refusal is said in one printable, bounded line: `sweep`, `report` and `rejudge` given flag
values of any bytes a shell hands over (full-width digits, `1_000`, huge numbers, control and
invisible characters, undecodable bytes), paths that exist or not, and files of any content
(`--prices`, `--batch`). No provider key is set, so a command line that passes every check
stops at the credentials (or is an estimate, which calls nothing): nothing here can make a
call. (`review` has its own,
tests/test_review_inputs.py.)"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bedside_bench.calls import credentials
from bedside_bench.core import exit_codes
from tests.e2e_helpers import bedside_bench_in_process
from tests.release_factory import write_release

# a word as a shell hands it over: any bytes but NUL, decoded as Python decodes argv
ARGUMENT = (
    st.binary(max_size=40)
    .filter(lambda b: b"\x00" not in b)
    .map(lambda b: b.decode("utf-8", "surrogateescape"))
)
NUMBER = st.one_of(
    st.builds(str, st.integers(0, 20)),  # mostly in range, so later checks are reached too
    st.sampled_from(
        ["0", "-1", "1", "16", "1_000", "1000000000", "9" * 40, "\uff11\uff10", "1e3", " 3 "]
    ),
    st.builds(str, st.integers(-(10**6), 10**6)),
    ARGUMENT,
)
# contents of a file a flag names: valid, malformed, hostile
CONTENT = st.one_of(
    st.sampled_from(
        [
            '{"openai/gpt-4.1-mini": {"input": 0.4, "output": 1.6}}',
            '{"openai/gpt-4.1-mini": {"input": 0.4}}',
            '{"m": {"input": 1e400, "output": 1}}',
            "size: 10\ntick: 0\n",
            "size: 100000\n",
            "[" * 100_000 + "]" * 100_000,
            "\x1b[2J\u202e" + "x" * 5000,
            "{\ud800: 1}",
        ]
    ),
    st.text(max_size=200),
)
FLAGS = {
    "sweep": {
        "--judge-retries": NUMBER,
        "--max-connections": NUMBER,
        "--judge-max-connections": NUMBER,
        "--max-retries": NUMBER,
        "--timeout": NUMBER,
        "--attempt-timeout": NUMBER,
        "--retry-attempts": NUMBER,
        "--retry-on-error": NUMBER,
        "--batch": st.one_of(NUMBER, st.just("FILE")),
        "--shard": st.one_of(NUMBER, st.sampled_from(["1/2", "3/2", "1/0"])),
        "--prices": st.one_of(st.just("FILE"), ARGUMENT),
        "-T": st.one_of(
            st.builds(
                lambda n, v: f"{n}={v}", st.sampled_from(["judge_passes", "grading"]), NUMBER
            ),
            ARGUMENT,
        ),
        "--benchmarks": st.one_of(st.just("drug_safety"), ARGUMENT),
        "--display": st.one_of(st.sampled_from(["none", "plain"]), ARGUMENT),
        # inside the example's folder (the working folder): a name of any bytes, the file
        "--log-dir": st.one_of(st.just("FILE"), ARGUMENT.map(lambda w: "d_" + w.replace("/", "_"))),
        "--report-dir": st.one_of(st.just("."), ARGUMENT.map(lambda w: "r_" + w.replace("/", "_"))),
    },
    "report": {
        "--resamples": NUMBER,
        "--seed": NUMBER,
        "--prices": st.one_of(st.just("FILE"), ARGUMENT),
    },
    "rejudge": {
        "--judge-passes": NUMBER,
        "--checkpoint": NUMBER,
        "--display": st.one_of(st.just("none"), ARGUMENT),
    },
}
MAX_LINE = 2_200


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[str, list[str], str]:
    command = draw(st.sampled_from(sorted(FLAGS)))
    # the estimate builds the tasks (every -T and data check) and makes no call, where a
    # sweep without it stops at the credentials first
    words: list[str] = ["--estimate"] if command == "sweep" and draw(st.booleans()) else []
    for _ in range(draw(st.integers(0, 3))):
        flag = draw(st.sampled_from(sorted(FLAGS[command])))
        words += [flag, draw(FLAGS[command][flag])]
    return command, words, draw(CONTENT)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("release")
    write_release(root, per_benchmark=1)
    return root


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], Path]]:
    """A fresh folder per hypothesis example, the working folder, with no provider key."""
    for name in credentials.PROVIDER_SECRET_VARIABLES:
        monkeypatch.delenv(name, raising=False)

    def make() -> Path:
        folder = Path(tempfile.mkdtemp(dir=tmp_path))
        monkeypatch.chdir(folder)
        return folder

    yield make
    shutil.rmtree(tmp_path, ignore_errors=True)


def argv_of(command: str, words: list[str], file: Path, release: Path, folder: Path) -> list[str]:
    words = [str(file) if w == "FILE" else w for w in words]
    if command == "sweep":
        return [
            "sweep",
            *("--model", "openai/gpt-4.1-mini", "--judge", "openai/gpt-4.1"),
            *("--data-dir", str(release), "--log-dir", str(folder / "logs")),
            *words,
        ]
    if command == "report":
        return ["report", str(folder / "logs"), "-o", str(folder / "out"), *words]
    return ["rejudge", str(folder / "logs"), "--judge", "openai/gpt-4.1", *words]


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=command_lines())
def test_any_command_line_ends_in_an_exit_code_and_one_line_never_a_traceback(
    release: Path, scratch: Callable[[], Path], line: tuple[str, list[str], str]
) -> None:
    command, words, content = line
    folder = scratch()
    (folder / "logs").mkdir()
    file = folder / "given.json"
    file.write_bytes(content.encode("utf-8", "surrogatepass"))
    result = bedside_bench_in_process(*argv_of(command, words, file, release, folder))
    said = result.stderr.rstrip("\n").split("\n")[-1].split(": ")[2:3]
    event(f"{command} exit {result.returncode}: {said[0][:25] if said else ''}")
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode in exit_codes.MEANINGS, result
    assert result.returncode != exit_codes.OK or command == "report" or "--estimate" in words
    if result.returncode == exit_codes.USAGE:  # argparse: its usage, then one line
        last = result.stderr.rstrip("\n").split("\n")[-1]
        assert last.startswith(f"bedside-bench {command}: error: "), result.stderr
    elif result.returncode == exit_codes.ERROR:
        lines = result.stderr.rstrip("\n").split("\n")
        assert lines[0].startswith(f"bedside-bench {command}: error: "), result.stderr
        assert len(lines) == 1 or lines[0].endswith("nothing was evaluated:"), result.stderr
    for shown in result.stderr.splitlines():
        assert shown.isprintable() and len(shown) <= MAX_LINE, shown[:300]
