"""The customer's side of the live handoff, with a staff console beside it (one process)."""

import asyncio
import datetime as dt

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from chat import audit, handoff, sessionkeys
from chat.models import Handoff, HandoffEvent, Message
from staff import handoff as staff_handoff
from tests.chat.conftest import open_socket, run_turn
from tests.chat.handoff_helpers import receive_until, session_cookie, staff_socket, staff_user

pytestmark = pytest.mark.usefixtures("indexed_kb", "handoff_open_all_day")

AGENT_FRAMES = {"stream", "stream_end", "response", "action_suggestion"}


@pytest.fixture
def eva(django_user_model):
    return staff_user(django_user_model, "eva", first_name="Eva")


async def frames_until_probe(communicator) -> list[dict]:
    """Every frame before the answer to an unknown frame (answered in order)."""
    await communicator.send_json_to({"type": "probe"})
    frames = []
    while (frame := await communicator.receive_json_from(timeout=5)).get("code") != "unknown_type":
        frames.append(frame)
    return frames


async def queued_conversation() -> str:
    row = await Handoff.objects.aget(status=Handoff.Status.WAITING)
    return str(row.conversation_id)


async def test_withheld_customer_asks_staff_takes_replies_and_hands_back(eva):
    """The whole handoff: queued, agent_joined, typing both ways, agent_message, agent_left."""
    customer = await open_socket()
    frames = await run_turn(customer, "hallucinate: Vad kostar premium?", message_id="h1")
    assert frames[-1]["status"] == "withheld"
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")

    await customer.send_json_to({"type": "handoff_request"})
    assert await customer.receive_json_from(timeout=5) == {"type": "handoff_queued", "position": 1}
    conversation_id = await queued_conversation()
    await console.send_json_to({"type": "take", "conversationId": conversation_id})
    opened = await receive_until(console, "conversation")
    texts = [row["text"] for row in opened["history"]]
    assert "hallucinate: Vad kostar premium?" in texts and "Jag kan inte verifiera det." in texts
    assert await customer.receive_json_from(timeout=5) == {"type": "agent_joined", "name": "Eva"}

    await customer.send_json_to({"type": "typing"})
    assert (await receive_until(console, "customer_typing"))["conversationId"] == conversation_id
    await customer.send_json_to({"type": "message", "id": "c1", "text": "Vad kostar premium?"})
    assert await customer.receive_json_from(timeout=5) == {
        "type": "handoff_delivered",
        "messageId": "c1",
    }
    assert (await receive_until(console, "customer_message"))["text"] == "Vad kostar premium?"
    await console.send_json_to({"type": "typing", "conversationId": conversation_id})
    await console.send_json_to(
        {"type": "message", "conversationId": conversation_id, "text": "Premium kostar 399 kr."}
    )
    assert await customer.receive_json_from(timeout=5) == {"type": "agent_typing"}
    reply = await customer.receive_json_from(timeout=5)
    assert reply["type"] == "agent_message" and reply["text"] == "Premium kostar 399 kr."
    assert await frames_until_probe(customer) == []  # the agent did not answer "c1"

    await console.send_json_to({"type": "hand_back", "conversationId": conversation_id})
    assert await customer.receive_json_from(timeout=5) == {"type": "agent_left", "name": "Eva"}
    frames = await run_turn(customer, "Vad kostar premium?", message_id="after")
    assert frames[-1]["grounded"] is True
    await customer.disconnect()
    await console.disconnect()
    await audit.drain()
    kinds = await sync_to_async(list)(
        HandoffEvent.objects.order_by("id").values_list("kind", flat=True)
    )
    assert kinds == ["requested", "joined", "customer_message", "staff_message", "left"]


async def test_asking_for_a_person_in_words_queues_instead_of_a_turn():
    """'Kan jag prata med en människa?' queues the conversation; no agent turn runs."""
    customer = await open_socket()
    await customer.send_json_to(
        {"type": "message", "id": "p1", "text": "Kan jag prata med en människa?"}
    )
    assert await customer.receive_json_from(timeout=5) == {
        "type": "handoff_delivered",
        "messageId": "p1",
    }
    assert await customer.receive_json_from(timeout=5) == {"type": "handoff_queued", "position": 1}
    assert await frames_until_probe(customer) == []
    event = await HandoffEvent.objects.aget()
    assert (event.kind, event.text) == ("requested", "Kan jag prata med en människa?")
    assert (await Handoff.objects.aget()).source == Handoff.Source.PHRASE
    await customer.disconnect()


