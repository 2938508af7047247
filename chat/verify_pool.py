"""The number checks of big KBs, in threads of their own: bounded, cancellable, never in the way.

A sentence's check on a KB of thousands of like facts can take seconds of pure Python. Run on
the event loop it stalls every customer; run in asyncio's default executor (``to_thread``) six
of them at once took every thread, kept running after their sockets closed, and held SIGTERM
(the interpreter joins that executor's threads at exit). Here:

| rule | how |
|---|---|
| per process | at most ``VERIFY_WORKERS`` checks run at once (that many daemon threads); the others wait on the loop, costing it nothing |
| per connection | at most one check of a connection (its ``ConversationContext``) runs or waits at a time; a second waits behind the first without taking a worker |
| cancelled | a turn closed while its check waits (the customer cancelled or asked again, the server stops, its socket closed and nobody took its turn, ``chat.shutdown``) takes its check out of the queue: it never runs. A check already running is told to stop (``cancel``, e.g. ``GuardedStream.cancel``): pure Python cannot be interrupted from outside, so the checker stops itself at its next number or sibling, and the worker is free for the next check |
| shutdown | the threads are daemons: SIGTERM and the end of the process never wait for a check |
| seen | ``/metrics``: ``chat_checks_running`` and ``chat_checks_waiting`` |
"""

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

from chat.metrics import CHECKS_RUNNING, CHECKS_WAITING

T = TypeVar("T")


class _Uncounted:
    """A gauge nobody reads (a pool made in a test)."""

    def inc(self) -> None: ...

    def dec(self) -> None: ...


class VerifyPool:
    def __init__(self, workers: int, *, running=None, waiting=None) -> None:
        """``running`` and ``waiting``: gauges (``inc``/``dec``) that count the checks."""
        if workers < 1:
            raise ValueError("a verification pool needs at least one worker")
        self.workers = workers
        self._running = running or _Uncounted()
        self._waiting_now = waiting or _Uncounted()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._started = threading.Lock()
        self._owners: dict[int, asyncio.Lock] = {}  # id(owner) -> its one slot
        self._waiting: dict[int, int] = {}

    async def run(
        self,
        function: Callable[..., T],
        *args,
        owner: object,
        cancel: Callable[[], None] | None = None,
    ) -> T:
        """``function(*args)`` in a worker thread, one at a time for ``owner``; if the caller
        is cancelled while it runs, ``cancel()`` (from the loop's thread) tells it to stop."""
        key = id(owner)
        slot = self._owners.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with slot:
                return await self._submit(function, args, cancel)
        finally:
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key], self._owners[key]

    async def _submit(self, function, args, cancel):
        self._start()
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._waiting_now.inc()
        self._queue.put((future, function, args))
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if future.cancel():  # queued: it never runs
                self._waiting_now.dec()
            elif cancel is not None:
                cancel()  # running: it stops at its next step
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
                continue  # its turn was closed while it waited (and no longer counts)
            self._waiting_now.dec()
            self._running.inc()
            try:
                result = function(*args)
            except BaseException as error:  # handed to the awaiting turn
                future.set_exception(error)
            else:
                future.set_result(result)
            finally:
                self._running.dec()


_pool: VerifyPool | None = None
_pool_lock = threading.Lock()


def verify_pool() -> VerifyPool:
    """The process's pool (``VERIFY_WORKERS`` threads), made on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = VerifyPool(
                settings.VERIFY_WORKERS, running=CHECKS_RUNNING, waiting=CHECKS_WAITING
            )
        return _pool


async def run_check(
    function: Callable[..., T], *args, owner: object, cancel: Callable[[], None] | None = None
) -> T:
    """A guard's check of ``owner``'s turn in the process's verification pool."""
    return await verify_pool().run(function, *args, owner=owner, cancel=cancel)
