"""Six expensive checks at once from one client cannot starve the others (a live server).

A KB inside every bound (a list of 500 like items) and a model whose answers state one of them
38 times in each of 100 sentences: each number is weighed against the fact's whole group,
seconds of pure Python an answer. One client opens six sockets and asks
on each.
While the checks run (one at a time, ``VERIFY_WORKERS=1``; the others wait their turn):

- a new customer's handshake opens and a question without numbers is answered;
- ``/readyz`` answers;
- once the six sockets close and nobody takes their turns within
  ``PARKED_TURN_GRACE_SECONDS``, the running check stops and the waiting ones never run: the
  server's CPU falls to idle instead of running on for the sum of six checks;
- SIGTERM stops the server promptly while six checks run.
"""

import asyncio
import json
import signal
import time
import urllib.request
from itertools import product

import psutil
import pytest
from websockets.asyncio.client import connect

from tests.fake_openai import FakeOpenAI, Reply
from tests.live import daphne_server, prepare_database, product_env, stop_process

pytestmark = pytest.mark.timeout(420)

SYLLABLES = (["Bar", "Kol", "Mur", "Sten", "Vik", "Ek", "Lin", "Fors"], ["by", "dal", "holm"])
NAMES = [a + b + c for a, b, c in product(*SYLLABLES, ["a", "e", "i", "o", "u", "y", "ö", "å"])]
ITEMS = 500  # a list of 500 like lines
KB = "# Sortiment\n\n" + "\n".join(
    f"- {name}: {(i + 1) * 10} kr, {i % 9 + 1} kg, {i % 7 + 2} dagar, {i % 5 + 3} år"
    for i, name in enumerate(NAMES[:ITEMS])
)
QUESTION = f"Vad kostar {NAMES[0]}?"
# The question retrieves the list's first 30 items (lines 3-32: "- Barbya: 10 kr, ..."). Each of
# the answer's 100 sentences states them in turn, 38 prices, each citing its line; each sentence
# is under the guard's MAX_SENTENCE_CHARS and its own (a sentence checked once is not checked
# again). Each item's group is the whole list (2,000 numbers), more than a fact table keeps
# found (lookup.SIBLINGS_KEPT), so each price is weighed against its group again: a tenth of a
# second of checking a sentence, many seconds an answer; six of them one after another keep a
# core busy for a minute or more.
RETRIEVED = 30
CLAIMS = (
    ", ".join(
        f"{NAMES[item]} kostar {(item + 1) * 10} kr [sortiment.md:{item + 3}]"
        for item in (n % RETRIEVED for n in range(38))
    )
    + "."
)
EXPENSIVE = " ".join("Ja, " * k + CLAIMS for k in range(100))
CHEAP = "Hej! Vi hjälper dig gärna med det."
CHECKS = 6
GRACE_SECONDS = 1.0
LIMIT_SECONDS = 10.0  # a handshake, /readyz or a cheap answer: seconds, never minutes
STOP_SECONDS = 20.0  # after the grace, for the sockets' close to land and a check to stop


@pytest.fixture
def server(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "sortiment.md").write_text(KB)
    with FakeOpenAI(default_reply=Reply.from_text(EXPENSIVE)).in_thread() as llm:
        env = product_env(
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            KB_DIR=str(kb),
            LLM_BACKEND="openai",
            LLM_BASE_URL=llm.base_url,
            LLM_API_KEY="test-key",
            LLM_MODEL="fake-model",
            VERIFY_WORKERS="1",
            PARKED_TURN_GRACE_SECONDS=str(GRACE_SECONDS),
        )
        prepare_database(env)
        with daphne_server(env, start_timeout=120) as (port, proc):
            yield port, proc, llm


def cpu_seconds(proc) -> float:
    times = psutil.Process(proc.pid).cpu_times()
    return times.user + times.system