async def offline_and_cards(customer) -> tuple[dict, list[dict]]:
    """The handoff_offline frame and the two action cards after it."""
    offline = await customer.receive_json_from(timeout=5)
    assert offline["type"] == "handoff_offline"
    cards = [await customer.receive_json_from(timeout=5) for _ in offline["options"]]
    return offline, cards


async def test_outside_opening_hours_a_callback_or_ticket_is_offered_as_cards(settings):
    """Nobody is on duty: the callback and the ticket come as pending action cards, the
    customer need not type anything; nothing is queued."""
    settings.HANDOFF_OPENING_HOURS = "never"
    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    offline, cards = await offline_and_cards(customer)
    assert offline["options"] == ["schedule_callback", "create_ticket"]
    assert "ring mig på" not in offline["text"] and "välj nedan" in offline["text"]
    assert [(c["type"], c["action"]) for c in cards] == [
        ("action_suggestion", "schedule_callback"),
        ("action_suggestion", "create_ticket"),
    ]
    assert [c["card"]["state"] for c in cards] == ["pending", "pending"]
    assert cards[0]["card"]["needsPhone"] is True  # the callback asks for a number on its card
    assert not await Handoff.objects.filter(status=Handoff.Status.WAITING).aexists()
    assert (await HandoffEvent.objects.aget()).kind == "offline"
    await customer.disconnect()


async def test_the_offered_ticket_card_runs_when_confirmed(settings):
    """The ticket card is the action the customer already knows: confirm creates the ticket."""
    settings.HANDOFF_OPENING_HOURS = "never"
    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    _, cards = await offline_and_cards(customer)
    ticket = cards[1]["suggestionId"]
    await customer.send_json_to({"type": "confirm_action", "suggestionId": ticket})
    executed = await receive_until(customer, "action_executed")
    assert executed["card"]["state"] == "done"
    await customer.disconnect()


async def test_with_hours_unset_an_agent_online_is_available_at_any_hour(eva, settings):
    """No opening hours: an agent in the console is a person available, whatever the time."""
    settings.HANDOFF_OPENING_HOURS = ""
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")
    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    assert await customer.receive_json_from(timeout=5) == {"type": "handoff_queued", "position": 1}
    assert (await receive_until(console, "queue"))["total"] == 1
    await customer.disconnect()
    await console.disconnect()


async def test_with_hours_unset_and_no_agent_online_cards_and_when_staff_are_back(eva, settings):
    """The last console closed: the next customer is offered the cards, told staff answer when
    one of them is back; with hours set, told the day and time they open."""
    settings.HANDOFF_OPENING_HOURS = ""
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")
    await console.disconnect()
    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    offline, cards = await offline_and_cards(customer)
    assert "så snart någon av dem är tillbaka" in offline["text"]
    assert offline["backAt"] is None
    assert [c["action"] for c in cards] == ["schedule_callback", "create_ticket"]
    await customer.disconnect()

    settings.HANDOFF_OPENING_HOURS = "mon-fri 08:00-17:00; sat-sun 00:00-00:01"
    frame = await sync_to_async(handoff.offline_frame)(
        language="sv",
        now=dt.datetime(2026, 11, 23, 21, 0, tzinfo=dt.UTC),  # Monday 22:00 local
    )
    assert frame["text"].endswith("Personalen är tillbaka i morgon kl. 08:00.")


async def test_a_console_whose_process_died_stops_counting_as_online(eva, settings):
    """A console row not touched for three presence intervals is nobody."""
    settings.HANDOFF_OPENING_HOURS = ""
    now = timezone.now()
    await sync_to_async(staff_handoff.staff_console_open)(channel_name="dead", staff=eva)
    assert await sync_to_async(handoff.person_available)(now=now)
    later = now + dt.timedelta(seconds=3 * settings.STAFF_PRESENCE_SECONDS + 1)
    assert not await sync_to_async(handoff.person_available)(now=later)


