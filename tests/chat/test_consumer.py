"""The chat WebSocket end to end, through the real ASGI application."""

import asyncio
import dataclasses
import itertools
import json

import pytest
from channels.layers import get_channel_layer
from django.contrib.sessions.backends.db import SessionStore

from chat import audit
from chat.models import Message
from tests.chat.conftest import open_socket, run_turn

pytestmark = pytest.mark.usefixtures("indexed_kb")


def types(frames):
    return [f["type"] for f in frames]


@pytest.mark.parametrize("path", ["/ws/chat/", "/"])
async def test_premium_question_streams_then_answers_grounded(path):
    """The seed's example: stream*, stream_end{done}, response with the pricing citation."""
    ws = await open_socket(path)
    frames = await run_turn(ws, "Vad kostar premium?")
    kinds = types(frames)
    assert kinds[-2:] == ["stream_end", "response"]
    assert set(kinds[:-2]) == {"stream"} and len(kinds) > 3
    assert frames[-2] == {"type": "stream_end", "reason": "done", "messageId": "m1"}
    response = frames[-1]
    assert response["grounded"] is True and response["messageId"] == "m1"
    assert "399 kr/månad" in response["text"]
    assert "".join(f["delta"] for f in frames if f["type"] == "stream") == response["text"]
    assert any(
        c["file"] == "kb/pricing.md" and "399" in c["snippet"] for c in response["citations"]
    )
    await ws.disconnect()


async def test_server_makes_a_message_id_when_the_client_gives_none():
    """Without an id the server names the turn, consistently across its frames."""
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?", message_id=None)
    ids = {f["messageId"] for f in frames}
    assert len(ids) == 1 and ids.pop().startswith("msg_")
    await ws.disconnect()


async def test_hallucinated_number_is_withheld_and_never_streamed():
    """The mock's wrong number never reaches a frame; the answer is withheld."""
    ws = await open_socket()
    frames = await run_turn(ws, "hallucinate: Vad kostar premium?")
    response = frames[-1]
    assert response["grounded"] is False
    assert response["text"] == "Jag kan inte verifiera det."
    assert response["blocked"].startswith("Verification failed")
    assert response["citations"], "the top retrieved snippets are shown"
    assert not any("777" in json.dumps(f) for f in frames)
    streamed = "".join(f["delta"] for f in frames if f["type"] == "stream")
    assert not any(ch.isdigit() for ch in streamed)
    await ws.disconnect()


async def test_nothing_retrieved_answers_no_support_without_citations():
    """A bare 'hallucinate' retrieves nothing: the no-support message, no citations."""
    ws = await open_socket()
    frames = await run_turn(ws, "hallucinate")
    assert frames[-1]["text"] == "Jag hittar inget stöd i kunskapsbasen."
    assert frames[-1]["citations"] == [] and frames[-1]["grounded"] is False
    await ws.disconnect()


async def test_english_conversation_gets_english_messages():
    """An English question with no support gets the English no-support message."""
    ws = await open_socket()
    frames = await run_turn(ws, "What is the airspeed velocity of an unladen swallow?")
    assert frames[-1]["text"] == "I couldn't find any references to this in the knowledge base."
    await ws.disconnect()


async def _first_stream(ws, text, message_id):
    await ws.send_json_to({"type": "message", "id": message_id, "text": text})
    frame = await ws.receive_json_from(timeout=5)
    assert frame["type"] == "stream"
    return frame


async def _until_stream_end(ws):
    while True:
        frame = await ws.receive_json_from(timeout=5)
        if frame["type"] == "stream_end":
            return frame
        assert frame["type"] == "stream"


async def test_cancel_mid_stream_stops_without_response(settings):
    """Cancel: stream_end{cancelled}, no response, no suggestion, ready at once."""
    settings.LLM_TOKEN_DELAY_MS = "40"
    ws = await open_socket()
    await _first_stream(ws, "Vad kostar premium?", "m1")
    await ws.send_json_to({"type": "cancel"})
    end = await _until_stream_end(ws)
    assert end == {"type": "stream_end", "reason": "cancelled", "messageId": "m1"}
    assert await ws.receive_nothing(timeout=0.3)
    settings.LLM_TOKEN_DELAY_MS = "0"
    frames = await run_turn(ws, "Vad kostar premium?", message_id="m2")
    assert frames[-1]["type"] == "response" and frames[-1]["grounded"] is True
    await ws.disconnect()
    await audit.drain()
    statuses = await _statuses()
    assert statuses == {"m1": "cancelled", "m2": "done"}


