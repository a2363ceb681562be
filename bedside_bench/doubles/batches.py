"""The batch endpoints of the double: OpenAI Files + Batches and Anthropic Message Batches.

Shapes follow what the SDKs call and parse (openai 3.x `files.create`, `batches.create`,
`batches.retrieve`, `files.content`; anthropic 2.x `messages.batches.create`, `retrieve`,
`results`), which is what Inspect's batchers use (`_providers/_openai_batch.py`,
`_anthropic_batch.py`). Each line of a batch is answered by the double's own script, as the
same request sent directly would be, once the batch has been in progress `batch_latency`
seconds; a line can be made to fail or expire (`ProviderDouble.inject_batch`).

Result lines, as the providers document them:

- OpenAI: `{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}` in
  the output file (status 200) or the error file (an HTTP error in `response`, or
  `"response": null, "error": {"code": "batch_expired", ...}` for a line the batch never
  reached; the batch's status is then "expired").
- Anthropic: `{"custom_id", "result": {"type": "succeeded", "message"}}`, `{"type": "errored",
  "error": {"type": "error", "error": {"type", "message"}}}` or `{"type": "expired"}`.

Past 300 lines: two providers' batch endpoints (upload, create, poll, results) over one job
state; each handler is short.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web

from bedside_bench.doubles import wire
from bedside_bench.doubles.script import Api, Stop
from bedside_bench.doubles.wire import ErrorReply

if TYPE_CHECKING:
    from bedside_bench.doubles.server import ProviderDouble, RecordedRequest

LineFault = Literal["error", "expired"]
LINE_FAULTS: tuple[LineFault, ...] = ("error", "expired")
Provider = Literal["openai", "anthropic"]
OPENAI_ENDPOINTS: dict[str, Api] = {"/v1/chat/completions": "chat", "/v1/responses": "responses"}
EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."
WINDOW_SECONDS = 24 * 3600


@dataclass(frozen=True)
class BatchCall:
    """One call to a Files or Batches endpoint."""

    time: float
    provider: Provider
    method: str
    path: str


@dataclass
class Line:
    custom_id: str
    record: RecordedRequest
    submitted: float  # time.monotonic()


@dataclass
class Job:
    """One provider batch and what became of its lines."""

    id: str
    provider: Provider
    created_at: float
    lines: list[Line]
    endpoint: str = ""  # OpenAI
    input_file_id: str = ""  # OpenAI
    ended_at: float | None = None
    expired: bool = False
    succeeded: int = 0
    errored: int = 0
    expired_lines: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    results: list[dict[str, Any]] = field(default_factory=list)  # Anthropic

    @property
    def ended(self) -> bool:
        return self.ended_at is not None


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class BatchApi:
    """The Files and Batches state of one double, and its routes."""

    def __init__(self, server: ProviderDouble) -> None:
        self.server = server
        self.calls: list[BatchCall] = []
        self.files: dict[str, tuple[str, str, bytes, float]] = {}  # id: name, purpose, data
        self.jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08d}"

    def add_routes(self, router: web.UrlDispatcher) -> None:
        openai: Provider = "openai"
        anthropic: Provider = "anthropic"
        routes: list[tuple[str, str, Provider, Callable[[web.Request], Any]]] = [
            ("POST", "/v1/files", openai, self._upload),
            ("GET", "/v1/files/{file_id}", openai, self._file),
            ("GET", "/v1/files/{file_id}/content", openai, self._content),
            ("POST", "/v1/batches", openai, self._openai_create),
            ("GET", "/v1/batches/{batch_id}", openai, self._openai_retrieve),
            ("POST", "/v1/messages/batches", anthropic, self._anthropic_create),
            ("GET", "/v1/messages/batches/{batch_id}", anthropic, self._anthropic_retrieve),
            ("GET", "/v1/messages/batches/{batch_id}/results", anthropic, self._results),
        ]
        for method, path, provider, handler in routes:
            router.add_route(method, path, self._logged(provider, handler))

    def _logged(
        self, provider: Provider, handler: Callable[[web.Request], Any]
    ) -> Callable[[web.Request], Any]:
        async def logged(request: web.Request) -> web.StreamResponse:
            with self.server._lock:
                self.calls.append(BatchCall(time.time(), provider, request.method, request.path))
            response: web.StreamResponse = await handler(request)
            return response

        return logged

    # ---------------------------------------------------------------------------------------
    # lines

    def _submit(
        self, job: Job, lines: list[tuple[str, Api, str, Mapping[str, Any]]], headers: Any
    ) -> None:
        """Record every line (queued) and schedule the batch's end."""
        for custom_id, api, path, body in lines:
            parsed = wire.parse_request(api, path, body, headers)
            record = self.server._record(parsed, batch_id=job.id)
            record.fault = self.server.draw_line_fault(record.kind, record.api)
            job.lines.append(Line(custom_id, record, time.monotonic()))
        self.jobs[job.id] = job
        asyncio.get_running_loop().call_later(max(0.0, self.server.batch_latency), self._end, job)

    def _end(self, job: Job) -> None:
        """Answer every line (the provider works through the batch and bills it), then end."""

        output: list[str] = []
        errors: list[str] = []
        for line in job.lines:
            record = line.record
            parsed = record.request
            api = parsed.api
            reply: tuple[str, Stop] | ErrorReply
            if record.fault == "expired":
                reply = ErrorReply(0, {}, "expired")
            elif record.fault == "error":
                status, body = wire.fault_500(api)
                reply = ErrorReply(status, body, "batch_error")
            else:
                reply = self.server._script_reply(parsed, record)
            if isinstance(reply, ErrorReply):
                record.outcome = reply.outcome
                if reply.outcome == "expired":
                    job.expired_lines += 1
                else:
                    record.status = reply.status
                    job.errored += 1
            else:
                assert record.usage is not None
                record.status, record.outcome = 200, "ok"
                record.reply = reply[0]
                job.succeeded += 1
            self.server._finish(record, line.submitted)
            if job.provider == "anthropic":
                job.results.append(self._anthropic_line(line, reply))
                continue
            text = json.dumps(self._openai_line(line, reply))
            (output if record.status == 200 else errors).append(text)
        if job.provider == "openai":
            job.expired = job.expired_lines > 0
            job.output_file_id = self._store("batch_output.jsonl", "batch_output", output)
            job.error_file_id = self._store("batch_errors.jsonl", "batch_output", errors)
        job.ended_at = time.time()

    def _store(self, name: str, purpose: str, lines: list[str]) -> str | None:
        if not lines:
            return None
        file_id = self._id("file-dbl")
        self.files[file_id] = (name, purpose, ("\n".join(lines) + "\n").encode(), time.time())
        return file_id

    @staticmethod
    def _openai_line(line: Line, reply: Any) -> dict[str, Any]:
        record = line.record
        seq = record.seq
        head = {"id": f"batch_req_dbl{seq:08d}", "custom_id": line.custom_id}
        if record.outcome == "expired":
            return head | {
                "response": None,
                "error": {"code": "batch_expired", "message": EXPIRED_MESSAGE},
            }
        if isinstance(reply, tuple):
            assert record.usage is not None
            text, stop = reply
            status, body = 200, wire.reply_body(record.request, seq, text, record.usage, stop)
        else:
            status, body = reply.status, reply.body
        response = {"status_code": status, "request_id": f"req_dbl{seq:08d}", "body": body}
        return head | {"response": response, "error": None}

    @staticmethod
    def _anthropic_line(line: Line, reply: Any) -> dict[str, Any]:
        record = line.record
        if record.outcome == "expired":
            result: dict[str, Any] = {"type": "expired"}
        elif isinstance(reply, tuple):
            assert record.usage is not None
            text, stop = reply
            message = wire.reply_body(record.request, record.seq, text, record.usage, stop)
            result = {"type": "succeeded", "message": message}
        else:
            result = {"type": "errored", "error": reply.body}
        return {"custom_id": line.custom_id, "result": result}

    # ---------------------------------------------------------------------------------------
    # OpenAI Files + Batches

    @staticmethod
    def _not_found(api: Api, what: str) -> web.Response:
        return web.json_response(wire.error_body(api, 404, f"No such {what}"), status=404)

    async def _upload(self, request: web.Request) -> web.StreamResponse:
        form = await request.post()
        upload = form.get("file")
        purpose = str(form.get("purpose", ""))
        if not isinstance(upload, web.FileField) or purpose != "batch":
            message = "Expected a multipart upload with a file and purpose=batch"
            return web.json_response(wire.error_body("responses", 400, message), status=400)
        data = upload.file.read()
        file_id = self._id("file-dbl")
        self.files[file_id] = (upload.filename or "batch.jsonl", purpose, data, time.time())
        return web.json_response(self._file_object(file_id))

    def _file_object(self, file_id: str) -> dict[str, Any]:
        name, purpose, data, created = self.files[file_id]
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": int(created),
            "filename": name,
            "purpose": purpose,
            "status": "processed",
            "expires_at": None,
            "status_details": None,
        }

    async def _file(self, request: web.Request) -> web.StreamResponse:
        file_id = request.match_info["file_id"]
        if file_id not in self.files:
            return self._not_found("responses", f"file {file_id}")
        return web.json_response(self._file_object(file_id))

    async def _content(self, request: web.Request) -> web.StreamResponse:
        file_id = request.match_info["file_id"]
        if file_id not in self.files:
            return self._not_found("responses", f"file {file_id}")
        data = self.files[file_id][2]
        return web.Response(body=data, content_type="application/octet-stream")

    async def _openai_create(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        endpoint = str(body.get("endpoint", ""))
        file_id = str(body.get("input_file_id", ""))
        if endpoint not in OPENAI_ENDPOINTS:
            message = f"endpoint {endpoint!r} is not supported by the double"
            return web.json_response(wire.error_body("responses", 400, message), status=400)
        if file_id not in self.files:
            return self._not_found("responses", f"file {file_id}")
        lines = []
        for text in self.files[file_id][2].decode().splitlines():
            if not text.strip():
                continue
            item = json.loads(text)
            url = str(item.get("url", endpoint))
            lines.append((str(item["custom_id"]), OPENAI_ENDPOINTS[endpoint], url, item["body"]))
        job = Job(
            self._id("batch_dbl"),
            "openai",
            time.time(),
            [],
            endpoint=endpoint,
            input_file_id=file_id,
        )
        self._submit(job, lines, request.headers)
        return web.json_response(self._openai_object(job))

    async def _openai_retrieve(self, request: web.Request) -> web.StreamResponse:
        job = self.jobs.get(request.match_info["batch_id"])
        if job is None or job.provider != "openai":
            return self._not_found("responses", f"batch {request.match_info['batch_id']}")
        return web.json_response(self._openai_object(job))

    @staticmethod
    def _openai_object(job: Job) -> dict[str, Any]:
        created = int(job.created_at)
        ended = None if job.ended_at is None else int(job.ended_at)
        status = "in_progress" if not job.ended else "expired" if job.expired else "completed"
        return {
            "id": job.id,
            "object": "batch",
            "endpoint": job.endpoint,
            "errors": None,
            "input_file_id": job.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": job.output_file_id,
            "error_file_id": job.error_file_id,
            "created_at": created,
            "in_progress_at": created,
            "expires_at": created + WINDOW_SECONDS,
            "finalizing_at": ended,
            "completed_at": ended if status == "completed" else None,
            "failed_at": None,
            "expired_at": ended if status == "expired" else None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": {
                "total": len(job.lines),
                "completed": job.succeeded,
                "failed": job.errored + job.expired_lines,
            },
            "metadata": None,
        }

    # ---------------------------------------------------------------------------------------
    # Anthropic Message Batches

    async def _anthropic_create(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            message = "requests: a non-empty list is required"
            return web.json_response(wire.error_body("anthropic", 400, message), status=400)
        lines = [
            (str(item["custom_id"]), "anthropic", "/v1/messages", item["params"])
            for item in requests
        ]
        job = Job(self._id("msgbatch_dbl"), "anthropic", time.time(), [])
        self._submit(job, lines, request.headers)  # type: ignore[arg-type]
        return web.json_response(self._anthropic_object(job))

    async def _anthropic_retrieve(self, request: web.Request) -> web.StreamResponse:
        job = self.jobs.get(request.match_info["batch_id"])
        if job is None or job.provider != "anthropic":
            return self._not_found("anthropic", f"batch {request.match_info['batch_id']}")
        return web.json_response(self._anthropic_object(job))

    async def _results(self, request: web.Request) -> web.StreamResponse:
        job = self.jobs.get(request.match_info["batch_id"])
        if job is None or job.provider != "anthropic" or not job.ended:
            return self._not_found("anthropic", f"results of {request.match_info['batch_id']}")
        data = "".join(json.dumps(line) + "\n" for line in job.results)
        return web.Response(body=data.encode(), content_type="application/binary")

    def _anthropic_object(self, job: Job) -> dict[str, Any]:
        ended = job.ended_at
        processing = 0 if job.ended else len(job.lines)
        return {
            "id": job.id,
            "type": "message_batch",
            "processing_status": "ended" if job.ended else "in_progress",
            "request_counts": {
                "processing": processing,
                "succeeded": job.succeeded,
                "errored": job.errored,
                "canceled": 0,
                "expired": job.expired_lines,
            },
            "ended_at": None if ended is None else _iso(ended),
            "created_at": _iso(job.created_at),
            "expires_at": _iso(job.created_at + WINDOW_SECONDS),
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None
            if not job.ended
            else f"{self.server.url}/v1/messages/batches/{job.id}/results",
        }