async def test_a_stream_stops_when_a_person_joins_and_no_agent_frame_follows(eva, settings):
    """Taken mid-answer: stream_end{cancelled}, then agent_joined, then nothing of the agent."""
    settings.LLM_TOKEN_DELAY_MS = "100"
    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    await customer.receive_json_from(timeout=5)
    conversation_id = await queued_conversation()
    await customer.send_json_to({"type": "message", "id": "slow", "text": "Vad kostar premium?"})
    assert (await customer.receive_json_from(timeout=5))["type"] == "stream"
    await sync_to_async(staff_handoff.handoff_take)(conversation_id=conversation_id, staff=eva)
    seen = []
    while (frame := await customer.receive_json_from(timeout=5))["type"] != "agent_joined":
        seen.append(frame)
    assert seen[-1] == {"type": "stream_end", "reason": "cancelled", "messageId": "slow"}
    await asyncio.sleep(0.5)  # five token delays: a leaking stream would show by now
    after = await frames_until_probe(customer)
    assert not [f for f in after if f["type"] in AGENT_FRAMES], after
    await customer.disconnect()


async def test_the_gate_drops_agent_frames_while_a_person_owns_the_conversation():
    """Every frame of a turn passes the gate: from the moment a person owns it, none goes out."""
    from chat.consumers import ChatConsumer
    from chat.events import StreamDelta

    class Stepped:
        """A turn that yields a delta each time the test lets it."""

        message_id = "m"
        context = type("Context", (), {"id": "c"})()

        def __init__(self) -> None:
            self.go = asyncio.Queue()

        async def events(self):
            while (delta := await self.go.get()) is not None:
                yield StreamDelta(delta, "m")

    sent = []
    consumer = ChatConsumer()

    async def send(frame):
        sent.append(frame)

    consumer.send_json = send  # type: ignore[method-assign]
    turn = Stepped()
    await consumer.turns.start(turn)
    await turn.go.put("a")
    while not sent:
        await asyncio.sleep(0.01)
    consumer.person = "Eva"
    await turn.go.put("b")
    await turn.go.put(None)
    await consumer.turns.task
    assert sent == [{"type": "stream", "delta": "a", "messageId": "m"}]


async def test_a_join_that_never_reached_the_connection_is_found_at_the_next_message(
    eva, monkeypatch
):
    """The database decides at every message: a person took the conversation but their
    agent_joined was lost on the way; the customer's next message goes to them, not to
    the agent, and the customer is told who joined."""
    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    await customer.receive_json_from(timeout=5)
    conversation_id = await queued_conversation()
    monkeypatch.setattr(staff_handoff, "to_customer", lambda *args: None)  # the join is lost
    await sync_to_async(staff_handoff.handoff_take)(conversation_id=conversation_id, staff=eva)
    monkeypatch.undo()

    await customer.send_json_to({"type": "message", "id": "lost", "text": "Vad kostar premium?"})
    assert [await customer.receive_json_from(timeout=5) for _ in range(2)] == [
        {"type": "handoff_delivered", "messageId": "lost"},
        {"type": "agent_joined", "name": "Eva"},
    ]
    assert await frames_until_probe(customer) == []
    said = await HandoffEvent.objects.aget(kind="customer_message")
    assert (said.message_id, said.text) == ("lost", "Vad kostar premium?")
    await customer.send_json_to({"type": "typing"})  # now relayed to the owner
    await customer.send_json_to({"type": "message", "id": "next", "text": "Hallå?"})
    assert await frames_until_probe(customer) == [
        {"type": "handoff_delivered", "messageId": "next"}
    ]
    await customer.disconnect()
    await audit.drain()
    assert not await Message.objects.filter(message_id__in=["lost", "next"]).aexists()


