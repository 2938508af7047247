"""The edge's close codes as a client really sees them from daphne (not a test double)."""

import json

import pytest
import websockets.sync.client
from websockets.exceptions import ConnectionClosed

from tests.live import daphne_server, prepare_database, product_env


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    db = tmp_path_factory.mktemp("edge") / "db.sqlite3"
    env = product_env(
        DATABASE_URL=f"sqlite:///{db}",
        WS_FLOOD_LIMIT="5/10",
        WS_CLOSE_FRAME_BYTES="100000",
        WS_MAX_CONNECTIONS_PER_IP="3",
    )
    prepare_database(env)
    with daphne_server(env) as (port, _):
        yield f"ws://127.0.0.1:{port}/ws/chat/"


def frames_until_closed(ws) -> tuple[list[dict], int | None]:
    frames = []
    try:
        while True:
            frames.append(json.loads(ws.recv(timeout=5)))
    except ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None


def test_flood_closes_with_1008_after_an_error(url):
    """More frames than WS_FLOOD_LIMIT: a flood error frame, then close code 1008."""
    with websockets.sync.client.connect(url) as ws:
        for _ in range(6):
            ws.send('{"type":"x"}')
        frames, code = frames_until_closed(ws)
    assert frames[-1]["code"] == "flood" and code == 1008


def test_huge_frame_closes_with_1009_after_an_error(url):
    """A frame over WS_CLOSE_FRAME_BYTES: a too_large error frame, then close code 1009."""
    with websockets.sync.client.connect(url, max_size=None) as ws:
        ws.send("x" * 100_001)
        frames, code = frames_until_closed(ws)
    assert frames == [frames[0]] and frames[0]["code"] == "too_large" and code == 1009


def test_connection_limit_closes_with_1008(url):
    """The fourth connection from one address is told why and closed with 1008."""
    with (
        websockets.sync.client.connect(url),
        websockets.sync.client.connect(url),
        websockets.sync.client.connect(url),
        websockets.sync.client.connect(url) as extra,
    ):
        frames, code = frames_until_closed(extra)
    assert frames[0]["code"] == "too_many_connections" and code == 1008


def test_frame_over_daphnes_limit_closes_with_1009_not_a_reset(tmp_path):
    """With the Makefile's transport limit, a 1 MB frame gets close 1009, not a TCP reset."""
    db = tmp_path / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}")
    prepare_database(env)
    limit = ("--websocket-max-message-size", "524288", "--websocket-max-frame-size", "524288")
    with (
        daphne_server(env, extra_args=limit) as (port, _),
        websockets.sync.client.connect(f"ws://127.0.0.1:{port}/ws/chat/", max_size=None) as ws,
    ):
        ws.send("x" * 1_000_000)
        _, code = frames_until_closed(ws)
    assert code == 1009


def test_half_open_http_request_is_dropped_after_the_idle_timeout(tmp_path):
    """A request whose headers never complete is dropped after HTTP_IDLE_TIMEOUT_SECONDS."""
    import socket
    import time

    db = tmp_path / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", HTTP_IDLE_TIMEOUT_SECONDS="1")
    prepare_database(env)
    with daphne_server(env) as (port, _), socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.settimeout(10)
        started = time.monotonic()
        try:
            data = sock.recv(1024)
        except ConnectionResetError:
            data = b""
        waited = time.monotonic() - started
    assert data == b"" or b"408" in data
    assert waited < 5
