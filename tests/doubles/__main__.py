"""Run the provider double as a standalone process (for benchmark scripts).

    python -m tests.doubles --port 8765 --latency 5
    python -m tests.doubles --port 0 --fault-rate 0.1 --faults 500,429 --print-env

The first line of stdout is the port number. With --print-env, `export NAME=value` lines for
the environment follow. The server runs until SIGINT / SIGTERM (or --duration seconds).
"""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
from collections.abc import Sequence

from .server import FAULTS, ProviderDouble


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.doubles", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per response")
    parser.add_argument(
        "--judge-latency", type=float, default=None, help="seconds per judge response"
    )
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument(
        "--faults", type=_csv, default=list(FAULTS), help=f"comma list from {','.join(FAULTS)}"
    )
    parser.add_argument("--fault-kinds", type=_csv, default=None, help="e.g. answer,judge")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stall-seconds", type=float, default=30.0)
    parser.add_argument(
        "--refuse-temperature-for", type=_csv, default=[], help="comma list of model names"
    )
    parser.add_argument("--stream-chunk-delay", type=float, default=0.0)
    parser.add_argument(
        "--batch-latency", type=float, default=0.0, help="seconds a provider batch takes"
    )
    parser.add_argument("--record", default=None, help="append a JSON line per request here")
    parser.add_argument("--print-env", action="store_true", help="print export lines")
    parser.add_argument("--openai-api-key", default=None)
    parser.add_argument("--anthropic-api-key", default=None)
    parser.add_argument("--duration", type=float, default=None, help="stop after N seconds")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    server = ProviderDouble(
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
    )
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    server.start()
    try:
        print(server.port, flush=True)
        if args.print_env:
            keys = {}
            if args.openai_api_key:
                keys["openai_api_key"] = args.openai_api_key
            if args.anthropic_api_key:
                keys["anthropic_api_key"] = args.anthropic_api_key
            for name, value in server.env(**keys).items():
                print(f"export {name}={shlex.quote(value)}", flush=True)
        stop.wait(args.duration)
    finally:
        server.stop()
        print(
            f"provider double stopped after {server.count()} requests",
            file=sys.stderr,
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
