"""The inbox on the staff socket: states, search, assign, resolve, reopen, notes, saved
replies, and agents' numbers checked against the KB before they reach the customer."""

import pytest
from asgiref.sync import sync_to_async

from chat.models import HandoffEvent
from staff.models import SavedReply
from tests.chat.conftest import open_socket, run_turn
from tests.chat.handoff_helpers import receive_until, session_cookie, staff_socket, staff_user

pytestmark = pytest.mark.usefixtures("indexed_kb", "handoff_open_all_day")


@pytest.fixture
def eva(django_user_model):
    return staff_user(django_user_model, "eva", first_name="Eva")


@pytest.fixture
def bo(django_user_model):
    return staff_user(django_user_model, "bo", first_name="Bo")


async def console_of(user):
    console = staff_socket(await sync_to_async(session_cookie)(user))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")
    return console


async def inbox(console, state: str, query: str = "") -> list[dict]:
    await console.send_json_to({"type": "inbox", "state": state, "query": query})
    return (await receive_until(console, "inbox"))["items"]


async def waiting_customer(text: str = "Vad kostar premium?"):
    """A customer who asked a question, then for a person; their conversation id."""
    customer = await open_socket()
    await run_turn(customer, text)
    await customer.send_json_to({"type": "handoff_request"})
    await receive_until(customer, "handoff_queued")
    return customer


async def taken(console, conversation_id: str) -> dict:
    await console.send_json_to({"type": "take", "conversationId": conversation_id})
    return await receive_until(console, "conversation")


async def frames_until_probe(communicator) -> list[dict]:
    """Every frame the customer got before the answer to an unknown frame."""
    await communicator.send_json_to({"type": "probe"})
    frames = []
    while (frame := await communicator.receive_json_from(timeout=5)).get("code") != "unknown_type":
        frames.append(frame)
    return frames


async def kinds(conversation_id: str) -> list[str]:
    events = HandoffEvent.objects.filter(conversation_id=conversation_id).order_by("id")
    return [kind async for kind in events.values_list("kind", flat=True)]


async def test_the_inbox_lists_by_state_with_language_origin_last_message_and_presence(eva):
    """Waiting, then mine and open once taken; each row says language, where from, the last
    message, the wait and whether the customer is there."""
    console = await console_of(eva)
    customer = await waiting_customer()
    [row] = await inbox(console, "waiting")
    assert (row["language"], row["from"], row["present"]) == ("sv", "Chat page", True)
    assert row["lastMessage"] and row["waitedSeconds"] >= 0
    assert await inbox(console, "mine") == []
    await taken(console, row["conversationId"])
    assert [r["conversationId"] for r in await inbox(console, "mine")] == [row["conversationId"]]
    assert [r["takenBy"] for r in await inbox(console, "open")] == ["eva"]
    assert await inbox(console, "waiting") == []
    await customer.disconnect()
    await console.disconnect()


async def test_search_finds_a_conversation_by_a_word_of_the_customers_message(eva):
    console = await console_of(eva)
    customer = await waiting_customer("Hur säger jag upp abonnemanget?")
    found = await inbox(console, "waiting", "ABONNEMANGET")
    assert len(found) == 1
    assert await inbox(console, "waiting", "fakturaadress") == []
    await console.send_json_to({"type": "inbox", "state": "everything"})
    assert (await receive_until(console, "error"))["code"] == "invalid_message"
    await console.send_json_to({"type": "inbox", "state": "waiting", "query": "x" * 201})
    assert (await receive_until(console, "error"))["code"] == "invalid_message"
    await customer.disconnect()
    await console.disconnect()


