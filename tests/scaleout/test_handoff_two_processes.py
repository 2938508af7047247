"""Live handoff across processes: the customer on daphne A, staff consoles on daphne B (and A).

Both processes share PostgreSQL and the Redis channel layer (``conftest.py``).
Staff are logged in by a Django session made with ``manage.py shell``, as the
admin login would make it.
"""

import asyncio
import json
from contextlib import AsyncExitStack

import pytest
from websockets.asyncio.client import connect

from tests.scaleout.test_two_processes import RECV_TIMEOUT_SECONDS, Tab, open_tab

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

WITHHELD_QUESTION = "hallucinate: Vad kostar premium?"
# Every frame the customer may get while a person owns the conversation.
PERSON_FRAMES = {
    "agent_joined",
    "agent_message",
    "agent_typing",
    "handoff_queued",
    "handoff_delivered",
}
STAFF_SESSION = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
user, _ = get_user_model().objects.get_or_create(
    username={name!r}, defaults={{"first_name": {first!r}, "is_staff": True}}
)
user.user_permissions.add(Permission.objects.get(codename="handle_handoff"))
client = Client()
client.force_login(user)
print(client.cookies["sessionid"].value)
"""


def staff_cookie(cluster, name: str, first: str) -> str:
    done = cluster.manage("shell", "-c", STAFF_SESSION.format(name=name, first=first))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


async def open_console(stack: AsyncExitStack, server, cookie: str) -> Tab:
    ws = await stack.enter_async_context(
        connect(
            f"ws://127.0.0.1:{server.port}/ws/staff/",
            additional_headers={
                "Cookie": f"sessionid={cookie}",
                "Origin": f"http://127.0.0.1:{server.port}",
            },
            open_timeout=RECV_TIMEOUT_SECONDS,
            close_timeout=2,
        )
    )
    return Tab(ws)


async def until_item(console: Tab, conversation_id: str) -> dict:
    """The first ``queue`` frame that lists the conversation."""
    while True:
        queue, _ = await console.until("queue")
        for item in queue["items"]:
            if item["conversationId"] == conversation_id:
                return item


async def test_customer_on_a_staff_on_b_take_reply_hand_back(both_running):
    """Withheld on A, asks for a person, Eva on B takes it (Bo on A loses), replies, hands back."""
    customer_cookie = both_running.session_cookie(both_running.a)
    eva = staff_cookie(both_running, "eva", "Eva")
    bo = staff_cookie(both_running, "bo", "Bo")
    async with AsyncExitStack() as stack:
        customer = await open_tab(stack, both_running.a, customer_cookie)
        withheld = await customer.ask(WITHHELD_QUESTION)
        assert withheld["status"] == "withheld"
        console_b = await open_console(stack, both_running.b, eva)
        console_a = await open_console(stack, both_running.a, bo)
        await console_b.until("queue")
        await console_a.until("queue")

        await customer.send({"type": "handoff_request"})
        queued, _ = await customer.until("handoff_queued")
        assert queued["position"] >= 1
        conversation_id = (
            await until_item(console_b, _conversation_of(both_running, customer_cookie))
        )["conversationId"]
        await until_item(console_a, conversation_id)  # the queue is live on both processes

        # Both take at once: exactly one wins, across processes.
        for console in (console_b, console_a):
            await console.send({"type": "take", "conversationId": conversation_id})
        outcomes = await asyncio.gather(_take_outcome(console_b), _take_outcome(console_a))
        assert sorted(frame["type"] for frame in outcomes) == ["conversation", "take_failed"]
        owner, other = (
            (console_b, console_a)
            if outcomes[0]["type"] == "conversation"
            else (console_a, console_b)
        )
        opened = outcomes[0] if outcomes[0]["type"] == "conversation" else outcomes[1]
        texts = [row["text"] for row in opened["history"]]
        assert WITHHELD_QUESTION in texts and "Jag kan inte verifiera det." in texts
        name = "Eva" if owner is console_b else "Bo"

        joined, before = await customer.until("agent_joined")
        assert joined["name"] == name
        assert {frame["type"] for frame in before} <= {"handoff_queued"}

        # The customer writes: it goes to the person, the agent stays silent.
        await customer.send({"type": "typing"})
        typing, _ = await owner.until("customer_typing")
        assert typing["conversationId"] == conversation_id
        await customer.send({"type": "message", "id": "c1", "text": "Vad kostar premium?"})
        said, _ = await owner.until("customer_message")
        assert said["text"] == "Vad kostar premium?"

        await owner.send({"type": "typing", "conversationId": conversation_id})
        await owner.send(
            {"type": "message", "conversationId": conversation_id, "text": "Premium kostar 399 kr."}
        )
        reply, before = await customer.until("agent_message")
        assert reply["text"] == "Premium kostar 399 kr." and reply["messageId"].startswith("agent_")
        assert "agent_typing" in {frame["type"] for frame in before}
        await other.send(
            {"type": "message", "conversationId": conversation_id, "text": "Jag också!"}
        )
        refused, _ = await other.until("error")
        assert refused["code"] == "not_owner"
        silent = await customer.probe()
        assert {frame["type"] for frame in silent} <= PERSON_FRAMES, silent

        await owner.send({"type": "hand_back", "conversationId": conversation_id})
        left, _ = await customer.until("agent_left")
        assert left["name"] == name
        answer = await customer.ask("Vad kostar premium?")
        assert answer["grounded"] is True

    kinds = [
        kind
        for (kind,) in both_running.query(
            "SELECT kind FROM chat_handoffevent WHERE conversation_id = %s ORDER BY id",
            (conversation_id,),
        )
    ]
    assert kinds == ["requested", "joined", "customer_message", "staff_message", "left"]


async def _take_outcome(console: Tab) -> dict:
    while True:
        frame = await console.recv()
        if frame["type"] in ("conversation", "take_failed"):
            return frame


def _conversation_of(cluster, cookie: str) -> str:
    import httpx

    response = httpx.get(
        cluster.a.http_url + "/history/", cookies={"sessionid": cookie}, timeout=10
    )
    return json.loads(response.text)["conversationId"]
