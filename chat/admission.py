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
How many per pass (``make bench``, 500 clients, three interleaved rounds each):

| per pass | CPU per turn | first stream p50 / p99 | gap between frames p99 | when     |
|----------|--------------|------------------------|------------------------|----------|
| 1        | 1.78 ms      | 613 / 889 ms           | 20 ms                  | issue 23 |
| 8        | 1.59 ms      | 478 / 788 ms           | 28 ms                  | issue 23 |
| 32       | 1.34 ms      | 374 / 565 ms           | 29 ms (floor: 34-58)   | issue 23 |

One per pass had kept streams smoothest when a turn's start cost a millisecond
(p99 73 against 85 ms with 4); since the start costs about 0.3 ms, every pass
the gate adds is the dearer part: each admitted turn waited a whole pass of
the loop over hundreds of sockets, which cost CPU and held the first token
back. 32 per pass (the default) holds a pass to about 10 ms of starts.

A count alone does not bound a pass where one start is dear (a question about
thousands of like lines of a huge KB: tens of milliseconds), so a pass also
stops admitting once its starts have taken ``TURN_START_BUDGET_MS``: a turn
admitted past that gives its place back (first in the queue) for the next pass.
The first start of a pass always goes, so a pass's starts take at most the
budget plus one start.
"""

import asyncio
import time
import weakref
from collections import deque

from django.conf import settings


class TurnGate:
    """Admits at most ``per_pass`` turn starts per pass of one event loop, in arrival order,
    and none once the pass's starts have taken ``budget_s``."""

    def __init__(
        self, per_pass: int, loop: asyncio.AbstractEventLoop, *, budget_s: float = 0.02
    ) -> None:
        self.per_pass = per_pass
        self.budget_s = budget_s
        self.loop = loop
        self.admitted = 0  # in the current pass
        self.first_start: float | None = None  # when the current pass's first start began
        self.given_back = 0  # places given back in the current pass (they go first, in order)
        self.waiting: deque[asyncio.Future] = deque()
        self.pass_scheduled = False

    async def enter(self) -> None:
        """Return when this turn may start (at once, if this pass has room and nobody waits)."""
        if self.per_pass <= 0:
            return
        self._schedule_next_pass()
        if self.admitted < self.per_pass and not self.waiting and self._within_budget():
            self.admitted += 1
            self._starting()
            return
        given_back = False
        while True:
            await self._wait_for_a_place(given_back)
            if self._within_budget():
                self._starting()
                return
            given_back = True  # the pass's starts took their time: first in the next pass

    async def _wait_for_a_place(self, given_back: bool) -> None:
        waiter = self.loop.create_future()
        if given_back:
            self.waiting.insert(self.given_back, waiter)  # ahead of later arrivals, in order
            self.given_back += 1
        else:
            self.waiting.append(waiter)
        self._schedule_next_pass()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._admit_waiting()  # admitted, then cancelled: pass the place on
            raise

    def _within_budget(self) -> bool:
        return self.first_start is None or time.perf_counter() - self.first_start < self.budget_s

    def _starting(self) -> None:
        if self.first_start is None:
            self.first_start = time.perf_counter()

    def _schedule_next_pass(self) -> None:
        if not self.pass_scheduled:
            self.pass_scheduled = True
            self.loop.call_soon(self._next_pass)

    def _next_pass(self) -> None:
        self.pass_scheduled = False
        self.admitted = 0
        self.first_start = None
        self.given_back = 0
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
    budget_s = settings.TURN_START_BUDGET_MS / 1000
    if (
        found is None
        or found.per_pass != settings.TURN_STARTS_PER_PASS
        or found.budget_s != budget_s
    ):
        found = _gates[loop] = TurnGate(settings.TURN_STARTS_PER_PASS, loop, budget_s=budget_s)
    return found


async def turn_start() -> None:
    """Wait until this turn may do its start-up work (see the module docstring)."""
    await gate().enter()
