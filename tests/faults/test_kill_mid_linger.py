"""``kill -9`` while finished turns' completions wait to be written together.

A turn's completion lingers (``AUDIT_COMPLETION_LINGER_MS``) so the customer's
next question goes first and the turns ending meanwhile share one transaction.
That is what a crash can cost beyond an in-flight batch, and no more: here the
linger is long enough to kill the server inside it. Every question the clients
saw answered is committed, with its answer row; after the restart each of those
rows is marked interrupted, none is left in progress or half written.
"""

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS

pytestmark = [pytest.mark.postgres]

CLIENTS = 10
QUESTION = "Vad kostar premium?"
LINGER_MS = 30_000  # far longer than the test takes to kill


async def answered(url: str, n: int) -> str:
    """One question asked to its response; the socket stays open."""
    message_id = f"c{n:02d}"
    ws = await connect(url, open_timeout=RECV_TIMEOUT_SECONDS, close_timeout=1)
    await ws.send(json.dumps({"type": "message", "id": message_id, "text": QUESTION}))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
        if frame["type"] == "response":
            assert frame["grounded"] is True and frame["messageId"] == message_id
            ws.transport.abort()
            return message_id


def test_kill_9_inside_the_completion_linger_loses_only_the_completions(product_factory):
    product = product_factory(AUDIT_COMPLETION_LINGER_MS=str(LINGER_MS))
    product.start()

    async def answers_then_kill() -> list[str]:
        done = await asyncio.gather(*(answered(product.ws_url, n) for n in range(CLIENTS)))
        product.kill_9()
        return done

    seen = asyncio.run(answers_then_kill())
    # Before the restart: every question committed, its answer row still in progress.
    rows = product.query(
        "SELECT q.message_id, a.status FROM chat_message q "
        "JOIN chat_message a ON a.reply_to_id = q.id WHERE q.role = 'user' ORDER BY 1"
    )
    assert rows == [(message_id, "in_progress") for message_id in sorted(seen)]

    product.start()  # start-up marks what the crash left in progress
    rows = product.query(
        "SELECT q.message_id, a.status, a.text, a.total_ms FROM chat_message q "
        "JOIN chat_message a ON a.reply_to_id = q.id WHERE q.role = 'user' ORDER BY 1"
    )
    assert rows == [(message_id, "interrupted", "", None) for message_id in sorted(seen)]
    assert product.query("SELECT count(*) FROM chat_message WHERE status = 'in_progress'") == [(0,)]
