"""``kill -9`` while answers are being completed in batches: no answer is half written.

The audit trail writes completions as one ``executemany`` per batch and
beginnings as one multi-row ``INSERT ... RETURNING`` per batch. Killed while
40 clients finish answers as fast as they can ask, every answer row is either
complete (its text, verdict and timings together) or, after the restart's
``mark_interrupted_turns``, interrupted; and every question a client saw
answered or streaming has its row.
"""

import asyncio
import json
import time

import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS

pytestmark = [pytest.mark.postgres]

CLIENTS = 40
QUESTION = "Vad kostar premium?"
ASKING_SECONDS = 1.5  # then the kill, in the middle of the traffic


async def ask_in_a_loop(url: str, n: int, stop: asyncio.Event, seen: set[str]) -> None:
    """Ask, wait for the response, ask again, until ``stop``; note every question whose
    first frame (a stream or the response) came back."""
    try:
        async with connect(url, open_timeout=RECV_TIMEOUT_SECONDS, close_timeout=0.1) as ws:
            turn = 0
            while not stop.is_set():
                message_id = f"c{n:02d}-{turn:03d}"
                await ws.send(json.dumps({"type": "message", "id": message_id, "text": QUESTION}))
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
                    if frame.get("messageId") == message_id:
                        seen.add(message_id)
                    if frame["type"] == "response":
                        break
                turn += 1
    except Exception:  # the server died under us: that is the point
        return


def test_kill_9_amid_batched_completions_leaves_no_answer_half_written(product_factory):
    product = product_factory(LLM_TOKEN_DELAY_MS="0")
    product.start()

    async def traffic_then_kill() -> set[str]:
        stop, seen = asyncio.Event(), set()
        clients = [
            asyncio.create_task(ask_in_a_loop(product.ws_url, n, stop, seen))
            for n in range(CLIENTS)
        ]
        started = time.monotonic()
        while time.monotonic() - started < ASKING_SECONDS:
            await asyncio.sleep(0.05)
        product.kill_9()
        stop.set()
        await asyncio.gather(*clients)
        return seen

    seen = asyncio.run(traffic_then_kill())
    assert len(seen) > CLIENTS, "the clients should have finished turns before the kill"

    product.start()  # start-up marks what the crash left in progress

    rows = product.query(
        "SELECT q.message_id, a.status, a.text, a.grounded, a.total_ms, a.citations::text "
        "FROM chat_message q JOIN chat_message a ON a.reply_to_id = q.id "
        "WHERE q.role = 'user'"
    )
    recorded = {row[0] for row in rows}
    print(
        f"kill -9 amid completions: {len(seen)} questions answered or streaming, "
        f"{len(rows)} recorded, {sum(r[1] == 'done' for r in rows)} complete"
    )
    assert seen <= recorded
    statuses = {row[1] for row in rows}
    assert statuses <= {"done", "withheld", "no_support", "interrupted"}, statuses
    for message_id, status, text, grounded, total_ms, citations in rows:
        if status == "interrupted":
            assert text == "" and total_ms is None, message_id
        else:
            assert text and grounded is not None and total_ms is not None, message_id
            assert citations.startswith("["), message_id
    assert any(row[1] == "done" for row in rows)
    assert product.query("SELECT count(*) FROM chat_message WHERE status = 'in_progress'") == [(0,)]
