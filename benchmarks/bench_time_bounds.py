"""Three time bounds the tests check only by behaviour, each measured here beside its
reference in one run:

- An unreachable Hugging Face Hub (its host on a closed port, nothing cached): the release
  lookup (`sources.resolve_source`) fails saying the Hub did not answer, after one short
  connection attempt, not minutes of retries. Against the probe's budget
  (`sources.HUB_PROBE_SECONDS`). Target: under 5 s.
- A judge reply of many objects with 64 keys each (the duplicate key check once was
  quadratic): the parse of 1,000 such objects (near the reply's size limit) against 250.
  Target: a ratio under 8 (linear gives about 4, quadratic about 16).
- The provider double's HTTP 429 with `Retry-After: 1`: the OpenAI SDK waits before its
  retry. A call refused once against a call answered at once, through Inspect's OpenAI
  provider. Target: at least 0.9 s longer.

    python3 benchmarks/bench_time_bounds.py
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bedside_bench.doubles import ProviderDouble  # noqa: E402


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def unreachable_hub() -> tuple[float, float]:
    """Seconds until the lookup fails, and the probe's budget."""
    import huggingface_hub.constants as constants

    from bedside_bench.release import sources

    os.environ.pop(sources.DATA_ENV_VAR, None)
    constants.HF_HUB_OFFLINE = False
    constants.ENDPOINT = f"http://127.0.0.1:{closed_port()}"
    constants.HF_HUB_CACHE = tempfile.mkdtemp(prefix="hub-")
    started = time.perf_counter()
    try:
        sources.resolve_source(None)
    except sources.DataSourceError as error:
        if "did not answer within" not in str(error):
            raise
    else:
        raise SystemExit("the release was found: the Hub was not unreachable")
    return time.perf_counter() - started, sources.HUB_PROBE_SECONDS


def wide_reply_parse(objects: int) -> float:
    """Seconds to refuse a reply of `objects` objects of 64 keys each (the best of three)."""
    from bedside_bench.judging.reply import JudgeReplyError, parse_decisions

    wide = json.dumps({"decisions": [{f"x{n}": n for n in range(64)} for _ in range(objects)]})
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        try:
            parse_decisions(wide, ["aa_0", "aa_1", "aa_2"])
        except JudgeReplyError:
            pass
        else:
            raise SystemExit("the wide reply was accepted")
        best = min(best, time.perf_counter() - started)
    return best


def retry_after() -> tuple[float, float]:
    """Seconds of a call refused once with 429 (Retry-After: 1), and of a call answered at
    once, through Inspect's OpenAI provider and the SDK's own retries."""
    from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, get_model

    with ProviderDouble() as double:
        os.environ.update(double.env())

        def call() -> float:
            model = get_model("openai/gpt-4.1-mini", memoize=False)
            messages: list[ChatMessage] = [ChatMessageUser(content="Which anticoagulant and why?")]
            started = time.perf_counter()
            asyncio.run(model.generate(messages, config=GenerateConfig()))
            return time.perf_counter() - started

        call()  # the client's first connection and imports, not measured
        at_once = call()
        double.inject("429")
        refused_once = call()
        outcomes = [(r.fault, r.status) for r in double.requests()[-2:]]
        if outcomes != [("429", 429), (None, 200)]:
            raise SystemExit(f"expected a 429 then a 200, got {outcomes}")
    return refused_once, at_once


def main() -> int:
    met = True
    seconds, budget = unreachable_hub()
    met &= seconds < 5
    print(f"unreachable Hub: failed in {seconds:.2f} s (probe budget {budget:g} s; target < 5 s)")

    small, large = wide_reply_parse(250), wide_reply_parse(1_000)
    ratio = large / small
    met &= ratio < 8
    print(
        f"wide judge reply: 250 objects {small * 1000:.0f} ms, 1,000 objects "
        f"{large * 1000:.0f} ms, ratio {ratio:.1f} (linear ~4, quadratic ~16; target < 8)"
    )

    refused_once, at_once = retry_after()
    waited = refused_once - at_once
    met &= waited >= 0.9
    print(
        f"429 with Retry-After 1: {refused_once:.2f} s against {at_once:.2f} s answered at "
        f"once, {waited:.2f} s longer (target >= 0.9 s)"
    )
    print("targets:", "met" if met else "missed")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
