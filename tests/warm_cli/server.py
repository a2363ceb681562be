"""The warm start server: Inspect, the providers' SDKs and bedside_bench imported once, then a
fork per command, which runs the console script's own `main` with the command's argv, working
folder, environment and standard streams (see tests/warm_cli/__init__.py for why).

Single-threaded on purpose: a fork copies only the forking thread, so a server with threads
could hand a child a lock some other thread held. It polls its children instead of taking
SIGCHLD, and ends when its standard input (a pipe from the test process) closes.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import struct
import sys
import time
from dataclasses import dataclass
from pathlib import PurePath
from types import FunctionType
from typing import Any

# what a console script imports, and what its commands import later (the providers' SDKs,
# the S3 file system, the plot, the export's Parquet, every module of the package), so that
# a forked command finds them loaded
PRELOAD = (
    "inspect_ai._cli.main",
    "inspect_ai.model._providers.openai",
    "inspect_ai.model._providers.anthropic",
    "openai",
    "anthropic",
    "s3fs",
    "pyarrow.parquet",
    "bedside_bench.cli.main",
    "bedside_bench._registry",
)
PACKAGE = "bedside_bench"
# where the server stands while it imports: a folder of its own, so that a module that keeps
# the working folder of its import (a default argument `root_dir=Path.cwd()`, a module-level
# constant) can be found and given each command's working folder instead
IMPORT_FOLDER = "import-folder"
MODULE = "-m"  # in place of a console script: `python -m` the first argument
ENTRY_POINTS = {"inspect": "inspect_ai._cli.main", "bedside-bench": "bedside_bench.cli.main"}
HEADER = struct.Struct("!I")
POLL_SECONDS = 0.01


@dataclass(frozen=True)
class Command:
    """One console-script run, as the client sent it."""

    script: str  # the console script's path, argv[0] of the real command
    args: list[str]
    cwd: str
    env: dict[str, str]
    streams: list[int]  # the client's stdin, stdout and stderr, received as descriptors
    ignored: list[int]  # signals the caller ignored
    blocked: list[int]  # signals the caller blocked


def receive(connection: socket.socket) -> Command:
    """A length-prefixed JSON request; the three standard streams ride on its first bytes.
    A client that leaves (or stalls) before its request is whole raises, never hangs."""
    connection.settimeout(10)
    fds: list[int] = []
    try:
        data, fds, _flags, _addr = socket.recv_fds(connection, 65536, 3)
        while len(data) < HEADER.size or len(data) < HEADER.size + HEADER.unpack_from(data)[0]:
            more = connection.recv(65536)
            if not more:
                raise EOFError("the client left before its request was whole")
            data += more
        if len(fds) != 3:
            raise ValueError(f"expected 3 descriptors, got {len(fds)}")
        (length,) = HEADER.unpack_from(data)
        request = json.loads(data[HEADER.size : HEADER.size + length])
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    connection.settimeout(None)
    return Command(
        request["script"],
        request["args"],
        request["cwd"],
        request["env"],
        fds,
        request["ignored"],
        request["blocked"],
    )


def client_pid(connection: socket.socket) -> int:
    pid, _uid, _gid = struct.unpack(
        "3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    )
    return int(pid)


def serve(listener: socket.socket, commands: str) -> Command:
    """Fork a child per request; return only in a child, with its command. While a command
    runs, file `commands/<client pid>` holds its pid: a test that killed the client waits for
    the file to go (warm_cli.wait_for_command), as it would wait for a cold command's exit."""
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "listen")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    children: dict[int, socket.socket] = {}  # pid -> its client's connection
    stand_ins: dict[int, str] = {}  # pid -> the file naming it after its client

    def reap(pid: int, status: int) -> None:
        os.unlink(stand_ins.pop(pid))
        connection = children.pop(pid)
        selector.unregister(connection)
        with contextlib.suppress(OSError):  # the client may be gone
            connection.sendall(f"exit {status}\n".encode())
        connection.close()

    while True:
        for key, _events in selector.select(POLL_SECONDS):
            if key.data == "parent":
                if not os.read(sys.stdin.fileno(), 1024):  # the test process ended
                    for pid in children:
                        os.kill(pid, signal.SIGKILL)
                    sys.exit(0)
            elif key.data == "listen":
                connection, _ = listener.accept()
                try:
                    command = receive(connection)
                except (OSError, EOFError, ValueError):
                    connection.close()  # a client gone before its command started
                    continue
                pid = os.fork()
                if pid == 0:
                    die_with_the_server()
                    selector.close()
                    listener.close()
                    for other in children.values():
                        other.close()
                    connection.close()
                    return command
                for fd in command.streams:
                    os.close(fd)
                children[pid] = connection
                stand_ins[pid] = os.path.join(commands, str(client_pid(connection)))
                with open(stand_ins[pid], "w") as named:
                    named.write(str(pid))
                selector.register(connection, selectors.EVENT_READ, pid)
                with contextlib.suppress(OSError):  # gone: its EOF comes next, killing this
                    connection.sendall(f"pid {pid}\n".encode())
            else:  # a client forwards a signal, or has gone (killed): its command goes too
                pid, connection = key.data, key.fileobj
                assert isinstance(connection, socket.socket)
                message = connection.recv(1024)
                if not message:
                    os.kill(pid, signal.SIGKILL)
                    _, status = os.waitpid(pid, 0)
                    reap(pid, status)
                    continue
                for line in message.decode().split("\n"):
                    if line.startswith("sig "):
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, int(line[4:]))
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid in children:
                reap(pid, status)


