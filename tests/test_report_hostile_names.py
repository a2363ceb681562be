"""Hostile model and judge names: refused where a user types them, shown safely where a log
(which anyone can write) gives them.

A name with a control character (a line break, ESC and the terminal escapes it starts, DEL,
C1), a lone surrogate or a bidi control is refused by the sweep and by rejudge in one line
(`core/model_names.py` `unshowable`). Read from logs, such names never stop the report: logs
are built with Inspect's classes (tests/log_factory.py) and written with Inspect's writer, the
report's `main(argv)` reads them, and no such character reaches its stdout, its stderr, the
Markdown, the HTML or the JSON files as written; the JSON still holds each name exactly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.log import read_eval_log

from bedside_bench.cli.main import main as bedside_bench_main
from bedside_bench.core import exit_codes
from bedside_bench.core.model_names import unshowable
from bedside_bench.core.safe_text import printable_lines
from bedside_bench.rejudge.options import PROG as REJUDGE
from bedside_bench.report.__main__ import main as report_main
from bedside_bench.sweep.options import PROG as SWEEP
from tests.e2e_helpers import swept_options
from tests.log_factory import eval_log, write
from tests.test_report_case_checks import BENCHMARK, RELEASE, scored

# what must never be shown raw, written out from the rule (not from the package): C0 controls
# but the line feed that ends a line, DEL, C1, the line and paragraph separators, lone
# surrogates, and the bidi controls (marks, embeddings, overrides, isolates)
RAW = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069]"
)
# what a hostile name holds: control characters, whole terminal escapes (colour, clear the
# screen, an OSC 8 hyperlink, a C1 CSI), bidi controls and lone surrogates
HOSTILE = st.sampled_from(
    [
        "\n",
        "\r",
        "\t",
        "\x00",
        "\x07",
        "\x1b",
        "\x7f",
        "\x85",
        "\x9b31m",
        "\x1b[31m",
        "\x1b[2J\x1b[H",
        "\x1b]8;;https://example.invalid\x07link\x1b]8;;\x07",
        "\u2028",
        "\u202e",
        "\u2066",
        "\u200f",
        "\ud800",
        "\udfff",
    ]
)
PLAIN = st.text(alphabet="abcdefgh-.0123", max_size=6)
# a name with at least one hostile piece inside it, ending in a letter (a sweep strips the
# whitespace around each name of its --model list, which is split at commas: none here)
HOSTILE_NAME = st.tuples(PLAIN, HOSTILE, st.lists(st.one_of(HOSTILE, PLAIN), max_size=4)).map(
    lambda parts: f"openai/gpt{parts[0]}{parts[1]}{''.join(parts[2])}z"
)
PROPERTY_SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def raw_characters(text: str) -> list[str]:
    return [ascii(m.group()) for m in RAW.finditer(text)]


def hostile_log(folder: Path, model: str, judge: str) -> str:
    """Both cases of the benchmark answered by `model` and judged by `judge`, as a log file."""
    samples = [scored(0), scored(1)]
    for sample in samples:
        assert sample.scores is not None
        sample.scores["rubric_judge"].metadata = {
            **(sample.scores["rubric_judge"].metadata or {}),
            "judge_model": judge,
        }
    log = eval_log(
        samples,
        benchmark=BENCHMARK,
        model=model,
        judge=judge,
        metadata={"grading": "binary", "case_sha256": RELEASE, "judge_model": judge},
    )
    return write(log, folder / f"{len(list(folder.glob('*.eval')))}.eval")


def report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *logs: tuple[str, str]
) -> tuple[int, dict[str, str]]:
    """The report over one log per (model, judge): its exit code and every text it showed or
    wrote (stdout, stderr, each file but the plot)."""
    folder = tmp_path / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.eval"):
        old.unlink()
    for model, judge in logs:
        hostile_log(folder, model, judge)
    out = tmp_path / "report"
    code = report_main([str(folder), "-o", str(out), "--resamples", "20"])
    stdout, stderr = capsys.readouterr()
    shown = {"stdout": stdout, "stderr": stderr}
    for path in sorted(out.iterdir()):
        if path.suffix != ".png":
            shown[path.name] = path.read_bytes().decode("utf-8")
    return code, shown


def stored_names(tmp_path: Path) -> list[str]:
    """The answer models as Inspect's reader gives them back (what the report was given)."""
    return sorted(read_eval_log(str(p)).eval.model for p in (tmp_path / "logs").glob("*.eval"))


# --------------------------------------------------------------------------------------------
# read from logs: shown safely


@PROPERTY_SETTINGS
@given(first=HOSTILE_NAME, second=HOSTILE_NAME, judge=HOSTILE_NAME, same_judge=st.booleans())
def test_no_hostile_character_of_a_logs_names_reaches_what_the_report_shows(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    first: str,
    second: str,
    judge: str,
    same_judge: bool,
) -> None:
    """Two models' logs: judged by one judge (the comparison is made), or each by its own
    (refused as not like for like, the refusal naming the judges on stderr)."""
    second = second if second != first else second + "x"
    judges = (judge, judge) if same_judge else (judge, judge + "\x1b[0m")
    code, shown = report(tmp_path, capsys, (first, judges[0]), (second, judges[1]))
    assert code == (exit_codes.OK if same_judge else exit_codes.REFUSED), shown["stderr"]
    assert {"stdout", "stderr", "report.md", "report.html"} <= set(shown)
    for name, text in shown.items():
        assert raw_characters(text) == [], (name, ascii(text[:400]))
    # each JSON file reads back as JSON; the summaries hold each name exactly as the log did
    documents = {n: json.loads(t) for n, t in shown.items() if n.endswith(".json")}
    answer_models = sorted(
        d["answer_model"] for n, d in documents.items() if n.endswith(".summary.json")
    )
    assert answer_models == stored_names(tmp_path)


