"""The durable audit trail: a turn's question before generation, its answer after.

| when                    | write                                   | if the database is away  |
|-------------------------|-----------------------------------------|--------------------------|
| before generation       | ``customer_message_begin``: question,   | queued; the turn goes on |
|                         | answer row ``in_progress`` (or, when a  | and the write, retried,  |
|                         | person owns the conversation, the       | becomes ``turn_begin``   |
|                         | message is theirs: no turn)             | (the agent answered)     |
| the turn ends (any way) | ``turn_complete``: answer, verdict,     | queued (always queued:   |
|                         | citations, timings                      | off the token path)      |
| start-up                | ``manage.py mark_interrupted_turns``:   | (start-up fails)         |
|                         | ``in_progress`` -> ``interrupted``      |                          |

Group commit: the writes of the process wait in two queues (beginnings,
completions), in order, and for each one task writes what is waiting as a
batch (at most ``MAX_BATCH``) in one transaction, the beginnings together in
a few statements (``turns_begin``: ``chat.statements``); a beginning returns to
its turn when its batch is committed. At rest a batch holds one write, so a question is committed as
soon as before; under load (500 clients asking at once) hundreds of turns
share a few transactions and statements instead of queueing one by one for
the database's write lock and a worker thread each. A batch that fails for
any reason but an outage is written again one write at a time, each in its
own savepoint, so a row that cannot be written never takes another turn's
with it (it is logged with its message id and counted in
``chat_audit_write_failures``).

When the database is away (``OperationalError``, ``InterfaceError``) the
batch stays at the head of its queue and is retried with exponential
backoff (0.1 s doubling to 5 s) until the database answers, oldest first;
a turn's completion is never written before its beginning; the turns
waiting for their beginning go on meanwhile. Past ``AUDIT_QUEUE_MAX``
waiting writes a new one is refused: logged as an error and counted in
``chat_audit_writes_dropped``, never dropped silently.

The queue lives in the process: a ``kill -9`` loses what is waiting in it
(while the database is away, the last batch's worth under load, completions
in their linger), but the question of every turn that began while the
database answered is already committed.
"""

import asyncio
import logging
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections, transaction
from prometheus_client import Counter, Gauge

from chat.asyncdb import on_thread_of
from chat.audit_process import WriterProcess
from chat.handoff import Begun, customer_message_begin, customer_messages_begin
from chat.services import turn_begin, turn_complete, turns_begin, turns_complete

logger = logging.getLogger(__name__)

DATABASE_AWAY = (OperationalError, InterfaceError)
FIRST_RETRY_SECONDS = 0.1
MAX_RETRY_SECONDS = 5.0
MAX_BATCH = 50  # writes per transaction

BEGIN, LATE_BEGIN, COMPLETE = "begin", "late_begin", "complete"

WRITE_FAILURES = Counter(
    "chat_audit_write_failures", "Audit writes that failed for a reason other than an outage."
)
WRITES_DROPPED = Counter(
    "chat_audit_writes_dropped", "Audit writes refused because the retry queue was full."
)
WRITE_RETRIES = Counter("chat_audit_write_retries", "Audit writes retried (database away).")
QUEUED = Gauge("chat_audit_writes_queued", "Audit writes waiting for the database.")


def audit_write_batch(*, writes: list[tuple[str, object]]) -> list[object]:
    """Write ``(kind, record)`` pairs in one transaction; one result per write, in order:
    a ``Begun`` (``begin``), the answer row's pk (``late_begin``, ``complete``), or the
    exception that write raised.

    Together first: every beginning in a few statements, then the completions
    (a completion whose beginning is in the batch uses the pk just written).
    If that fails for any reason but an outage, it is rolled back and the
    batch is written again in one transaction, each write alone in a
    savepoint, so one bad row takes no other with it. An outage raises: the
    whole batch is retried.
    """
    try:
        with transaction.atomic():
            return _write_together(writes)
    except DATABASE_AWAY:
        raise
    except Exception:
        logger.warning("An audit batch of %d writes failed; writing them one by one", len(writes))
    with transaction.atomic():
        return _write_one_by_one(writes)


