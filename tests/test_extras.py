"""A command whose extra is not installed stops at once with one line naming the extra
(`datasets` for `data export`, `botocore` for the lock of an s3:// sweep), through the
console script's own `main`; the module's absence is simulated with `sys.modules[name] =
None`, which makes every import of it fail as an uninstalled one does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bedside_bench.core.extras import MissingExtra, require
from tests.e2e_helpers import bedside_bench_in_process, sweep_into_s3


def test_data_export_without_datasets_names_the_export_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    (tmp_path / "logs").mkdir()
    result = bedside_bench_in_process(
        "data", "export", str(tmp_path / "logs"), "-o", str(tmp_path / "out")
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "bedside-bench data export: error: the Parquet export needs datasets, which is not "
        "installed: pip install 'bedside-bench[export]'\n"
    )
    assert not (tmp_path / "out").exists()  # stopped before anything was read or written


def test_sweep_on_s3_without_botocore_names_the_s3_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "botocore", None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # checked before the lock
    code, out, err = sweep_into_s3(tmp_path, capsys)
    assert (code, out) == (1, "")
    assert err == (
        "bedside-bench sweep: error: the lock of an s3:// log directory needs botocore, which "
        "is not installed: pip install 'bedside-bench[s3]'\n"
    )


def test_an_installed_module_failing_on_its_own_import_is_not_a_missing_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the module itself missing is the extra's absence: an installed one whose own
    dependency is missing raises that error, which names what is broken."""
    (tmp_path / "installed_extra.py").write_text("import dependency_of_the_extra\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "dependency_of_the_extra", None)
    with pytest.raises(ModuleNotFoundError) as raised:
        require("installed_extra", "export", "the Parquet export")
    assert raised.value.name == "dependency_of_the_extra"
    with pytest.raises(MissingExtra, match=r"^the Parquet export needs absent_extra, "):
        require("absent_extra", "export", "the Parquet export")