@dataclass(frozen=True)
class KeptFolder:
    """A function's default or a module's variable that holds the import's working folder."""

    owner: Any  # a function (its __defaults__/__kwdefaults__) or a module (its namespace)
    where: str  # "__defaults__", "__kwdefaults__" or the variable's name
    key: int | str | None  # the position or keyword in the defaults; None for a variable


def _holds(value: object, folder: str) -> bool:
    return isinstance(value, (str, PurePath)) and str(value) == folder


def _functions(namespace: dict[str, Any], module: str, seen: set[int]) -> list[Any]:
    found = []
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == module and id(value) not in seen:
            seen.add(id(value))
            found += _functions(dict(vars(value)), module, seen)
        elif isinstance(value, (staticmethod, classmethod)):
            if isinstance(value.__func__, FunctionType):
                found.append(value.__func__)
        elif isinstance(value, FunctionType) and value.__module__ == module:
            found.append(value)
    return found


def kept_folders(folder: str) -> list[KeptFolder]:
    """Every place a loaded module keeps `folder`, the working folder of its import."""
    kept = []
    for name, module in list(sys.modules.items()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for variable, value in list(namespace.items()):
            if _holds(value, folder):
                kept.append(KeptFolder(module, variable, None))
        for function in _functions(namespace, name, set()):
            for position, value in enumerate(function.__defaults__ or ()):
                if _holds(value, folder):
                    kept.append(KeptFolder(function, "__defaults__", position))
            for keyword, value in (function.__kwdefaults__ or {}).items():
                if _holds(value, folder):
                    kept.append(KeptFolder(function, "__kwdefaults__", keyword))
    return kept


def move_kept_folders(kept: list[KeptFolder], folder: str) -> None:
    """Give every kept import folder the command's working folder, of the same type."""
    for place in kept:
        if place.key is None:
            old = vars(place.owner)[place.where]
            setattr(place.owner, place.where, type(old)(folder))
        elif place.where == "__defaults__":
            defaults = list(place.owner.__defaults__)
            defaults[int(place.key)] = type(defaults[int(place.key)])(folder)
            place.owner.__defaults__ = tuple(defaults)
        else:
            place.owner.__kwdefaults__[place.key] = type(place.owner.__kwdefaults__[place.key])(
                folder
            )


def become(command: Command, kept: list[KeptFolder]) -> None:
    """Turn this forked child into the command's process, as a fresh interpreter would be."""
    for target, fd in enumerate(command.streams):
        if fd != target:
            os.dup2(fd, target)
    for fd in set(command.streams) - {0, 1, 2}:
        os.close(fd)
    os.chdir(command.cwd)
    move_kept_folders(kept, os.getcwd())
    os.environ.clear()
    os.environ.update(command.env)
    if command.script == MODULE:  # `python -m NAME ARGS`: runpy puts the file in argv[0]
        sys.argv = list(command.args)
        sys.path[0] = os.getcwd()
    else:
        sys.argv = [command.script, *command.args]
        sys.path[0] = os.path.dirname(command.script)  # a console script's, not the server's
    time.tzset()  # the command's TZ
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for number in command.ignored:
        signal.signal(number, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, command.blocked)


def die_with_the_server() -> None:
    """A command never outlives its server (PR_SET_PDEATHSIG): no orphan if the server dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


def main(path: str) -> None:
    import importlib

    # imports resolve as a console script's do: its folder first, never this one or the clone
    sys.path[0] = os.path.dirname(sys.executable)
    folder = os.path.join(os.path.dirname(path), IMPORT_FOLDER)
    os.mkdir(folder)
    os.chdir(folder)
    folder = os.getcwd()
    for module in PRELOAD:
        importlib.import_module(module)
    import matplotlib

    matplotlib.use("Agg")  # as the report's plot does before its pyplot
    importlib.import_module("matplotlib.pyplot")
    package = importlib.import_module(PACKAGE)
    for found in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        if not found.name.endswith("__main__"):
            importlib.import_module(found.name)
    kept = kept_folders(folder)
    # what the imports made is never collected: out of the collector's sight, a child's
    # collections do not touch (and so copy) every page of it
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write(f"ready, keeping {len(kept)} import folders\n")
    sys.stdout.flush()
    commands = os.path.join(os.path.dirname(path), "commands")
    os.mkdir(commands)
    command = serve(listener, commands)
    become(command, kept)
    if command.script == MODULE:
        # as cold: the module itself not yet imported (runpy runs a fresh copy as __main__)
        sys.modules.pop(sys.argv[0], None)
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
        sys.exit(0)
    entry = importlib.import_module(ENTRY_POINTS[os.path.basename(command.script)])
    sys.exit(entry.main())


if __name__ == "__main__":
    main(sys.argv[1])
