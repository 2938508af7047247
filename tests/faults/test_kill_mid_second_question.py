"""``kill -9`` while each connection's second answer streams.

A connection's second question is begun without creating its conversation (the
first turn wrote it; ``TurnRecord.conversation_stored``). Killed mid-stream,
every second question is committed into the same conversation as the first,
whose answer stands complete; the second answer is marked interrupted.
"""

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS

pytestmark = [pytest.mark.postgres]

CLIENTS = 20
QUESTION = "Vad kostar premium?"


async def frames_until(ws, message_id: str, kind: str) -> None:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
        if frame["type"] == kind and frame.get("messageId") == message_id:
            return


async def second_question_streaming(url: str, n: int):
    """Ask once to the end, then again until its first token; the socket stays open."""
    ws = await connect(url, open_timeout=RECV_TIMEOUT_SECONDS, close_timeout=1)
    for turn, until in ((1, "response"), (2, "stream")):
        message_id = f"c{n:02d}-{turn}"
        await ws.send(json.dumps({"type": "message", "id": message_id, "text": QUESTION}))
        await frames_until(ws, message_id, until)
    return ws


def test_kill_9_mid_second_answer_keeps_both_questions_in_one_conversation(product_factory):
    product = product_factory(LLM_TOKEN_DELAY_MS="150,200")
    product.start()

    async def second_answers_then_kill() -> None:
        sockets = await asyncio.gather(
            *(second_question_streaming(product.ws_url, n) for n in range(CLIENTS))
        )
        product.kill_9()
        for ws in sockets:
            ws.transport.abort()

    asyncio.run(second_answers_then_kill())
    product.start()  # start-up marks what the crash left in progress

    rows = product.query(
        "SELECT q.message_id, q.conversation_id, a.status FROM chat_message q "
        "JOIN chat_message a ON a.reply_to_id = q.id WHERE q.role = 'user' ORDER BY q.message_id"
    )
    by_id = {message_id: (conversation, status) for message_id, conversation, status in rows}
    assert len(by_id) == 2 * CLIENTS
    for n in range(CLIENTS):
        first, second = by_id[f"c{n:02d}-1"], by_id[f"c{n:02d}-2"]
        assert first[0] == second[0]  # the second beginning wrote into the stored conversation
        assert (first[1], second[1]) == ("done", "interrupted")
    conversations = {conversation for conversation, _ in by_id.values()}
    assert product.query(
        "SELECT count(*) FROM chat_conversation WHERE id = ANY(%s)", (list(conversations),)
    ) == [(CLIENTS,)]
