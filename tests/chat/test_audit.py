"""The durable audit trail: nothing lost when a row is bad, the database is away, or a
process dies mid-stream."""

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from asgiref.sync import sync_to_async
from django.db import DataError, OperationalError, connection
from django.test.utils import CaptureQueriesContext

from chat import audit
from chat.audit import WRITES_DROPPED, AuditWriter
from chat.handoff import Begun
from chat.llm.base import LLMBackend, LLMRequest
from chat.models import Message
from chat.pipeline import TurnRecord
from tests.chat.conftest import open_socket


def asked(message_id: str, **fields) -> TurnRecord:
    """A turn of a new conversation, as the real services write it."""
    return TurnRecord(
        conversation_id=uuid.uuid4(),
        session_key="",
        message_id=message_id,
        question="Vad kostar premium?",
        language="sv",
        **fields,
    )


def turn(n: int) -> TurnRecord:
    return TurnRecord(
        conversation_id=f"c{n}", session_key="", message_id=f"m{n}", question="q", language="sv"
    )


class FakeDatabase:
    """``audit_write_batch`` as the writer calls it, with scripted outages and bad rows."""

    def __init__(self, *, away_for: int = 0, bad: frozenset[str] = frozenset()) -> None:
        self.away_for = away_for
        self.bad = bad
        self.written: list[tuple[str, str]] = []
        self.kinds: list[str] = []  # as the writer asked for them
        self.batches: list[int] = []

    def write_batch(self, *, writes) -> list[object]:
        if self.away_for:
            self.away_for -= 1
            raise OperationalError("could not connect to server")
        self.batches.append(len(writes))
        results = []
        for kind, record in writes:
            self.kinds.append(kind)
            if record.message_id in self.bad:
                results.append(DataError("A string literal cannot contain NUL (0x00) characters."))
                continue
            self.written.append(("complete" if kind == "complete" else "begin", record.message_id))
            pk = len(self.written)
            results.append(Begun(answer_pk=pk) if kind == "begin" else pk)
        return results


def writer_for(database: FakeDatabase, max_queue: int = 100) -> AuditWriter:
    return AuditWriter(max_queue=max_queue, write_batch=database.write_batch)


async def test_a_row_that_cannot_be_written_takes_no_other_turn_with_it():
    """The finding: one NUL failed a whole batch. Now each turn is its own transaction."""
    database = FakeDatabase(bad=frozenset({"m3"}))
    writer = writer_for(database)
    for n in range(6):
        await writer.begin(turn(n))
        writer.complete_later(turn(n))
    await writer.drain()
    completed = [m for kind, m in database.written if kind == "complete"]
    assert completed == ["m0", "m1", "m2", "m4", "m5"]


async def test_writes_while_the_database_is_away_are_retried_in_order(monkeypatch):
    """An outage: the writes wait at the head of the queue and land, oldest first."""
    monkeypatch.setattr(audit, "MAX_RETRY_SECONDS", 0.05)
    monkeypatch.setattr(audit, "FIRST_RETRY_SECONDS", 0.01)
    database = FakeDatabase(away_for=5)
    writer = writer_for(database)
    records = [turn(n) for n in range(3)]
    for record in records:
        await writer.begin(record)  # the first finds the database away, the rest queue
    for record in records:
        writer.complete_later(record)
    await writer.drain()
    for kind in ("begin", "complete"):  # each kind oldest first
        assert [m for k, m in database.written if k == kind] == ["m0", "m1", "m2"]
    for n in range(3):  # a turn's completion after its beginning
        assert database.written.index(("begin", f"m{n}")) < database.written.index(
            ("complete", f"m{n}")
        )


async def test_a_beginning_the_outage_held_back_is_written_as_a_turn_the_agent_answered(
    monkeypatch,
):
    """The turn went on without its beginning; written later, the message is the agent's
    turn (``late_begin``), not re-routed to a person who may have joined meanwhile."""
    monkeypatch.setattr(audit, "FIRST_RETRY_SECONDS", 0.01)
    database = FakeDatabase(away_for=1)
    writer = writer_for(database)
    record = turn(0)
    await writer.begin(record)
    assert record.answer_pk is None  # the turn goes on
    writer.complete_later(record)
    await writer.drain()
    assert database.kinds == ["late_begin", "complete"]


