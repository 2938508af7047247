"""``scripts/ask.py`` (``make ask Q=...``): one question over the chat's WebSocket."""

import asyncio
import io
import json

import pytest
from websockets.asyncio.server import serve

from scripts.ask import ask, main


async def fake_chat(ws):
    """The protocol's turn order for one question: stream, stream_end, response."""
    question = json.loads(await ws.recv())
    assert question["type"] == "message"
    await ws.send(json.dumps({"type": "stream", "delta": "Premium ", "messageId": "m1"}))
    await ws.send(json.dumps({"type": "stream_end", "reason": "done", "messageId": "m1"}))
    await ws.send(json.dumps({"type": "response", "text": question["text"], "messageId": "m1"}))
    await asyncio.sleep(10)  # the client leaves at the response


async def test_ask_prints_every_frame_and_returns_the_response():
    async with serve(fake_chat, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        out = io.StringIO()
        response = await ask(f"ws://127.0.0.1:{port}/", "Vad kostar premium?", seconds=10, out=out)
    assert response["text"] == "Vad kostar premium?"
    kinds = [json.loads(line)["type"] for line in out.getvalue().splitlines()]
    assert kinds == ["stream", "stream_end", "response"]


def test_ask_fails_with_status_1_when_no_server_answers(capsys):
    from tests.live import free_port

    assert main(["--url", f"ws://127.0.0.1:{free_port()}/", "--timeout", "5", "hej"]) == 1
    assert "no answer from" in capsys.readouterr().err


def test_an_empty_question_is_refused_before_connecting(capsys):
    with pytest.raises(SystemExit) as refused:
        main(["   "])
    assert refused.value.code == 2
    assert "1 to 2000 characters" in capsys.readouterr().err
