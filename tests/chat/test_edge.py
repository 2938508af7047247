"""The WebSocket edge holds against abuse: floods, huge frames, many connections."""

import json

import pytest
from channels.testing import WebsocketCommunicator

from chat.edge import normalized_origin, origin_allowed
from config.asgi import application
from tests.chat.conftest import open_socket, run_turn

pytestmark = pytest.mark.usefixtures("indexed_kb")


async def test_flood_gets_an_error_then_close_1008(settings):
    """Past WS_FLOOD_LIMIT frames in the window: one flood error, then close code 1008."""
    settings.WS_FLOOD_LIMIT = "30/10"
    ws = await open_socket()
    for _ in range(31):
        await ws.send_to(text_data='{"type":"nope"}')
    replies = [await ws.receive_output(timeout=5) for _ in range(32)]
    frames = [json.loads(r["text"]) for r in replies if r["type"] == "websocket.send"]
    assert [f["code"] for f in frames] == ["unknown_type"] * 30 + ["flood"]
    assert replies[-1]["type"] == "websocket.close" and replies[-1]["code"] == 1008
    await ws.disconnect()  # what daphne tells the app after the close


async def test_huge_frame_gets_an_error_then_close_1009(settings):
    """A frame over WS_CLOSE_FRAME_BYTES: a too_large error, then close code 1009."""
    settings.WS_CLOSE_FRAME_BYTES = 100_000
    ws = await open_socket()
    await ws.send_to(text_data="x" * 100_001)
    error = await ws.receive_output(timeout=5)
    assert json.loads(error["text"])["code"] == "too_large"
    closed = await ws.receive_output(timeout=5)
    assert closed["type"] == "websocket.close" and closed["code"] == 1009
    await ws.disconnect()


async def test_large_frame_under_the_close_cap_keeps_the_connection():
    """A frame over the 64 KiB cap but under the close cap: error, connection stays usable."""
    ws = await open_socket()
    await ws.send_to(text_data="x" * 70_000)
    assert (await ws.receive_json_from(timeout=5))["code"] == "too_large"
    assert (await run_turn(ws, "Vad kostar premium?"))[-1]["grounded"] is True
    await ws.disconnect()


async def test_connections_per_address_are_limited(settings):
    """Past WS_MAX_CONNECTIONS_PER_IP open connections, a new one is told why and closed."""
    settings.WS_MAX_CONNECTIONS_PER_IP = 2
    first, second = await open_socket(), await open_socket()
    third = WebsocketCommunicator(application, "/ws/chat/")
    connected, _ = await third.connect(timeout=5)
    assert connected
    refusal = await third.receive_output(timeout=5)
    assert json.loads(refusal["text"])["code"] == "too_many_connections"
    assert (await third.receive_output(timeout=5))["code"] == 1008
    await third.disconnect()
    await first.disconnect()
    fourth = await open_socket()
    frames = await run_turn(fourth, "Vad kostar premium?")
    assert frames[-1]["type"] == "response", frames
    await second.disconnect()
    await fourth.disconnect()


def _via_proxy(forwarded_for: str, peer: str = "10.0.0.2") -> WebsocketCommunicator:
    ws = WebsocketCommunicator(
        application, "/ws/chat/", headers=[(b"x-forwarded-for", forwarded_for.encode())]
    )
    ws.scope["client"] = (peer, 40000)
    return ws


async def _admitted(ws: WebsocketCommunicator) -> bool:
    connected, _ = await ws.connect(timeout=5)
    assert connected
    if await ws.receive_nothing(timeout=0.2):
        return True
    return json.loads((await ws.receive_output(timeout=5))["text"])["code"] != (
        "too_many_connections"
    )