async def test_note_assign_resolve_reopen_each_an_event_and_the_note_never_reaches_the_customer(
    eva, bo
):
    """Eva notes and assigns to Bo (Bo's console opens it, the customer hears Bo joined), Bo
    resolves (the customer hears he left), Eva reopens: every step is on the timeline."""
    eva_console, bo_console = await console_of(eva), await console_of(bo)
    customer = await waiting_customer()
    [row] = await inbox(eva_console, "waiting")
    conversation_id = row["conversationId"]
    await taken(eva_console, conversation_id)
    assert (await receive_until(customer, "agent_joined"))["name"] == "Eva"

    await eva_console.send_json_to(
        {"type": "note", "conversationId": conversation_id, "text": "Kunden verkar stressad"}
    )
    assert (await receive_until(eva_console, "note"))["text"] == "Kunden verkar stressad"
    assert await frames_until_probe(customer) == []  # nothing of the note
    await eva_console.send_json_to(
        {"type": "assign", "conversationId": conversation_id, "to": bo.pk}
    )
    opened = await receive_until(bo_console, "conversation")
    assert "Kunden verkar stressad" in [r["text"] for r in opened["history"]]
    assert (await receive_until(eva_console, "closed"))["conversationId"] == conversation_id
    assert (await receive_until(customer, "agent_joined"))["name"] == "Bo"

    await bo_console.send_json_to({"type": "resolve", "conversationId": conversation_id})
    assert (await receive_until(customer, "agent_left"))["name"] == "Bo"
    assert [r["conversationId"] for r in await inbox(eva_console, "resolved")] == [conversation_id]
    await eva_console.send_json_to({"type": "reopen", "conversationId": conversation_id})
    await receive_until(eva_console, "conversation")
    assert (await receive_until(customer, "agent_joined"))["name"] == "Eva"

    assert await kinds(conversation_id) == [
        "requested",
        "joined",
        "note",
        "assigned",
        "resolved",
        "reopened",
    ]
    for socket in (customer, eva_console, bo_console):
        await socket.disconnect()


async def test_only_the_owner_assigns_and_only_to_a_colleague_who_may(eva, bo, django_user_model):
    outsider = await sync_to_async(staff_user)(django_user_model, "olle", permitted=False)
    eva_console, bo_console = await console_of(eva), await console_of(bo)
    customer = await waiting_customer()
    [row] = await inbox(eva_console, "waiting")
    conversation_id = row["conversationId"]
    await taken(eva_console, conversation_id)
    await bo_console.send_json_to(
        {"type": "assign", "conversationId": conversation_id, "to": bo.pk}
    )
    assert (await receive_until(bo_console, "error"))["code"] == "not_owner"
    await eva_console.send_json_to(
        {"type": "assign", "conversationId": conversation_id, "to": outsider.pk}
    )
    assert (await receive_until(eva_console, "error"))["code"] == "not_allowed"
    await eva_console.send_json_to({"type": "assign", "conversationId": conversation_id, "to": "1"})
    assert (await receive_until(eva_console, "error"))["code"] == "invalid_message"
    assert await kinds(conversation_id) == ["requested", "joined"]
    for socket in (customer, eva_console, bo_console):
        await socket.disconnect()


async def test_the_console_gets_colleagues_and_saved_replies(eva, bo):
    await sync_to_async(SavedReply.objects.create)(title="Hälsning", text="Hej! Jag heter Eva.")
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    workspace = await receive_until(console, "workspace")
    assert workspace["colleagues"] == [{"id": bo.pk, "name": "Bo"}]
    assert [r["title"] for r in workspace["savedReplies"]] == ["Hälsning"]
    await console.disconnect()


async def test_a_price_the_kb_does_not_state_is_flagged_and_only_sent_deliberately(eva):
    """ "Premium kostar 1234 kr/mån" (the KB says 399): flagged, nothing reaches the customer;
    sent again over the flag it goes, and the timeline says so. The KB's price is not flagged."""
    console = await console_of(eva)
    customer = await waiting_customer()
    [row] = await inbox(console, "waiting")
    conversation_id = row["conversationId"]
    await taken(console, conversation_id)
    await receive_until(customer, "agent_joined")

    wrong = {
        "type": "message",
        "conversationId": conversation_id,
        "text": "Premium kostar 1234 kr/mån.",
    }
    await console.send_json_to(wrong)
    flagged = await receive_until(console, "flagged")
    assert flagged["unsupported"] and "1234" in str(flagged["unsupported"])
    assert await kinds(conversation_id) == ["requested", "joined"]

    await console.send_json_to({**wrong, "overFlag": True})
    assert (await receive_until(console, "sent"))["text"] == "Premium kostar 1234 kr/mån."
    assert (await receive_until(customer, "agent_message"))["text"] == "Premium kostar 1234 kr/mån."
    assert await kinds(conversation_id) == [
        "requested",
        "joined",
        "staff_message",
        "sent_over_flag",
    ]

    right = {
        "type": "message",
        "conversationId": conversation_id,
        "text": "Premium kostar 399 kr/månad.",
    }
    await console.send_json_to(right)
    assert (await receive_until(console, "sent"))["text"] == right["text"]
    assert (await kinds(conversation_id))[-1] == "staff_message"
    for socket in (customer, console):
        await socket.disconnect()
