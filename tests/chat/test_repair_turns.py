"""The repair round trip over the WebSocket (issue 41): one more request when the guard
withholds, with the guard's reason and what the customer already saw.

The fake provider (tests/fake_openai.py) answers the turn's request with a first draft and
the repair request with the next queued reply. The customer sees only what a guard released:
never the withheld draft's number, and what was shown before the failure is not shown twice.
"""

import asyncio
import json

import pytest

from chat.composition import turn_services
from chat.llm.mock import MockBackend
from tests.chat.conftest import open_socket, run_turn
from tests.chat.test_openai_turns import assistant
from tests.fake_openai import Reply

pytestmark = pytest.mark.usefixtures("indexed_kb")

QUESTION = "Vad kostar Premium per månad?"
WRONG = "Premium kostar 499 kr/månad [kb/pricing.md:18]."
RIGHT = "Premium kostar 399 kr/månad [kb/pricing.md:18]."


def streamed(frames: list[dict]) -> str:
    return "".join(f["delta"] for f in frames if f["type"] == "stream")


def repair_ask(provider) -> str:
    """The repair request's last message: the guard's reason and what was shown."""
    return provider.requests[1].body["messages"][-1]["content"]


@pytest.mark.parametrize("in_thread", [False, True], ids=["on-the-loop", "checks-in-a-thread"])
async def test_a_wrong_answer_the_repair_fixes_streams_only_the_fixed_number(
    provider, settings, in_thread
):
    """499 is withheld, the repair's 399 streams once after the words already shown, and the
    response maps it to its line; the same when the checks run in a worker thread (a large
    KB, ``VERIFY_IN_THREAD_FACTS``)."""
    if in_thread:
        settings.VERIFY_IN_THREAD_FACTS = 0
    provider.enqueue(Reply.from_text(WRONG), Reply.from_text(RIGHT))
    ws = await open_socket()
    assert (turn_services().verify_in_thread_above == 0) is in_thread

    frames = await run_turn(ws, QUESTION)

    response = frames[-1]
    assert response["grounded"] is True and response["status"] == "done"
    assert response["text"] == "Premium kostar 399 kr/månad."
    assert streamed(frames) == response["text"]
    [number] = response["numbers"]
    assert response["text"][number["start"] : number["end"]] == number["text"]
    assert (number["file"], number["line"]) == ("kb/pricing.md", 18)
    assert not any("499" in json.dumps(f) for f in frames)
    assert len(provider.requests) == 2
    *_, withheld, ask = provider.requests[1].body["messages"]
    assert withheld == {"role": "assistant", "content": WRONG}
    assert '"499 kr' in ask["content"] and "«Premium kostar »" in ask["content"]
    row = await assistant("m1")
    assert row.status == "done" and "499" in row.draft and "399" in row.draft
    assert row.token_count > 42 + len(provider.requests[1].reply.deltas)  # both requests
    await ws.disconnect()


async def test_a_released_sentence_is_not_streamed_again_after_the_repair(provider):
    """The first sentence went out before the second failed: the repair repeats it (as it
    was told to) and only its second sentence reaches the customer."""
    first = "Basic kostar 99 kr/månad [kb/pricing.md:16]. "
    provider.enqueue(Reply.from_text(first + WRONG), Reply.from_text(first + RIGHT))
    ws = await open_socket()

    frames = await run_turn(ws, "Vad kostar Basic och Premium per månad?")

    expected = "Basic kostar 99 kr/månad. Premium kostar 399 kr/månad."
    assert frames[-1]["grounded"] is True and frames[-1]["text"] == expected
    assert streamed(frames) == expected
    assert [n["line"] for n in frames[-1]["numbers"]] == [16, 18]
    assert "«Basic kostar 99 kr/månad. Premium kostar »" in repair_ask(provider)
    await ws.disconnect()


async def test_a_repair_that_is_wrong_again_is_withheld(provider):
    """One round trip only: wrong twice, the answer is withheld and neither number streams."""
    provider.enqueue(
        Reply.from_text(WRONG), Reply.from_text("Premium kostar 299 kr/månad [kb/pricing.md:18].")
    )
    ws = await open_socket()

    frames = await run_turn(ws, QUESTION)

    assert frames[-1]["grounded"] is False and frames[-1]["status"] == "withheld"
    assert frames[-1]["text"] == "Jag kan inte verifiera det."
    assert not any("499" in json.dumps(f) or "299" in json.dumps(f) for f in frames)
    assert len(provider.requests) == 2
    row = await assistant("m1")
    assert row.status == "withheld" and "499" in row.draft and "299" in row.draft
    await ws.disconnect()


async def test_a_repair_that_rewrites_what_was_shown_is_withheld(provider):
    """The customer saw "Premium kostar "; a repair that begins otherwise is right in itself,
    but it would contradict the screen: nothing of it streams and the answer is withheld."""
    provider.enqueue(
        Reply.from_text(WRONG),
        Reply.from_text("Priset för Premium är 399 kr/månad [kb/pricing.md:18]."),
    )
    ws = await open_socket()

    frames = await run_turn(ws, QUESTION)

    assert frames[-1]["status"] == "withheld"
    assert streamed(frames) == "Premium kostar "
    assert not any("Priset" in json.dumps(f) for f in frames)
    await ws.disconnect()


async def test_a_provider_failure_during_the_repair_withholds_the_answer(provider):
    """The repair request fails (HTTP 500): the turn is withheld as without a repair, and
    the failure is in the audit row."""
    provider.enqueue(Reply.from_text(WRONG), Reply(status=500))
    ws = await open_socket()

    frames = await run_turn(ws, QUESTION)

    assert frames[-1]["status"] == "withheld"
    assert not any("499" in json.dumps(f) for f in frames)
    row = await assistant("m1")
    assert row.status == "withheld" and row.error.startswith("repair: ")
    await ws.disconnect()


async def test_cancel_during_the_repair_closes_the_provider_at_once(provider):
    """A cancel while the repair streams stops its request like the first one."""
    provider.enqueue(
        Reply.from_text(WRONG),
        Reply.from_text("Premium kostar mycket mer än du tror idag ord ord ord.", delay=0.2),
    )
    ws = await open_socket()
    await ws.send_json_to({"type": "message", "id": "m1", "text": QUESTION})
    assert (await ws.receive_json_from(timeout=5))["type"] == "stream"
    for _ in range(500):
        if len(provider.requests) == 2 and provider.requests[1].deltas_sent:
            break
        await asyncio.sleep(0.01)
    assert len(provider.requests) == 2

    await ws.send_json_to({"type": "cancel"})

    frame = await ws.receive_json_from(timeout=5)
    while frame["type"] == "stream":  # a word released before the cancel arrived
        assert "499" not in frame["delta"]
        frame = await ws.receive_json_from(timeout=5)
    assert frame == {"type": "stream_end", "reason": "cancelled", "messageId": "m1"}
    assert await provider.client_close(timeout=1.0)
    await ws.disconnect()


async def test_the_mock_backend_never_repairs(monkeypatch):
    """The mock's hallucinated answer is withheld without a second request."""
    asked = []
    monkeypatch.setattr(MockBackend, "repair", lambda self, *a, **k: asked.append(k))
    ws = await open_socket()

    frames = await run_turn(ws, "hallucinate: Vad kostar premium?")

    assert frames[-1]["status"] == "withheld"
    assert asked == []
    assert not any("777" in json.dumps(f) for f in frames)
    await ws.disconnect()
