"""The number checks of big KBs, in threads of their own: bounded, cancellable, never in the way.

A sentence's check on a KB of thousands of like facts can take seconds of pure Python. Run on
the event loop it stalls every customer; run in asyncio's default executor (``to_thread``) six
of them at once took every thread, kept running after their sockets closed, and held SIGTERM
(the interpreter joins that executor's threads at exit). Here:

| rule | how |
|---|---|
| per process | at most ``VERIFY_WORKERS`` checks run at once (that many daemon threads); the others wait on the loop, costing it nothing |
| per connection | at most one check of a connection (its ``ConversationContext``) runs or waits at a time; a second waits behind the first without taking a worker |
| cancelled | a turn closed while its check waits (the socket closed, the customer cancelled, the server stops) takes its check out of the queue: it never runs. A check already running finishes its one sentence (pure Python cannot be interrupted) and its result is dropped; the turn starts no other |
| shutdown | the threads are daemons: SIGTERM and the end of the process never wait for a check |
"""

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

T = TypeVar("T")


class VerifyPool:
    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError("a verification pool needs at least one worker")
        self.workers = workers
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._started = threading.Lock()
        self._owners: dict[int, asyncio.Lock] = {}  # id(owner) -> its one slot
        self._waiting: dict[int, int] = {}

    async def run(self, function: Callable[..., T], *args, owner: object) -> T:
        """``function(*args)`` in a worker thread, one at a time for ``owner``."""
        key = id(owner)
        slot = self._owners.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with slot:
                return await self._submit(function, args)
        finally:
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key], self._owners[key]

    async def _submit(self, function, args):
        self._start()
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._queue.put((future, function, args))
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()  # still queued: it never runs
            raise

    def _start(self) -> None:
        with self._started:
            if self._threads:
                return
            for number in range(self.workers):
                thread = threading.Thread(target=self._work, name=f"verify-{number}", daemon=True)
                thread.start()
                self._threads.append(thread)

    def _work(self) -> None:
        while True:
            future, function, args = self._queue.get()
            if not future.set_running_or_notify_cancel():
                continue  # its turn was closed while it waited
            try:
                result = function(*args)
            except BaseException as error:  # handed to the awaiting turn
                future.set_exception(error)
            else:
                future.set_result(result)


_pool: VerifyPool | None = None
_pool_lock = threading.Lock()


def verify_pool() -> VerifyPool:
    """The process's pool (``VERIFY_WORKERS`` threads), made on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = VerifyPool(settings.VERIFY_WORKERS)
        return _pool


async def run_check(function: Callable[..., T], *args, owner: object) -> T:
    """A guard's check of ``owner``'s turn in the process's verification pool."""
    return await verify_pool().run(function, *args, owner=owner)