async def test_cancel_when_idle_is_silent():
    """Cancel with nothing streaming gets no reply at all."""
    ws = await open_socket()
    await ws.send_json_to({"type": "cancel"})
    assert await ws.receive_nothing(timeout=0.2)
    await run_turn(ws, "Vad kostar premium?")
    await ws.send_json_to({"type": "cancel"})
    assert await ws.receive_nothing(timeout=0.2)
    await ws.disconnect()


async def test_repeated_cancel_ends_the_stream_once(settings):
    """Three cancels in a row give one stream_end{cancelled}."""
    settings.LLM_TOKEN_DELAY_MS = "40"
    ws = await open_socket()
    await _first_stream(ws, "Vad kostar premium?", "m1")
    for _ in range(3):
        await ws.send_json_to({"type": "cancel"})
    assert (await _until_stream_end(ws))["reason"] == "cancelled"
    assert await ws.receive_nothing(timeout=0.3)
    await ws.disconnect()


async def test_new_message_during_stream_cancels_the_old_one_first(settings):
    """The old stream's stream_end{cancelled} comes before the new stream."""
    settings.LLM_TOKEN_DELAY_MS = "40"
    ws = await open_socket()
    await _first_stream(ws, "Vad kostar premium?", "m1")
    await ws.send_json_to({"type": "message", "id": "m2", "text": "Vad kostar basic?"})
    frames = []
    while not frames or frames[-1]["type"] != "response":
        frames.append(await ws.receive_json_from(timeout=5))
    ends = [f for f in frames if f["type"] == "stream_end"]
    assert ends[0] == {"type": "stream_end", "reason": "cancelled", "messageId": "m1"}
    first_m2 = next(i for i, f in enumerate(frames) if f.get("messageId") == "m2")
    assert frames.index(ends[0]) < first_m2
    assert all(f["messageId"] == "m2" for f in frames[first_m2:])
    assert frames[-1]["messageId"] == "m2"
    await ws.disconnect()


async def test_a_disconnect_mid_stream_lets_the_turn_finish_and_records_it_done(settings):
    """A reload is not a stop: the turn whose socket went away runs on and is recorded done."""
    settings.LLM_TOKEN_DELAY_MS = "20"
    ws = await open_socket()
    await _first_stream(ws, "Vad kostar premium?", "m1")
    await ws.disconnect()
    for _ in range(200):
        if not [t for t in asyncio.all_tasks() if t.get_name() == "turn m1" and not t.done()]:
            break
        await asyncio.sleep(0.05)
    await audit.drain()
    assert await _statuses() == {"m1": "done"}


async def _reconnected_frames(ws) -> list[dict]:
    """A socket's frames up to the response (stream_sync and stream frames included)."""
    frames = []
    while not frames or frames[-1]["type"] != "response":
        frames.append(await ws.receive_json_from(timeout=10))
    return frames


async def test_the_next_socket_gets_the_question_the_text_so_far_and_the_rest(settings):
    """A reload mid-stream: the new socket of the session is sent the question, the answer's
    text so far in one stream_sync, then the rest of the stream, its end and the response."""
    settings.LLM_TOKEN_DELAY_MS = "30"
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    seen = (await _first_stream(first, "Vad kostar premium?", "m1"))["delta"]
    await first.disconnect()
    second = await open_socket(headers=cookie)
    frames = await _reconnected_frames(second)
    assert frames[0] == {"type": "user_message", "messageId": "m1", "text": "Vad kostar premium?"}
    assert frames[1]["type"] == "stream_sync" and frames[1]["text"].startswith(seen)
    rest = "".join(f["delta"] for f in frames if f["type"] == "stream")
    response = frames[-1]
    assert response["grounded"] is True and frames[1]["text"] + rest == response["text"]
    assert {"type": "stream_end", "reason": "done", "messageId": "m1"} in frames
    assert "cancelled" not in [f.get("reason") for f in frames]
    await second.disconnect()


