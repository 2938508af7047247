"""Chat turns through the WebSocket with LLM_BACKEND=openai against a fake provider."""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from chat import audit
from chat.llm import _backend
from chat.models import Message
from tests.chat.conftest import open_socket, run_turn
from tests.fake_openai import Reply

pytestmark = pytest.mark.usefixtures("indexed_kb")


async def assistant(message_id: str) -> Message:
    """The answer's row once its turn has ended: the completion is queued when the turn's
    generator closes, which may be just after the response frame reached the client (the
    response also goes to the conversation's other tabs first)."""
    for _ in range(200):
        await audit.drain()
        row = await sync_to_async(Message.objects.get)(
            role=Message.Role.ASSISTANT, message_id=message_id
        )
        if row.status != Message.Status.IN_PROGRESS:
            return row
        await asyncio.sleep(0.01)
    return row


async def test_provider_answer_is_streamed_and_grounded(provider):
    """'Premium kostar 399 kr/månad [kb/pricing.md:18].' streams without its reference and
    answers grounded with kb/pricing.md."""
    provider.enqueue(Reply.from_text("Premium kostar 399 kr/månad [kb/pricing.md:18]."))
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    response = frames[-1]
    assert response["grounded"] is True
    assert response["text"] == "Premium kostar 399 kr/månad."
    assert any(c["file"] == "kb/pricing.md" for c in response["citations"])
    assert "".join(f["delta"] for f in frames if f["type"] == "stream") == response["text"]
    body = provider.requests[0].body
    assert body["stream"] is True and "399 kr/månad" in json.dumps(body, ensure_ascii=False)
    row = await assistant("m1")
    assert (row.backend, row.model, row.status) == ("openai", "fake-model", "done")
    assert row.token_count
    await ws.disconnect()


async def test_wrong_number_from_the_provider_never_reaches_a_frame(provider):
    """Scripted to say 777, and 777 again when asked to repair it, the turn is withheld and
    no frame carries 777."""
    wrong = Reply.from_text("Premium kostar 777 kr/månad [kb/pricing.md:18]. Det är billigt.")
    provider.enqueue(wrong, wrong)
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["grounded"] is False
    assert frames[-1]["text"] == "Jag kan inte verifiera det."
    assert not any("777" in json.dumps(f) for f in frames)
    row = await assistant("m1")
    assert row.status == "withheld" and "777" in row.draft
    assert len(provider.requests) == 2  # the one repair round trip
    await ws.disconnect()


@pytest.mark.parametrize(
    "spelled",
    [
        "Premium kostar femhundra kronor i månaden och har tio TB lagring.",
        "Premium costs two hundred kronor a month.",
        "Premium kostar tre hundra nittionio tusen kronor i månaden.",
    ],
)
async def test_a_wrong_number_spelled_in_words_never_reaches_a_frame(provider, spelled):
    """The provider spells a wrong number, token by token, and again in its repair: no
    stream frame carries any of its words, and the answer is withheld."""
    provider.enqueue(Reply.from_text(spelled), Reply.from_text(spelled))
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["grounded"] is False
    assert frames[-1]["text"] == "Jag kan inte verifiera det."
    streamed = "".join(f["delta"] for f in frames if f["type"] == "stream")
    for word in ("femhundra", "tio", "two", "hundred", "tre", "hundra", "tusen"):
        assert word not in streamed.lower().split(), (word, streamed)
    await ws.disconnect()


async def test_the_right_number_spelled_in_words_streams_and_is_grounded(provider):
    provider.enqueue(
        Reply.from_text("Premium kostar trehundranittionio kronor i månaden [kb/pricing.md:18].")
    )
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["grounded"] is True
    assert "".join(f["delta"] for f in frames if f["type"] == "stream") == frames[-1]["text"]
    await ws.disconnect()


async def test_cancel_closes_the_provider_stream_at_once(provider):
    """Cancel during a slow stream: stream_end{cancelled} before any later token, provider closed.

    The provider sends a token every 0.2 s: a cancel that waited for the next one would show it.
    """
    provider.enqueue(Reply.from_text("Premium kostar mycket mer än du tror idag.", delay=0.2))
    ws = await open_socket()
    await ws.send_json_to({"type": "message", "id": "m1", "text": "Vad kostar premium?"})
    assert (await ws.receive_json_from(timeout=5))["type"] == "stream"
    await ws.send_json_to({"type": "cancel"})
    frame = await ws.receive_json_from(timeout=5)
    assert frame == {"type": "stream_end", "reason": "cancelled", "messageId": "m1"}
    assert await provider.client_close(timeout=1.0)
    await ws.disconnect()


async def test_a_disconnect_lets_the_provider_stream_finish_for_the_next_connection(provider):
    """A client going away mid-answer does not stop the turn (a reload resumes it): the
    provider's stream is read to its end, and the answer is recorded done."""
    provider.enqueue(Reply.from_text("Premium kostar mycket mer än du tror idag.", delay=0.2))
    ws = await open_socket()
    await ws.send_json_to({"type": "message", "id": "m1", "text": "Vad kostar premium?"})
    assert (await ws.receive_json_from(timeout=5))["type"] == "stream"
    await ws.disconnect()
    for _ in range(30):  # the reply takes about two seconds to stream
        row = await assistant("m1")
        if row.status != Message.Status.IN_PROGRESS:
            break
        await asyncio.sleep(0.5)
    assert row.status == "done", row.status
    assert provider.client_closes == 0


FAILURES = {
    "http_500": Reply(status=500),
    "http_401": Reply(status=401),
    "no_first_token": Reply(hang=True),
    "cut_mid_answer": Reply.from_text("Premium kostar mycket mer än så", cut_after=2),
    "malformed_chunk": Reply.from_text("Premium kostar mycket", malformed_after=1),
}


@pytest.mark.parametrize("failure", FAILURES)
async def test_provider_failures_end_fail_closed(provider, failure):
    """Each failure: the localized fallback, an audit row, and a usable socket."""
    provider.enqueue(FAILURES[failure])
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    assert [f["type"] for f in frames][-2:] == ["stream_end", "response"]
    assert frames[-1]["text"] == "Jag kan inte svara just nu. Försök igen om en stund."
    assert frames[-1]["grounded"] is False and frames[-1]["status"] == "error"
    assert not any("Traceback" in json.dumps(f) for f in frames)
    row = await assistant("m1")
    assert row.status == "error" and row.error
    provider.enqueue(Reply.from_text("Premium kostar 399 kr/månad [kb/pricing.md:18]."))
    again = await run_turn(ws, "Vad kostar premium?", message_id="m2")
    assert again[-1]["grounded"] is True
    await ws.disconnect()


async def test_connection_refused_is_fail_closed(settings, provider):
    """A provider that is not listening gives the fallback, not an error frame."""
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"
    _backend.cache_clear()
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["status"] == "error" and frames[-1]["type"] == "response"
    await ws.disconnect()
    await _backend("openai", "http://127.0.0.1:9/v1", "fake-model").aclose()
