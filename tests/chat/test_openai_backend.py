"""The OpenAI-compatible backend against a fake provider on loopback (real HTTP and SSE)."""

import asyncio
import json
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chat.llm.base import Exchange, LLMError, LLMRequest
from chat.llm.mock import MockBackend
from chat.llm.openai import (
    OpenAIBackend,
    ProviderError,
    SSEDecoder,
    backoff_delay,
    parse_chunk,
)
from chat.llm.prompt import REPAIR_REASON_LIMIT, build_messages
from grounding.snippets import Snippet
from tests.fake_openai import FakeOpenAI, Reply

PRICING = Snippet("kb/pricing.md", "Basic: 99 kr/månad", 3)
API_KEY = "sk-test-not-a-real-key"


@pytest.fixture
async def server():
    async with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def make_backend(server):
    """Backends pointed at the fake server, with test-sized timeouts and backoff."""
    backends = []

    def make(**options) -> OpenAIBackend:
        defaults = {
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": API_KEY,
            "first_token_timeout": 2.0,
            "total_timeout": 5.0,
            "max_retries": 2,
            "retry_backoff": 0.01,
        }
        backend = OpenAIBackend(**(defaults | options))
        backends.append(backend)
        return backend

    yield make
    for backend in backends:
        await backend.aclose()


def question(**fields) -> LLMRequest:
    return LLMRequest(**({"question": "Vad kostar Basic?", "snippets": [PRICING]} | fields))


async def collect(backend: OpenAIBackend, request: LLMRequest, into: list | None = None) -> list:
    deltas = [] if into is None else into
    async for delta in backend.stream(request):
        deltas.append(delta)
    return deltas


# -- a normal answer -----------------------------------------------------------


async def test_streams_the_answer_deltas_in_order(server, make_backend):
    """The provider's content deltas come out one by one, in order, role chunk skipped."""
    server.enqueue(Reply(deltas=("Basic ", "kostar ", "99 kr", "/månad.")))

    deltas = await collect(make_backend(), question())

    assert deltas == ["Basic ", "kostar ", "99 kr", "/månad."]


async def test_request_carries_model_prompt_and_streaming_options(server, make_backend):
    """The body is a streaming chat completion with usage, built by ``build_messages``."""
    backend = make_backend(temperature=0.1, max_tokens=256, prompt_token_budget=3000)
    request = question(language="en", history=[Exchange("Hi?", "Hello.")])

    await collect(backend, request)

    [sent] = server.requests
    assert sent.method == "POST"
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body == {
        "model": "fake-model",
        "messages": build_messages(request, token_budget=3000, history_exchanges=5),
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.1,
        "max_tokens": 256,
    }


# -- one repair round trip -----------------------------------------------------

CITED_DRAFT = "Basic kostar 90 kr/månad [kb/pricing.md:3]."
REASON = "90 kr/månad: kb/pricing.md:3 does not state 90"


async def test_repair_sends_the_turn_the_draft_and_the_guards_reason(server, make_backend):
    """One more request: the turn's own messages, the withheld draft, then why it was withheld."""
    server.enqueue(Reply.from_text(CITED_DRAFT))
    server.enqueue(Reply(deltas=("Basic kostar ", "99 kr/månad [kb/pricing.md:3]", ".")))
    backend = make_backend()
    request = question()
    draft = "".join(await collect(backend, request))

    repaired = [delta async for delta in backend.repair(request, draft=draft, reason=REASON)]

    assert "".join(repaired) == "Basic kostar 99 kr/månad [kb/pricing.md:3]."
    first, second = server.requests
    *turn, withheld, ask = second.body["messages"]
    assert turn == first.body["messages"]
    assert withheld == {"role": "assistant", "content": CITED_DRAFT}
    assert ask["role"] == "user" and REASON in ask["content"]
    assert "Jag hittar inget stöd i kunskapsbasen." in ask["content"]
    assert backend.can_repair


async def test_repair_bounds_the_reason_it_passes_on(server, make_backend):
    """A long reason is cut: the repair request never grows with the guard's report."""
    server.enqueue(Reply.from_text("Basic kostar 99 kr/månad [kb/pricing.md:3]."))
    backend = make_backend()

    long_reason = "x" * 5000
    async for _ in backend.repair(question(language="en"), draft=CITED_DRAFT, reason=long_reason):
        pass

    ask = server.requests[0].body["messages"][-1]["content"]
    assert "x" * REPAIR_REASON_LIMIT in ask and "x" * (REPAIR_REASON_LIMIT + 1) not in ask
    assert ask.startswith("Your answer could not be checked")