async def test_a_turn_that_ended_while_its_page_was_away_is_replayed_whole(settings):
    """The turn finished before the page came back: the next socket still gets its end and
    response (the turn's runner is parked for the conversation)."""
    settings.LLM_TOKEN_DELAY_MS = "5"
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    await _first_stream(first, "Vad kostar premium?", "m1")
    await first.disconnect()
    for _ in range(200):
        if not [t for t in asyncio.all_tasks() if t.get_name() == "turn m1" and not t.done()]:
            break
        await asyncio.sleep(0.05)
    second = await open_socket(headers=cookie)
    frames = await _reconnected_frames(second)
    assert [f["type"] for f in frames] == ["user_message", "stream_sync", "stream_end", "response"]
    assert frames[1]["text"] == frames[-1]["text"] and frames[-1]["grounded"] is True
    await second.disconnect()


def _turn_running(message_id: str) -> bool:
    return any(t.get_name() == f"turn {message_id}" and not t.done() for t in asyncio.all_tasks())


async def test_a_turn_whose_page_does_not_come_back_within_its_grace_is_cancelled(settings):
    """The socket closed mid-answer and no connection took the turn: after
    ``PARKED_TURN_GRACE_SECONDS`` it is cancelled (its check with it), not run to its end."""
    settings.LLM_TOKEN_DELAY_MS = "300"  # the mock's answer would stream for seconds
    settings.PARKED_TURN_GRACE_SECONDS = 0.2
    first = await open_socket()
    await _first_stream(first, "Vad kostar premium?", "m1")
    await first.disconnect()
    assert _turn_running("m1")  # parked: it goes on for the page to come back
    for _ in range(100):
        if not _turn_running("m1"):
            break
        await asyncio.sleep(0.02)
    assert not _turn_running("m1"), "the abandoned turn still runs two seconds on"
    await audit.drain()
    assert (await _statuses()) == {"m1": "cancelled"}


async def test_a_page_that_comes_back_within_the_grace_gets_its_turn(settings):
    settings.LLM_TOKEN_DELAY_MS = "30"
    settings.PARKED_TURN_GRACE_SECONDS = 5
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    await _first_stream(first, "Vad kostar premium?", "m1")
    await first.disconnect()
    second = await open_socket(headers=cookie)
    frames = await _reconnected_frames(second)
    assert frames[-1]["type"] == "response" and frames[-1]["grounded"] is True
    await second.disconnect()


async def test_a_second_tab_follows_the_streaming_answer_and_its_end(settings):
    """Tab B sees tab A's question, the answer's text while it streams (stream_sync, growing),
    its stream_end and the response."""
    settings.LLM_TOKEN_DELAY_MS = "30"
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    tab_a = await open_socket(headers=cookie)
    await run_turn(tab_a, "Hej", message_id="m0")  # the conversation exists for both tabs
    await audit.drain()
    tab_b = await open_socket(headers=cookie)
    mine = await run_turn(tab_a, "Vad kostar premium?", message_id="m1")
    theirs = await _reconnected_frames(tab_b)
    assert theirs[0]["type"] == "user_message"
    syncs = [f["text"] for f in theirs if f["type"] == "stream_sync"]
    assert syncs and syncs[0] and all(b.startswith(a) for a, b in itertools.pairwise(syncs))
    assert mine[-1]["text"].startswith(syncs[-1])
    assert theirs[-2:] == mine[-2:]
    assert theirs[-2] == {"type": "stream_end", "reason": "done", "messageId": "m1"}
    await tab_a.disconnect()
    await tab_b.disconnect()


async def test_a_stop_in_one_tab_reaches_the_other(settings):
    """Tab A's Stop: tab B gets stream_end{cancelled} for the answer it was following."""
    settings.LLM_TOKEN_DELAY_MS = "40"
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    tab_a = await open_socket(headers=cookie)
    await run_turn(tab_a, "Hej", message_id="m0")
    await audit.drain()
    tab_b = await open_socket(headers=cookie)
    await _first_stream(tab_a, "Vad kostar premium?", "m1")
    await tab_a.send_json_to({"type": "cancel"})
    await _until_stream_end(tab_a)
    while (frame := await tab_b.receive_json_from(timeout=5))["type"] != "stream_end":
        assert frame["type"] in ("user_message", "stream_sync")
    assert frame == {"type": "stream_end", "reason": "cancelled", "messageId": "m1"}
    await tab_a.disconnect()
    await tab_b.disconnect()


