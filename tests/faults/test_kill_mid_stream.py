"""``kill -9`` while 30 answers stream: every question that reached the server survives."""

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS

pytestmark = [pytest.mark.postgres]

CLIENTS = 30
QUESTION = "Vad kostar premium?"


async def ask_until_streaming(url: str, n: int) -> str:
    """Send a question, return its id once the first token arrived; keep the socket open."""
    ws = await connect(url, open_timeout=RECV_TIMEOUT_SECONDS, close_timeout=1)
    message_id = f"q{n:02d}"
    await ws.send(json.dumps({"type": "message", "id": message_id, "text": QUESTION}))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
        if frame["type"] == "stream":
            return ws, message_id


def test_kill_9_mid_stream_keeps_every_question_and_marks_its_turn_interrupted(
    product_factory,
):
    # Slow tokens: every answer is still streaming when the process dies.
    product = product_factory(LLM_TOKEN_DELAY_MS="200,250")
    product.start()

    async def streams_then_kill() -> list[str]:
        sockets = await asyncio.gather(
            *(ask_until_streaming(product.ws_url, n) for n in range(CLIENTS))
        )
        product.kill_9()  # every one of them mid-stream
        for ws, _ in sockets:
            ws.transport.abort()
        return sorted(message_id for _, message_id in sockets)

    asked = asyncio.run(streams_then_kill())

    product.start()  # start-up marks what the crash left in progress

    rows = product.query(
        "SELECT q.message_id, q.text, a.status FROM chat_message q "
        "JOIN chat_message a ON a.reply_to_id = q.id WHERE q.role = 'user' ORDER BY q.message_id"
    )
    print(f"kill -9 with {CLIENTS} clients mid-stream: {len(rows)} questions recorded")
    assert [r[0] for r in rows] == asked
    assert {r[1] for r in rows} == {QUESTION}
    assert {r[2] for r in rows} == {"interrupted"}
    assert product.query("SELECT count(*) FROM chat_message WHERE status = 'in_progress'") == [(0,)]
