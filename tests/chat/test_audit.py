"""The durable audit trail: nothing lost when a row is bad, the database is away, or a
process dies mid-stream."""

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from asgiref.sync import sync_to_async
from django.db import DataError, OperationalError

from chat import audit
from chat.audit import WRITES_DROPPED, AuditWriter
from chat.handoff import Begun
from chat.llm.base import LLMBackend, LLMRequest
from chat.models import Message
from chat.pipeline import TurnRecord
from tests.chat.conftest import open_socket


def turn(n: int) -> TurnRecord:
    return TurnRecord(
        conversation_id=f"c{n}", session_key="", message_id=f"m{n}", question="q", language="sv"
    )


class FakeDatabase:
    """Sync write functions as the writer calls them, with scripted failures."""

    def __init__(self, *, away_for: int = 0, bad: frozenset[str] = frozenset()) -> None:
        self.away_for = away_for
        self.bad = bad
        self.written: list[tuple[str, str]] = []

    def _write(self, kind: str, record) -> int:
        if self.away_for:
            self.away_for -= 1
            raise OperationalError("could not connect to server")
        if record.message_id in self.bad:
            raise DataError("A string literal cannot contain NUL (0x00) characters.")
        self.written.append((kind, record.message_id))
        return len(self.written)

    def begin(self, *, record) -> Begun:
        return Begun(answer_pk=self._write("begin", record))

    def late_begin(self, *, record) -> int:
        return self._write("begin", record)

    def complete(self, *, record, answer_pk) -> int:
        return self._write("complete", record)


def writer_for(database: FakeDatabase, max_queue: int = 100) -> AuditWriter:
    return AuditWriter(
        max_queue=max_queue,
        begin=database.begin,
        late_begin=database.late_begin,
        complete=database.complete,
    )


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
    assert database.written == [(kind, f"m{n}") for kind in ("begin", "complete") for n in range(3)]


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
    writer.task.cancel()


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
        yield "kostar 399 kr/månad."


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
