"""The staff console's socket: who may connect, the live queue, take, reply, hand back."""

import uuid

import pytest
from asgiref.sync import sync_to_async
from django.contrib.sessions.models import Session
from django.test import Client

from chat import handoff
from chat.models import Handoff, HandoffEvent
from staff import handoff as staff_handoff
from tests.chat.handoff_helpers import receive_until, session_cookie, staff_socket, staff_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("handoff_open_all_day"),
]


@pytest.fixture
def anna(django_user_model):
    return staff_user(django_user_model, "anna", first_name="Anna")


@pytest.fixture
def anna_cookie(anna):
    return session_cookie(anna)


request_handoff = sync_to_async(handoff.handoff_request)


async def receive_outcome(console) -> dict:
    """The console's answer to a take: ``conversation`` (won) or ``take_failed``."""
    while True:
        frame = await console.receive_json_from(timeout=5)
        if frame["type"] in ("conversation", "take_failed"):
            return frame


@pytest.mark.parametrize("who", ["anonymous", "customer", "staff without permission"])
async def test_only_staff_with_the_handoff_permission_connect(django_user_model, who):
    """No session, a non-staff user, or staff lacking chat.handle_handoff: the handshake fails."""
    cookie = None
    if who == "customer":
        user = await sync_to_async(django_user_model.objects.create_user)("kund")
        cookie = await sync_to_async(session_cookie)(user)
    elif who == "staff without permission":
        user = await sync_to_async(staff_user)(django_user_model, "bo", permitted=False)
        cookie = await sync_to_async(session_cookie)(user)
    connected, code = await staff_socket(cookie).connect(timeout=5)
    assert not connected and code == 4403


async def test_a_socket_without_origin_is_refused(anna_cookie):
    """The session cookie alone is not enough: the staff socket must come from our pages."""
    connected, _ = await staff_socket(anna_cookie, origin=False).connect(timeout=5)
    assert not connected


async def test_queue_is_live_take_reply_and_hand_back(anna, anna_cookie):
    """The console sees a request arrive, takes it, gets the history, replies, hands back."""
    ws = staff_socket(anna_cookie)
    assert (await ws.connect(timeout=5))[0]
    assert (await ws.receive_json_from(timeout=5)) == {"type": "queue", "items": [], "total": 0}

    conversation_id = uuid.uuid4()
    await request_handoff(conversation_id=conversation_id, text="prata med en människa")
    queue = await receive_until(ws, "queue")
    [item] = queue["items"]
    assert (item["conversationId"], item["status"], item["position"]) == (
        str(conversation_id),
        "waiting",
        1,
    )

    await ws.send_json_to({"type": "take", "conversationId": str(conversation_id)})
    opened = await receive_until(ws, "conversation")
    assert [row["text"] for row in opened["history"]] == ["prata med en människa", "Staff joined"]
    await ws.send_json_to(
        {"type": "message", "conversationId": str(conversation_id), "text": "Hej, Anna här!"}
    )
    sent = await receive_until(ws, "sent")
    assert sent["text"] == "Hej, Anna här!" and sent["messageId"].startswith("agent_")

    await sync_to_async(handoff.handoff_customer_message)(
        conversation_id=conversation_id, text="Tack!", message_id="c1"
    )
    customer = await receive_until(ws, "customer_message")
    assert customer["text"] == "Tack!"

    await ws.send_json_to({"type": "hand_back", "conversationId": str(conversation_id)})
    assert (await receive_until(ws, "closed"))["conversationId"] == str(conversation_id)
    await ws.disconnect()

    kinds = await sync_to_async(list)(
        HandoffEvent.objects.filter(conversation_id=conversation_id).values_list("kind", "staff")
    )
    assert kinds == [
        ("requested", None),
        ("joined", anna.pk),
        ("staff_message", anna.pk),
        ("customer_message", None),
        ("left", anna.pk),
    ]
    handoff_row = await Handoff.objects.aget(conversation_id=conversation_id)
    assert handoff_row.status == Handoff.Status.CLOSED