def checks(port: int) -> tuple[int, int]:
    """The server's verification pool now: checks running, checks waiting (``/metrics``)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=LIMIT_SECONDS) as r:
        lines = r.read().decode().splitlines()
    value = {line.split()[0]: float(line.split()[1]) for line in lines if line[:1] != "#"}
    return int(value["chat_checks_running"]), int(value["chat_checks_waiting"])


def until_checks(port: int, done, timeout: float) -> tuple[int, int]:
    """Poll the pool until ``done(running, waiting)``; its last reading."""
    deadline = time.monotonic() + timeout
    while True:
        found = checks(port)
        if done(*found) or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def busy_share(proc, seconds: float) -> float:
    """The share of one core the server used over the next ``seconds``."""
    before = cpu_seconds(proc)
    time.sleep(seconds)
    return (cpu_seconds(proc) - before) / seconds


async def ask(url: str, text: str, message_id: str):
    """Open a socket and ask; return it once the answer's first frame came."""
    ws = await connect(url, open_timeout=LIMIT_SECONDS, close_timeout=1)
    await ws.send(json.dumps({"type": "message", "id": message_id, "text": text}))
    frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
    assert frame["type"] in ("stream", "response"), frame
    return ws


async def wait_requests(llm: FakeOpenAI, count: int) -> None:
    for _ in range(1200):
        if len(llm.requests) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the model got {len(llm.requests)} requests, not {count}")


async def start_expensive_checks(url: str, llm: FakeOpenAI, tag: str) -> list:
    asked = len(llm.requests)
    sockets = await asyncio.gather(*(ask(url, QUESTION, f"{tag}{n}") for n in range(CHECKS)))
    await wait_requests(llm, asked + CHECKS)
    return sockets


def all_six_checking(port: int) -> None:
    """The premise: one check runs, the other five wait for the one worker."""
    found = until_checks(port, lambda running, waiting: running + waiting == CHECKS, 120)
    assert found == (1, CHECKS - 1), f"(running, waiting) = {found}"


async def a_new_customer_is_served(url: str, llm: FakeOpenAI) -> float:
    """Seconds from a new customer's connect to the response to its question (the model's
    answer this time states no number)."""
    llm.enqueue(Reply.from_text(CHEAP))
    started = time.monotonic()
    async with connect(url, open_timeout=LIMIT_SECONDS) as ws:
        await ws.send(json.dumps({"type": "message", "id": "new", "text": QUESTION}))
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), LIMIT_SECONDS))
            if frame["type"] == "response":
                assert frame["text"] == CHEAP
                return time.monotonic() - started


def readyz_seconds(port: int) -> float:
    started = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=LIMIT_SECONDS) as r:
        assert r.status == 200
    return time.monotonic() - started


def test_six_expensive_checks_starve_nobody_and_stop_when_their_sockets_close(server):
    port, proc, llm = server
    url = f"ws://127.0.0.1:{port}/ws/chat/"

    async def scenario():
        sockets = await start_expensive_checks(url, llm, "x")
        # The premise: the model was given the line its answer cites, and the check is costly.
        assert "[kb/sortiment.md:3]" in llm.requests[0].body["messages"][0]["content"]
        await asyncio.to_thread(all_six_checking, port)
        served = await a_new_customer_is_served(url, llm)
        ready = await asyncio.to_thread(readyz_seconds, port)
        for ws in sockets:
            await ws.close()
        return served, ready

    served, ready = asyncio.run(scenario())
    assert served < LIMIT_SECONDS and ready < LIMIT_SECONDS
    closed = time.monotonic()
    left = until_checks(
        port, lambda running, waiting: running + waiting == 0, GRACE_SECONDS + STOP_SECONDS
    )
    stopped = time.monotonic() - closed
    idle = busy_share(proc, 2.0)
    print(
        f"new customer served in {served:.2f} s, /readyz in {ready:.2f} s; checks stopped "
        f"{stopped:.1f} s after their sockets closed; CPU then {idle:.0%} of a core"
    )
    assert left == (0, 0), (
        f"(running, waiting) = {left}: the checks ran on after their sockets closed"
    )


def test_sigterm_stops_the_server_while_six_expensive_checks_run(server):
    port, proc, llm = server
    url = f"ws://127.0.0.1:{port}/ws/chat/"

    async def scenario():
        return await start_expensive_checks(url, llm, "t")

    sockets = asyncio.run(scenario())
    all_six_checking(port)
    started = time.monotonic()
    status = stop_process(proc, timeout=30)
    stopped = time.monotonic() - started
    print(f"SIGTERM amid {len(sockets)} checks: exit {status} in {stopped:.1f} s")
    assert status != -signal.SIGKILL and stopped < 20
