"""Streams in progress go before new turns.

A turn's start (retrieval, the number guard's set-up, the first call into
the LLM backend) is the one stretch of CPU work a turn does in a single
step of the event loop. When many turns start together (every client of a
busy page asking at once) their starts would run back to back in one pass
of the loop and hold back every frame of every answer already streaming
until all of them were done: under load, the largest delay a streamed frame
saw (``make bench``). So at most ``TURN_STARTS_PER_PASS`` turns start per
pass of the loop; the others wait, first come first served, and the frames
that fall due meanwhile go out in between. Under overload the wait moves to
the start of new answers (their first token), never into the middle of one.
One start per pass (the default) kept streams smoothest at 500 clients
(``make bench`` rounds: p99 73 ms on average against 85 ms with 4, the worst
97 against 143 ms), and the first token came no later than with 4.
"""

import asyncio
import weakref
from collections import deque

from django.conf import settings


class TurnGate:
    """Admits at most ``per_pass`` turn starts per pass of one event loop, in arrival order."""

    def __init__(self, per_pass: int, loop: asyncio.AbstractEventLoop) -> None:
        self.per_pass = per_pass
        self.loop = loop
        self.admitted = 0  # in the current pass
        self.waiting: deque[asyncio.Future] = deque()
        self.pass_scheduled = False

    async def enter(self) -> None:
        """Return when this turn may start (at once, if this pass has room and nobody waits)."""
        if self.per_pass <= 0:
            return
        self._schedule_next_pass()
        if self.admitted < self.per_pass and not self.waiting:
            self.admitted += 1
            return
        waiter = self.loop.create_future()
        self.waiting.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._admit_waiting()  # admitted, then cancelled: pass the place on
            raise

    def _schedule_next_pass(self) -> None:
        if not self.pass_scheduled:
            self.pass_scheduled = True
            self.loop.call_soon(self._next_pass)

    def _next_pass(self) -> None:
        self.pass_scheduled = False
        self.admitted = 0
        self._admit_waiting()
        if self.waiting:
            self._schedule_next_pass()

    def _admit_waiting(self) -> None:
        while self.waiting and self.admitted < self.per_pass:
            waiter = self.waiting.popleft()
            if not waiter.done():
                self.admitted += 1
                waiter.set_result(None)


_gates: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def gate() -> TurnGate:
    """The running loop's gate (each test runs its own loop)."""
    loop = asyncio.get_running_loop()
    found = _gates.get(loop)
    if found is None or found.per_pass != settings.TURN_STARTS_PER_PASS:
        found = _gates[loop] = TurnGate(settings.TURN_STARTS_PER_PASS, loop)
    return found


async def turn_start() -> None:
    """Wait until this turn may do its start-up work (see the module docstring)."""
    await gate().enter()
