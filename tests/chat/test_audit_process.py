"""The audit writer's own process: the batches written there, its death survived, the
channel-layer events of its commits sent on the server's layer."""

import asyncio
import signal
import socket
import subprocess
import sys
import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import OperationalError
from django.utils import timezone

from chat import audit, audit_process
from chat.audit_process import ForwardingLayer, WriterProcess, spawn_early
from chat.handoff import Begun, owner_group
from chat.models import Conversation, Handoff, Message
from chat.pipeline import TurnRecord
from tests.live import stop_process

pytestmark = pytest.mark.django_db(transaction=True)  # the writer sees only what is committed
# Upper bounds, not timings: a new writer's start-up (Django's and the app's imports) is 2-3 s
# on an idle machine and tens of seconds on a loaded 2-core one.
WAIT_SECONDS = 90


def asked(message_id: str, conversation_id=None) -> TurnRecord:
    return TurnRecord(
        conversation_id=conversation_id or uuid.uuid4(),
        session_key="",
        message_id=message_id,
        question="Vad kostar premium?",
        language="sv",
    )


@pytest.fixture
async def writer():
    process = WriterProcess()
    yield process
    if process.stream is not None:
        process.stream.close()  # the writer's cue to exit; SIGKILL if it has not in time
        await asyncio.to_thread(stop_process, process.process, sig=None)


def answer_rows() -> dict[str, tuple[str, str]]:
    """message id -> (the answer's status, its text)."""
    return {
        m.reply_to.message_id: (m.status, m.text)
        for m in Message.objects.filter(reply_to__isnull=False).select_related("reply_to")
    }


async def test_a_batch_is_written_by_the_writer_process_and_answered_in_order(writer):
    first, second = asked("m1"), asked("m2")
    begun = await writer.write([(audit.BEGIN, first), (audit.BEGIN, second)])
    assert all(isinstance(b, Begun) and b.answer_pk for b in begun)
    assert begun[0].answer_pk != begun[1].answer_pk
    assert writer.process.pid is not None
    first.answer_pk, first.text, first.status = begun[0].answer_pk, "Premium kostar 299 kr.", "done"
    assert await writer.write([(audit.COMPLETE, first)]) == [begun[0].answer_pk]
    rows = await sync_to_async(answer_rows)()
    assert rows["m1"] == (Message.Status.DONE, "Premium kostar 299 kr.")
    assert rows["m2"][0] == Message.Status.IN_PROGRESS


async def test_the_writer_spawned_with_the_server_is_the_one_its_first_write_adopts(writer):
    spawn_early()  # as config.server does before the application loads
    from chat.audit_process import _EARLY

    [(_, early)] = _EARLY
    await writer.write([(audit.BEGIN, asked("m1"))])
    assert writer.process is early and not _EARLY


async def test_a_writer_that_dies_fails_its_batch_as_an_outage_and_a_new_one_takes_the_next(
    writer,
):
    await writer.write([(audit.BEGIN, asked("m1"))])
    dead = writer.process
    dead.send_signal(signal.SIGSTOP)  # stopped mid-batch, then killed: its batch is unanswered
    in_flight = asyncio.ensure_future(writer.write([(audit.BEGIN, asked("m2"))]))
    await asyncio.sleep(0.1)
    dead.kill()
    with pytest.raises(OperationalError, match="exited"):
        await asyncio.wait_for(in_flight, WAIT_SECONDS)
    begun = await writer.write([(audit.BEGIN, asked("m3"))])
    assert writer.process.pid != dead.pid and begun[0].answer_pk
    assert set(await sync_to_async(answer_rows)()) == {"m1", "m3"}


async def test_a_writer_that_dies_starting_is_an_outage_too(writer, monkeypatch):
    def dies_at_once():
        ours, theirs = socket.socketpair()
        with theirs:
            process = subprocess.Popen([sys.executable, "-c", "pass"], pass_fds=[theirs.fileno()])
        return ours, process

    monkeypatch.setattr(audit_process, "spawn", dies_at_once)
    with pytest.raises(OperationalError, match="start-up"):
        await writer.write([(audit.BEGIN, asked("m1"))])
    monkeypatch.undo()
    begun = await writer.write([(audit.BEGIN, asked("m2"))])  # a real writer this time
    assert begun[0].answer_pk and set(await sync_to_async(answer_rows)()) == {"m2"}


async def test_the_audit_writer_retries_a_batch_its_writer_process_died_with(writer):
    """``chat.audit`` takes the death as an outage: the batch goes again to a new writer."""
    await writer.write([(audit.BEGIN, asked("m0"))])
    writer.process.kill()
    lanes = audit.AuditWriter(max_queue=10, one_writer=True, process=writer)
    record = asked("m1")
    await asyncio.wait_for(lanes.begin(record), WAIT_SECONDS)
    record.status = Message.Status.DONE
    lanes.complete_later(record)
    await asyncio.wait_for(lanes.drain(), WAIT_SECONDS)
    assert record.answer_pk is not None
    assert (await sync_to_async(answer_rows)())["m1"][0] == Message.Status.DONE


async def test_what_a_beginning_publishes_reaches_the_owner_on_the_servers_channel_layer(
    writer, django_user_model
):
    """A person owns the conversation: the question is theirs, and their console hears of it
    through the server's (in-memory) layer, not the writer's."""

    def owned_conversation():
        chat = Conversation.objects.create(language="sv")
        staff = django_user_model.objects.create_user("eva", is_staff=True)
        Handoff.objects.create(
            conversation=chat,
            status=Handoff.Status.ACTIVE,
            requested_at=timezone.now(),
            taken_by=staff,
            taken_at=timezone.now(),
        )
        return chat.pk

    conversation_id = await sync_to_async(owned_conversation)()
    layer = get_channel_layer()
    console = await layer.new_channel()
    await layer.group_add(owner_group(conversation_id), console)
    record = asked("m1", conversation_id)
    record.conversation_stored = True
    [begun] = await writer.write([(audit.BEGIN, record)])
    assert begun.person == "eva" and begun.answer_pk is None
    event = await asyncio.wait_for(layer.receive(console), WAIT_SECONDS)
    assert event["type"] == "handoff.customer"
    assert event["frame"]["messageId"] == "m1" and event["frame"]["text"] == record.question


async def test_the_forwarding_layer_hands_over_what_was_published_once():
    layer = ForwardingLayer()
    await layer.group_send("owner.c1", {"type": "handoff.customer"})
    assert ForwardingLayer.taken() == [("owner.c1", {"type": "handoff.customer"})]
    assert ForwardingLayer.taken() == []