async def test_the_second_taker_is_told_who_won(django_user_model, anna_cookie):
    """Two consoles take the same conversation: one opens it, the other gets take_failed."""
    bo = await sync_to_async(staff_user)(django_user_model, "bo")
    consoles = [staff_socket(anna_cookie), staff_socket(await sync_to_async(session_cookie)(bo))]
    for console in consoles:
        assert (await console.connect(timeout=5))[0]
        await receive_until(console, "queue")
    conversation_id = str(uuid.uuid4())
    await request_handoff(conversation_id=conversation_id)
    for console in consoles:
        await console.send_json_to({"type": "take", "conversationId": conversation_id})
    outcomes = [await receive_outcome(console) for console in consoles]
    assert sorted(frame["type"] for frame in outcomes) == ["conversation", "take_failed"]
    loser = consoles[[frame["type"] for frame in outcomes].index("take_failed")]
    winner_name = "Anna" if outcomes[0]["type"] == "conversation" else "bo"
    assert next(f for f in outcomes if f["type"] == "take_failed")["takenBy"] == winner_name
    await loser.send_json_to(
        {"type": "message", "conversationId": conversation_id, "text": "Jag tar den!"}
    )
    assert (await receive_until(loser, "error"))["code"] == "not_owner"
    for console in consoles:
        await console.disconnect()


async def test_reconnecting_owner_gets_their_conversations_back(anna, anna_cookie):
    """A console that reconnects reopens the conversations its user still owns."""
    conversation_id = uuid.uuid4()
    await request_handoff(conversation_id=conversation_id, text="talk to a human")
    await sync_to_async(staff_handoff.handoff_take)(conversation_id=conversation_id, staff=anna)
    ws = staff_socket(anna_cookie)
    assert (await ws.connect(timeout=5))[0]
    opened = await receive_until(ws, "conversation")
    assert opened["conversationId"] == str(conversation_id)
    await ws.disconnect()


async def test_bad_frames_get_an_error(anna_cookie):
    ws = staff_socket(anna_cookie)
    assert (await ws.connect(timeout=5))[0]
    await ws.send_json_to({"type": "take", "conversationId": "nope"})
    assert (await receive_until(ws, "error"))["code"] == "invalid_message"
    await ws.disconnect()


@pytest.mark.parametrize("revoked", ["permission", "is_staff", "is_active", "session"])
async def test_a_staff_socket_closes_once_its_permission_or_session_is_gone(
    anna, anna_cookie, settings, revoked
):
    """Revoked after the handshake: the next frame is refused and the socket closes (4403);
    no take happens."""
    settings.STAFF_RECHECK_SECONDS = 0
    ws = staff_socket(anna_cookie)
    assert (await ws.connect(timeout=5))[0]
    await ws.receive_json_from(timeout=5)  # the queue

    def revoke():
        if revoked == "permission":
            anna.user_permissions.clear()
        elif revoked == "session":
            Session.objects.all().delete()
        else:
            setattr(anna, revoked, False)
            anna.save()

    await sync_to_async(revoke)()
    conversation_id = uuid.uuid4()
    await request_handoff(conversation_id=conversation_id, text="prata med en människa")
    await ws.send_json_to({"type": "take", "conversationId": str(conversation_id)})
    while True:
        output = await ws.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
        assert '"conversation"' not in output.get("text", ""), output
    assert output["code"] == 4403
    handoff_row = await sync_to_async(Handoff.objects.get)(conversation_id=conversation_id)
    assert handoff_row.status == Handoff.Status.WAITING


async def test_logging_out_closes_that_sessions_staff_sockets(anna, anna_cookie):
    """The admin's logout: the open console of that browser session is closed (4403)."""
    ws = staff_socket(anna_cookie)
    assert (await ws.connect(timeout=5))[0]
    await receive_until(ws, "workspace")  # the queue, then colleagues and saved replies

    def log_out():
        client = Client()
        session_id = anna_cookie.decode().split("sessionid=")[1].split(";")[0]
        client.cookies["sessionid"] = session_id
        client.post("/admin/logout/")

    await sync_to_async(log_out)()
    output = await ws.receive_output(timeout=5)
    assert output == {"type": "websocket.close", "code": 4403}


async def test_a_staff_console_is_rate_limited(anna, anna_cookie, settings):
    """A burst of take frames: past STAFF_RATE_LIMIT each one is refused, not written."""
    settings.STAFF_RATE_LIMIT = "5/10"
    ws = staff_socket(anna_cookie)
    assert (await ws.connect(timeout=5))[0]
    await receive_until(ws, "workspace")  # the frames of the connect
    missing = str(uuid.uuid4())
    for _ in range(8):
        await ws.send_json_to({"type": "take", "conversationId": missing})
    codes = [(await ws.receive_json_from(timeout=5)).get("code") for _ in range(8)]
    assert codes.count("rate_limited") == 3
    await ws.disconnect()