async def test_turns_beginning_together_share_transactions():
    """Group commit: 200 turns asking at once are written in a few batches, in order, and
    each turn goes on only once its own question is committed."""
    database = FakeDatabase()
    writer = writer_for(database, max_queue=1000)
    records = [turn(n) for n in range(200)]
    await asyncio.gather(*(writer.begin(record) for record in records))
    assert [m for _, m in database.written] == [f"m{n}" for n in range(200)]
    assert all(record.answer_pk is not None for record in records)
    assert sum(database.batches) == 200 and len(database.batches) <= 200 // audit.MAX_BATCH + 1


@pytest.mark.django_db(transaction=True)
async def test_a_write_that_fails_in_the_database_takes_no_other_write_of_its_batch():
    """The real batch: each write in its own savepoint; the bad one is reported, the others
    are committed."""
    good = [asked(f"g{n}") for n in range(2)]
    bad = TurnRecord(
        conversation_id="not a uuid", session_key="", message_id="b", question="q", language="sv"
    )
    writes = [("begin", good[0]), ("begin", bad), ("begin", good[1]), ("complete", good[1])]
    good[1].status, good[1].text = Message.Status.DONE, "Premium kostar 399 kr/månad."
    results = await sync_to_async(audit.audit_write_batch)(writes=writes)
    assert [type(r).__name__ for r in results] == ["Begun", "ValidationError", "Begun", "int"]
    rows = await sync_to_async(
        lambda: sorted(Message.objects.values_list("message_id", "role", "status"))
    )()
    assert rows == [
        ("g0", "assistant", "in_progress"),
        ("g0", "user", "done"),
        ("g1", "assistant", "done"),
        ("g1", "user", "done"),
    ]


def test_a_batch_costs_the_same_statements_for_5_turns_as_for_50(db):
    """Group commit pays per batch, not per turn: beginnings and completions together."""

    def statements(turns: int) -> tuple[int, int]:
        records = [
            asked(f"t{turns}-{n}", status=Message.Status.DONE, text="Premium kostar 399 kr/månad.")
            for n in range(turns)
        ]
        with CaptureQueriesContext(connection) as begins:
            begun = audit.audit_write_batch(writes=[("begin", r) for r in records])
        assert all(b.answer_pk is not None and b.person is None for b in begun)
        for record, b in zip(records, begun, strict=True):
            record.answer_pk = b.answer_pk
        with CaptureQueriesContext(connection) as completes:
            audit.audit_write_batch(writes=[("complete", r) for r in records])
        return len(begins), len(completes)  # the answers' UPDATE is one executemany

    (begins_5, completes_5), (begins_50, completes_50) = statements(5), statements(50)
    # SQLite caps a statement's parameters: each of the two bulk INSERTs may split in two.
    assert begins_5 <= begins_50 <= begins_5 + 2
    assert completes_5 == completes_50
    assert Message.objects.filter(status=Message.Status.DONE, role="assistant").count() == 55


async def test_a_question_never_waits_behind_finished_turns():
    """Beginnings and completions have a lane each: with a batch of completions held up in
    the database, the next turn's question is committed at once."""
    held = threading.Event()

    class SlowCompletions(FakeDatabase):
        def write_batch(self, *, writes):
            if writes[0][0] == "complete":
                held.wait(5)
            return super().write_batch(writes=writes)

    database = SlowCompletions()
    writer = writer_for(database)
    first, second = turn(0), turn(1)
    await writer.begin(first)
    writer.complete_later(first)
    await asyncio.sleep(0.05)  # the completion's batch is in the database, held
    await asyncio.wait_for(writer.begin(second), 2)
    assert second.answer_pk is not None
    held.set()
    await writer.drain()
    assert database.written == [("begin", "m0"), ("begin", "m1"), ("complete", "m0")]


