"""Output folders that hold one whole output or the previous one, never a mix or a fragment.

`report` and `data export` each own their output folder: everything is written into a
temporary folder beside it, and only once every file is written is that folder swapped in
(one atomic exchange where the kernel offers it, else two renames). A full disk, a file in
the way or a read-only place is one line (`OutputError`) and leaves the previous output as it
was; files an earlier output wrote that this one does not write are gone with it. A folder
holding anything the output would not write is refused rather than replaced.

Every byte of output goes through `write_file`, the one write edge. Temporary folders carry
their writer's pid, so one left by a killed process (SIGKILL gives it no chance to tidy) is
removed by the next writer beside it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import itertools
import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

_STAGE_MARK = ".partial-"  # .<target name>.partial-<pid>-<token>


class OutputError(RuntimeError):
    """An output that cannot be written where it was asked: one line for the user."""


def write_file(path: Path, data: bytes) -> Path:
    """The one place output bytes reach the disk: a new file, flushed to the device so a full
    disk shows here and not later."""
    with open(path, "xb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    return path


def write_text(path: Path, text: str) -> Path:
    return write_file(path, text.encode("utf-8"))


def replace_file(path: Path, data: bytes) -> Path:
    """One file replaced whole: written (through `write_file`) beside it under a name of this
    writer's own, then renamed over it, so a reader sees the old file or the new one; the
    temporary file never outlives a failed write. Mode follows the umask, as Inspect's logs."""
    temp = path.with_name(f".{path.name}{_STAGE_MARK}{os.getpid()}-{secrets.token_hex(4)}")
    try:
        write_file(temp, data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    return path


def create_new_file(candidates: Iterable[Path], data: bytes) -> Path:
    """`data` whole under the first of `candidates` no file holds, never over another file:
    staged beside them, then hard-linked to the name, which fails where the name is taken, even
    by a writer in the same instant (a check, then a write, let two writers take one name).
    Where links are not supported, created exclusively and written in place."""
    names = iter(candidates)
    first = next(names)
    temp = first.with_name(f".{first.name}{_STAGE_MARK}{os.getpid()}-{secrets.token_hex(4)}")
    try:
        write_file(temp, data)
        for path in itertools.chain([first], names):
            try:
                os.link(temp, path)
                return path
            except FileExistsError:
                continue
            except OSError as ex:
                if ex.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
            try:  # no links here: the name taken exclusively, then written
                return write_file(path, data)
            except FileExistsError:
                continue
        raise FileExistsError(f"every name offered for {first} is taken")
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()


def _reason(ex: OSError) -> str:
    return ex.strerror or str(ex) if ex.errno is not None else str(ex)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stage_pid(name: str, target_name: str) -> int | None:
    """The writer pid in a temporary folder's name beside `target_name`, else None."""
    prefix = f".{target_name}{_STAGE_MARK}"
    if not name.startswith(prefix):
        return None
    pid = name[len(prefix) :].split("-", 1)[0]
    return int(pid) if pid.isdigit() else None


def remove_dead_stages(parent: Path, target_name: str) -> list[Path]:
    """Temporary folders beside the target left by writers that are gone."""
    removed = []
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            pid = stage_pid(entry.name, target_name)
            if pid is not None and pid != os.getpid() and not pid_alive(pid):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    return removed


def check_owned(target: Path, what: str, owns: Callable[[str], bool]) -> None:
    """A missing or empty folder, or one holding only files this output writes."""
    if not target.exists():
        if target.is_symlink():
            raise OutputError(f"{target} is a broken link, not a folder")
        return
    if not target.is_dir():
        raise OutputError(f"{target} is a file, not a folder; give a folder for the {what}")
    try:
        names = sorted(os.listdir(target))
    except OSError as ex:
        raise OutputError(f"cannot read {target}: {_reason(ex)}") from None
    for name in names:
        if not (owns(name) and (target / name).is_file()):
            raise OutputError(
                f"{target} holds {name!r}, which the {what} does not write; the {what} "
                f"replaces its whole folder, so give an empty or new folder"
            )


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2); False where that is not offered."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(
        _AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), ctypes.c_uint(_RENAME_EXCHANGE)
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def swap_in(stage: Path, target: Path) -> None:
    """Make `stage` the target; the previous target (if any) ends up at `stage`."""
    if not target.exists():
        os.rename(stage, target)
        return
    if _exchange(stage, target):
        return
    old = stage.with_name(stage.name + "-old")
    os.rename(target, old)
    try:
        os.rename(stage, target)
    except OSError:
        os.rename(old, target)
        raise
    os.rename(old, stage)


@contextlib.contextmanager
def replacing_folder(target: Path, what: str, owns: Callable[[str], bool]) -> Iterator[Path]:
    """A fresh folder to write the whole output into; swapped in for `target` when the block
    ends without error, removed in every case. `owns(name)`: a file name this output writes."""
    target = Path(os.path.abspath(target))
    check_owned(target, what, owns)
    parent = target.parent
    stage = parent / f".{target.name}{_STAGE_MARK}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        parent.mkdir(parents=True, exist_ok=True)
        remove_dead_stages(parent, target.name)
        stage.mkdir()
    except OSError as ex:
        raise OutputError(f"cannot write the {what} to {target}: {_reason(ex)}") from None
    try:
        yield stage
        swap_in(stage, target)
    except OSError as ex:
        raise OutputError(
            f"cannot write the {what} to {target}: {_reason(ex)}; "
            f"{'the previous one is kept' if target.exists() else 'nothing was written'}"
        ) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