async def test_the_connection_cap_counts_clients_behind_a_trusted_proxy(settings):
    """Behind a trusted proxy, each client has its own cap; a spoofed hop does not help."""
    settings.WS_MAX_CONNECTIONS_PER_IP = 2
    settings.TRUSTED_PROXIES = ["10.0.0.0/24"]
    sockets = [_via_proxy(f"203.0.113.{n}") for n in range(1, 5)]
    assert [await _admitted(ws) for ws in sockets] == [True] * 4
    same_client = [_via_proxy(f"spoofed-{n}, 203.0.113.1") for n in range(2)]
    assert [await _admitted(ws) for ws in same_client] == [True, False]
    for ws in sockets + same_client:
        await ws.disconnect()


async def test_forwarded_for_from_an_untrusted_peer_is_ignored(settings):
    """Without TRUSTED_PROXIES naming the peer, X-Forwarded-For changes nothing."""
    settings.WS_MAX_CONNECTIONS_PER_IP = 1
    settings.TRUSTED_PROXIES = ["10.9.9.9"]
    first, second = _via_proxy("203.0.113.1"), _via_proxy("203.0.113.2")
    assert [await _admitted(first), await _admitted(second)] == [True, False]
    await first.disconnect()
    await second.disconnect()


# -- origins ---------------------------------------------------------------------

SHOP = frozenset({"https://shop.example"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://127.0.0.1:8787", "http://127.0.0.1:8787"),
        ("HTTPS://Shop.Example:443", "https://shop.example"),
        ("http://shop.example:80/", "http://shop.example"),
        ("http://[::1]:8787", "http://[::1]:8787"),
        ("null", None),
        ("file:///tmp/x.html", None),
        ("http://shop.example/page", None),
        ("http://user@shop.example", None),
        ("http://shop.example:99999", None),
    ],
)
def test_origins_are_normalised_or_refused(value, expected):
    assert normalized_origin(value) == expected


@pytest.mark.parametrize(
    ("origin", "host", "secure", "embedders", "allowed"),
    [
        (None, "127.0.0.1:8787", False, SHOP, True),
        ("http://127.0.0.1:8787", "127.0.0.1:8787", False, frozenset(), True),
        ("http://127.0.0.1:9999", "127.0.0.1:8787", False, frozenset(), False),
        ("http://localhost:8787", "127.0.0.1:8787", False, frozenset(), False),
        ("https://127.0.0.1:8787", "127.0.0.1:8787", False, frozenset(), False),
        ("https://127.0.0.1", "127.0.0.1", True, frozenset(), True),
        ("http://127.0.0.1", "127.0.0.1", True, frozenset(), False),
        ("https://shop.example", "127.0.0.1:8787", False, SHOP, True),
        ("https://shop.example", "127.0.0.1:8787", False, frozenset(), False),
        ("http://shop.example", "127.0.0.1:8787", False, SHOP, False),
        ("http://evil.example", "evil.example", False, frozenset(), False),  # not ALLOWED_HOSTS
        ("null", "127.0.0.1:8787", False, SHOP, False),
    ],
)
def test_a_socket_opens_for_its_own_origin_or_an_allowed_embedder(
    origin, host, secure, embedders, allowed
):
    """chat.edge's table: scheme, host and port all count; ALLOWED_HOSTS guards "own"."""
    assert origin_allowed(origin, host=host, secure=secure, embedders=embedders) is allowed


async def test_the_staff_socket_refuses_an_allowed_embedder_and_a_missing_origin(settings):
    """Embedding sites may open the chat, never the staff socket."""
    from channels.testing import WebsocketCommunicator

    from chat.metrics import ORIGIN_REFUSALS
    from config.asgi import application

    settings.WIDGET_ALLOWED_ORIGINS = ["https://shop.example"]
    before = ORIGIN_REFUSALS.labels(socket="staff")._value.get()
    for headers in ([(b"origin", b"https://shop.example")], []):
        ws = WebsocketCommunicator(application, "/ws/staff/", headers=[(b"host", b"x"), *headers])
        connected, _ = await ws.connect(timeout=5)
        assert connected is False
    assert ORIGIN_REFUSALS.labels(socket="staff")._value.get() == before + 2