async def test_closing_a_repair_closes_the_provider_connection(server, make_backend):
    """A repair stops the provider on ``aclose()`` like any answer."""
    server.enqueue(Reply(deltas=("ord ",) * 40, delay=0.1))
    stream = make_backend().repair(question(), draft=CITED_DRAFT, reason=REASON)
    assert await anext(stream) == "ord "

    await stream.aclose()

    assert await server.client_close(timeout=1.0)


async def test_a_repair_ends_by_the_turns_deadline_not_a_new_one(server, make_backend):
    """The repair round trip shares the turn's ``total_timeout``: a first answer that used
    most of it leaves the repair only the rest."""
    server.enqueue(Reply(deltas=("Basic ", "kostar ", "90 kr."), delay=0.25))
    server.enqueue(Reply(deltas=("ord ",) * 40, delay=0.1))
    backend = make_backend(total_timeout=1.5, first_token_timeout=1.0)
    request = question()
    loop = asyncio.get_running_loop()
    started = loop.time()
    draft = "".join(await collect(backend, request))

    with pytest.raises(LLMError, match=r"longer than 1\.5 s"):
        async for _ in backend.repair(request, draft=draft, reason=REASON):
            pass

    assert loop.time() - started < 1.5 + 0.5  # not 1.5 s more for the repair
    assert request.deadline == pytest.approx(started + 1.5, abs=0.2)


def test_the_mock_does_not_repair():
    """The mock's answer would be the same again: it says so instead of asking."""
    mock = MockBackend()
    assert not mock.can_repair
    with pytest.raises(NotImplementedError):
        mock.repair(question(), draft=CITED_DRAFT, reason=REASON)


async def test_no_authorization_header_without_an_api_key(server, make_backend):
    """A self-hosted server without a key gets no ``Authorization`` header at all."""
    await collect(make_backend(api_key=""), question())

    assert "authorization" not in server.requests[0].headers


async def test_usage_tokens_come_from_the_provider(server, make_backend):
    """With a usage chunk, ``usage_tokens`` is the provider's ``total_tokens``."""
    server.enqueue(Reply(deltas=("a", "b", "c"), prompt_tokens=40))
    request = question()

    await collect(make_backend(), request)

    assert request.usage_tokens == 43


async def test_usage_tokens_fall_back_to_the_delta_count(server, make_backend):
    """Without a usage chunk, ``usage_tokens`` counts the deltas received."""
    server.enqueue(Reply(deltas=("a", "b", "c", "d", "e"), include_usage=False))
    request = question()

    await collect(make_backend(), request)

    assert request.usage_tokens == 5


async def test_consecutive_answers_share_one_connection(server, make_backend):
    """One client per backend: a finished answer leaves its connection in the pool."""
    backend = make_backend()

    await collect(backend, question())
    await collect(backend, question())

    assert len(server.requests) == 2
    assert server.connections == 1


async def test_finish_reason_without_done_still_completes(server, make_backend):
    """A server that ends the body after ``finish_reason`` but omits ``[DONE]`` is complete."""
    content = {"choices": [{"delta": {"content": "Hej"}, "finish_reason": None}]}
    finish = {"choices": [{"delta": {}, "finish_reason": "stop"}]}
    server.enqueue(Reply(raw_events=(json.dumps(content), json.dumps(finish))))

    assert await collect(make_backend(), question()) == ["Hej"]


# -- cancel and disconnect -----------------------------------------------------


async def test_closing_the_stream_closes_the_provider_connection(server, make_backend):
    """``aclose()`` mid-answer: the fake provider sees the connection closed at once."""
    server.enqueue(Reply(deltas=("ord ",) * 40, delay=0.1))
    stream = make_backend().stream(question())
    assert await anext(stream) == "ord "

    await stream.aclose()

    assert await server.client_close(timeout=1.0)
    [sent] = server.requests
    assert not sent.finished
    assert sent.deltas_sent < 5