def test_a_hostile_name_is_shown_as_its_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = "openai/gpt\x1b[2J\nEVIL\u202e"
    judge = "openai/judge\x85\x1b]8;;https://example.invalid\x07"
    code, shown = report(tmp_path, capsys, (model, judge))
    assert code == exit_codes.OK
    label = "openai/gpt\\x1b[2J\\nEVIL\\u202e"  # the escapes, as text
    lines = shown["stdout"].splitlines()
    assert f"benchmark    {label}" in lines
    assert "judge openai/judge\\x85\\x1b]8;;https://example.invalid\\x07, " in lines[0]
    # Markdown escapes the backslashes of the escapes, so it shows them as they are
    assert f"| {label.replace(chr(92), chr(92) * 2)} |" in shown["report.md"]
    assert f"<td>{label}</td>" in shown["report.html"]
    (summary,) = (json.loads(t) for n, t in shown.items() if n.endswith(".summary.json"))
    assert (summary["answer_model"], summary["judge_model"]) == (model, judge)
    # in the file itself, the characters JSON does not escape are written as escapes
    (text,) = (t for n, t in shown.items() if n.endswith(".summary.json"))
    assert '"answer_model": "openai/gpt\\u001b[2J\\nEVIL\\u202e"' in text
    assert '"judge_model": "openai/judge\\u0085\\u001b]8;;https://example.invalid\\u0007"' in text


def test_two_names_alike_once_shown_get_their_group_hashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`a\\x1b` (ESC) is shown as the text `a\\\\x1b`, which a second model may be named
    literally: the labels tell the two apart by their group hashes."""
    code, shown = report(
        tmp_path, capsys, ("openai/a\x1b", "openai/judge"), ("openai/a\\x1b", "openai/judge")
    )
    assert code == exit_codes.OK
    header = next(line for line in shown["stdout"].splitlines() if line.startswith("benchmark"))
    labels = re.findall(r"openai/a\\x1b \[[0-9a-f]+\]", header)
    assert len(labels) == 2 and labels[0] != labels[1], header


# --------------------------------------------------------------------------------------------
# typed by a user: refused in one line


@PROPERTY_SETTINGS
@given(name=HOSTILE_NAME, as_judge=st.booleans())
def test_the_sweep_refuses_a_hostile_name_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    as_judge: bool,
) -> None:
    what = "judge" if as_judge else "model"
    argv = ["--model", "openai/gpt-4.1-mini", "--judge", name] if as_judge else ["--model", name]
    code, ran = swept_options(monkeypatch, *argv)
    out, err = capsys.readouterr()
    assert (code, ran, out) == (exit_codes.ERROR, [], "")
    (line,) = err.splitlines()
    assert err == line + "\n" and raw_characters(line) == []
    assert line.startswith(f"{SWEEP}: error: {what} openai/gpt"), line
    assert "a model name cannot hold control, bidi or surrogate characters (it holds " in line


def test_the_refusal_names_the_name_and_its_characters_as_escapes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, ran = swept_options(monkeypatch, "--model", "openai/gpt\x1b[31m\u202ex\x1b")
    assert (code, ran) == (exit_codes.ERROR, [])
    assert capsys.readouterr().err == (
        f"{SWEEP}: error: model openai/gpt\\x1b[31m\\u202ex\\x1b: a model name cannot hold "
        "control, bidi or surrogate characters (it holds \\x1b \\u202e)\n"
    )


def test_rejudge_refuses_a_hostile_judge_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = bedside_bench_main(["rejudge", str(tmp_path), "--judge", "openai/gpt\n\ud800"])
    assert code == exit_codes.ERROR
    assert capsys.readouterr().err == (
        f"{REJUDGE}: error: judge openai/gpt\\n\\ud800: a model name cannot hold control, "
        "bidi or surrogate characters (it holds \\n \\ud800)\n"
    )


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("openai/gpt-4.1", None),
        ("anthropic/claude-sonnet-4-6", None),
        ("openai/modèle-ü", None),  # letters of any script are names
        ("openai/a\u200bb", None),  # a zero-width space: invisible, but no control
        ("openai/a\tb", "\\t"),
        ("openai/a\x00b\x00", "\\x00"),
        ("openai/a\x7fb\x9f", "\\x7f \\x9f"),
        ("openai/a\u2029b", "\\u2029"),
        ("openai/a\u2067b\u061c", "\\u2067 \\u061c"),
        ("openai/a\udc80", "\\udc80"),
    ],
)
def test_unshowable_names_each_character_a_name_cannot_hold(name: str, reason: str | None) -> None:
    found = unshowable(name, "judge")
    if reason is None:
        assert found is None
    else:
        assert found == (
            f"judge {ascii(name)[1:-1]}: a model name cannot hold control, bidi or surrogate "
            f"characters (it holds {reason})"
        )


def test_printable_lines_keeps_line_feeds_and_escapes_the_rest() -> None:
    text = "caf\u00e9 \u00b1 0.5\nred\x1b[31m\r\u202e\ud800\x85\tend\u00a0"
    assert printable_lines(text) == (
        "caf\u00e9 \u00b1 0.5\nred\\x1b[31m\\r\\u202e\\ud800\\x85\\tend\u00a0"
    )