BAD_FRAMES = [
    ("{oops", "invalid_json"),
    ("[]", "invalid_message"),
    ('{"type":"dance"}', "unknown_type"),
    ('{"type":"message"}', "invalid_message"),
    ('{"type":"message","text":42}', "invalid_message"),
    (json.dumps({"type": "message", "text": "x" * 2001}), "too_large"),
    (json.dumps({"type": "message", "text": "x", "pad": "y" * 70000}), "too_large"),
    ('{"type":"confirm_action"}', "invalid_message"),
    ('{"type":"feedback","messageId":"m1","rating":5}', "invalid_message"),
]


@pytest.mark.parametrize(("frame", "code"), BAD_FRAMES)
async def test_bad_input_gets_one_error_and_the_connection_stays_usable(frame, code):
    """Each malformed frame: exactly one error frame, then normal service."""
    ws = await open_socket()
    await ws.send_to(text_data=frame)
    reply = await ws.receive_json_from(timeout=5)
    assert reply["type"] == "error" and reply["code"] == code and reply["message"]
    assert await ws.receive_nothing(timeout=0.1)
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["grounded"] is True
    await ws.disconnect()


async def test_binary_frame_gets_an_error():
    """A binary frame is answered with an error, not a crash."""
    ws = await open_socket()
    await ws.send_to(bytes_data=b"\x00\xff")
    reply = await ws.receive_json_from(timeout=5)
    assert reply["code"] == "binary_not_supported"
    await ws.disconnect()


async def test_flood_of_200_malformed_frames_then_a_valid_message():
    """200 malformed frames get 200 errors, and a valid message is still answered."""
    ws = await open_socket()
    for i in range(200):
        await ws.send_to(text_data="{bad" if i % 2 else '{"type":"nope"}')
    errors = [await ws.receive_json_from(timeout=5) for _ in range(200)]
    assert all(e["type"] == "error" for e in errors)
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["type"] == "response" and frames[-1]["grounded"] is True
    await ws.disconnect()


async def test_rate_limit_answers_rate_limited(settings):
    """Past WS_RATE_LIMIT messages per window, a message gets error rate_limited."""
    settings.WS_RATE_LIMIT = "2/60"
    ws = await open_socket()
    await run_turn(ws, "Vad kostar premium?", message_id="a")
    await run_turn(ws, "Vad kostar basic?", message_id="b")
    await ws.send_json_to({"type": "message", "id": "c", "text": "Vad kostar premium?"})
    reply = await ws.receive_json_from(timeout=5)
    assert reply["type"] == "error" and reply["code"] == "rate_limited"
    await ws.disconnect()


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (None, True),
        (b"http://127.0.0.1:8787", True),
        (b"http://localhost:8787", False),  # another host
        (b"http://127.0.0.1:9999", False),  # another port
        (b"https://127.0.0.1", False),  # another scheme and port
        (b"https://127.0.0.1:8787", False),  # another scheme
        (b"http://shop.example", True),  # WIDGET_ALLOWED_ORIGINS
        (b"https://evil.example", False),
        (b"null", False),
    ],
)
@pytest.mark.parametrize("path", ["/ws/chat/", "/ws/widget/"])
async def test_origin_check_compares_the_whole_origin(origin, accepted, path, settings):
    """Browser origins must be this server's own (scheme, host and port) or an allowed
    embedder; no Origin (a non-browser client) is fine. A refusal is counted."""
    from channels.testing import WebsocketCommunicator

    from chat.metrics import ORIGIN_REFUSALS
    from config.asgi import application

    settings.WIDGET_ALLOWED_ORIGINS = ["http://shop.example"]
    before = ORIGIN_REFUSALS.labels(socket="chat")._value.get()
    headers = [(b"host", b"127.0.0.1:8787")] + ([(b"origin", origin)] if origin else [])
    ws = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await ws.connect(timeout=5)
    assert connected is accepted
    assert ORIGIN_REFUSALS.labels(socket="chat")._value.get() == before + (not accepted)
    await ws.disconnect()


async def test_a_host_outside_allowed_hosts_is_not_our_own_origin():
    """DNS rebinding: Origin and Host agree on a name that is not ours, so it is refused."""
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    headers = [(b"host", b"rebound.example:8787"), (b"origin", b"http://rebound.example:8787")]
    ws = WebsocketCommunicator(application, "/ws/chat/", headers=headers)
    connected, _ = await ws.connect(timeout=5)
    assert connected is False