async def test_a_reconnecting_customer_still_talks_to_the_person(eva):
    """A new connection of an owned conversation sends messages to the person, not the agent."""
    cookie = [(b"cookie", f"sessionid={sessionkeys.issue()}".encode())]
    customer = await open_socket(headers=cookie)
    await customer.send_json_to({"type": "message", "id": "p", "text": "talk to a human"})
    await receive_until(customer, "handoff_queued")
    conversation_id = await queued_conversation()
    await sync_to_async(staff_handoff.handoff_take)(conversation_id=conversation_id, staff=eva)
    assert (await customer.receive_json_from(timeout=5))["type"] == "agent_joined"
    await customer.disconnect()

    again = await open_socket(headers=cookie)
    assert await again.receive_json_from(timeout=5) == {"type": "agent_joined", "name": "Eva"}
    await again.send_json_to({"type": "message", "id": "back", "text": "Är du kvar?"})
    assert await frames_until_probe(again) == [{"type": "handoff_delivered", "messageId": "back"}]
    said = await HandoffEvent.objects.aget(kind="customer_message")
    assert (str(said.conversation_id), said.text) == (conversation_id, "Är du kvar?")
    await again.disconnect()


async def test_waiting_customers_hear_their_place_move_up(eva):
    """Two customers wait; when the first is taken, the second is told it is now first."""
    first, second = await open_socket(), await open_socket()
    for position, customer in enumerate((first, second), 1):
        await customer.send_json_to({"type": "handoff_request"})
        assert (await customer.receive_json_from(timeout=5))["position"] == position
    waiting = await sync_to_async(list)(
        Handoff.objects.order_by("requested_at", "id").values_list("conversation_id", flat=True)
    )
    await sync_to_async(staff_handoff.handoff_take)(conversation_id=waiting[0], staff=eva)
    assert (await first.receive_json_from(timeout=5))["type"] == "agent_joined"
    assert await second.receive_json_from(timeout=5) == {"type": "handoff_queued", "position": 1}
    for customer in (first, second):
        await customer.disconnect()


async def test_the_transcript_after_a_reload_keeps_what_the_person_wrote(eva):
    """/history/ lists the customer's and the person's handoff messages in order."""
    from chat.models import Conversation
    from chat.selectors import conversation_transcript

    customer = await open_socket()
    await customer.send_json_to({"type": "handoff_request"})
    await customer.receive_json_from(timeout=5)
    conversation_id = await queued_conversation()
    await sync_to_async(staff_handoff.handoff_take)(conversation_id=conversation_id, staff=eva)
    await customer.send_json_to({"type": "message", "id": "q", "text": "Hej?"})
    await receive_until(customer, "handoff_delivered")
    await sync_to_async(staff_handoff.handoff_staff_message)(
        conversation_id=conversation_id, staff=eva, text="Hej, Eva här."
    )
    await customer.disconnect()
    conversation = await Conversation.objects.aget(pk=conversation_id)
    transcript = await sync_to_async(conversation_transcript)(conversation=conversation)
    assert [(m["role"], m["text"], m.get("name")) for m in transcript] == [
        ("user", "Hej?", None),
        ("agent", "Hej, Eva här.", "Eva"),
    ]


@pytest.fixture
def bo(django_user_model):
    return staff_user(django_user_model, "bo", first_name="Bo")


async def taken_by_eva(eva):
    """A customer in the queue, taken by Eva's console; returns both sockets and the id."""
    customer = await open_socket()
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")
    await customer.send_json_to({"type": "handoff_request"})
    assert await customer.receive_json_from(timeout=5) == {"type": "handoff_queued", "position": 1}
    conversation_id = await queued_conversation()
    await console.send_json_to({"type": "take", "conversationId": conversation_id})
    await receive_until(console, "conversation")
    assert await receive_until(customer, "agent_joined") == {"type": "agent_joined", "name": "Eva"}
    return customer, console, conversation_id


