"""The boundary between async code and the sync ORM."""

import asyncio
from concurrent.futures import Executor

from channels.db import database_sync_to_async


def off_loop(func, *, executor: Executor | None = None):
    """Run the sync ORM function ``func`` in a worker thread (of ``executor`` if given).

    Not ``thread_sensitive``: channels would run every such call of the
    process on one shared thread, so concurrent turns would queue behind each
    other. Each call is self-contained (its own transaction), which is what
    makes that safe.
    """
    return database_sync_to_async(func, thread_sensitive=False, executor=executor)


_LATER: set = set()


def off_loop_later(seconds: float, func) -> None:
    """Run the sync ORM function ``func`` off the loop in ``seconds``; the task outlives its
    caller (a socket that closed). For clocks such as a handoff's grace period."""

    async def run() -> None:
        await asyncio.sleep(seconds)
        await off_loop(func)()

    task = asyncio.get_running_loop().create_task(run())
    _LATER.add(task)
    task.add_done_callback(_LATER.discard)