async def test_cancelling_the_reader_task_closes_the_provider_connection(server, make_backend):
    """Cancelling the task iterating the stream closes the connection and stays cancelled."""
    server.enqueue(Reply(deltas=("ord ",) * 40, delay=0.1))
    received: list[str] = []
    reader = asyncio.create_task(collect(make_backend(), question(), into=received))
    while not received:
        await asyncio.sleep(0.01)

    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader

    assert await server.client_close(timeout=1.0)
    assert server.requests[0].deltas_sent < 5


async def test_cancel_before_the_first_token_closes_the_provider_connection(server, make_backend):
    """A cancel while the provider has not answered yet also hangs up on it."""
    server.enqueue(Reply(hang=True))
    reader = asyncio.create_task(collect(make_backend(), question()))
    while not server.requests:
        await asyncio.sleep(0.01)

    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader

    assert await server.client_close(timeout=1.0)


# -- failures --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_connection_refused_raises_llm_error(make_backend):
    """Nobody listening: ``LLMError`` naming the URL, after the bounded retries."""
    backend = make_backend(base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=1)

    with pytest.raises(LLMError, match=r"cannot reach .*ConnectError.*gave up after 2 attempts"):
        await collect(backend, question())


@pytest.mark.parametrize("base_url", ["llm.internal/v1", "ftp://llm.internal/v1", "http://[::1/v1"])
async def test_unusable_base_url_fails_at_once(make_backend, base_url):
    """A base URL without http(s) or with a broken host is a configuration error, not retried."""
    backend = make_backend(base_url=base_url)

    with pytest.raises(LLMError, match="LLM_BASE_URL is not a usable URL") as failure:
        await collect(backend, question())

    assert "attempts" not in str(failure.value)


@pytest.mark.parametrize("status", [408, 429, 500, 503])
async def test_transient_http_errors_are_retried_until_an_answer(server, make_backend, status):
    """Overload and server errors are retried; the third attempt's answer comes through."""
    server.enqueue(Reply(status=status), Reply(status=status), Reply(deltas=("Hej",)))

    deltas = await collect(make_backend(max_retries=2), question())

    assert deltas == ["Hej"]
    assert len(server.requests) == 3


async def test_retries_are_bounded(server, make_backend):
    """After ``max_retries`` retries the last failure is raised, with the provider's message."""
    server.default_reply = Reply(status=503, error_message="engine overloaded")

    with pytest.raises(LLMError, match=r"HTTP 503: engine overloaded \(gave up after 2 attempts"):
        await collect(make_backend(max_retries=1), question())

    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_are_not_retried(server, make_backend, status):
    """A refused request (bad key, bad model) fails at once and the message has no key."""
    server.default_reply = Reply(status=status, error_message="Incorrect API key provided")

    with pytest.raises(LLMError, match=rf"HTTP {status}: Incorrect API key provided") as failure:
        await collect(make_backend(), question())

    assert len(server.requests) == 1
    assert API_KEY not in str(failure.value)


async def test_retries_back_off_exponentially(server, make_backend):
    """The second retry waits about twice as long as the first."""
    server.enqueue(Reply(status=503), Reply(status=503), Reply())

    await collect(make_backend(retry_backoff=0.1, max_retries=2), question())

    first, second, third = (r.received_at for r in server.requests)
    assert second - first >= 0.1
    assert third - second >= 0.2


def test_backoff_doubles_up_to_a_cap():
    """Retry n waits base·2^(n-1) seconds, never more than the cap."""
    assert [backoff_delay(n, base=0.5) for n in (1, 2, 3, 4)] == [0.5, 1.0, 2.0, 4.0]
    assert backoff_delay(10, base=0.5, cap=8.0) == 8.0


async def test_no_answer_before_the_first_token_timeout(server, make_backend):
    """A provider that never answers: timeout per attempt, retried, then ``LLMError``."""
    server.default_reply = Reply(hang=True)
    backend = make_backend(first_token_timeout=0.2, max_retries=1)

    with pytest.raises(LLMError, match=r"no answer from .* within 0.2 s"):
        await collect(backend, question())

    assert len(server.requests) == 2
    assert await server.client_close(timeout=1.0, count=2)


