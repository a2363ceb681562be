"""Paths as a shell passes them: a folder a command writes to whose name holds a byte that is
not UTF-8 (Python reads it as a lone surrogate) is refused as the command line is read, before
anything is bought; a path echoed back (`data path`, `data check`) is one printable line,
whatever it holds. Through each command's own `main(argv)`, in this process."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from bedside_bench.cli.main import main
from bedside_bench.core import exit_codes

NOT_UTF8 = "/tmp/bedside-bench-typed-\udc80-folder"
HOSTILE = "/tmp/bedside-bench-typed-\x1b[31mX\nforged line\u202e"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as ex:
            code = int(ex.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "--model", "openai/gpt-4.1", "--log-dir", NOT_UTF8],
        ["sweep", "--model", "openai/gpt-4.1", "--report-dir", NOT_UTF8],
        ["rejudge", "logs", "--judge", "openai/gpt-4.1", "-o", NOT_UTF8],
        ["demo", "--out", NOT_UTF8],
        ["report", "logs", "-o", NOT_UTF8],
        ["review", "export", "logs", "-o", NOT_UTF8],
        ["review", "score", "labels.json", "logs", "-o", NOT_UTF8],
        ["data", "export", "logs", "-o", NOT_UTF8],
    ],
)
def test_a_folder_name_that_is_not_utf8_is_refused_as_the_line_is_read(argv: list[str]) -> None:
    code, out, err = run(*argv)
    assert (code, out) == (exit_codes.USAGE, "")
    last = err.splitlines()[-1]
    assert last.endswith(
        "\\udc80-folder: the name holds bytes that are not UTF-8; logs and reports name their "
        "folder in UTF-8, so give a folder whose name is"
    ), err
    assert all(line.isprintable() for line in err.splitlines())
    assert not Path(NOT_UTF8).exists()


def test_data_paths_are_echoed_as_one_printable_line(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run("data", "check", HOSTILE)
    assert code != exit_codes.OK and out == ""
    (line,) = err.splitlines()
    assert line.isprintable() and "\\x1b[31mX\\nforged line\\u202e is not a directory" in line
    monkeypatch.setenv("BEDSIDE_BENCH_DATA", HOSTILE)
    code, out, err = run("data", "path")
    assert code != exit_codes.OK
    assert all(line.isprintable() for line in (out + err).splitlines())
    assert "path: /tmp/bedside-bench-typed-\\x1b[31mX\\nforged line\\u202e" in out.splitlines()


@pytest.mark.parametrize(
    "argv",
    [
        ["sweep", "--model", "openai/gpt-4.1", "--estimate"],
        ["rejudge", "logs", "--judge", "openai/gpt-4.1"],
    ],
)
def test_a_log_folder_from_the_environment_is_checked_as_a_typed_one(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`$INSPECT_LOG_DIR` names where a sweep or a rejudge writes when no flag does."""
    monkeypatch.setenv("INSPECT_LOG_DIR", NOT_UTF8)
    code, out, err = run(*argv)
    assert code != exit_codes.OK and out == ""
    (line,) = err.splitlines()
    assert "$INSPECT_LOG_DIR: " in line and "the name holds bytes that are not UTF-8" in line
    assert line.isprintable() and not Path(NOT_UTF8).exists()


def test_a_folder_name_longer_than_a_file_system_allows_is_refused_as_read() -> None:
    """It would fail at the first write, after the calls were paid."""
    code, out, err = run("rejudge", "logs", "--judge", "openai/gpt-4.1", "-o", "/tmp/" + "a" * 300)
    assert (code, out) == (exit_codes.USAGE, "")
    assert err.splitlines()[-1].endswith(
        "a part of the path is longer than 255 bytes, more than a file system allows in one name"
    )


def test_data_check_of_a_symlink_loop_or_a_long_name_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    for path in (tmp_path / "a", tmp_path / ("n" * 300)):
        code, out, err = run("data", "check", str(path))
        assert code != exit_codes.OK and out == ""
        (line,) = err.splitlines()
        assert line.startswith("bedside-bench data check: error: ") and line.isprintable()