async def test_action_suggestion_follows_the_response_and_runs_once():
    """'Ring mig …' suggests a callback; two confirms run it once."""
    from actions.models import CallbackRequest

    ws = await open_socket()
    frames = await run_turn(ws, "Ring mig imorgon på +46 70 123 45 67")
    assert types(frames)[-3:] == ["stream_end", "response", "action_suggestion"]
    assert not any(ch.isdigit() for ch in frames[-2]["text"])
    suggestion = frames[-1]
    assert suggestion["action"] == "schedule_callback"
    assert suggestion["payload"]["phone"] == "+46 70 123 45 67"
    assert suggestion["suggestionId"].startswith("action_") and suggestion["expiresAt"]

    sid = suggestion["suggestionId"]
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid})
    first = await ws.receive_json_from(timeout=5)
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid})
    second = await ws.receive_json_from(timeout=5)
    assert first == {
        "type": "action_executed",
        "suggestionId": sid,
        "result": {
            "success": True,
            "ignored": False,
            "message": "Callback scheduled to +46 70 123 45 67",
        },
        "card": {
            "state": "done",
            "phone": "+46 70 123 45 67",
            "needsPhone": False,
            "reference": "",
            "message": "Vi ringer upp dig på +46 70 123 45 67.",
        },
    }
    assert second["result"] == {"success": True, "ignored": True, "message": "Already executed"}
    assert second["card"] == first["card"], "a double click shows the one outcome"
    assert await _count(CallbackRequest) == 1
    await ws.disconnect()


async def test_reject_then_confirm_never_runs():
    """A rejected suggestion answers success false on confirm and runs nothing."""
    from actions.models import CallbackRequest

    ws = await open_socket()
    sid = (await run_turn(ws, "Ring upp mig"))[-1]["suggestionId"]
    await ws.send_json_to({"type": "reject_action", "suggestionId": sid})
    rejected = await ws.receive_json_from(timeout=5)
    assert rejected["type"] == "action_rejected" and rejected["result"]["success"] is True
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid})
    confirm = await ws.receive_json_from(timeout=5)
    assert confirm["result"]["success"] is False
    assert await _count(CallbackRequest) == 0
    await ws.disconnect()


async def test_another_conversation_cannot_confirm_or_reject():
    """A second connection gets not_found, exactly like an unknown id."""
    owner, stranger = await open_socket(), await open_socket()
    sid = (await run_turn(owner, "Ring mig"))[-1]["suggestionId"]
    for kind in ("confirm_action", "reject_action"):
        await stranger.send_json_to({"type": kind, "suggestionId": sid})
        reply = await stranger.receive_json_from(timeout=5)
        assert reply == {
            "type": "error",
            "code": "not_found",
            "message": "No such suggestion.",
            "suggestionId": sid,
        }
    await stranger.send_json_to({"type": "confirm_action", "suggestionId": "action_1_nope"})
    assert (await stranger.receive_json_from(timeout=5))["code"] == "not_found"
    await owner.disconnect()
    await stranger.disconnect()


async def test_feedback_is_acknowledged_and_bound_to_the_conversation():
    """Feedback on an own answer is kept; on another's or an unknown one: not_found."""
    from chat.models import Feedback

    owner, stranger = await open_socket(), await open_socket()
    await run_turn(owner, "Vad kostar premium?", message_id="q1")
    await owner.send_json_to(
        {"type": "feedback", "messageId": "q1", "rating": "down", "comment": "För dyrt"}
    )
    ack = await owner.receive_json_from(timeout=5)
    assert ack == {"type": "feedback_received", "messageId": "q1", "rating": "down"}
    await stranger.send_json_to({"type": "feedback", "messageId": "q1", "rating": "up"})
    assert (await stranger.receive_json_from(timeout=5))["code"] == "not_found"
    assert await _count(Feedback) == 1
    await owner.disconnect()
    await stranger.disconnect()


async def test_same_browser_session_continues_the_conversation():
    """Two sockets with the same session cookie share one conversation and its suggestions."""
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    sid = (await run_turn(first, "Ring mig på 070-123 45 67"))[-1]["suggestionId"]
    await first.disconnect()
    await audit.drain()
    second = await open_socket(headers=cookie)
    await second.send_json_to({"type": "confirm_action", "suggestionId": sid})
    assert (await second.receive_json_from(timeout=5))["result"]["ignored"] is False
    await second.disconnect()


