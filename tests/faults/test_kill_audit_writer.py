"""``kill -9`` of the audit writer process (``chat.audit_process``) while answers stream.

The writer is a process of the server's own: killed, the batch it held goes again
to a new writer (as after a database outage), the server and its connections go
on, every question is committed once, and every answer is completed.
"""

import asyncio
import json

import psutil
import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS

pytestmark = [pytest.mark.postgres]

CLIENTS = 10
QUESTION = "Vad kostar premium?"


def writer_processes(server_pid: int) -> list[psutil.Process]:
    return [
        child
        for child in psutil.Process(server_pid).children()
        if "audit_writer" in child.cmdline()
    ]


async def until_response(ws, message_id: str) -> None:
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
        if frame["type"] == "response" and frame.get("messageId") == message_id:
            return


def test_kill_9_of_the_audit_writer_mid_stream_loses_no_question_and_completes_every_answer(
    product_factory,
):
    # Slow tokens: every answer is still streaming when the writer dies.
    product = product_factory(LLM_TOKEN_DELAY_MS="150,200", AUDIT_WRITER_PROCESS="1")
    product.start()

    async def ask(ws, message_id: str) -> None:
        await ws.send(json.dumps({"type": "message", "id": message_id, "text": QUESTION}))
        while True:  # the first token comes after the question is committed
            frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
            if frame["type"] == "stream":
                return

    async def ask_kill_ask() -> tuple[int, int]:
        sockets = [
            await connect(product.ws_url, open_timeout=RECV_TIMEOUT_SECONDS, close_timeout=1)
            for _ in range(CLIENTS)
        ]
        await asyncio.gather(*(ask(ws, f"a{n:02d}") for n, ws in enumerate(sockets)))
        [killed] = writer_processes(product.proc.pid)
        killed.kill()  # SIGKILL, every answer mid-stream
        await asyncio.gather(*(until_response(ws, f"a{n:02d}") for n, ws in enumerate(sockets)))
        # The same connections ask again, written by a new writer.
        await asyncio.gather(*(ask(ws, f"b{n:02d}") for n, ws in enumerate(sockets)))
        await asyncio.gather(*(until_response(ws, f"b{n:02d}") for n, ws in enumerate(sockets)))
        for ws in sockets:
            await ws.close()
        [new] = writer_processes(product.proc.pid)
        return killed.pid, new.pid

    killed, new = asyncio.run(ask_kill_ask())
    assert new != killed
    product.stop()  # a graceful stop: the completions lingering are written

    rows = product.query(
        "SELECT q.message_id, a.status FROM chat_message q "
        "JOIN chat_message a ON a.reply_to_id = q.id WHERE q.role = 'user' ORDER BY 1"
    )
    asked = sorted(f"{batch}{n:02d}" for batch in "ab" for n in range(CLIENTS))
    assert [message_id for message_id, _ in rows] == asked  # each question once
    assert {status for _, status in rows} == {"done"}
    assert "The audit writer process" in product.log_path.read_text()
