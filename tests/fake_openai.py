"""A scriptable OpenAI-compatible chat-completions server on loopback, for tests.

Real HTTP/1.1 (keep-alive, chunked transfer encoding) and real server-sent
events, so the backend under test runs its production code path. Each request
to ``.../chat/completions`` is answered by the next queued ``Reply`` (see
``enqueue``), or by ``default_reply`` once the queue is empty. Every request
is recorded in ``requests`` with what happened to its response, including
whether the client closed the connection before the response ended.

In an async test the server runs in the test's own event loop::

    async with FakeOpenAI() as server:
        server.enqueue(Reply.from_text("Basic kostar 99 kr/månad."))
        backend = OpenAIBackend(base_url=server.base_url, model="fake-model")
        ...
        assert server.requests[0].body["stream"] is True

Beside a live daphne, or from sync code, it runs in a thread with its own loop::

    with FakeOpenAI().in_thread() as server:
        settings.LLM_BASE_URL = server.base_url
        ...
        assert server.wait_for_client_close(timeout=1)

``enqueue``, ``default_reply``, ``requests`` and the waits are safe to use
from another thread than the server's.
"""

import asyncio
import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

_WORDS = re.compile(r"\S+\s*|\s+")
_POLL_SECONDS = 0.005
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found"}


@dataclass(frozen=True)
class Reply:
    """How the server answers one request.

    Steps are counted in deltas: ``cut_after=2`` sends two deltas, then closes
    the connection without finishing the chunked body (a cut stream).
    """

    deltas: Sequence[str] = ("Hej", "!")
    delay: float = 0.0  # seconds before each delta
    status: int = 200  # >= 400: a JSON error body instead of a stream
    error_message: str = "fake provider failure"
    hang: bool = False  # read the request, never answer (until the client gives up)
    cut_after: int | None = None  # close the connection after this many deltas
    stall_after: int | None = None  # go silent after this many deltas, connection open
    malformed_after: int | None = None  # send a chunk that is not JSON after this many deltas
    error_event_after: int | None = None  # send ``data: {"error": ...}`` after this many
    include_usage: bool = True  # send a usage chunk when the request asks for one
    prompt_tokens: int = 42
    raw_events: Sequence[str] | None = None  # send exactly these event data, then end

    @classmethod
    def from_text(cls, text: str, **options: Any) -> "Reply":
        """A reply streaming ``text`` word by word (each word with its trailing space)."""
        return cls(deltas=tuple(_WORDS.findall(text)), **options)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # parsed JSON, or the raw text when it isn't JSON
    received_at: float  # time.monotonic()
    reply: Reply | None = None
    deltas_sent: int = 0
    finished: bool = False  # the whole response was sent
    client_closed_at: float | None = None  # the client closed before the response ended

    @property
    def client_closed(self) -> bool:
        return self.client_closed_at is not None


class _ClientGone(Exception):
    """The client closed the connection while we were answering."""