async def test_a_conversation_whose_owner_left_goes_back_to_the_queue(eva, bo, settings):
    """Eva's console closes: past the grace the customer hears she left and is queued again,
    the agent answers meanwhile, and Bo can take the conversation."""
    settings.HANDOFF_RELEASE_SECONDS = 0.3
    customer, console, conversation_id = await taken_by_eva(eva)
    await console.disconnect()

    assert await receive_until(customer, "agent_left", timeout=5) == {
        "type": "agent_left",
        "name": "Eva",
    }
    assert await receive_until(customer, "handoff_queued") == {
        "type": "handoff_queued",
        "position": 1,
    }
    frames = await run_turn(customer, "Vad kostar premium?", message_id="after")
    assert frames[-1]["type"] == "response"  # the agent answers again

    other = staff_socket(await sync_to_async(session_cookie)(bo))
    assert (await other.connect(timeout=5))[0]
    await other.send_json_to({"type": "take", "conversationId": conversation_id})
    opened = await receive_until(other, "conversation")
    assert opened["conversationId"] == conversation_id
    kinds = [e.kind async for e in HandoffEvent.objects.filter(conversation_id=conversation_id)]
    assert "released" in kinds
    await other.disconnect()
    await customer.disconnect()


async def test_an_owner_back_within_the_grace_keeps_the_conversation(eva, settings):
    settings.HANDOFF_RELEASE_SECONDS = 0.5
    customer, console, conversation_id = await taken_by_eva(eva)
    await console.disconnect()
    again = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await again.connect(timeout=5))[0]
    await asyncio.sleep(0.9)
    row = await Handoff.objects.aget(conversation_id=conversation_id)
    assert row.status == Handoff.Status.ACTIVE and row.owner_left_at is None
    assert await customer.receive_nothing(timeout=0.2)
    await again.disconnect()
    await customer.disconnect()


async def test_asking_again_while_a_person_owns_it_gets_an_answer(eva):
    customer, console, _ = await taken_by_eva(eva)
    await customer.send_json_to({"type": "handoff_request"})
    assert await customer.receive_json_from(timeout=5) == {"type": "agent_joined", "name": "Eva"}
    await console.disconnect()
    await customer.disconnect()


async def test_an_admin_releases_a_conversation_to_the_queue(eva, admin_client):
    customer, console, conversation_id = await taken_by_eva(eva)
    row = await Handoff.objects.aget(conversation_id=conversation_id)
    await sync_to_async(admin_client.post)(
        "/admin/chat/handoff/", {"action": "release", "_selected_action": [row.pk]}
    )
    assert await receive_until(customer, "agent_left") == {"type": "agent_left", "name": "Eva"}
    assert (await Handoff.objects.aget(pk=row.pk)).status == Handoff.Status.WAITING
    assert await receive_until(console, "closed") == {
        "type": "closed",
        "conversationId": conversation_id,
    }
    await console.disconnect()
    await customer.disconnect()


async def test_one_address_cannot_flood_the_queue_and_the_console_stays_small(eva, settings):
    """200 requests from one address (each a new conversation): at most
    HANDOFF_MAX_WAITING_PER_ADDRESS wait, the rest get rate_limited, and what the staff
    console receives meanwhile stays under 100 KB."""
    settings.HANDOFF_MAX_WAITING_PER_ADDRESS = 3
    settings.WS_MAX_CONNECTIONS_PER_IP = 0
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")
    answers = []
    for _ in range(200):
        customer = await open_socket()
        await customer.send_json_to({"type": "handoff_request"})
        answers.append(await customer.receive_json_from(timeout=5))
        await customer.disconnect()
    queued = [a for a in answers if a["type"] == "handoff_queued"]
    refused = [a for a in answers if a.get("code") == "rate_limited"]
    assert (len(queued), len(refused)) == (3, 197)
    assert await Handoff.objects.filter(status=Handoff.Status.WAITING).acount() == 3
    received = 0
    while not await console.receive_nothing(timeout=0.3):
        received += len((await console.receive_output(timeout=1)).get("text", ""))
    assert received < 100_000
    await console.disconnect()


