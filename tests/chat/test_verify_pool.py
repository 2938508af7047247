"""The verification pool (chat/verify_pool.py): bounded per process and per connection,
a closed turn's waiting check never runs, and the process never waits for a check to exit."""

import asyncio
import subprocess
import sys
import threading
import time

import pytest

from chat.verify_pool import VerifyPool

WAIT = 30  # generous: only a broken pool waits this long


class Gate:
    """Checks that block until released, recording how many run at once."""

    def __init__(self):
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.ran: list[str] = []
        self.started = threading.Semaphore(0)

    def check(self, name: str) -> str:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.ran.append(name)
        self.started.release()
        self.release.wait(WAIT)
        with self.lock:
            self.running -= 1
        return name

    async def wait_started(self, count: int = 1) -> None:
        for _ in range(count):
            assert await asyncio.to_thread(self.started.acquire, timeout=WAIT)


async def test_at_most_the_pools_workers_run_checks_at_once():
    """Six expensive checks of six connections: two run, four wait on the loop."""
    pool, gate = VerifyPool(2), Gate()
    owners = [object() for _ in range(6)]
    tasks = [
        asyncio.create_task(pool.run(gate.check, f"c{i}", owner=o)) for i, o in enumerate(owners)
    ]
    await gate.wait_started(2)
    await asyncio.sleep(0.2)  # a third would have started by now on an unbounded pool
    assert gate.running == 2
    gate.release.set()
    assert sorted(await asyncio.gather(*tasks)) == [f"c{i}" for i in range(6)]
    assert gate.most == 2


async def test_one_connection_runs_one_check_at_a_time_and_leaves_workers_to_others():
    """A connection's second check waits behind its first without taking the free worker."""
    pool, gate = VerifyPool(2), Gate()
    greedy, other = object(), object()
    first = asyncio.create_task(pool.run(gate.check, "greedy-1", owner=greedy))
    await gate.wait_started()
    second = asyncio.create_task(pool.run(gate.check, "greedy-2", owner=greedy))
    third = asyncio.create_task(pool.run(gate.check, "other", owner=other))
    await gate.wait_started()
    assert gate.ran == ["greedy-1", "other"]
    gate.release.set()
    assert await asyncio.gather(first, second, third) == ["greedy-1", "greedy-2", "other"]


async def test_a_check_whose_turn_was_closed_while_waiting_never_runs():
    """The socket closed (its turn's task cancelled): the waiting check is dropped."""
    pool, gate = VerifyPool(1), Gate()
    busy = asyncio.create_task(pool.run(gate.check, "busy", owner=object()))
    await gate.wait_started()
    waiting = asyncio.create_task(pool.run(gate.check, "closed", owner=object()))
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    gate.release.set()
    assert await busy == "busy"
    assert await pool.run(gate.check, "next", owner=object()) == "next"
    assert gate.ran == ["busy", "next"]


async def test_a_running_check_whose_turn_was_closed_is_told_to_stop_and_frees_its_worker():
    """The turn is cancelled while its check runs: the pool calls the check's ``cancel``, the
    check stops at its next step, and the one worker takes the next check at once."""
    pool, stop, started = VerifyPool(1), threading.Event(), threading.Event()
    steps = []

    def long_check() -> str:  # a check of ten minutes that looks at its flag at every step
        started.set()
        for step in range(600_000):
            if stop.is_set():
                raise RuntimeError("stopped")
            steps.append(step)
            time.sleep(0.001)
        return "finished"

    running = asyncio.create_task(pool.run(long_check, owner=object(), cancel=stop.set))
    assert await asyncio.to_thread(started.wait, WAIT)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert stop.is_set()
    assert await asyncio.wait_for(pool.run(str, "next", owner=object()), WAIT) == "next"
    assert len(steps) < 600_000


async def test_a_checks_exception_reaches_its_turn():
    def failing():
        raise ValueError("bad sentence")

    with pytest.raises(ValueError, match="bad sentence"):
        await VerifyPool(1).run(failing, owner=object())


def test_the_process_exits_without_waiting_for_a_running_check():
    """SIGTERM's exit (or any end of the process) never joins a check that runs on: with
    asyncio's default executor the interpreter would wait out this ten-minute check."""
    code = (
        "import asyncio, os, time\n"
        "import django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
        "django.setup()\n"
        "from chat.verify_pool import VerifyPool\n"
        "async def main():\n"
        "    task = asyncio.ensure_future(VerifyPool(1).run(time.sleep, 600, owner=object()))\n"
        "    await asyncio.sleep(0.5)\n"
        "    print('started', flush=True)\n"
        "asyncio.run(main())\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.stdout.strip() == "started"