async def test_past_the_bound_a_write_is_refused_loudly(monkeypatch, caplog):
    """Never dropped silently: counted in chat_audit_writes_dropped and logged as an error."""
    monkeypatch.setattr(audit, "FIRST_RETRY_SECONDS", 0.01)
    monkeypatch.setattr(audit, "MAX_RETRY_SECONDS", 0.01)
    database = FakeDatabase(away_for=10**9)
    writer = writer_for(database, max_queue=2)
    before = WRITES_DROPPED._value.get()
    with caplog.at_level(logging.ERROR, logger="chat.audit"):
        for n in range(3):
            writer.complete_later(turn(n))
    assert WRITES_DROPPED._value.get() == before + 1
    assert any("m2 is not recorded" in r.getMessage() for r in caplog.records)
    for task in writer.tasks.values():
        task.cancel()


class HeldBackend(LLMBackend):
    """Streams one delta, then holds the turn open until released."""

    name = "held"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()

    @property
    def model(self) -> str:
        return "held"

    async def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        self.started.set()
        yield "Premium "
        await self.release.wait()
        yield "kostar 399 kr/månad [kb/pricing.md:18]."


@pytest.mark.usefixtures("indexed_kb")
async def test_the_question_is_committed_before_the_answer_is_generated(settings):
    """Mid-stream the database already holds the question and its answer row, in progress."""
    from chat.composition import chat_services

    backend = HeldBackend()
    services = chat_services().with_backend(backend)
    from channels.testing import WebsocketCommunicator

    from chat.consumers import ChatConsumer

    ws = WebsocketCommunicator(ChatConsumer.as_asgi(services=services), "/ws/chat/")
    assert (await ws.connect(timeout=5))[0]
    await ws.send_json_to({"type": "message", "id": "held", "text": "Vad kostar premium?"})
    await asyncio.wait_for(backend.started.wait(), 5)

    rows = await sync_to_async(
        lambda: list(Message.objects.order_by("id").values_list("role", "status", "text"))
    )()
    assert rows == [("user", "done", "Vad kostar premium?"), ("assistant", "in_progress", "")]
    backend.release.set()
    while (await ws.receive_json_from(timeout=5))["type"] != "response":
        pass
    await ws.disconnect()
    await audit.drain()
    answer = await sync_to_async(Message.objects.get)(role="assistant")
    assert answer.status == "done"


@pytest.mark.usefixtures("indexed_kb")
async def test_a_lone_surrogate_id_gets_an_invalid_message_frame():
    """The finding: a lone surrogate as a message id gave no frame at all."""
    ws = await open_socket()
    await ws.send_to(text_data='{"type":"message","id":"\\ud800","text":"hej"}')
    frame = await ws.receive_json_from(timeout=5)
    assert frame["type"] == "error" and frame["code"] == "invalid_message"
    await ws.disconnect()


class OverlapCounter:
    """A ``write_batch`` that takes a while in its thread and counts batches written at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.most = 0

    def write_batch(self, *, writes) -> list[object]:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)
        with self.lock:
            self.now -= 1
        return [Begun(answer_pk=1) if kind == "begin" else 1 for kind, _ in writes]


async def _beginnings_beside_completions(writer: AuditWriter) -> None:
    for n in range(4):
        writer.complete_later(turn(100 + n))  # completions of turns begun elsewhere
        await writer.begin(turn(n))
    await writer.drain()


@pytest.mark.parametrize(("one_writer", "most"), [(True, 1), (False, 2)])
async def test_on_a_one_writer_database_the_lanes_take_turns(one_writer, most):
    """SQLite writes one transaction at a time: a second batch would only sleep in its busy
    handler, so the writer sends one batch at a time (and two where the database can)."""
    database = OverlapCounter()
    writer = AuditWriter(max_queue=100, write_batch=database.write_batch, one_writer=one_writer)
    await _beginnings_beside_completions(writer)
    assert database.most == most


def test_the_process_writer_takes_turns_on_sqlite_only():
    async def made() -> AuditWriter:
        return audit.writer()

    assert (asyncio.run(made()).one_writer is not None) == (connection.vendor == "sqlite")
