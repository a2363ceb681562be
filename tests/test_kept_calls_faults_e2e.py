"""Bookkeeping never costs an answer: whatever happens to the index of kept calls or to
Inspect's cache folder during a run (gone, a file where a folder should be, read-only, a full
disk, corrupt bytes), every case is scored as usual, each answer and judge call is bought once
(the ledger), one warning names the path, and the complete run leaves no kept entry behind.
And a kept answer that made its case fail is released with the failure, so the retry meant
to fix it asks again.

Damage is injected at the boundary the package meets the OS (tests may run as root, where a
read-only mode stops no write): a folder replaced by a file, files written with bad bytes or
deleted by the provider double while the run goes on, and `open`, `os.replace` and
`Path.unlink` made to fail with EACCES or ENOSPC for paths under the damaged folder.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bedside_bench.calls import kept_calls
from bedside_bench.doubles import ParsedRequest, ProviderDouble, Script, default_judge
from tests.e2e_helpers import (
    ANSWER_MODEL,
    assert_bought_once,
    assert_scored_once,
    eval_args,
    expected_scores,
    output,
    read_logs,
    run_cli,
    sweep_env,
)
from tests.release_factory import write_release

pytestmark = pytest.mark.slow  # Inspect evals against a provider double

BENCHMARK = "drug_safety"
CASES = 3


def cache_root(tmp_path: Path) -> Path:
    """Inspect's cache folder for the test (tests/conftest.py sets INSPECT_CACHE_DIR)."""
    return tmp_path / "inspect-cache"


def left_behind(tmp_path: Path) -> list[Path]:
    """Cache entries and index files still there (a damaged folder that is a file is not)."""
    found = []
    for folder in (cache_root(tmp_path) / "generate", cache_root(tmp_path) / "bedside_bench_kept"):
        if folder.is_dir():
            found += [p for p in folder.rglob("*") if p.is_file()]
    return found


def under(path: object, folder: Path) -> bool:
    try:
        return Path(os.fspath(path)).resolve().is_relative_to(folder.resolve())  # type: ignore[arg-type]
    except (TypeError, ValueError, OSError):
        return False


def writes(mode: str) -> bool:
    return any(flag in mode for flag in "wax+")


class FullFile:
    """A file opened for writing on a full disk: it exists (opened, truncated), every write
    fails with ENOSPC."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def close(self) -> None:
        self.real.close()

    def __enter__(self) -> FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def fail_writes_under(
    monkeypatch: pytest.MonkeyPatch, folder: Path, error: int
) -> Callable[[], None]:
    """Every write under `folder` fails with `error` at the OS-call boundary: `open` for
    writing (EACCES: refused; ENOSPC: the file is made and each write fails), `os.replace`
    and `Path.unlink`; reads go through."""
    real_open = builtins.open

    def refuse(path: object) -> None:
        raise OSError(error, os.strerror(error), os.fspath(path))  # type: ignore[arg-type]

    def patched_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if writes(mode) and under(file, folder):
            if error != errno.ENOSPC:
                refuse(file)
            return FullFile(real_open(file, mode, *args, **kwargs))
        return real_open(file, mode, *args, **kwargs)

    real_replace = os.replace
    real_unlink = Path.unlink

    def patched_replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if under(dst, folder) and error != errno.ENOSPC:
            refuse(dst)
        real_replace(src, dst, *args, **kwargs)

    def patched_unlink(self: Path, missing_ok: bool = False) -> None:
        if under(self, folder) and error != errno.ENOSPC:
            refuse(self)
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(builtins, "open", patched_open)
    monkeypatch.setattr(io, "open", patched_open)
    monkeypatch.setattr(os, "replace", patched_replace)
    monkeypatch.setattr(Path, "unlink", patched_unlink)
    return monkeypatch.undo


def damage_while_judged(double: ProviderDouble, damage: Callable[[], None]) -> None:
    """Damage the index each time the judge is asked: the case's answer is kept by then."""

    def judge(request: ParsedRequest) -> str:
        damage()
        return default_judge(request)

    double.configure(script=Script(judge=judge))


@pytest.fixture
def run(
    tmp_path: Path, provider_double: ProviderDouble
) -> Iterator[Callable[..., tuple[Any, Any]]]:
    cases = write_release(tmp_path / "release", per_benchmark=CASES)[BENCHMARK]
    env = sweep_env(provider_double, tmp_path)

    def eval_once(*extra: str) -> tuple[Any, Any]:
        args = eval_args(
            BENCHMARK,
            tmp_path / "logs",
            *extra,
            task_args=[f"data_dir={tmp_path / 'release'}"],
        )
        return run_cli(args, tmp_path, env), cases

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kept_calls, "_warned", set(), raising=False)  # warned once per test
        yield eval_once


