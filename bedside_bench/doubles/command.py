"""`bedside-bench doubles serve`: the provider doubles as a process of their own, for a shell, a
CI job or a benchmark that points its clients at them.

    bedside-bench doubles serve --port 0 --print-env
    bedside-bench doubles serve --port 8765 --latency 0.5 --fault-rate 0.1 --faults 500,429

The first line of stdout is the port; with `--print-env`, `export NAME=value` lines follow
(the base URLs, the doubles' own keys and `NO_PROXY`), so `eval` of them points the OpenAI and
Anthropic SDKs, and Inspect, at the doubles; `--env-file FILE` writes the same lines to FILE in
one piece once the doubles answer (and removes it when they stop), so a script that waits
for FILE never reads half of it, nor an earlier run's.
stdout holds nothing else, for scripts to read; a line on stderr says where the doubles are
and that their answers are scripted. The doubles run until SIGINT or SIGTERM (or `--duration`
seconds), then stop with exit 0.

Its options are those of `ProviderDouble` that make sense from outside a Python process
(docs/doubles.md); a script of one's own needs the Python API (`provider_doubles`).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import get_args

from bedside_bench.core import exit_codes
from bedside_bench.core.arguments import Subcommands, add_command
from bedside_bench.core.owned_output import replace_file
from bedside_bench.doubles.script import Kind, Script, noisy_judge
from bedside_bench.doubles.server import FAULTS, ProviderDouble

PROG = "bedside-bench doubles"
FAULT_NAMES: tuple[str, ...] = FAULTS
# the kinds of request a fault can be limited to ("other" is no kind a client sends)
REQUEST_KINDS: tuple[str, ...] = tuple(k for k in get_args(Kind) if k != "other")


def comma_list(allowed: Sequence[str] | None = None) -> Callable[[str], list[str]]:
    """An argument type: a comma list, each item one of `allowed` (when given)."""

    def parse(text: str) -> list[str]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        unknown = [item for item in items if allowed is not None and item not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"{', '.join(unknown)} not one of {','.join(allowed or ())}"
            )
        return items

    return parse


def fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def port_number(text: str) -> int:
    """An argument type: a TCP port, 0 for any free one (refused here, not by the bind)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {text}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {text}")
    return value


def seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be non-negative, got {text}")
    return value


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Local stand-ins of the OpenAI and Anthropic APIs on 127.0.0.1, with scripted answers and
    judge decisions, for running the suite (or any Inspect task) without a key (docs/doubles.md)."""
    actions = parser.add_subparsers(dest="doubles_command", metavar="ACTION", required=True)
    serve = actions.add_parser(
        "serve",
        help="serve the doubles until Ctrl-C; print the port (and the environment)",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    serve.add_argument("--port", type=port_number, default=0, help="0: any free port")
    serve.add_argument(
        "--print-env",
        action="store_true",
        help="after the port, `export NAME=value` lines that point the SDKs at the doubles",
    )
    serve.add_argument("--latency", type=seconds, default=0.0, help="seconds before each reply")
    serve.add_argument(
        "--judge-latency", type=seconds, default=None, help="seconds before each judge reply"
    )
    serve.add_argument(
        "--fault-rate",
        type=fraction,
        default=0.0,
        help="share of requests answered with a fault (drawn from --faults, seeded by --seed)",
    )
    serve.add_argument(
        "--faults",
        type=comma_list(FAULT_NAMES),
        default=list(FAULT_NAMES),
        metavar="LIST",
        help=f"comma list of {','.join(FAULT_NAMES)} (default: all)",
    )
    serve.add_argument(
        "--fault-kinds",
        type=comma_list(REQUEST_KINDS),
        default=None,
        metavar="LIST",
        help=f"only requests of these kinds get faults: {','.join(REQUEST_KINDS)}",
    )
    serve.add_argument("--seed", type=int, default=0, help="seed of the fault draws")
    serve.add_argument(
        "--stall-seconds", type=seconds, default=30.0, help="how long a stall holds the line"
    )
    serve.add_argument(
        "--judge-flip-rate",
        type=fraction,
        default=0.0,
        metavar="RATE",
        help="share of judge decisions that depart from the scripted one, drawn afresh for "
        "each call (judge passes then disagree; seeded by --seed)",
    )
    serve.add_argument(
        "--refuse-temperature-for",
        type=comma_list(),
        default=[],
        metavar="MODELS",
        help="answer HTTP 400 to a request of these models that carries a temperature",
    )
    serve.add_argument(
        "--stream-chunk-delay", type=seconds, default=0.0, help="seconds between streamed events"
    )
    serve.add_argument(
        "--batch-latency", type=seconds, default=0.0, help="seconds a provider batch takes"
    )
    serve.add_argument(
        "--env-file",
        type=Path,
        metavar="FILE",
        help="write the `export` lines to FILE, a new file, whole, once the doubles answer; "
        "removed when they stop (a script waits for the file, then sources it); an existing "
        "FILE is refused, never overwritten",
    )
    serve.add_argument("--record", metavar="FILE", help="append a JSON line per request here")
    serve.add_argument("--openai-api-key", help="the key --print-env gives (any key is accepted)")
    serve.add_argument("--anthropic-api-key", help="the key --print-env gives")
    serve.add_argument("--duration", type=seconds, default=None, help="stop after N seconds")
    serve.set_defaults(doubles_handler=run_serve)


def double_from_args(args: argparse.Namespace) -> ProviderDouble:
    return ProviderDouble(
        port=args.port,
        latency=args.latency,
        judge_latency=args.judge_latency,
        fault_rate=args.fault_rate,
        faults=args.faults,
        fault_kinds=args.fault_kinds,
        seed=args.seed,
        stall_seconds=args.stall_seconds,
        refuse_temperature_for=set(args.refuse_temperature_for),
        stream_chunk_delay=args.stream_chunk_delay,
        batch_latency=args.batch_latency,
        record_path=args.record,
        script=Script(judge=noisy_judge(args.judge_flip_rate, args.seed))
        if args.judge_flip_rate
        else None,
    )


def export_lines(server: ProviderDouble, args: argparse.Namespace) -> list[str]:
    """`export NAME=value` for each variable that points the SDKs at the doubles."""
    keys = {}
    if args.openai_api_key:
        keys["openai_api_key"] = args.openai_api_key
    if args.anthropic_api_key:
        keys["anthropic_api_key"] = args.anthropic_api_key
    return [f"export {name}={shlex.quote(value)}" for name, value in server.env(**keys).items()]


def start_failure(error: RuntimeError, port: int) -> str:
    """The one line for doubles that could not listen (a fixed port another process holds)."""
    cause = error.__cause__
    if isinstance(cause, OSError) and cause.errno is not None:
        return f"cannot listen on 127.0.0.1:{port}: {os.strerror(cause.errno).lower()}"
    return f"cannot start the doubles on 127.0.0.1:{port}: {cause or error}"


def run_serve(args: argparse.Namespace) -> int:
    # the file is removed when the doubles stop: one that exists may be the user's own (a
    # `.env` holding real keys), so it is refused before anything starts, never replaced
    if args.env_file is not None and (args.env_file.exists() or args.env_file.is_symlink()):
        print(
            f"{PROG} serve: error: argument --env-file: {args.env_file} exists; give a new "
            "file (it is written when the doubles answer and removed when they stop)",
            file=sys.stderr,
        )
        return exit_codes.USAGE
    for flag, path in (("--record", args.record), ("--env-file", args.env_file)):
        # a file written only once the doubles run (the record at each request): a missing
        # folder is said now, not as a traceback or an HTTP 500 to every request
        folder = Path(path).parent if path is not None else None
        if folder is not None and not folder.is_dir():
            print(f"{PROG} serve: error: argument {flag}: no folder {folder}", file=sys.stderr)
            return exit_codes.USAGE
    server = double_from_args(args)
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        try:
            server.start()
        except RuntimeError as ex:
            print(f"{PROG} serve: error: {start_failure(ex, args.port)}", file=sys.stderr)
            return exit_codes.ERROR
        try:
            exports = export_lines(server, args)
            if args.env_file is not None:
                replace_file(args.env_file, "".join(f"{line}\n" for line in exports).encode())
            print(server.port, flush=True)
            if args.print_env:
                print("\n".join(exports), flush=True)
            print(
                f"{PROG}: OpenAI API at {server.openai_base_url}, Anthropic API at {server.url}; "
                "every answer is scripted, not model output; Ctrl-C stops",
                file=sys.stderr,
                flush=True,
            )
            stop.wait(args.duration)
        finally:
            server.stop()
            if args.env_file is not None:  # it would point at a port nothing answers
                args.env_file.unlink(missing_ok=True)
            print(f"{PROG}: stopped after {server.count()} requests", file=sys.stderr, flush=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def run_doubles_command(args: argparse.Namespace) -> int:
    code: int = args.doubles_handler(args)
    return code


def register(subcommands: Subcommands) -> None:
    """Add `doubles` to `bedside-bench` (listed in cli/main.py's COMMANDS)."""
    add_command(
        subcommands,
        "doubles",
        "local stand-ins of the OpenAI and Anthropic APIs (scripted answers), for tests and CI",
        configure_parser,
        run_doubles_command,
    )
