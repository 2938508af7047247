"""The real backend: any OpenAI-compatible streaming chat-completions API.

Works with OpenAI, vLLM, Ollama and the llama.cpp server. One ``httpx``
client per backend instance (and event loop) keeps connections pooled.

Failures become ``LLMError`` with a message for the logs. Before the first
token a failure is retried (bounded, exponential backoff) unless the provider
refused the request itself (a 4xx other than 408/409/429); after the first
token nothing is retried, because the user has already seen part of the
answer. Closing the stream, or cancelling the task reading it, closes the
HTTP response at once; an unfinished response can't go back to the pool, so
the connection closes and the provider stops generating.

Timeouts: ``connect_timeout`` for the TCP/TLS connection;
``first_token_timeout`` from sending the request to the first text (per
attempt), and again for any silence between two texts; ``total_timeout``
for the whole answer, retries included.
"""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing
from dataclasses import dataclass

import httpx
from django.conf import settings

from chat.llm.base import LLMBackend, LLMError, LLMRequest
from chat.llm.prompt import build_messages, build_repair_messages

# Statuses below 500 that mean "try again later" rather than "bad request".
RETRYABLE_STATUSES = frozenset({408, 409, 429})
MAX_BACKOFF_SECONDS = 8.0
ERROR_TEXT_LIMIT = 200
# After [DONE], how long to wait for the end of the HTTP body: reading it lets
# the connection go back to the pool. A server that keeps the body open past
# [DONE] costs this much delay once, then its connection is closed.
BODY_END_GRACE_SECONDS = 0.25


class ProviderError(LLMError):
    """An ``LLMError`` that knows whether a new attempt might succeed."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


def backoff_delay(attempt: int, *, base: float, cap: float = MAX_BACKOFF_SECONDS) -> float:
    """Seconds to wait before retry ``attempt`` (1-based): base, 2·base, 4·base, ... up to cap."""
    return min(cap, base * 2 ** (attempt - 1))


class SSEDecoder:
    """Server-sent events, fed line by line (line endings stripped).

    ``feed`` returns an event's data (its ``data:`` lines joined by newlines)
    when the blank line that ends the event arrives; comments and the other
    fields (``event``, ``id``, ``retry``) are ignored.
    """

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> str | None:
        if not line:
            if not self._data:
                return None
            data, self._data = "\n".join(self._data), []
            return data
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if name == "data":
            self._data.append(value.removeprefix(" "))
        return None


@dataclass(frozen=True)
class Chunk:
    """What one ``chat.completion.chunk`` says: its text, whether it ends the answer, usage."""

    text: str = ""
    finished: bool = False
    total_tokens: int | None = None


def parse_chunk(data: str) -> Chunk:
    """One event's data as a ``Chunk``; ``ProviderError`` for anything malformed or an error."""
    try:
        chunk = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ProviderError(f"malformed chunk (not JSON): {data[:80]!r}") from exc
    if not isinstance(chunk, dict):
        raise ProviderError(f"malformed chunk (not an object): {data[:80]!r}")
    if chunk.get("error"):
        raise ProviderError(f"the provider reported an error: {error_text(chunk['error'])}")
    usage = chunk.get("usage")
    total = usage.get("total_tokens") if isinstance(usage, dict) else None
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    choices = chunk.get("choices") or []
    if not isinstance(choices, list):
        raise ProviderError(f"malformed chunk (choices is not a list): {data[:80]!r}")
    if not choices:
        return Chunk(total_tokens=total)
    choice = choices[0]
    delta = (choice.get("delta") or {}) if isinstance(choice, dict) else None
    if not isinstance(delta, dict):
        raise ProviderError(f"malformed chunk (no delta): {data[:80]!r}")
    text = delta.get("content") or ""
    if not isinstance(text, str):
        raise ProviderError(f"malformed chunk (content is not text): {data[:80]!r}")
    return Chunk(text=text, finished=bool(choice.get("finish_reason")), total_tokens=total)


def error_text(error: object) -> str:
    """The provider's own words from an ``error`` value or body, shortened for a log line."""
    if isinstance(error, dict):
        inner = error.get("error", error)
        if isinstance(inner, dict) and inner.get("message"):
            error = inner["message"]
        elif isinstance(inner, str):
            error = inner
    return " ".join(str(error).split())[:ERROR_TEXT_LIMIT] or "no details"