async def test_rejection_and_new_cards_reach_every_tab_of_the_conversation():
    """A new card and a rejection in one tab are broadcast through the conversation's group."""
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    sid = (await run_turn(first, "Ring mig på 070-123 45 67"))[-1]["suggestionId"]
    await audit.drain()
    second = await open_socket(headers=cookie)  # the conversation exists: it joins its group
    # The question, the streamed text, its end, the answer and the new suggestion's card
    # reach the other tab as well.
    frames = await run_turn(first, "Skapa ett ärende", message_id="m2")
    question, sync, end, answer, mirrored = [
        await second.receive_json_from(timeout=5) for _ in range(5)
    ]
    assert question == {"type": "user_message", "messageId": "m2", "text": "Skapa ett ärende"}
    assert sync["type"] == "stream_sync" and answer["text"].startswith(sync["text"])
    assert end == {"type": "stream_end", "reason": "done", "messageId": "m2"}
    assert answer == frames[-2] and answer["type"] == "response"
    assert mirrored == frames[-1] and mirrored["card"]["state"] == "pending"
    await first.send_json_to({"type": "reject_action", "suggestionId": sid})
    mine = await first.receive_json_from(timeout=5)
    theirs = await second.receive_json_from(timeout=5)
    assert mine["type"] == theirs["type"] == "action_rejected"
    assert theirs["card"]["state"] == "rejected" and theirs["card"] == mine["card"]
    await first.disconnect()
    await second.disconnect()


async def test_two_tabs_opened_before_the_first_message_share_its_conversation():
    """Both sockets connect before any conversation exists: one conversation, seen by both."""
    from chat.models import Conversation

    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    second = await open_socket(headers=cookie)
    frames = await run_turn(second, "Vad kostar premium?", message_id="q1")
    assert (await first.receive_json_from(timeout=5))["type"] == "user_message"
    followed = [await first.receive_json_from(timeout=5)]
    while followed[-1]["type"] != "response":
        followed.append(await first.receive_json_from(timeout=5))
    assert followed[-1] == frames[-1] and followed[-2] == frames[-2]
    await audit.drain()
    assert await _count(Conversation) == 1
    await first.disconnect()
    await second.disconnect()


async def test_a_lone_tab_sends_nothing_to_other_tabs_on_the_in_memory_layer(monkeypatch):
    """One process knows every tab: with no other tab open, a turn makes no group_send to
    its conversation (the in-memory layer's group_send walks every channel)."""
    sent = []
    layer = get_channel_layer()
    original = layer.group_send

    async def recording(group, message):
        sent.append(message["type"])
        await original(group, message)

    monkeypatch.setattr(layer, "group_send", recording)
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    alone = await open_socket(headers=cookie)
    await run_turn(alone, "Vad kostar premium?", message_id="q1")
    assert not any(kind.startswith("tab.") for kind in sent), sent
    other = await open_socket(headers=cookie)
    await run_turn(alone, "Vad kostar basic?", message_id="q2")
    assert "tab.frame" in sent
    await alone.disconnect()
    await other.disconnect()


async def test_callback_without_a_number_asks_for_one_and_validates_it():
    """No number: phone_required, nothing runs; a bad number: invalid_phone; a good one runs."""
    from actions.models import CallbackRequest

    ws = await open_socket()
    suggestion = (await run_turn(ws, "Ring mig imorgon"))[-1]
    assert suggestion["card"]["needsPhone"] is True
    sid = suggestion["suggestionId"]
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid})
    missing = await ws.receive_json_from(timeout=5)
    assert missing["code"] == "phone_required" and missing["suggestionId"] == sid
    assert missing["message"] == "Skriv det telefonnummer vi ska använda."
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid, "phone": "12345"})
    assert (await ws.receive_json_from(timeout=5))["code"] == "invalid_phone"
    assert await _count(CallbackRequest) == 0
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid, "phone": "070-123 45 67"})
    done = await ws.receive_json_from(timeout=5)
    assert done["card"]["state"] == "done"
    assert done["card"]["message"] == "Vi ringer upp dig på 070-123 45 67."
    assert await _count(CallbackRequest) == 1
    await ws.disconnect()