def assert_scored_as_usual(tmp_path: Path, double: ProviderDouble, result: Any, cases: Any) -> None:
    assert result.returncode == 0, output(result)
    (log,) = read_logs(tmp_path / "logs")
    assert log.status == "success", log.error
    expected = expected_scores(tmp_path / "release", [ANSWER_MODEL], [BENCHMARK])
    assert_scored_once([log], expected, CASES)
    assert_bought_once(double, cases, [ANSWER_MODEL])
    assert left_behind(tmp_path) == []


def warned_once(caplog: pytest.LogCaptureFixture, path: Path) -> None:
    """One warning, naming the damaged path (or a file in it)."""
    (warning,) = [r.getMessage() for r in caplog.records if r.name == kept_calls.__name__]
    assert str(path) in warning and "every case is scored as usual" in warning, warning


DAMAGE = [
    "index_file",
    "cache_file",
    "index_missing",
    "index_corrupt",
    "index_read_only",
    "cache_read_only",
    "disk_full",
]


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_bookkeeping_costs_no_answer(
    damage: str,
    tmp_path: Path,
    provider_double: ProviderDouble,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    run: Callable[..., tuple[Any, Any]],
) -> None:
    root = cache_root(tmp_path)
    index = root / "bedside_bench_kept"
    named = index
    if damage == "index_file":  # a file where the index folder should be
        root.mkdir(parents=True)
        index.write_text("not a folder\n")
    elif damage == "cache_file":  # a file where Inspect's cache folder should be
        root.mkdir(parents=True)
        named = root / "generate"
        named.write_text("not a folder\n")
    elif damage == "index_missing":  # the index folder deleted after the answers were kept
        damage_while_judged(provider_double, lambda: shutil.rmtree(index, ignore_errors=True))
    elif damage == "index_corrupt":  # bytes that are no line of calls, mid-line and whole

        def corrupt() -> None:
            for path in index.glob("*.jsonl"):
                with path.open("ab") as file:
                    file.write(b"\xff\xfe\x00{broken")

        damage_while_judged(provider_double, corrupt)
    elif damage == "index_read_only":
        index.mkdir(parents=True)
        fail_writes_under(monkeypatch, index, errno.EACCES)
    elif damage == "cache_read_only":
        (root / "generate").mkdir(parents=True)
        named = root / "generate"
        fail_writes_under(monkeypatch, named, errno.EACCES)
    elif damage == "disk_full":
        root.mkdir(parents=True)
        named = root
        fail_writes_under(monkeypatch, root, errno.ENOSPC)
    result, cases = run()
    monkeypatch.undo()
    assert_scored_as_usual(tmp_path, provider_double, result, cases)
    if damage in ("index_file", "cache_file"):
        assert named.read_text() == "not a folder\n"  # left as it was
    warned_once(caplog, named)


def test_under_display_none_the_warning_is_still_said_once(
    tmp_path: Path,
    provider_double: ProviderDouble,
    caplog: pytest.LogCaptureFixture,
    run: Callable[..., tuple[Any, Any]],
) -> None:
    """Inspect shows no console under `--display none` (a piped sweep runs so too): the
    warning is said on stderr all the same, once."""
    root = cache_root(tmp_path)
    root.mkdir(parents=True)
    (root / "bedside_bench_kept").write_text("not a folder\n")
    result, cases = run("--display", "none")  # Inspect takes the last --display given
    assert_scored_as_usual(tmp_path, provider_double, result, cases)
    said = [line for line in result.stderr.splitlines() if "cannot be used" in line]
    assert len(said) == 1 and "every case is scored as usual" in said[0], result.stderr


def test_a_kept_answer_that_failed_its_case_is_released_with_the_failure(
    tmp_path: Path, provider_double: ProviderDouble, run: Callable[..., tuple[Any, Any]]
) -> None:
    """An answer bought and kept, after which the case fails for want of an answer (here the
    turn limit, which Inspect checks after it stored the reply): the failure releases it, so
    `inspect eval-retry` asks for the answer again instead of replaying the one that failed
    (before, the reply was stored but listed nowhere, and every retry replayed it)."""
    result, cases = run("--turn-limit", "0")
    assert result.returncode == 0, output(result)
    (log,) = read_logs(tmp_path / "logs")
    errors = {str(s.id): s.error.message for s in log.samples or [] if s.error is not None}
    assert len(errors) == CASES, errors
    assert all("no answer: turn limit hit during the answer" in e for e in errors.values()), errors
    assert_bought_once(provider_double, cases, [ANSWER_MODEL], 0)
    assert left_behind(tmp_path) == []  # released with the failure

    retry = run_cli(
        ["eval-retry", log.location, "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
        tmp_path,
        sweep_env(provider_double, tmp_path),
    )
    assert retry.returncode == 0, output(retry)
    assert_bought_once(provider_double, cases, [ANSWER_MODEL], 0, answers_per_case=2)
