"""Graceful shutdown: SIGTERM ends in-flight streams clearly and records them."""

import json
import signal
import sqlite3

import websockets.sync.client

from tests.live import daphne_server, prepare_database, product_env


def test_sigterm_ends_the_stream_and_records_the_turn_as_interrupted(tmp_path):
    """Mid-stream SIGTERM: stream_end{interrupted}, server_shutdown, close 1001, audit row."""
    db = tmp_path / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="300")
    prepare_database(env)
    with daphne_server(env) as (port, proc):
        with websockets.sync.client.connect(f"ws://127.0.0.1:{port}/ws/chat/") as ws:
            ws.send(json.dumps({"type": "message", "id": "m1", "text": "Vad kostar premium?"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "stream"
            proc.send_signal(signal.SIGTERM)
            frames = []
            try:
                while True:
                    frames.append(json.loads(ws.recv(timeout=10)))
            except websockets.ConnectionClosed as closed:
                close_code = closed.rcvd.code if closed.rcvd else None
        proc.wait(timeout=15)
    kinds = [f["type"] for f in frames]
    assert "response" not in kinds
    assert {"type": "stream_end", "reason": "interrupted", "messageId": "m1"} in frames
    assert frames[-1]["type"] == "error" and frames[-1]["code"] == "server_shutdown"
    assert close_code == 1001
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT status FROM chat_message WHERE role = 'assistant' AND message_id = 'm1'"
        ).fetchall()
    assert rows == [("interrupted",)]