async def test_a_waiting_request_expires_when_the_customer_is_gone(eva, settings):
    """Issue 25, finding 6: a customer who closed every tab does not hold a place for ever;
    a reload within the grace keeps it."""
    import datetime as dt

    from django.utils import timezone

    settings.HANDOFF_WAITING_EXPIRE_SECONDS = 60
    cookie = [(b"cookie", f"sessionid={sessionkeys.issue()}".encode())]
    first, second = await open_socket(headers=cookie), await open_socket(headers=cookie)
    await first.send_json_to({"type": "handoff_request"})
    await receive_until(first, "handoff_queued")
    await first.disconnect()  # another tab is still open: nothing starts
    row = await Handoff.objects.aget(status=Handoff.Status.WAITING)
    assert row.customer_left_at is None
    await second.disconnect()  # the last one
    row = await Handoff.objects.aget(pk=row.pk)
    assert row.customer_left_at is not None

    reload = await open_socket(headers=cookie)  # back within the grace: the clock stops
    row = await Handoff.objects.aget(pk=row.pk)
    assert row.customer_left_at is None
    await reload.disconnect()

    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    assert [e["conversationId"] for e in (await receive_until(console, "queue"))["items"]] == [
        str(row.conversation_id)
    ]
    later = timezone.now() + dt.timedelta(seconds=61)
    assert await sync_to_async(handoff.handoffs_expire_waiting)(now=later) == 1
    row = await Handoff.objects.aget(pk=row.pk)
    assert row.status == Handoff.Status.EXPIRED and row.closed_at is not None
    assert await HandoffEvent.objects.filter(handoff=row, kind="expired").aexists()
    assert (await receive_until(console, "queue"))["items"] == []
    await console.disconnect()


def customer_cookie() -> list[tuple[bytes, bytes]]:
    return [(b"cookie", f"sessionid={sessionkeys.issue()}".encode())]


async def queue_where(console, check) -> dict:
    """The console's queue frames until one satisfies ``check``."""
    while not check(frame := await receive_until(console, "queue")):
        pass
    return frame


async def test_a_customer_who_closed_the_chat_shows_as_gone_and_holds_no_place(eva):
    """The last tab closes: at once the console lists them gone, the customer behind moves
    up to 1, and the next to ask is told 2, not 3."""
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await receive_until(console, "queue")
    anna, bo = await open_socket(headers=customer_cookie()), await open_socket()
    await anna.send_json_to({"type": "handoff_request"})
    assert (await receive_until(anna, "handoff_queued"))["position"] == 1
    await bo.send_json_to({"type": "handoff_request"})
    assert (await receive_until(bo, "handoff_queued"))["position"] == 2
    first = await Handoff.objects.order_by("requested_at", "id").afirst()

    await anna.disconnect()
    queue = await queue_where(console, lambda f: any(not i["present"] for i in f["items"]))
    gone = next(i for i in queue["items"] if i["conversationId"] == str(first.conversation_id))
    assert (gone["present"], gone["position"]) == (False, None)
    assert [i["position"] for i in queue["items"] if i["present"]] == [1]
    assert await receive_until(bo, "handoff_queued") == {"type": "handoff_queued", "position": 1}

    carl = await open_socket()
    await carl.send_json_to({"type": "handoff_request"})
    assert (await receive_until(carl, "handoff_queued"))["position"] == 2
    for socket in (bo, carl, console):
        await socket.disconnect()


async def test_taking_a_gone_customers_conversation_says_so_and_their_return_too(eva):
    """Taken while the customer is gone: the conversation frame says so; when they open the
    chat again the owner hears they are back."""
    cookie = customer_cookie()
    customer = await open_socket(headers=cookie)
    await customer.send_json_to({"type": "handoff_request"})
    await receive_until(customer, "handoff_queued")
    await customer.disconnect()
    conversation_id = await queued_conversation()
    console = staff_socket(await sync_to_async(session_cookie)(eva))
    assert (await console.connect(timeout=5))[0]
    await console.send_json_to({"type": "take", "conversationId": conversation_id})
    opened = await receive_until(console, "conversation")
    assert opened["customerPresent"] is False

    again = await open_socket(headers=cookie)
    assert (await receive_until(again, "agent_joined"))["name"] == "Eva"
    back = await receive_until(console, "customer_presence")
    assert back == {"type": "customer_presence", "conversationId": conversation_id, "present": True}
    await again.disconnect()
    gone = await receive_until(console, "customer_presence")
    assert gone["present"] is False
    await console.disconnect()