async def test_headers_without_tokens_time_out_too(server, make_backend):
    """Response headers alone don't count: the first token must come in time."""
    server.enqueue(Reply(stall_after=0), Reply(deltas=("Hej",)))

    deltas = await collect(make_backend(first_token_timeout=0.2), question())

    assert deltas == ["Hej"]
    assert await server.client_close(timeout=1.0)
    assert server.requests[0].client_closed


async def test_silence_mid_answer_fails_without_retry(server, make_backend):
    """A provider that goes silent after two tokens fails the turn; no second request."""
    server.default_reply = Reply(deltas=("a", "b", "c"), stall_after=2)
    received: list[str] = []

    with pytest.raises(LLMError, match=r"no token from .* within 0.2 s"):
        await collect(make_backend(first_token_timeout=0.2), question(), into=received)

    assert received == ["a", "b"]
    assert len(server.requests) == 1


async def test_total_timeout_bounds_the_whole_answer(server, make_backend):
    """Tokens that keep coming but too slowly in total hit the total timeout."""
    server.default_reply = Reply(deltas=("ord ",) * 30, delay=0.05)
    backend = make_backend(first_token_timeout=1.0, total_timeout=0.4)
    received: list[str] = []

    with pytest.raises(LLMError, match=r"took longer than 0.4 s"):
        await collect(backend, question(), into=received)

    assert 0 < len(received) < 30
    assert len(server.requests) == 1


async def test_stream_cut_mid_answer_fails_without_retry(server, make_backend):
    """The provider drops the connection after two tokens: ``LLMError``, one request."""
    server.default_reply = Reply(deltas=("a", "b", "c"), cut_after=2)
    received: list[str] = []

    with pytest.raises(LLMError, match="the stream was cut"):
        await collect(make_backend(), question(), into=received)

    assert received == ["a", "b"]
    assert len(server.requests) == 1


async def test_stream_cut_before_the_first_token_is_retried(server, make_backend):
    """A connection dropped before any token is retried like any transient failure."""
    server.enqueue(Reply(cut_after=0), Reply(deltas=("Hej",)))

    assert await collect(make_backend(), question()) == ["Hej"]
    assert len(server.requests) == 2


async def test_malformed_chunk_raises_llm_error(server, make_backend):
    """A chunk that isn't JSON ends the answer with ``LLMError``."""
    server.default_reply = Reply(deltas=("a", "b"), malformed_after=1)

    with pytest.raises(LLMError, match="malformed chunk"):
        await collect(make_backend(), question())


async def test_error_event_in_the_stream_raises_llm_error(server, make_backend):
    """An ``{"error": ...}`` event mid-stream raises with the provider's message."""
    server.default_reply = Reply(deltas=("a", "b"), error_event_after=1, error_message="oom")

    with pytest.raises(LLMError, match="the provider reported an error: oom"):
        await collect(make_backend(), question())


async def test_body_ending_without_done_or_finish_is_a_cut(server, make_backend):
    """A complete HTTP body without ``[DONE]`` or a finish reason is not a whole answer."""
    content = {"choices": [{"delta": {"content": "Basic kostar"}, "finish_reason": None}]}
    server.default_reply = Reply(raw_events=(json.dumps(content),))

    with pytest.raises(LLMError, match=r"ended before \[DONE\]"):
        await collect(make_backend(), question())


# -- construction ----------------------------------------------------------------


def test_from_settings_reads_the_llm_settings(settings):
    """Every ``LLM_*`` setting and ``HISTORY_EXCHANGES`` reaches the backend."""
    settings.LLM_BASE_URL = "http://llm.internal:8000/v1/"
    settings.LLM_MODEL = "qwen2.5-7b-instruct"
    settings.LLM_API_KEY = "secret"
    settings.LLM_TEMPERATURE = 0.0
    settings.LLM_MAX_TOKENS = 300
    settings.LLM_CONNECT_TIMEOUT = 1.5
    settings.LLM_FIRST_TOKEN_TIMEOUT = 7.0
    settings.LLM_TOTAL_TIMEOUT = 30.0
    settings.LLM_MAX_RETRIES = 4
    settings.LLM_PROMPT_TOKEN_BUDGET = 2500
    settings.HISTORY_EXCHANGES = 3

    backend = OpenAIBackend.from_settings()

    assert backend.name == "openai"
    assert backend.model == "qwen2.5-7b-instruct"
    assert backend.url == "http://llm.internal:8000/v1/chat/completions"
    assert backend.headers()["Authorization"] == "Bearer secret"
    assert (backend.temperature, backend.max_tokens) == (0.0, 300)
    assert (backend.connect_timeout, backend.first_token_timeout) == (1.5, 7.0)
    assert (backend.total_timeout, backend.max_retries) == (30.0, 4)
    assert (backend.prompt_token_budget, backend.history_exchanges) == (2500, 3)