def describe(exc: BaseException) -> str:
    """``ConnectError: All connection attempts failed``, or just the class name."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class CompletionStream:
    """One provider response, read text delta by text delta."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines
        self._events = SSEDecoder()
        self._finished = False
        self._done = False
        self.total_tokens: int | None = None

    async def next_text(self, deadline: float) -> str | None:
        """The next non-empty text, or None at the end of the answer.

        Raises ``TimeoutError`` past ``deadline`` (loop time), httpx errors
        when the connection breaks, ``ProviderError`` for a bad stream.
        """
        while not self._done:
            try:
                async with asyncio.timeout_at(deadline):
                    line = await anext(self._lines)
            except StopAsyncIteration:
                if self._finished:
                    return None
                raise ProviderError("the stream ended before [DONE]") from None
            data = self._events.feed(line)
            if data is None:
                continue
            if data.strip() == "[DONE]":
                self._done = True
                return None
            chunk = parse_chunk(data)
            self._finished = self._finished or chunk.finished
            if chunk.total_tokens is not None:
                self.total_tokens = chunk.total_tokens
            if chunk.text:
                return chunk.text
        return None

    async def read_to_end(self, deadline: float) -> bool:
        """Read what is left of the body (normally nothing); False if it didn't end in time."""
        try:
            async with asyncio.timeout_at(deadline):
                async for _ in self._lines:
                    pass
        except (TimeoutError, httpx.HTTPError):
            return False
        return True


