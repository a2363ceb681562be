"""`owned_output`: a folder holds one whole output or the previous one, whatever fails while
the new one is written (a full disk at any file, another error of the writer), and nothing but
the new output's files once it is in."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bedside_bench.core import owned_output
from bedside_bench.core.owned_output import (
    OutputError,
    check_owned,
    remove_dead_stages,
    replacing_folder,
)

WRITE_FILE = owned_output.write_file


def owns(name: str) -> bool:
    return name.endswith(".out")


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def write_all(target: Path, wanted: dict[str, bytes]) -> None:
    """An output writer as the report and the export are: every file through `write_file`."""
    with replacing_folder(target, "thing", owns) as stage:
        for name, data in wanted.items():
            owned_output.write_file(stage / name, data)


def full_disk_after(files_written: int) -> Callable[[Path, bytes], Path]:
    """`write_file` on a disk that fills after `files_written` files: the next one is cut
    short and fails with ENOSPC, as every later one."""
    calls = 0

    def write(path: Path, data: bytes) -> Path:
        nonlocal calls
        calls += 1
        if calls > files_written:
            path.write_bytes(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return WRITE_FILE(path, data)

    return write


OUTPUTS = st.dictionaries(
    st.sampled_from([f"{c}.out" for c in "abcdef"]), st.binary(max_size=64), max_size=5
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(previous=OUTPUTS, new=OUTPUTS, room_for=st.integers(min_value=0, max_value=6))
def test_the_folder_holds_the_new_output_or_the_previous_one(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    previous: dict[str, bytes],
    new: dict[str, bytes],
    room_for: int,
) -> None:
    target = tmp_path_factory.mktemp("t") / "out"
    write_all(target, previous)
    assert files(target) == previous
    with monkeypatch.context() as patch:
        patch.setattr(owned_output, "write_file", full_disk_after(room_for))
        if room_for < len(new):
            with pytest.raises(OutputError) as raised:
                write_all(target, new)
            assert str(raised.value) == (
                f"cannot write the thing to {target}: No space left on device; "
                "the previous one is kept"
            )
            assert files(target) == previous
        else:
            write_all(target, new)
            assert files(target) == new  # and nothing of the previous output
    assert [p.name for p in target.parent.iterdir()] == ["out"]  # no temporary folder left


def test_an_error_of_the_writer_keeps_the_previous_output(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_all(target, {"a.out": b"1"})
    with pytest.raises(ZeroDivisionError), replacing_folder(target, "thing", owns) as stage:
        owned_output.write_file(stage / "b.out", b"2")
        _ = 1 / 0
    assert files(target) == {"a.out": b"1"}
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_the_two_rename_swap_where_the_kernel_has_no_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(owned_output, "_exchange", lambda a, b: False)
    target = tmp_path / "out"
    write_all(target, {"a.out": b"1", "b.out": b"2"})
    write_all(target, {"c.out": b"3"})
    assert files(target) == {"c.out": b"3"}
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_only_a_folder_holding_nothing_but_its_own_files_is_replaced(tmp_path: Path) -> None:
    check_owned(tmp_path / "new", "thing", owns)  # missing: fine
    (empty := tmp_path / "empty").mkdir()
    check_owned(empty, "thing", owns)
    (mine := tmp_path / "mine").mkdir()
    (mine / "a.out").write_text("")
    check_owned(mine, "thing", owns)
    (mine / "notes.txt").write_text("")
    with pytest.raises(OutputError, match=r"holds 'notes.txt', which the thing does not write"):
        check_owned(mine, "thing", owns)
    (sub := tmp_path / "sub").mkdir()
    (sub / "x.out").mkdir()  # a folder with an output's name is not an output file
    with pytest.raises(OutputError, match="holds 'x.out'"):
        check_owned(sub, "thing", owns)
    (afile := tmp_path / "afile").write_text("")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        check_owned(afile, "thing", owns)
    with pytest.raises(OutputError):
        write_all(mine, {"a.out": b""})
    assert sorted(p.name for p in mine.iterdir()) == ["a.out", "notes.txt"]


@pytest.mark.slow  # starts a process, for a pid that is surely gone
def test_a_dead_writers_temporary_folder_is_removed_by_the_next_writer(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = tmp_path / f".out.partial-{gone.pid}-0a1b2c3d"
    live = tmp_path / f".out.partial-{os.getppid()}-0a1b2c3d"
    other = tmp_path / f".other.partial-{gone.pid}-0a1b2c3d"
    for folder in (dead, live, other):
        folder.mkdir()
    assert remove_dead_stages(tmp_path, "out") == [dead]
    write_all(tmp_path / "out", {"a.out": b""})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name, "out"])


def test_a_replaced_file_is_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    """The one replace-in-place edge (`review` files, `estimate.json`): old or new, never a
    fragment; a failed write keeps the old file and leaves nothing beside it."""
    from bedside_bench.core.owned_output import replace_file

    target = tmp_path / "estimate.json"
    target.write_text("old")
    replace_file(target, b"new")
    assert target.read_text() == "new" and sorted(os.listdir(tmp_path)) == ["estimate.json"]
    with pytest.raises(IsADirectoryError):
        replace_file(tmp_path, b"x")  # renaming a file over a folder fails
    assert target.read_text() == "new" and sorted(os.listdir(tmp_path)) == ["estimate.json"]
