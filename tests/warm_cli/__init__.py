"""Console scripts started warm: the end-to-end tests' commands without Inspect's import each.

Every `inspect` or `bedside-bench` command a test runs would spend 3 to 5 s of a 2-core
machine's CPU importing Inspect, the providers' SDKs and the tasks before doing anything:
about 170 commands, a third of the suite's CPU. So, per test process, one server imports them
once (server.py) and forks a child per command; the child runs the console script's own `main`
with the command's argv, working folder, environment and standard streams. What a test starts
is a small client (client.py) that stands in for the command: its exit status is the
command's, the signals it gets reach the command, and killing it kills the command.

What the warm start changes is when the modules were imported, nothing else; a command whose
start itself is tested, or that needs its own process (its pid asserted, another package
on PYTHONPATH, other PYTHON* settings), runs cold, as does every command when
BEDSIDE_BENCH_TESTS_COLD=1 (the way to rule the warm start out when a test fails).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent
COLD = "BEDSIDE_BENCH_TESTS_COLD"
WARM_TOOLS = ("inspect", "bedside-bench")

_server: subprocess.Popen[str] | None = None
_socket: str | None = None
_server_env: dict[str, str] = {}


# settings read when a module is imported (or when Python starts), so a command whose values
# differ from the server's runs cold: Python's own, the locale, matplotlib's, fsspec's and
# s3fs's configuration, the OpenAI SDK's module-level Azure settings
START_UP_PREFIXES = ("PYTHON", "LANG", "LC_", "MPL", "FSSPEC_", "S3FS_")
START_UP_NAMES = ("OPENAI_API_TYPE", "OPENAI_API_VERSION", "AZURE_OPENAI_ENDPOINT")


def _python_settings(env: Mapping[str, str]) -> dict[str, str]:
    return {
        name: value
        for name, value in env.items()
        if name.startswith(START_UP_PREFIXES) or name in START_UP_NAMES
    }


def _warm_allowed(env: Mapping[str, str], cwd: str | os.PathLike[str] | None) -> bool:
    """Nothing the command would read at import differs from the server's (started here
    first, so its settings are known)."""
    if os.environ.get(COLD) or env.get(COLD):
        return False
    if (Path.cwd() if cwd is None else Path(cwd)).joinpath("matplotlibrc").exists():
        return False
    _start()
    return _python_settings(env) == _python_settings(_server_env)


def _start() -> str:
    global _server, _socket, _server_env
    if _socket is not None and _server is not None and _server.poll() is None:
        return _socket
    folder = tempfile.mkdtemp(prefix="warm-cli-")
    path = os.path.join(folder, "s")
    _server_env = dict(os.environ)
    errors = os.path.join(folder, "stderr")
    with open(errors, "w") as stderr:
        _server = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    assert _server.stdout is not None
    line = _server.stdout.readline()
    if not line.startswith("ready"):
        with open(errors) as written:
            raise RuntimeError(f"the warm start server did not start:\n{written.read()}")
    atexit.register(_stop)
    _socket = path
    return path


def _stop() -> None:
    if _server is not None and _server.poll() is None:
        assert _server.stdin is not None
        _server.stdin.close()  # the server ends when its standard input closes
        try:
            _server.wait(10)
        except subprocess.TimeoutExpired:
            _server.kill()
    if _socket is not None:
        shutil.rmtree(os.path.dirname(_socket), ignore_errors=True)


def command_pid(stand_in: int) -> int:
    """The pid of the command a running stand-in stands for (a cold command's own pid: its
    process is the command)."""
    if _socket is not None:
        named = os.path.join(os.path.dirname(_socket), "commands", str(stand_in))
        with contextlib.suppress(FileNotFoundError), open(named) as written:
            return int(written.read())
    return stand_in


def wait_for_command(stand_in: int, timeout: float = 30) -> None:
    """Wait until the command that client `stand_in` stood for has ended and been reaped: a
    client killed outright ends at once, its command a moment later (the server kills it)."""
    if _socket is None:
        return
    named = os.path.join(os.path.dirname(_socket), "commands", str(stand_in))
    deadline = time.monotonic() + timeout
    while os.path.exists(named):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the command of stand-in {stand_in} is still running")
        time.sleep(0.01)


def _stand_in(*what: str) -> list[str]:
    """The stand-in's command line for `what` (a console script, or `-m MODULE`)."""
    return [sys.executable, "-S", "-E", str(HERE / "client.py"), _start(), *what]


def module_command(
    module: str,
    env: Mapping[str, str] | None = None,
    warm: bool = True,
    cwd: str | os.PathLike[str] | None = None,
) -> list[str]:
    """How to start `python -m MODULE` (then its arguments), warm where `command` would be."""
    if warm and _warm_allowed(os.environ if env is None else env, cwd):
        return _stand_in("-m", module)
    return [sys.executable, "-m", module]


def command(
    tool: str,
    env: Mapping[str, str] | None = None,
    warm: bool = True,
    cwd: str | os.PathLike[str] | None = None,
) -> list[str]:
    """How to start console script `tool` (then its arguments) with environment `env`
    (None: this process's) in folder `cwd`: warm through the server where that changes
    nothing but the import, otherwise the script itself."""
    script = str(BIN / tool)
    environment = os.environ if env is None else env
    if warm and tool in WARM_TOOLS and _warm_allowed(environment, cwd):
        return _stand_in(script)
    return [script]
