"""The boundary between async code and the sync ORM."""

import asyncio
import functools
from concurrent.futures import Executor

from channels.db import database_sync_to_async
from django.db import close_old_connections


def off_loop(func):
    """Run the sync ORM function ``func`` in a worker thread.

    Not ``thread_sensitive``: channels would run every such call of the
    process on one shared thread, so concurrent turns would queue behind each
    other. Each call is self-contained (its own transaction), which is what
    makes that safe.
    """
    return database_sync_to_async(func, thread_sensitive=False)


async def on_thread_of(executor: Executor, func, /, **kwargs):
    """``func(**kwargs)`` on ``executor``'s thread, old connections closed around it as
    ``off_loop`` closes them, for a writer with a thread of its own: without asgiref's
    per-call plumbing (a copy of the caller's context, thread bookkeeping, a future
    more), so the caller's context variables do not follow.
    """
    return await asyncio.get_running_loop().run_in_executor(
        executor, functools.partial(with_fresh_connections, func, kwargs)
    )


def with_fresh_connections(func, kwargs: dict):
    """``func(**kwargs)`` between two ``close_old_connections()``, as a request runs."""
    close_old_connections()
    try:
        return func(**kwargs)
    finally:
        close_old_connections()


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