class OpenAIBackend(LLMBackend):
    name = "openai"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        temperature: float = 0.3,
        max_tokens: int = 1024,
        connect_timeout: float = 5.0,
        first_token_timeout: float = 20.0,
        total_timeout: float = 120.0,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        prompt_token_budget: int = 6000,
        history_exchanges: int = 5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._model = model
        self.api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.connect_timeout = connect_timeout
        self.first_token_timeout = first_token_timeout
        self.total_timeout = total_timeout
        self.max_retries = max(0, max_retries)
        self.retry_backoff = retry_backoff
        self.prompt_token_budget = prompt_token_budget
        self.history_exchanges = history_exchanges
        self._transport = transport
        self._clients: dict[asyncio.AbstractEventLoop, httpx.AsyncClient] = {}

    @classmethod
    def from_settings(cls) -> "OpenAIBackend":
        """A backend configured by the ``LLM_*`` and ``HISTORY_EXCHANGES`` settings."""
        return cls(
            base_url=settings.LLM_BASE_URL,
            model=settings.LLM_MODEL,
            api_key=settings.LLM_API_KEY,
            temperature=settings.LLM_TEMPERATURE,
            max_tokens=settings.LLM_MAX_TOKENS,
            connect_timeout=settings.LLM_CONNECT_TIMEOUT,
            first_token_timeout=settings.LLM_FIRST_TOKEN_TIMEOUT,
            total_timeout=settings.LLM_TOTAL_TIMEOUT,
            max_retries=settings.LLM_MAX_RETRIES,
            prompt_token_budget=settings.LLM_PROMPT_TOKEN_BUDGET,
            history_exchanges=settings.HISTORY_EXCHANGES,
        )

    @property
    def model(self) -> str:
        return self._model

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    can_repair = True

    def request_body(self, request: LLMRequest) -> dict:
        """The JSON body sent for ``request``."""
        return self._body(
            build_messages(
                request,
                token_budget=self.prompt_token_budget,
                history_exchanges=self.history_exchanges,
            )
        )

    def repair_body(self, request: LLMRequest, *, draft: str, reason: str, shown: str = "") -> dict:
        """The JSON body of the repair round trip: the turn, the draft and the guard's reason."""
        return self._body(
            build_repair_messages(
                request,
                draft=draft,
                reason=reason,
                shown=shown,
                token_budget=self.prompt_token_budget,
                history_exchanges=self.history_exchanges,
            )
        )

    def _body(self, messages: list[dict]) -> dict:
        return {
            "model": self._model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    async def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        """Yield the answer's text deltas; see the module docstring for failures and timeouts.

        ``request.usage_tokens`` is the provider's ``total_tokens`` when it
        reports usage, otherwise the number of deltas received so far.
        """
        async with aclosing(self._stream_body(request, self.request_body(request))) as deltas:
            async for text in deltas:
                yield text

    async def repair(
        self, request: LLMRequest, *, draft: str, reason: str, shown: str = ""
    ) -> AsyncIterator[str]:
        """The answer again, with ``draft``, the guard's ``reason`` and what was ``shown``.

        Same retries, timeouts and cancellation as ``stream``, within the turn's deadline
        (``request.deadline``, set by ``stream``): the repair adds no time of its own.
        ``request.usage_tokens`` is this round trip's count.
        """
        body = self.repair_body(request, draft=draft, reason=reason, shown=shown)
        async with aclosing(self._stream_body(request, body)) as deltas:
            async for text in deltas:
                yield text

    async def _stream_body(self, request: LLMRequest, body: dict) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        if request.deadline is None:
            request.deadline = loop.time() + self.total_timeout
        total_deadline = request.deadline
        for attempt in range(self.max_retries + 1):
            started = False
            try:
                async with AsyncExitStack() as stack:
                    first_deadline = min(loop.time() + self.first_token_timeout, total_deadline)
                    response = await self._open(stack, body, first_deadline)
                    lines = await stack.enter_async_context(aclosing(response.aiter_lines()))
                    completion = CompletionStream(lines)
                    text = await self._read(completion, first_deadline, total_deadline)
                    deltas = 0
                    while text is not None:
                        started = True
                        deltas += 1
                        request.usage_tokens = deltas
                        yield text
                        deadline = min(loop.time() + self.first_token_timeout, total_deadline)
                        text = await self._read(completion, deadline, total_deadline)
                    if completion.total_tokens is not None:
                        request.usage_tokens = completion.total_tokens
                    await completion.read_to_end(
                        min(loop.time() + BODY_END_GRACE_SECONDS, total_deadline)
                    )
                    return
            except ProviderError as exc:
                if started or not exc.retryable:
                    raise
                if attempt == self.max_retries:
                    tries = f"{attempt + 1} attempts" if attempt else "1 attempt"
                    raise LLMError(f"{exc} (gave up after {tries})") from exc
                delay = backoff_delay(attempt + 1, base=self.retry_backoff)
                if loop.time() + delay >= total_deadline:
                    raise LLMError(f"{exc} (no time left to retry)") from exc
                await asyncio.sleep(delay)

    async def aclose(self) -> None:
        """Close the current event loop's client and its pooled connections."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def _http(self) -> httpx.AsyncClient:
        # A client's connections belong to the loop that opened them, so each
        # loop gets its own client (one in daphne; one per test in the suite).
        # Clients of closed loops can't be closed any more, only forgotten.
        for stale in [loop for loop in self._clients if loop.is_closed()]:
            del self._clients[stale]
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            timeout = httpx.Timeout(
                connect=self.connect_timeout,
                read=None,  # the first-token and total deadlines bound every read
                write=self.connect_timeout,
                pool=self.connect_timeout,
            )
            client = self._clients[loop] = httpx.AsyncClient(
                timeout=timeout, transport=self._transport
            )
        return client

    async def _open(self, stack: AsyncExitStack, body: dict, deadline: float) -> httpx.Response:
        """Send the request; the streaming response, closed with ``stack``."""
        client = self._http()
        try:
            async with asyncio.timeout_at(deadline):
                response = await stack.enter_async_context(
                    client.stream("POST", self.url, json=body, headers=self.headers())
                )
                if response.status_code >= 400:
                    await response.aread()
        except TimeoutError as exc:
            raise ProviderError(
                f"no answer from {self.url} within {self.first_token_timeout:g} s"
            ) from exc
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ProviderError(
                f"LLM_BASE_URL is not a usable URL ({self.base_url!r}): {describe(exc)}",
                retryable=False,
            ) from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"cannot reach {self.url}: {describe(exc)}") from exc
        if response.status_code >= 400:
            status = response.status_code
            raise ProviderError(
                f"{self.url} answered HTTP {status}: {error_text(_json_or_text(response))}",
                retryable=status >= 500 or status in RETRYABLE_STATUSES,
            )
        return response

    async def _read(
        self, completion: CompletionStream, deadline: float, total_deadline: float
    ) -> str | None:
        try:
            return await completion.next_text(deadline)
        except TimeoutError as exc:
            if deadline >= total_deadline:
                raise ProviderError(
                    f"the answer took longer than {self.total_timeout:g} s"
                ) from exc
            raise ProviderError(
                f"no token from {self.url} within {self.first_token_timeout:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"the stream was cut: {describe(exc)}") from exc


def _json_or_text(response: httpx.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return response.text