def _write_together(writes: list[tuple[str, object]]) -> list[object]:
    def of(kind: str) -> list:
        return [record for k, record in writes if k == kind]

    results: dict[tuple[str, int], object] = {}  # (kind, id(record)) -> result
    answer_pks: dict[int, int | None] = {}  # id(record) -> the pk its beginning just wrote
    begins, late = of(BEGIN), of(LATE_BEGIN)
    for record, begun in zip(begins, customer_messages_begin(records=begins), strict=True):
        results[BEGIN, id(record)], answer_pks[id(record)] = begun, begun.answer_pk
    for record, answer_pk in zip(late, turns_begin(records=late), strict=True):
        results[LATE_BEGIN, id(record)] = answer_pks[id(record)] = answer_pk
    completions = [(r, answer_pks.get(id(r), r.answer_pk)) for r in of(COMPLETE)]
    done = turns_complete(completions=completions) if completions else []
    for (record, _), answer_pk in zip(completions, done, strict=True):
        results[COMPLETE, id(record)] = answer_pk
    return [results[kind, id(record)] for kind, record in writes]


def _write_one_by_one(writes: list[tuple[str, object]]) -> list[object]:
    results: list[object] = []
    answer_pks: dict[int, int | None] = {}  # id(record) -> pk written in this batch
    for kind, record in writes:
        answer_pk = answer_pks.get(id(record), record.answer_pk)
        try:
            if kind == BEGIN:
                result = customer_message_begin(record=record)
                answer_pks[id(record)] = result.answer_pk
            elif kind == LATE_BEGIN:
                result = answer_pks[id(record)] = turn_begin(record=record)
            else:
                result = turn_complete(record=record, answer_pk=answer_pk)
        except DATABASE_AWAY:
            raise
        except Exception as exc:  # this write's savepoint is rolled back; the others stand
            result = exc
        results.append(result)
    return results


@dataclass(eq=False)
class _Write:
    kind: str
    record: object
    # A beginning's turn waits on this until the write is committed (or must go on without it).
    waiter: asyncio.Future | None = None
    # Set once the write is done with (written, or given up): its turn's completion may go.
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        """Let the turn go on; if this beginning is written later, the agent has answered."""
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)
        if self.kind == BEGIN:
            self.kind = LATE_BEGIN


