"""`ProviderDouble`: one local HTTP server speaking OpenAI Chat Completions, OpenAI Responses
and Anthropic Messages, with scripted replies, recording, latency and fault injection.

It runs an aiohttp server on its own asyncio loop in a background thread, so it serves both
Inspect running in-process (`inspect_ai.eval(...)`, `Model.generate`) and CLIs run as
subprocesses. Bind address is 127.0.0.1 only.

Past 300 lines: one class whose options (script, latency, faults, holds, temperature refusals,
recording) all act on the same request path, read in one pass from arrival to reply; the
bodies are in `wire.py`, what is said in `script.py`, the batch endpoints in `batches.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

from bedside_bench.doubles import wire
from bedside_bench.doubles.batches import LINE_FAULTS, BatchApi, BatchCall
from bedside_bench.doubles.script import (
    Api,
    Kind,
    ParsedRequest,
    Reasoned,
    Reply,
    Script,
    ScriptedError,
    Stop,
    Usage,
    estimate_tokens,
    is_reasoning_model,
    scripted_usage,
)
from bedside_bench.doubles.wire import ErrorReply

Fault = Literal["500", "429", "stall", "drop"]
FAULTS: tuple[Fault, ...] = ("500", "429", "stall", "drop")
DEFAULT_OPENAI_KEY = "sk-test-double"
DEFAULT_ANTHROPIC_KEY = "sk-ant-test-double"
# variables that would route Inspect around the double (or change its auth) if inherited
CONFLICTING_ENV: tuple[str, ...] = ("ANTHROPIC_AUTH_TOKEN",)
_LOCAL_HOSTS = "127.0.0.1,localhost"
LATENCY_STEP = 0.05  # seconds: how often a waiting request reads the configured latency

TemperatureRule = Collection[str] | Callable[[str], bool]


@dataclass
class RecordedRequest:
    """One request as received and answered. `status` is None while pending and for "stall",
    "drop" and cancelled requests (no HTTP status was sent)."""

    seq: int
    time: float  # wall clock at arrival
    api: Api
    path: str
    model: str
    kind: Kind
    stream: bool
    temperature_present: bool
    temperature: float | None
    request: ParsedRequest = field(repr=False)
    status: int | None = None
    outcome: str = "pending"  # ok | error | refused | fault | script_error | cancelled | ...
    fault: str | None = None
    reply: str | None = field(default=None, repr=False)
    usage: Usage | None = None
    duration: float | None = None
    batch_id: str | None = None  # the provider batch that carried it (None: a direct call)

    def summary(self) -> dict[str, Any]:
        """JSON-able summary (no body, no headers)."""
        return {
            "seq": self.seq,
            "time": self.time,
            "api": self.api,
            "path": self.path,
            "model": self.model,
            "kind": self.kind,
            "stream": self.stream,
            "temperature_present": self.temperature_present,
            "temperature": self.temperature,
            "status": self.status,
            "outcome": self.outcome,
            "fault": self.fault,
            "usage": None if self.usage is None else self.usage.__dict__,
            "duration": self.duration,
            "batch_id": self.batch_id,
        }


class ProviderDouble:
    """Local double of the OpenAI and Anthropic HTTP APIs (see module docstring).

    Every option can be given at construction and changed while running, by assignment or with
    `configure(...)`:

    - `script`: a `Script` (answer / judge / probe callables).
    - `latency`: seconds added (non-blocking) before every response; a new value applies
      to requests already waiting too (`configure(latency=3600)` holds them all).
    - `judge_latency`: seconds before a judge response instead (None: `latency`), for a judge
      slower than the answer model.
    - `fault_rate` in [0, 1], `faults` (subset of "500", "429", "stall", "drop"), `seed`:
      each request independently draws a fault with a seeded RNG, so a retry can succeed.
      `fault_kinds` limits random faults to some request kinds (None: all).
    - `stall_seconds`: how long a "stall" holds the connection before closing it.
    - `refuse_temperature_for`: model names (as sent, "openai/"-style prefixes allowed) or a
      predicate; a request for such a model that carries `temperature` gets HTTP 400.
    - `stream_chunk_delay`: seconds between SSE events.
    - `record_path`: append a JSON line per finished request (summary only).
    - `hold_until_in_flight`: hold every request until this many are in flight at once, then
      let them all go (and every later one, until `reset()`); 0, the default, holds nothing.
      A test of concurrency can then wait for an event instead of timing a run.
    - `batch_latency`: seconds a provider batch (OpenAI Batches, Anthropic Message Batches)
      stays in progress before its lines are answered; `inject_batch` makes lines fail.
    - `bill_abandoned`: an answer or judge request whose client goes away while it waits for
      its reply (a Ctrl-C that cancels it) is billed, as a provider bills a generation it
      started: recorded with status 200 and outcome "abandoned", so the ledger counts it.
      Off by default; requests cut when the double stops are never billed.

    Batched lines are recorded like direct calls (one `RecordedRequest` each, with its
    `batch_id`) when their batch is created, and answered by the same script when it ends,
    whether or not anyone fetches the results (a provider bills them either way).
    """

    def __init__(
        self,
        *,
        port: int = 0,
        script: Script | None = None,
        latency: float = 0.0,
        judge_latency: float | None = None,
        fault_rate: float = 0.0,
        faults: Iterable[str] = FAULTS,
        seed: int = 0,
        stall_seconds: float = 30.0,
        fault_kinds: Collection[str] | None = None,
        refuse_temperature_for: TemperatureRule = (),
        stream_chunk_delay: float = 0.0,
        record_path: str | os.PathLike[str] | None = None,
        hold_until_in_flight: int = 0,
        batch_latency: float = 0.0,
        bill_abandoned: bool = False,
        host: str = "127.0.0.1",
    ) -> None:
        if host not in ("127.0.0.1", "localhost"):
            raise ValueError("the provider double binds to 127.0.0.1 only")
        self.host = "127.0.0.1"
        self._requested_port = port
        self.port = 0
        self.script = script or Script()
        self.latency = latency
        self.judge_latency = judge_latency
        self.stall_seconds = stall_seconds
        self.fault_kinds = fault_kinds
        self.refuse_temperature_for = refuse_temperature_for
        self.stream_chunk_delay = stream_chunk_delay
        self.record_path = record_path
        self.hold_until_in_flight = hold_until_in_flight
        self.batch_latency = batch_latency
        self.bill_abandoned = bill_abandoned
        self._batch_injected: list[tuple[str, str | None, str | None]] = []
        self.batches = BatchApi(self)
        self._released: asyncio.Event | None = None
        self._lock = threading.Lock()
        self._records: list[RecordedRequest] = []
        self._seq = itertools.count(1)
        self._injected: list[tuple[str, str | None]] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self.faults = faults  # validated by the property
        self.fault_rate = fault_rate
        self.seed = seed
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop_event: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None
        self._start_error: BaseException | None = None

    # ---------------------------------------------------------------------------------------
    # options

    @property
    def faults(self) -> tuple[str, ...]:
        return self._faults

    @faults.setter
    def faults(self, value: Iterable[str]) -> None:
        faults = tuple(str(f) for f in value)
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown faults {unknown}; choose from {list(FAULTS)}")
        self._faults = faults

    @property
    def fault_rate(self) -> float:
        return self._fault_rate

    @fault_rate.setter
    def fault_rate(self, value: float) -> None:
        if not 0.0 <= value <= 1.0:
            raise ValueError("fault_rate must be in [0, 1]")
        self._fault_rate = float(value)

    @property
    def seed(self) -> int:
        return self._seed

    @seed.setter
    def seed(self, value: int) -> None:
        with self._lock:
            self._seed = value
            self._rng = random.Random(value)

    def configure(self, **options: Any) -> ProviderDouble:
        """Change options at run time, e.g. `configure(latency=0.5, fault_rate=0.2)`."""
        allowed = {
            "script",
            "latency",
            "judge_latency",
            "fault_rate",
            "faults",
            "seed",
            "stall_seconds",
            "fault_kinds",
            "refuse_temperature_for",
            "stream_chunk_delay",
            "record_path",
            "hold_until_in_flight",
            "batch_latency",
            "bill_abandoned",
        }
        unknown = set(options) - allowed
        if unknown:
            raise TypeError(f"unknown options {sorted(unknown)}")
        for name, value in options.items():
            setattr(self, name, value)
        return self

    def inject(self, *faults: str, kind: str | None = None) -> ProviderDouble:
        """Queue faults for the next requests (of `kind`, if given), one per request, in order;
        queued faults are used before any random draw."""
        for fault in faults:
            if fault not in FAULTS:
                raise ValueError(f"unknown fault {fault!r}; choose from {list(FAULTS)}")
        with self._lock:
            self._injected.extend((fault, kind) for fault in faults)
        return self

    def inject_batch(
        self, *outcomes: str, kind: str | None = None, api: str | None = None
    ) -> ProviderDouble:
        """Queue outcomes for the next batched lines (of `kind` and `api`, if given), one per
        line, in order: "error" (the line fails with a server error) or "expired" (the batch
        ends before the line is answered). Lines without one are answered by the script."""
        for outcome in outcomes:
            if outcome not in LINE_FAULTS:
                raise ValueError(f"unknown line fault {outcome!r}; choose from {list(LINE_FAULTS)}")
        with self._lock:
            self._batch_injected.extend((outcome, kind, api) for outcome in outcomes)
        return self

    def draw_line_fault(self, kind: str, api: str) -> str | None:
        """The next queued line fault for a batched line of `kind` in `api`, if any."""
        with self._lock:
            for index, (fault, only, only_api) in enumerate(self._batch_injected):
                if (only is None or only == kind) and (only_api is None or only_api == api):
                    del self._batch_injected[index]
                    return fault
        return None

    @property
    def batch_calls(self) -> list[BatchCall]:
        """Every call to the Files and Batches endpoints (uploads, creations, polls, results)."""
        return self.batches.calls

    # ---------------------------------------------------------------------------------------
    # lifecycle

    @property
    def url(self) -> str:
        """Root URL, e.g. http://127.0.0.1:PORT (Anthropic base URL)."""
        return f"http://{self.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout: float = 10.0) -> ProviderDouble:
        if self.running:
            return self
        ready = threading.Event()
        self._start_error = None
        self._thread = threading.Thread(
            target=self._run, args=(ready,), name="provider-double", daemon=True
        )
        self._thread.start()
        if not ready.wait(timeout):
            raise RuntimeError("provider double did not start in time")
        if self._start_error is not None:
            self._thread.join(timeout)
            self._thread = None
            raise RuntimeError("provider double failed to start") from self._start_error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        thread, loop, stop_event = self._thread, self._loop, self._stop_event
        if thread is None:
            return
        if loop is not None and stop_event is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop_event.set)
        thread.join(timeout)
        self._thread = None

    def __enter__(self) -> ProviderDouble:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            try:
                loop.run_until_complete(self._startup())
            except BaseException as ex:  # report to start()
                self._start_error = ex
                return
            finally:
                ready.set()
            assert self._stop_event is not None
            loop.run_until_complete(self._stop_event.wait())
        finally:
            if self._runner is not None:
                with contextlib.suppress(Exception):
                    loop.run_until_complete(self._runner.cleanup())
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _startup(self) -> None:
        self._stop_event = asyncio.Event()
        self._released = asyncio.Event()
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._route("chat"))
        app.router.add_post("/v1/responses", self._route("responses"))
        app.router.add_post("/v1/responses/input_tokens", self._route("responses"))
        app.router.add_post("/v1/messages", self._route("anthropic"))
        app.router.add_post("/v1/messages/count_tokens", self._route("anthropic"))
        self.batches.add_routes(app.router)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        self._runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            handler_cancellation=True,
            shutdown_timeout=2.0,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self._requested_port, backlog=1024)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    # ---------------------------------------------------------------------------------------
    # environment

    def env(
        self,
        openai_api_key: str = DEFAULT_OPENAI_KEY,
        anthropic_api_key: str = DEFAULT_ANTHROPIC_KEY,
    ) -> dict[str, str]:
        """Variables that point the OpenAI and Anthropic SDKs (and Inspect) at this double."""
        # both spellings count (Python reads either), so both keep every host either names
        hosts = [
            h.strip()
            for name in ("NO_PROXY", "no_proxy")
            for h in os.environ.get(name, "").split(",")
        ]
        no_proxy = ",".join(dict.fromkeys(h for h in [*hosts, *_LOCAL_HOSTS.split(",")] if h))
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": openai_api_key,
            "ANTHROPIC_BASE_URL": self.url,
            "ANTHROPIC_API_KEY": anthropic_api_key,
            "NO_PROXY": no_proxy,
            "no_proxy": no_proxy,
        }

    def subprocess_env(self, base: Mapping[str, str] | None = None, **keys: str) -> dict[str, str]:
        """`base` (default os.environ) plus `env(**keys)`, minus `CONFLICTING_ENV`."""
        merged = dict(os.environ if base is None else base)
        for name in CONFLICTING_ENV:
            merged.pop(name, None)
        merged.update(self.env(**keys))
        return merged

    def apply_env(self, monkeypatch: Any, **keys: str) -> dict[str, str]:
        """Set `env(**keys)` with a pytest monkeypatch (and unset `CONFLICTING_ENV`)."""
        for name in CONFLICTING_ENV:
            monkeypatch.delenv(name, raising=False)
        values = self.env(**keys)
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        return values

    # ---------------------------------------------------------------------------------------
    # recording

    def requests(
        self,
        kind: str | None = None,
        api: str | None = None,
        model: str | None = None,
        batched: bool | None = None,
    ) -> list[RecordedRequest]:
        """Recorded model requests; `batched=True` only lines of batches, False only direct."""
        with self._lock:
            records = list(self._records)
        return [
            r
            for r in records
            if (kind is None or r.kind == kind)
            and (api is None or r.api == api)
            and (model is None or r.model == model)
            and (batched is None or (r.batch_id is not None) == batched)
        ]

    def count(
        self,
        kind: str | None = None,
        api: str | None = None,
        model: str | None = None,
        status: int | None = None,
        batched: bool | None = None,
    ) -> int:
        return sum(
            1
            for r in self.requests(kind=kind, api=api, model=model, batched=batched)
            if status is None or r.status == status
        )

    def reset(self) -> None:
        """Forget recorded requests, queued faults and the in-flight peak; reseed the RNG."""
        with self._lock:
            self._records.clear()
            self._injected.clear()
            self._batch_injected.clear()
            self._max_in_flight = self._in_flight
        loop, released = self._loop, self._released
        if loop is not None and released is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(released.clear)
        self.seed = self._seed

    def release_holds(self) -> None:
        """Let go of every request `hold_until_in_flight` holds, and of every later one (until
        the next `configure`): a test whose clients did not all start must not wait forever."""
        self.hold_until_in_flight = 0
        loop, released = self._loop, self._released
        if loop is not None and released is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(released.set)

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """Most requests being handled at once since start (or `reset()`)."""
        return self._max_in_flight

    def _record(self, parsed: ParsedRequest, batch_id: str | None = None) -> RecordedRequest:
        record = RecordedRequest(
            seq=next(self._seq),
            time=time.time(),
            api=parsed.api,
            path=parsed.path,
            model=parsed.model,
            kind=parsed.kind,
            stream=parsed.stream,
            temperature_present=parsed.temperature_present,
            temperature=parsed.temperature,
            request=parsed,
            batch_id=batch_id,
        )
        with self._lock:
            self._records.append(record)
            if batch_id is not None:  # queued at the provider, not an open connection
                record.outcome = "queued"
                return record
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
        return record

    def _finish(self, record: RecordedRequest, started: float) -> None:
        record.duration = time.monotonic() - started
        if record.outcome == "pending":
            record.outcome = "cancelled"
            stopping = self._stop_event is not None and self._stop_event.is_set()
            if self.bill_abandoned and record.kind in ("answer", "judge") and not stopping:
                record.status, record.outcome = 200, "abandoned"
        with self._lock:
            if record.batch_id is None:
                self._in_flight -= 1
            if self.record_path is not None:
                with open(self.record_path, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record.summary()) + "\n")

    # ---------------------------------------------------------------------------------------
    # behaviour

    async def _hold(self) -> None:
        """With `hold_until_in_flight`, wait until that many requests are in flight (or stop)."""
        wanted, released, stop = self.hold_until_in_flight, self._released, self._stop_event
        if wanted <= 0 or released is None or stop is None:
            return
        if self._in_flight >= wanted:
            released.set()
        waits = [asyncio.ensure_future(released.wait()), asyncio.ensure_future(stop.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()

    async def _sleep(self, seconds: float) -> None:
        """Sleep without blocking the loop; cut short when the server stops."""
        if seconds <= 0 or self._stop_event is None:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._stop_event.wait(), seconds)

    def _latency(self, kind: str) -> float:
        if kind == "judge" and self.judge_latency is not None:
            return self.judge_latency
        return self.latency

    async def _wait_latency(self, kind: str) -> None:
        """The latency before a response, as configured now: raising it (a provider that
        stops answering) holds requests already waiting too, not only later ones."""
        started = time.monotonic()
        while (remaining := self._latency(kind) - (time.monotonic() - started)) > 0:
            await self._sleep(min(remaining, LATENCY_STEP))

    def _draw_fault(self, kind: str) -> str | None:
        with self._lock:
            for index, (fault, only) in enumerate(self._injected):
                if only is None or only == kind:
                    del self._injected[index]
                    return fault
            if self._fault_rate <= 0 or not self._faults:
                return None
            if self.fault_kinds is not None and kind not in self.fault_kinds:
                return None
            if self._rng.random() < self._fault_rate:
                return self._rng.choice(self._faults)
            return None

    def _refuses_temperature(self, parsed: ParsedRequest) -> bool:
        if not parsed.temperature_present:
            return False
        rule = self.refuse_temperature_for
        if callable(rule):
            return bool(rule(parsed.model))
        return any(name == parsed.model or name.endswith("/" + parsed.model) for name in rule)

    @staticmethod
    def _reasons(parsed: ParsedRequest) -> bool:
        if parsed.api == "anthropic" or not is_reasoning_model(parsed.model):
            return False
        reasoning = parsed.body.get("reasoning")
        effort = (
            reasoning.get("effort")
            if isinstance(reasoning, Mapping)
            else parsed.body.get("reasoning_effort")
        )
        return effort != "none"

    def _route(self, api: Api) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.StreamResponse:
            return await self._handle(request, api)

        return handler

    async def _not_found(self, request: web.Request) -> web.StreamResponse:
        api: Api = "chat" if request.path.startswith("/v1/chat") else "responses"
        if request.path.startswith("/v1/messages"):
            api = "anthropic"
        return web.json_response(
            wire.error_body(api, 404, f"Unknown route {request.method} {request.path}"),
            status=404,
        )

    async def _handle(self, request: web.Request, api: Api) -> web.StreamResponse:
        started = time.monotonic()
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("body is not a JSON object")
        except Exception as ex:
            return web.json_response(
                wire.error_body(api, 400, f"Invalid JSON body: {ex}"), status=400
            )
        parsed = wire.parse_request(api, request.path, body, request.headers)
        record = self._record(parsed)
        try:
            await self._hold()
            return await self._respond(request, parsed, record)
        finally:
            self._finish(record, started)

    def _headers(self, api: Api, record: RecordedRequest) -> dict[str, str]:
        request_id = f"req_dbl{record.seq:08d}"
        if api == "anthropic":
            return {"request-id": request_id}
        return {"x-request-id": request_id, "openai-processing-ms": "1"}

    def _error(
        self,
        api: Api,
        record: RecordedRequest,
        status: int,
        body: dict[str, Any],
        outcome: str,
        retry_after: float | None = None,
    ) -> web.StreamResponse:
        headers = self._headers(api, record)
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        record.status = status
        record.outcome = outcome
        return web.json_response(body, status=status, headers=headers)

    def _script_reply(
        self, parsed: ParsedRequest, record: RecordedRequest
    ) -> tuple[str, Stop] | ErrorReply:
        """What the script says to a model request: its text and how it stopped (the record's
        reply and usage set), or the error the provider would answer with. Direct and batched
        calls share it."""
        api = parsed.api
        if self._refuses_temperature(parsed):
            status, body = wire.temperature_refusal(api, parsed.model)
            return ErrorReply(status, body, "refused")
        try:
            said = self.script.reply(parsed)
        except ScriptedError as ex:
            body = wire.error_body(api, ex.status, ex.message, ex.error_type, ex.param, ex.code)
            return ErrorReply(ex.status, body, "scripted_error", ex.retry_after)
        except Exception as ex:
            body = wire.error_body(api, 500, f"double script error: {ex!r}")
            return ErrorReply(500, body, "script_error")
        text, stop = (said.text, said.stop) if isinstance(said, Reply) else (said, "stop")
        if isinstance(said, Reply) and said.reasoning is not None and isinstance(text, str):
            text = Reasoned(text, said.reasoning)
        if not isinstance(text, str):  # a script is user code: its type is not checked
            body = wire.error_body(api, 500, f"double script returned {type(text).__name__}")
            return ErrorReply(500, body, "script_error")
        usage = scripted_usage(parsed.system, parsed.input_text, text, self._reasons(parsed))
        record.reply, record.usage = text, usage
        return text, stop

    @staticmethod
    def _drop(request: web.Request) -> web.StreamResponse:
        """Close the connection without sending anything."""
        transport = request.transport
        if transport is not None:
            transport.abort()
        raise asyncio.CancelledError()

    async def _respond(
        self, request: web.Request, parsed: ParsedRequest, record: RecordedRequest
    ) -> web.StreamResponse:
        api = parsed.api
        await self._wait_latency(record.kind)

        fault = self._draw_fault(record.kind)
        record.fault = fault
        if fault == "500":
            status, body = wire.fault_500(api)
            return self._error(api, record, status, body, "fault")
        if fault == "429":
            status, body = wire.fault_429(api)
            return self._error(api, record, status, body, "fault", retry_after=1)
        if fault == "stall":
            record.outcome = "stall"
            await self._sleep(self.stall_seconds)
            return self._drop(request)
        if fault == "drop":
            record.outcome = "drop"
            return self._drop(request)

        if record.kind == "count_tokens":
            tokens = estimate_tokens(parsed.system) + estimate_tokens(parsed.input_text) + 8
            record.status, record.outcome = 200, "ok"
            count: dict[str, Any] = {"input_tokens": tokens}
            if api == "responses":
                count["object"] = "response.input_tokens"
            return web.json_response(count, headers=self._headers(api, record))

        reply = self._script_reply(parsed, record)
        if isinstance(reply, ErrorReply):
            return self._error(
                api, record, reply.status, reply.body, reply.outcome, reply.retry_after
            )
        text, stop = reply
        usage = record.usage
        assert usage is not None
        seq = record.seq
        headers = self._headers(api, record)

        if not parsed.stream:
            record.status, record.outcome = 200, "ok"
            return web.json_response(
                wire.reply_body(parsed, seq, text, usage, stop), headers=headers
            )

        if api == "chat":
            stream_options = parsed.body.get("stream_options")
            include_usage = isinstance(stream_options, Mapping) and bool(
                stream_options.get("include_usage")
            )
            events = wire.chat_stream(
                f"chatcmpl-dbl{seq:08d}", parsed.model, text, usage, include_usage, stop
            )
        elif api == "responses":
            events = wire.responses_stream(
                f"resp_dbl{seq:08d}", f"msg_dbl{seq:08d}", parsed.body, text, usage, stop
            )
        else:
            events = wire.anthropic_stream(f"msg_dbl{seq:08d}", parsed.model, text, usage, stop)

        response = web.StreamResponse(
            status=200,
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-cache",
                **headers,
            },
        )
        record.status = 200
        await response.prepare(request)
        try:
            for index, event in enumerate(events):
                if index and self.stream_chunk_delay > 0:
                    await self._sleep(self.stream_chunk_delay)
                await response.write(event)
            await response.write_eof()
        except (ConnectionError, RuntimeError):
            record.outcome = "client_closed"
            return response
        record.outcome = "ok"
        return response