def test_each_event_loop_gets_its_own_pooled_client():
    """A cached backend works from several event loops, pooling connections per loop.

    The fake server runs in its own thread here, as it does beside a live daphne.
    """
    with FakeOpenAI().in_thread() as server:
        backend = OpenAIBackend(
            base_url=server.base_url, model="fake-model", first_token_timeout=2.0
        )
        first, second = asyncio.new_event_loop(), asyncio.new_event_loop()
        try:
            answers = [
                first.run_until_complete(collect(backend, question())),
                second.run_until_complete(collect(backend, question())),
                first.run_until_complete(collect(backend, question())),
            ]
        finally:
            for loop in (first, second):
                loop.run_until_complete(backend.aclose())
                loop.close()

        assert answers == [["Hej", "!"]] * 3
        assert server.connections == 2


def test_threaded_server_reports_a_client_close_to_sync_code():
    """``wait_for_client_close`` lets sync tests observe a hang-up on the threaded server."""

    async def read_one_then_close(backend: OpenAIBackend) -> None:
        stream = backend.stream(question())
        await anext(stream)
        await stream.aclose()
        await backend.aclose()

    with FakeOpenAI(default_reply=Reply(deltas=("a",) * 20, delay=0.1)).in_thread() as server:
        backend = OpenAIBackend(base_url=server.base_url, model="fake-model")
        asyncio.run(read_one_then_close(backend))

        assert server.wait_for_client_close(timeout=1.0)


# -- the stream format -----------------------------------------------------------


def test_sse_decoder_joins_data_lines_and_ignores_other_fields():
    """Multi-line data joins with newlines; comments, ``event`` and ``id`` are ignored."""
    decoder = SSEDecoder()
    lines = [": keep-alive", "event: message", "id: 7", "data: first", "data:second", ""]

    assert [decoder.feed(line) for line in lines] == [None] * 5 + ["first\nsecond"]
    assert decoder.feed("") is None


@given(st.lists(st.text(alphabet=st.characters(exclude_characters="\r\n")), max_size=10))
def test_sse_decoder_returns_each_event_as_sent(payloads):
    """Any single-line payloads written as ``data:`` events decode back unchanged."""
    decoder = SSEDecoder()
    decoded = []
    for payload in payloads:
        for line in (f"data: {payload}", ""):
            data = decoder.feed(line)
            if data is not None:
                decoded.append(data)

    assert decoded == payloads


def test_parse_chunk_reads_text_finish_and_usage():
    """Text from ``choices[0].delta.content``, ``finish_reason`` and ``usage.total_tokens``."""
    role = parse_chunk('{"choices": [{"delta": {"role": "assistant"}, "finish_reason": null}]}')
    text = parse_chunk('{"choices": [{"delta": {"content": "Hej"}}]}')
    end = parse_chunk('{"choices": [{"delta": {}, "finish_reason": "stop"}]}')
    usage = parse_chunk('{"choices": [], "usage": {"total_tokens": 12}}')

    assert (role.text, role.finished) == ("", False)
    assert text.text == "Hej"
    assert end.finished
    assert usage.total_tokens == 12


@pytest.mark.parametrize(
    "data",
    [
        "not json",
        "[1, 2]",
        '{"choices": {"delta": {}}}',
        '{"choices": ["text"]}',
        '{"choices": [{"delta": "Hej"}]}',
        '{"choices": [{"delta": {"content": 5}}]}',
        '{"error": {"message": "overloaded"}}',
    ],
)
def test_parse_chunk_rejects_malformed_chunks_and_errors(data):
    """Anything that isn't a well-formed chunk raises ``ProviderError`` (an ``LLMError``)."""
    with pytest.raises(ProviderError):
        parse_chunk(data)
