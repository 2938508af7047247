"""Audit writes scheduled off the token path.

A turn's row is written by a background task after the turn, so a slow
database never delays a frame, and a cancelled turn is still recorded. A
failed write is logged and never reaches the chat.
"""

import asyncio
import logging

from chat.asyncdb import off_loop
from chat.services import turn_record

logger = logging.getLogger(__name__)
_pending: set[asyncio.Task] = set()


def record_turn_later(record) -> None:
    task = asyncio.get_running_loop().create_task(_write(record))
    _pending.add(task)
    task.add_done_callback(_pending.discard)


async def _write(record) -> None:
    try:
        await off_loop(turn_record)(record=record)
    except Exception:
        logger.exception(
            "Could not record turn %s of conversation %s", record.message_id, record.conversation_id
        )


async def drain() -> None:
    """Wait for every audit write scheduled so far (tests, feedback, shutdown)."""
    while _pending:
        await asyncio.gather(*list(_pending), return_exceptions=True)
