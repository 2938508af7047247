"""The turn gate: a few turn starts per pass of the loop, frames of running streams in between."""

import asyncio
import time
from contextlib import nullcontext

import pytest

from chat.admission import TurnGate


async def ticker(ticks: list[int]) -> None:
    """Counts passes of the loop: one increment per pass."""
    while True:
        ticks[0] += 1
        await asyncio.sleep(0)


async def starts_per_pass(gate: TurnGate, turns: int, work_s: float = 0.0) -> dict[int, int]:
    """``turns`` turns at once through ``gate``, each doing ``work_s`` of blocking start work:
    how many started in each pass of the loop. Asserts they started in arrival order."""
    ticks = [0]
    counting = asyncio.create_task(ticker(ticks))
    started: list[tuple[int, int]] = []

    async def turn(number: int) -> None:
        await gate.enter()
        started.append((number, ticks[0]))
        if work_s:
            time.sleep(work_s)  # the start's work, on the loop

    await asyncio.gather(*(turn(n) for n in range(turns)))
    counting.cancel()
    assert [number for number, _ in started] == list(range(turns))
    per_pass: dict[int, int] = {}
    for _, tick in started:
        per_pass[tick] = per_pass.get(tick, 0) + 1
    return per_pass


async def test_at_most_per_pass_turns_start_in_one_pass_in_arrival_order():
    """Ten turns at once through a gate of 3: three per pass, first come first served."""
    per_pass = await starts_per_pass(TurnGate(3, asyncio.get_running_loop()), 10)
    assert max(per_pass.values()) <= 3
    assert len(per_pass) >= 4


async def test_an_idle_gate_admits_without_waiting():
    """With room in the pass and nobody waiting, ``enter`` does not yield to the loop."""
    gate = TurnGate(2, asyncio.get_running_loop())
    other_ran = []
    asyncio.get_running_loop().call_soon(other_ran.append, True)
    await gate.enter()
    assert other_ran == []


async def test_a_running_stream_gets_a_pass_between_every_few_starts():
    """50 turns start at once through a gate of 2: a stream's frames go out between them.

    Ungated, all 50 starts would run back to back before the stream's next frame.
    """
    gate = TurnGate(2, asyncio.get_running_loop())
    happened: list[str] = []

    async def stream() -> None:
        for _ in range(60):
            happened.append("frame")
            await asyncio.sleep(0)

    async def turn() -> None:
        await gate.enter()
        happened.append("start")

    streaming = asyncio.create_task(stream())
    await asyncio.sleep(0)
    await asyncio.gather(*(turn() for _ in range(50)))
    await streaming
    runs_of_starts = [
        len(run) for run in "".join("s" if event == "start" else " " for event in happened).split()
    ]
    assert sum(runs_of_starts) == 50
    assert max(runs_of_starts) <= 2


async def test_a_cancelled_waiter_does_not_hold_the_others():
    """A turn cancelled while waiting gives up its place; the rest still start."""
    gate = TurnGate(1, asyncio.get_running_loop())
    started = []

    async def turn(number: int) -> None:
        await gate.enter()
        started.append(number)

    tasks = [asyncio.create_task(turn(n)) for n in range(4)]
    await asyncio.sleep(0)
    tasks[1].cancel()
    for task in tasks:
        with pytest.raises(asyncio.CancelledError) if task is tasks[1] else nullcontext():
            await task
    assert started == [0, 2, 3]


async def test_zero_means_no_limit():
    """``TURN_STARTS_PER_PASS=0``: every turn starts at once."""
    gate = TurnGate(0, asyncio.get_running_loop())
    ticks = [0]
    counting = asyncio.create_task(ticker(ticks))
    seen = []

    async def turn() -> None:
        await gate.enter()
        seen.append(ticks[0])

    await asyncio.gather(*(turn() for _ in range(20)))
    counting.cancel()
    assert len(set(seen)) == 1


async def test_a_pass_admits_no_more_once_its_starts_have_taken_the_budget():
    """Dear starts (6 ms each, a huge KB's) through a gate of 32 with a 10 ms budget: at most
    two per pass, every one of them started, in arrival order."""
    gate = TurnGate(32, asyncio.get_running_loop(), budget_s=0.01)
    per_pass = await starts_per_pass(gate, 6, work_s=0.006)
    assert max(per_pass.values()) <= 2


async def test_the_first_start_of_a_pass_always_goes():
    """A budget of nothing still starts one turn per pass."""
    gate = TurnGate(32, asyncio.get_running_loop(), budget_s=0.0)
    per_pass = await asyncio.wait_for(starts_per_pass(gate, 5, work_s=0.001), timeout=5)
    assert sorted(per_pass.values()) == [1, 1, 1, 1, 1]
