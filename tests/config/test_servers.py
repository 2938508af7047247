"""The product runs unmodified on plain daphne and on uvicorn; patches come only from config.serve.

Each server is started as a real process on a free port and holds a
conversation over a real WebSocket (the ``websockets`` client).
"""

import json

import pytest
import websockets.sync.client

from tests.live import asgi_server, prepare_database, product_env, run_python


def converse(port: int) -> list[dict]:
    """One question, its stream and its answer; then a cancel-free second turn."""
    frames = []
    with websockets.sync.client.connect(f"ws://127.0.0.1:{port}/ws/chat/") as ws:
        for message_id in ("m1", "m2"):
            ws.send(
                json.dumps({"type": "message", "id": message_id, "text": "Vad kostar premium?"})
            )
            while True:
                frames.append(json.loads(ws.recv(timeout=20)))
                if frames[-1]["type"] in ("response", "error"):
                    break
        ws.send("{oops")
        frames.append(json.loads(ws.recv(timeout=20)))
    return frames


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    db = tmp_path_factory.mktemp("servers") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}")
    prepare_database(env)
    return env


@pytest.mark.parametrize("server", ["daphne", "uvicorn", "config.serve"])
def test_a_conversation_works_on_each_server(server, database, tmp_path):
    """Plain daphne, uvicorn and make run's daphne all answer, stream and report bad input alike."""
    log = tmp_path / "server.log"
    with asgi_server(database, log_path=log, server=server) as (port, _):
        frames = converse(port)
    for message_id in ("m1", "m2"):
        turn = [f for f in frames if f.get("messageId") == message_id]
        assert turn[0]["type"] == "stream"
        assert [f["type"] for f in turn[-2:]] == ["stream_end", "response"]
        assert turn[-1]["grounded"] is True and "399 kr/månad" in turn[-1]["text"]
    assert frames[-1]["code"] == "invalid_json"
    assert "Traceback" not in log.read_text()


def test_importing_the_application_patches_nothing():
    """config.asgi leaves daphne's protocol, the event loop policy and the collector alone."""
    out = run_python(
        """
        import asyncio, gc, os
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        before = gc.get_threshold()
        import config.asgi
        from daphne.ws_protocol import WebSocketProtocol
        import daphne.ws_protocol as module
        patched = [
            name for name in ("serverSend", "serverClose")
            if getattr(WebSocketProtocol, name).__module__ != module.__name__
        ]
        policy = type(asyncio.get_event_loop_policy()).__module__
        print(patched, policy, gc.get_threshold() == before, gc.get_freeze_count())
        """
    )
    assert out == "[] asyncio.unix_events True 0"