class FakeOpenAI:
    def __init__(self, *, host: str = "127.0.0.1", default_reply: Reply | None = None) -> None:
        self.host = host
        self.port: int | None = None
        self.default_reply = default_reply or Reply()
        self.requests: list[RecordedRequest] = []
        self.connections = 0  # TCP connections accepted
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task] = set()

    # -- scripting and inspection (any thread) ---------------------------------

    @property
    def base_url(self) -> str:
        """What ``LLM_BASE_URL`` should be: ``http://127.0.0.1:<port>/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def client_closes(self) -> int:
        """How many responses the client cut short by closing the connection."""
        with self._lock:
            return sum(1 for request in self.requests if request.client_closed)

    def wait_for_client_close(self, timeout: float, count: int = 1) -> bool:
        """Block until ``count`` responses were cut short by the client; False on timeout."""
        deadline = time.monotonic() + timeout
        while self.client_closes < count:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_SECONDS)
        return True

    async def client_close(self, timeout: float, count: int = 1) -> bool:
        """``wait_for_client_close`` for async tests (polls, so any thread may run the server)."""
        deadline = time.monotonic() + timeout
        while self.client_closes < count:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(_POLL_SECONDS)
        return True

    # -- running ---------------------------------------------------------------

    async def start(self) -> "FakeOpenAI":
        self._server = await asyncio.start_server(self._serve_connection, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for handler in list(self._handlers):
            handler.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> "FakeOpenAI":
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @contextmanager
    def in_thread(self) -> Iterator["FakeOpenAI"]:
        """Run the server in a daemon thread with its own event loop."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:  # reported to the starting thread below
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.stop())
            loop.close()

        thread = threading.Thread(target=run, name="fake-openai", daemon=True)
        thread.start()
        ready.wait(10)
        if failure or self.port is None:
            raise RuntimeError("the fake OpenAI server did not start") from (
                failure[0] if failure else None
            )
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)

    # -- HTTP ------------------------------------------------------------------

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        # asyncio (3.11) logs an error when the task it started for a
        # connection ends cancelled, so ``stop`` cancels this inner task instead.
        handler = asyncio.ensure_future(self._converse(reader, writer))
        self._handlers.add(handler)
        try:
            await asyncio.wait({handler})
        finally:
            self._handlers.discard(handler)
            writer.close()

    async def _converse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer requests on one keep-alive connection until either side closes it."""
        self.connections += 1
        try:
            while True:
                record = await self._read_request(reader)
                if record is None:
                    return
                if not await self._answer(record, reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, _ClientGone):
            return

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return None
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, path, _ = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", 0)))
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        record = RecordedRequest(method, path, headers, body, time.monotonic())
        with self._lock:
            self.requests.append(record)
        return record

    def _next_reply(self) -> Reply:
        with self._lock:
            return self._queue.popleft() if self._queue else self.default_reply

    async def _answer(
        self, record: RecordedRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; False when the connection must close afterwards."""
        if record.method != "POST" or not record.path.endswith("/chat/completions"):
            await self._send_json(writer, 404, {"error": {"message": f"no route {record.path}"}})
            return True
        reply = record.reply = self._next_reply()
        # The client sends nothing while it reads a response, so a read that
        # completes means it closed the connection (EOF or reset).
        gone = asyncio.ensure_future(reader.read(1))
        try:
            if reply.hang:
                await self._until_client_closes(record, gone)
            if reply.status >= 400:
                message = {"error": {"message": reply.error_message, "type": "fake_error"}}
                await self._send_json(writer, reply.status, message)
                record.finished = True
                return True
            return await self._stream(record, reply, writer, gone)
        finally:
            gone.cancel()
            await asyncio.wait({gone})

    async def _stream(
        self,
        record: RecordedRequest,
        reply: Reply,
        writer: asyncio.StreamWriter,
        gone: asyncio.Future,
    ) -> bool:
        writer.write(
            b"HTTP/1.1 200 OK\r\n"
            b"Content-Type: text/event-stream; charset=utf-8\r\n"
            b"Cache-Control: no-cache\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        body = record.body if isinstance(record.body, dict) else {}
        model = body.get("model", "fake")

        async def send(data: str) -> None:
            if gone.done():
                raise self._client_gone(record)
            payload = f"data: {data}\n\n".encode()
            writer.write(b"%x\r\n%s\r\n" % (len(payload), payload))
            try:
                await writer.drain()
            except ConnectionError as exc:
                raise self._client_gone(record) from exc

        if reply.raw_events is not None:
            for data in reply.raw_events:
                await send(data)
        else:
            await send(_chunk(model, {"role": "assistant", "content": ""}))
            for sent in range(len(reply.deltas) + 1):
                if sent == reply.cut_after:
                    await writer.drain()
                    return False
                if sent == reply.stall_after:
                    await self._until_client_closes(record, gone)
                if sent == reply.malformed_after:
                    await send('{"choices": [{"delta": {"content": "broken')
                if sent == reply.error_event_after:
                    await send(json.dumps({"error": {"message": reply.error_message}}))
                if sent == len(reply.deltas):
                    break
                if reply.delay:
                    await asyncio.wait({gone}, timeout=reply.delay)
                await send(_chunk(model, {"content": reply.deltas[sent]}))
                record.deltas_sent += 1
            await send(_chunk(model, {}, finish_reason="stop"))
            options = body.get("stream_options") or {}
            if reply.include_usage and options.get("include_usage"):
                completion = len(reply.deltas)
                usage = {
                    "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": completion,
                    "total_tokens": reply.prompt_tokens + completion,
                }
                await send(json.dumps({"id": "chatcmpl-fake", "choices": [], "usage": usage}))
            await send("[DONE]")
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        record.finished = True
        return True

    async def _until_client_closes(self, record: RecordedRequest, gone: asyncio.Future) -> None:
        await asyncio.wait({gone})
        raise self._client_gone(record)

    def _client_gone(self, record: RecordedRequest) -> _ClientGone:
        """Record that the client closed the connection mid-response."""
        record.client_closed_at = time.monotonic()
        return _ClientGone()

    async def _send_json(self, writer: asyncio.StreamWriter, status: int, body: dict) -> None:
        payload = json.dumps(body).encode()
        reason = _REASONS.get(status, "Error")
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        await writer.drain()


def _chunk(model: str, delta: dict, finish_reason: str | None = None) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
    )
