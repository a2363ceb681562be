"""`bedside-bench report -o DIR` and `bedside-bench data export -o DIR` own DIR: it holds one
whole output or the previous one. Through the CLI, over two real logs: a rerun leaves no file
of the previous output, a folder holding anything else is refused, `-o` a file, a read-only
place and a full disk are one line each with the previous output intact, and an unreadable
log is skipped with its reason.

A full disk and a read-only place are real where the test may mount a small tmpfs (root);
elsewhere the read-only case uses a folder without write permission and the full disk is
skipped (the unit tests in `test_owned_output.py` fail the one write edge instead)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from bedside_bench.core.benchmarks import BENCHMARK_NAMES
from bedside_bench.doubles import ProviderDouble
from tests.e2e_helpers import eval_ok, local_path, output, run_tool, summaries, sweep_env
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # subprocesses, an Inspect eval and a provider double

MODELS = ("openai/gpt-4.1-mini", "openai/gpt-4.1-nano")


@dataclass(frozen=True)
class Logs:
    both: Path  # a folder with one log per model
    one: Path  # a folder with the first model's log only


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    root = tmp_path_factory.mktemp("logs")
    release = root / "release"
    write_release(release, per_benchmark=2)
    with ProviderDouble() as double:
        env = sweep_env(double, root)
        eval_ok(
            BENCHMARK_NAMES[0],
            root / "both",
            env=env,
            cwd=root,
            model=",".join(MODELS),
            task_args=[f"data_dir={release}"],
        )
    (one := root / "one").mkdir()
    (first,) = (
        info.name
        for info in list_eval_logs(str(root / "both"))
        if read_eval_log(info, header_only=True).eval.model == MODELS[0]
    )
    shutil.copy(local_path(first), one)
    return Logs(root / "both", one)


def bb(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_tool("bedside-bench", *args, cwd=cwd)


def report(logs: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return bb("report", str(logs), "-o", str(out), "--resamples", "50", cwd=out.parent)


def export(logs: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return bb("data", "export", str(logs), "-o", str(out), cwd=out.parent)


def contents(folder: Path) -> dict[str, str]:
    """Every file of a folder by name, as a digest (what "intact" is compared on)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def one_error_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode != 0, output(result)
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr and len(lines) >= 1, output(result)
    line = lines[-1]
    for word in words:
        assert word in line, output(result)
    return line


def beside(folder: Path) -> list[str]:
    """Anything a writer left beside its output folder (temporary folders)."""
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}"))


@contextlib.contextmanager
def small_disk(path: Path, size: str) -> Iterator[Path]:
    path.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def read_only(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True)
    else:
        path.chmod(0o555)


def fill(disk: Path, leave: int) -> None:
    """Take all but `leave` bytes of the disk."""
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    (disk / "filler").write_bytes(b"\0" * max(0, free - leave))


# --------------------------------------------------------------------------------------------
# report


def test_a_rerun_replaces_the_whole_report(tmp_path: Path, logs: Logs) -> None:
    out = tmp_path / "report"
    first = report(logs.both, out)
    assert first.returncode == 0, output(first)
    assert set(summaries(out)) == set(MODELS)
    assert "comparison.json" in contents(out)

    second = report(logs.one, out)
    assert second.returncode == 0, output(second)
    assert set(summaries(out)) == {MODELS[0]}  # the other model's summary is gone
    assert sorted(contents(out)) == sorted(
        [p.name for p in out.glob("*.summary.json")] + ["forest.png", "report.html", "report.md"]
    )
    assert len(list(out.glob("*.summary.json"))) == 1
    assert beside(out) == []


def test_a_folder_holding_anything_else_is_refused(tmp_path: Path, logs: Logs) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for result in (report(logs.one, out), export(logs.one, out)):
        one_error_line(result, str(out), "notes.txt", "empty or new folder")
    assert contents(out) == {"notes.txt": hashlib.sha256(b"mine").hexdigest()}
    assert beside(out) == []


def test_an_output_that_is_a_file_is_refused(tmp_path: Path, logs: Logs) -> None:
    target = tmp_path / "taken"
    target.write_text("a file")
    for result in (report(logs.one, target), export(logs.one, target)):
        one_error_line(result, str(target), "is a file, not a folder")
    assert target.read_text() == "a file"


def test_a_read_only_place_keeps_the_previous_output(tmp_path: Path, logs: Logs) -> None:
    with small_disk(tmp_path / "disk", "4m") as disk:
        out, parquet = disk / "report", disk / "export"
        assert report(logs.one, out).returncode == 0
        assert export(logs.one, parquet).returncode == 0
        before = contents(out), contents(parquet)
        read_only(disk)
        one_error_line(report(logs.both, out), str(out), "Read-only file system")
        one_error_line(export(logs.both, parquet), str(parquet), "Read-only file system")
        assert (contents(out), contents(parquet)) == before
        assert beside(out) == beside(parquet) == []


def test_a_full_disk_keeps_the_previous_output(tmp_path: Path, logs: Logs) -> None:
    with small_disk(tmp_path / "disk", "4m") as disk:
        out, parquet = disk / "report", disk / "export"
        assert report(logs.one, out).returncode == 0
        assert export(logs.one, parquet).returncode == 0
        before = contents(out), contents(parquet)
        fill(disk, leave=8192)
        line = one_error_line(report(logs.both, out), str(out), "No space left on device")
        assert "the previous one is kept" in line
        one_error_line(export(logs.both, parquet), str(parquet), "No space left on device")
        assert (contents(out), contents(parquet)) == before
        assert beside(out) == beside(parquet) == []
        (disk / "filler").unlink()  # room again: the same commands now succeed
        assert report(logs.both, out).returncode == 0
        assert set(summaries(out)) == set(MODELS)


# --------------------------------------------------------------------------------------------
# data export


def test_export_skips_an_unreadable_log_with_its_reason(tmp_path: Path, logs: Logs) -> None:
    folder = tmp_path / "logs"
    shutil.copytree(logs.both, folder)
    (folder / "corrupt.eval").write_bytes(b"not a zip file")
    (folder / "empty.eval").write_bytes(b"")
    out = tmp_path / "export"
    result = export(folder, out)
    assert result.returncode == 0, output(result)
    skipped = [line for line in result.stderr.splitlines() if "skipped" in line]
    assert len(skipped) == 2 and all("cannot be read (" in line for line in skipped)
    assert {line.split("skipped ")[1].split(":")[0] for line in skipped} == {
        str(folder / "corrupt.eval"),
        str(folder / "empty.eval"),
    }
    assert "(4 scored cases from 2 logs)" in result.stdout  # 2 models x 2 cases
    reported = report(folder, tmp_path / "report")  # the report skips the same two
    assert reported.returncode == 0
    assert sum("cannot be read (" in line for line in reported.stderr.splitlines()) == 2


def test_export_rerun_replaces_its_folder(tmp_path: Path, logs: Logs) -> None:
    out = tmp_path / "export"
    assert export(logs.both, out).returncode == 0
    both = contents(out)
    again = export(logs.one, out)
    assert again.returncode == 0, output(again)
    assert list(contents(out)) == ["results.parquet"] and contents(out) != both
    assert "(2 scored cases from 1 logs)" in again.stdout
    assert beside(out) == []