async def test_feedback_keeps_its_reason():
    """A thumbs down with a reason and a comment is stored with both."""
    from asgiref.sync import sync_to_async

    from chat.models import Feedback

    ws = await open_socket()
    await run_turn(ws, "Vad kostar premium?", message_id="q1")
    await ws.send_json_to(
        {
            "type": "feedback",
            "messageId": "q1",
            "rating": "down",
            "reason": "no_answer",
            "comment": "Jag ville veta mer",
        }
    )
    assert (await ws.receive_json_from(timeout=5))["type"] == "feedback_received"
    row = await sync_to_async(Feedback.objects.get)()
    assert (row.rating, row.reason, row.comment) == ("down", "no_answer", "Jag ville veta mer")
    await ws.send_json_to({"type": "feedback", "messageId": "q1", "rating": "up", "reason": "x"})
    assert (await ws.receive_json_from(timeout=5))["code"] == "invalid_message"
    await ws.disconnect()


@pytest.mark.parametrize(
    ("question", "follow_up", "expected"),
    [
        ("Vad kostar premium?", "Och standard?", "199 kr/månad"),
        ("What does Premium cost?", "And Standard?", "199 SEK/month"),
    ],
)
async def test_elliptical_follow_up_stays_in_the_previous_topic(question, follow_up, expected):
    """'Och standard?' after a premium price question is answered with Standard's price."""
    ws = await open_socket()
    await run_turn(ws, question, message_id="q1")
    response = (await run_turn(ws, follow_up, message_id="q2"))[-1]
    assert response["status"] == "done", response
    assert expected in response["text"]
    await ws.disconnect()


async def test_citations_carry_the_document_title():
    """Citations are labelled by the document's front-matter title, not its path."""
    ws = await open_socket()
    response = (await run_turn(ws, "Vad kostar premium?"))[-1]
    assert {c["title"] for c in response["citations"]} == {"Priser och abonnemang"}
    await ws.disconnect()


# -- helpers -------------------------------------------------------------------


async def _statuses() -> dict:
    from asgiref.sync import sync_to_async

    def read():
        return dict(
            Message.objects.filter(role=Message.Role.ASSISTANT).values_list("message_id", "status")
        )

    return await sync_to_async(read)()


async def _count(model) -> int:
    from asgiref.sync import sync_to_async

    return await sync_to_async(model.objects.count)()


async def _new_session() -> str:
    from asgiref.sync import sync_to_async

    def create():
        store = SessionStore()
        store.create()
        return store.session_key

    return await sync_to_async(create)()


# Channels' hooks a consumer is meant to define (the docs' consumer API); anything else
# the class defines must be a name no Channels base class has.
PUBLIC_HOOKS = {
    "__init__",
    "connect",
    "disconnect",
    "receive_json",
    "decode_json",
    "encode_json",
    # The handler of the ASGI ``websocket.receive`` event: binary and empty frames only.
    "websocket_receive",
}


def test_the_consumer_overrides_only_channels_public_hooks():
    """No dispatch, receive, send or send_json of its own: Channels does the plumbing."""
    from channels.generic.websocket import AsyncJsonWebsocketConsumer

    from chat.consumers import ChatConsumer

    channels_names = {
        name
        for base in AsyncJsonWebsocketConsumer.__mro__
        if base is not object
        for name in vars(base)
    }
    own = set(vars(ChatConsumer)) & channels_names - {"__module__", "__doc__", "__qualname__"}
    assert own <= PUBLIC_HOOKS, own - PUBLIC_HOOKS
    assert {"dispatch", "receive", "send", "send_json"}.isdisjoint(vars(ChatConsumer))


async def test_empty_text_frame_is_invalid_json_and_the_connection_stays():
    """An empty text frame, which Channels' JSON consumer would crash on, is invalid_json."""
    ws = await open_socket()
    await ws.send_input({"type": "websocket.receive", "text": ""})
    assert (await ws.receive_json_from(timeout=5))["code"] == "invalid_json"
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["grounded"] is True
    await ws.disconnect()


async def test_the_consumer_takes_its_services_from_as_asgi():
    """A fake service passed through ``as_asgi`` is the one the consumer calls."""
    from channels.testing import WebsocketCommunicator

    from chat.composition import chat_services
    from chat.consumers import ChatConsumer

    seen = []

    async def feedback(**kwargs):
        seen.append(kwargs["message_id"])

    fakes = dataclasses.replace(chat_services(), give_feedback=feedback)
    ws = WebsocketCommunicator(ChatConsumer.as_asgi(services=fakes), "/ws/chat/")
    assert (await ws.connect(timeout=5))[0]
    await ws.send_json_to({"type": "feedback", "messageId": "anything", "rating": "up"})
    ack = await ws.receive_json_from(timeout=5)
    assert ack == {"type": "feedback_received", "messageId": "anything", "rating": "up"}
    assert seen == ["anything"]
    await ws.disconnect()