class AuditWriter:
    """One per event loop: two lanes of audit writes, each written in batches by a task.

    Beginnings and completions have a lane each, so a question waits behind at
    most one batch of finished turns (``one_writer``; else behind none); a
    completion waits only for its own turn's beginning. ``write_batch`` is
    ``audit_write_batch`` or a fake with its signature.

    ``completion_linger`` (seconds): a completion lane that finds its queue empty waits
    this long before its first batch, so the next question of the turn's customer,
    sent as the response arrives, is not queued behind it (SQLite, ``one_writer``)
    nor competing with it for the GIL, and the turns ending meanwhile share its
    transaction. A completion was never durable before its batch commits (see the
    table); this widens that window by the linger, nothing else.

    ``one_writer``: the database takes one writing transaction at a time (SQLite), so
    the lanes take turns on one writer thread instead of in the database: a batch that
    found the other lane's transaction holding the write lock waited in SQLite's busy
    handler, which
    sleeps 1, 2, 5, 10 ms and more between tries. At 500 clients that doubled the
    wall time of a beginning (1.5 -> 0.6-0.7 ms per write, ``make bench``).

    ``process``: a ``chat.audit_process.WriterProcess`` writes both lanes' batches, in the
    order they are sent, instead of the threads (``AUDIT_WRITER_PROCESS``).
    """

    def __init__(
        self,
        *,
        max_queue: int,
        write_batch=audit_write_batch,
        max_batch: int = MAX_BATCH,
        one_writer: bool = False,
        completion_linger: float = 0.0,
        process: WriterProcess | None = None,
    ) -> None:
        self.max_queue = max_queue
        self.max_batch = max_batch
        self.completion_linger = completion_linger
        # Each lane writes from a thread of its own, so its database connection stays warm
        # (SQLite's page cache is a connection's; the pool's threads took a write each in
        # turn). With ``one_writer`` both lanes share one thread, whose queue runs their
        # batches one at a time, first come, first served: a question waits for one batch.
        self.write_batch = write_batch
        self.process = process
        self.one_writer = _thread("audit") if one_writer and process is None else None
        self.executors = {  # (none when a writer process writes)
            lane: self.one_writer or _thread(f"audit-{lane}")
            for lane in (BEGIN, COMPLETE)
            if process is None
        }
        self.lanes: dict[str, deque[_Write]] = {BEGIN: deque(), COMPLETE: deque()}
        self.tasks: dict[str, asyncio.Task] = {}
        self.beginnings: dict[int, _Write] = {}  # id(record) -> its beginning, until finished
        self.database_away = False  # the last batch found it away; cleared by the next success

    async def begin(self, record) -> None:
        """Commit the question before generation; if the database is away, go on without."""
        write = _Write(BEGIN, record, asyncio.get_running_loop().create_future())
        if not self._enqueue(BEGIN, write):
            return
        self.beginnings[id(record)] = write
        if self.database_away:  # writes are waiting for the database already: go on at once
            write.release()
            return
        # A turn cancelled meanwhile cancels only this wait: the write stays queued (its
        # completion waits for it), so no half-known row is left behind.
        await write.waiter

    def complete_later(self, record) -> None:
        """Queue a finished turn's completion (never waits)."""
        self._enqueue(COMPLETE, _Write(COMPLETE, record))

    def _enqueue(self, lane: str, write: _Write) -> bool:
        waiting = sum(map(len, self.lanes.values()))
        if waiting >= self.max_queue:
            WRITES_DROPPED.inc()
            logger.error(
                "Audit queue full (%d writes): the %s of turn %s is not recorded",
                waiting,
                write.kind,
                write.record.message_id,
            )
            return False
        self.lanes[lane].append(write)
        QUEUED.inc()
        task = self.tasks.get(lane)
        if task is None or task.done():
            self.tasks[lane] = asyncio.get_running_loop().create_task(self._run(lane))
        return True

    async def _run(self, lane: str) -> None:
        queue = self.lanes[lane]
        delay = FIRST_RETRY_SECONDS
        if lane == COMPLETE and self.completion_linger and len(queue) < self.max_batch:
            # The customer's next question usually follows the response at once: it goes
            # first, and the turns that end meanwhile join this batch.
            await asyncio.sleep(self.completion_linger)
        while queue:
            batch = list(islice(queue, self.max_batch))
            for write in batch:  # a completion goes after its own turn's beginning
                beginning = self.beginnings.get(id(write.record))
                if write.kind == COMPLETE and beginning is not None:
                    await beginning.finished.wait()
            try:
                results = await self._write(lane, [(w.kind, w.record) for w in batch])
            except DATABASE_AWAY:
                self.database_away = True
                WRITE_RETRIES.inc(len(batch))
                logger.warning(
                    "Database away: %d audit writes retried in %.1f s", len(batch), delay
                )
                for write in batch:
                    write.release()
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_SECONDS)
                continue
            except Exception as exc:  # the batch failed as a whole (not one write of it)
                results = [exc] * len(batch)
            self.database_away = False
            for write, result in zip(batch, results, strict=True):
                queue.popleft()
                QUEUED.dec()
                self._apply(write, result)
                write.release()
                write.finished.set()
                if write.kind != COMPLETE:
                    self.beginnings.pop(id(write.record), None)
            delay = FIRST_RETRY_SECONDS

    async def _write(self, lane: str, writes: list[tuple[str, object]]) -> list[object]:
        if self.process is not None:
            return await self.process.write(writes)
        return await on_thread_of(self.executors[lane], self.write_batch, writes=writes)

    @staticmethod
    def _apply(write: _Write, result: object) -> None:
        record = write.record
        if isinstance(result, Exception):
            WRITE_FAILURES.inc()
            logger.error(
                "Could not record the %s of turn %s",
                write.kind,
                record.message_id,
                exc_info=result,
            )
        elif isinstance(result, Begun):
            record.answer_pk, record.person = result.answer_pk, result.person
        else:
            record.answer_pk = result

    async def drain(self) -> None:
        """Wait until every write queued so far is done (or given up)."""
        while any(not task.done() for task in self.tasks.values()):
            await asyncio.gather(*(asyncio.shield(t) for t in self.tasks.values()))


def _thread(name: str) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)


_writers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def writer() -> AuditWriter:
    """The running loop's writer (each test runs its own loop)."""
    loop = asyncio.get_running_loop()
    found = _writers.get(loop)
    if found is None:
        found = _writers[loop] = AuditWriter(
            max_queue=settings.AUDIT_QUEUE_MAX,
            one_writer=connections[DEFAULT_DB_ALIAS].vendor == "sqlite",
            completion_linger=settings.AUDIT_COMPLETION_LINGER_MS / 1000,
            process=WriterProcess() if settings.AUDIT_WRITER_PROCESS else None,
        )
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
