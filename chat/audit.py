"""The durable audit trail: a turn's question before generation, its answer after.

| when                    | write                                   | if the database is away  |
|-------------------------|-----------------------------------------|--------------------------|
| before generation       | ``customer_message_begin``: question,   | queued as ``turn_begin`` |
|                         | answer row ``in_progress`` (or, when a  | (question, answer row);  |
|                         | person owns the conversation, the       | the agent answers        |
|                         | message is theirs: no turn)             |                          |
| the turn ends (any way) | ``turn_complete``: answer, verdict,     | queued (always queued:   |
|                         | citations, timings                      | off the token path)      |
| start-up                | ``manage.py mark_interrupted_turns``:   | (start-up fails)         |
|                         | ``in_progress`` -> ``interrupted``      |                          |

One turn per transaction, so a row that cannot be written never takes
another turn's with it (it is logged with its message id and counted in
``chat_audit_write_failures``). Writes that fail because the database is
away (``OperationalError``, ``InterfaceError``) stay at the head of a
bounded queue and are retried with exponential backoff (0.1 s doubling to
5 s) until the database answers, oldest first, so a turn's completion is
never written before its beginning. Past ``AUDIT_QUEUE_MAX`` waiting writes
a new one is refused: logged as an error and counted in
``chat_audit_writes_dropped``, never dropped silently.

The queue lives in the process: a ``kill -9`` loses what is waiting in it
(only while the database is away), but the question of every turn that
began while the database answered is already committed.
"""

import asyncio
import logging
import weakref
from collections import deque

from django.conf import settings
from django.db import InterfaceError, OperationalError
from prometheus_client import Counter, Gauge

from chat.asyncdb import off_loop
from chat.handoff import customer_message_begin
from chat.services import turn_begin, turn_complete

logger = logging.getLogger(__name__)

DATABASE_AWAY = (OperationalError, InterfaceError)
FIRST_RETRY_SECONDS = 0.1
MAX_RETRY_SECONDS = 5.0

WRITE_FAILURES = Counter(
    "chat_audit_write_failures", "Audit writes that failed for a reason other than an outage."
)
WRITES_DROPPED = Counter(
    "chat_audit_writes_dropped", "Audit writes refused because the retry queue was full."
)
WRITE_RETRIES = Counter("chat_audit_write_retries", "Audit writes retried (database away).")
QUEUED = Gauge("chat_audit_writes_queued", "Audit writes waiting for the database.")


class AuditWriter:
    """One per event loop: the direct begin, and the queue for everything else.

    ``begin`` (direct) returns a ``chat.handoff.Begun``; ``late_begin`` (a begin
    that waited in the queue: the agent has answered meanwhile) and ``complete``
    return the answer row's pk.
    """

    def __init__(
        self,
        *,
        max_queue: int,
        begin=customer_message_begin,
        late_begin=turn_begin,
        complete=turn_complete,
    ) -> None:
        self.max_queue = max_queue
        self.begin_write = off_loop(begin)
        self.late_begin_write = off_loop(late_begin)
        self.complete_write = off_loop(complete)
        self.queue: deque[tuple[str, object]] = deque()
        self.task: asyncio.Task | None = None
        self.beginning: set[asyncio.Task] = set()

    async def begin(self, record) -> None:
        """Commit the question before generation; queue it if the database is away."""
        if self.queue:  # writes are already waiting for the database: keep the order
            self._enqueue("begin", record)
            return
        task = asyncio.get_running_loop().create_task(self._begin_now(record))
        self.beginning.add(task)
        task.add_done_callback(self.beginning.discard)
        # Shielded: a turn cancelled meanwhile must not leave a half-known row behind.
        await asyncio.shield(task)

    async def _begin_now(self, record) -> None:
        try:
            begun = await self.begin_write(record=record)
            record.answer_pk, record.person = begun.answer_pk, begun.person
        except DATABASE_AWAY:
            logger.warning("Database away: the question of %s waits", record.message_id)
            self._enqueue("begin", record)
        except Exception:
            WRITE_FAILURES.inc()
            logger.exception("Could not record the question of %s", record.message_id)

    def complete_later(self, record) -> None:
        """Queue a finished turn's completion (never waits)."""
        self._enqueue("complete", record)

    def _enqueue(self, kind: str, record) -> None:
        if len(self.queue) >= self.max_queue:
            WRITES_DROPPED.inc()
            logger.error(
                "Audit queue full (%d writes): the %s of turn %s is not recorded",
                len(self.queue),
                kind,
                record.message_id,
            )
            return
        self.queue.append((kind, record))
        QUEUED.inc()
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        delay = FIRST_RETRY_SECONDS
        while self.queue:
            kind, record = self.queue[0]
            try:
                await self._write(kind, record)
            except DATABASE_AWAY:
                WRITE_RETRIES.inc()
                logger.warning("Database away: audit write retried in %.1f s", delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_SECONDS)
                continue
            except Exception:
                WRITE_FAILURES.inc()
                logger.exception("Could not record the %s of turn %s", kind, record.message_id)
            self.queue.popleft()
            QUEUED.dec()
            delay = FIRST_RETRY_SECONDS

    async def _write(self, kind: str, record) -> None:
        if self.beginning:  # a begin still on its way must land first
            await asyncio.gather(*self.beginning, return_exceptions=True)
        if kind == "begin":
            record.answer_pk = await self.late_begin_write(record=record)
        else:
            record.answer_pk = await self.complete_write(record=record, answer_pk=record.answer_pk)

    async def drain(self) -> None:
        """Wait until every write started or queued so far is done (or given up)."""
        while self.beginning or (self.task is not None and not self.task.done()):
            if self.beginning:
                await asyncio.gather(*self.beginning, return_exceptions=True)
            if self.task is not None and not self.task.done():
                await asyncio.shield(self.task)


_writers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def writer() -> AuditWriter:
    """The running loop's writer (each test runs its own loop)."""
    loop = asyncio.get_running_loop()
    found = _writers.get(loop)
    if found is None:
        found = _writers[loop] = AuditWriter(max_queue=settings.AUDIT_QUEUE_MAX)
    return found


async def begin_turn(record) -> None:
    """Commit a ``chat.pipeline.TurnRecord``'s question before generation."""
    await writer().begin(record)


def record_turn_later(record) -> None:
    """Queue a finished ``chat.pipeline.TurnRecord`` for the writer."""
    writer().complete_later(record)


async def drain() -> None:
    """Wait for every audit write so far (tests, feedback, shutdown)."""
    await writer().drain()