async def test_a_ticket_confirmed_in_the_chat_holds_the_message_that_asked_for_it():
    """The chat hands the actions app the customer's own words for the ticket."""
    from asgiref.sync import sync_to_async

    from actions.models import SupportTicket

    ws = await open_socket()
    text = "Skapa ärende: fakturan är fel"
    sid = (await run_turn(ws, text, message_id="t-1"))[-1]["suggestionId"]
    await audit.drain()
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid})
    assert (await ws.receive_json_from(timeout=5))["result"]["success"] is True
    ticket = await sync_to_async(SupportTicket.objects.get)()
    assert ticket.description == text
    await ws.disconnect()


async def test_a_ticket_on_the_english_page_is_english_and_about_the_unanswered_question():
    """English page: "Create a ticket" (the button) after an unanswered question gets the
    English prompt and card, an English result, and a ticket whose subject is the question,
    with the conversation and the e-mail address typed on the card."""
    from asgiref.sync import sync_to_async

    from actions.models import SupportTicket

    ws = await open_socket()
    question = "hallucinate: What does the premium plan cost?"  # the mock LLM invents a price
    await ws.send_json_to({"type": "message", "id": "q1", "text": question, "language": "en"})
    while (answer := await ws.receive_json_from(timeout=5))["type"] != "response":
        pass
    assert answer["status"] in ("no_support", "withheld")
    await ws.send_json_to(
        {"type": "message", "id": "q2", "text": "Create a ticket"} | {"language": "en"}
    )
    frames = []
    while not frames or frames[-1]["type"] != "action_suggestion":
        frames.append(await ws.receive_json_from(timeout=5))
    assert (
        frames[-2]["text"] == "Would you like us to create a support ticket? Please confirm below."
    )
    card = frames[-1]
    assert card["payload"]["subject"] == question and card["card"]["needsContact"] is True
    await audit.drain()
    sid = card["suggestionId"]
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid, "contact": "anna@"})
    problem = await ws.receive_json_from(timeout=5)
    assert problem["code"] == "invalid_contact" and problem["message"].startswith("That is")
    contact = "anna@example.com"
    await ws.send_json_to({"type": "confirm_action", "suggestionId": sid, "contact": contact})
    done = await ws.receive_json_from(timeout=5)
    assert done["result"]["success"] is True
    ticket = await sync_to_async(SupportTicket.objects.get)()
    assert done["card"]["message"] == f"Ticket {ticket.reference} created."
    assert ticket.subject == question and ticket.email == contact
    assert done["card"]["contact"] == contact and done["card"]["needsContact"] is False
    asked = await sync_to_async(lambda: ticket.conversation.messages.filter(role="user").count())()
    assert asked == 2  # the ticket is linked to the conversation that asked for it
    await ws.disconnect()


async def test_a_swedish_question_on_the_english_page_is_answered_in_swedish():
    """The page's language is for words that do not say: a Swedish question stays Swedish."""
    ws = await open_socket()
    text = "Skapa ett ärende om fakturan"
    await ws.send_json_to({"type": "message", "id": "q1", "text": text, "language": "en"})
    while (frame := await ws.receive_json_from(timeout=5))["type"] != "response":
        pass
    assert frame["language"] == "sv" and frame["text"].startswith("Vill du")
    await ws.disconnect()


async def test_a_ticket_asked_for_after_a_reload_is_still_about_the_unanswered_question():
    """The unanswered question survives a reload: the conversation's last answer says it."""
    session = await _new_session()
    cookie = [(b"cookie", f"sessionid={session}".encode())]
    first = await open_socket(headers=cookie)
    question = "hallucinate: What does the premium plan cost?"
    await first.send_json_to({"type": "message", "id": "q1", "text": question, "language": "en"})
    while (await first.receive_json_from(timeout=5))["type"] != "response":
        pass
    await first.disconnect()
    await audit.drain()
    second = await open_socket(headers=cookie)
    frames = await run_turn(second, "Create a ticket", message_id="q2")
    assert frames[-1]["type"] == "action_suggestion"
    assert frames[-1]["payload"]["subject"] == question
    await second.disconnect()
