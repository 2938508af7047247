"""Audit writes scheduled off the token path, batched.

A turn's rows are written by a background writer after the turn, so a slow
database never delays a frame, and a cancelled turn is still recorded. The
writer takes every record that arrived while it was busy in one
transaction: under load, one write per batch instead of one per turn. A
failed write is logged and never reaches the chat.
"""

import asyncio
import logging
import weakref

from chat.asyncdb import off_loop
from chat.services import turns_record

logger = logging.getLogger(__name__)


class _Writer:
    def __init__(self) -> None:
        self.queue: list = []
        self.task: asyncio.Task | None = None

    def add(self, record) -> None:
        self.queue.append(record)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self.queue:
            batch, self.queue = self.queue, []
            try:
                await off_loop(turns_record)(records=batch)
            except Exception:
                logger.exception(
                    "Could not record %d turns (first: %s)", len(batch), batch[0].message_id
                )

    async def drain(self) -> None:
        while self.task is not None and not self.task.done():
            await asyncio.shield(self.task)


# One writer per event loop (each test runs its own loop).
_writers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _writer() -> _Writer:
    loop = asyncio.get_running_loop()
    writer = _writers.get(loop)
    if writer is None:
        writer = _writers[loop] = _Writer()
    return writer


def record_turn_later(record) -> None:
    """Queue a ``chat.pipeline.TurnRecord`` for the background writer."""
    _writer().add(record)


async def drain() -> None:
    """Wait for every audit write queued so far (tests, feedback, shutdown)."""
    await _writer().drain()
