"""Connection accounting that cannot leak: every admitted connection is released on every path."""

import asyncio

import pytest
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator

from chat.composition import connections_by_address
from chat.metrics import CONNECTIONS_OPEN
from config.asgi import application
from tests.chat.conftest import open_socket, run_turn

pytestmark = pytest.mark.usefixtures("indexed_kb")


class FlakyLayer(InMemoryChannelLayer):
    """An in-memory layer whose calls fail while ``down`` (a Redis outage), or ``fail_next``
    times (the first use of a dead pooled connection after a Redis restart)."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.fail_next = 0

    def _check(self) -> None:
        if self.down or self.fail_next:
            self.fail_next = max(0, self.fail_next - 1)
            raise ConnectionError("Redis is away")

    async def group_add(self, group, channel):
        self._check()
        return await super().group_add(group, channel)

    async def group_discard(self, group, channel):
        self._check()
        return await super().group_discard(group, channel)

    async def receive(self, channel):
        while True:
            if self.down:
                raise ConnectionError("Redis is away")
            try:
                return await asyncio.wait_for(super().receive(channel), 0.05)
            except TimeoutError:
                continue


@pytest.fixture
def layer(monkeypatch):
    flaky = FlakyLayer()
    monkeypatch.setattr("channels.consumer.get_channel_layer", lambda alias=None: flaky)
    return flaky


def open_count() -> int:
    return connections_by_address().total()


def gauge() -> float:
    return CONNECTIONS_OPEN._value.get()


async def test_a_failing_group_add_releases_the_slot_and_refuses_the_handshake(layer, settings):
    """The layer away at connect: the handshake is refused, nothing stays counted."""
    settings.WS_MAX_CONNECTIONS_PER_IP = 2
    before = gauge()
    layer.down = True
    for _ in range(3):
        ws = WebsocketCommunicator(application, "/ws/chat/")
        connected, _ = await ws.connect(timeout=5)
        assert not connected
    assert open_count() == 0 and gauge() == before
    layer.down = False
    ws = await open_socket()
    assert (await run_turn(ws, "Vad kostar premium?"))[-1]["type"] == "response"
    await ws.disconnect()
    assert open_count() == 0 and gauge() == before


async def test_the_first_handshake_after_an_idle_redis_restart_succeeds(layer):
    """One failed call (a dead pooled connection) is retried: the connection is accepted."""
    layer.fail_next = 1
    ws = WebsocketCommunicator(application, "/ws/chat/")
    connected, _ = await ws.connect(timeout=5)
    assert connected
    await ws.disconnect()
    assert open_count() == 0


async def test_a_failing_group_discard_still_releases_the_slot(layer):
    before = gauge()
    ws = await open_socket()
    assert open_count() == 1 and gauge() == before + 1
    layer.down = True
    await ws.disconnect()
    assert open_count() == 0 and gauge() == before


async def test_an_outage_under_open_connections_releases_their_slots(layer, settings):
    """The layer failing under open connections ends them without disconnect(): still released,
    and once it is back the same address connects again up to its cap."""
    settings.WS_MAX_CONNECTIONS_PER_IP = 3
    before = gauge()
    sockets = [await open_socket() for _ in range(3)]
    assert open_count() == 3
    layer.down = True
    for ws in sockets:
        with pytest.raises(ConnectionError):
            await ws.wait(timeout=2)
    assert open_count() == 0 and gauge() == before
    layer.down = False
    again = [await open_socket() for _ in range(3)]
    assert open_count() == 3
    for ws in again:
        await ws.disconnect()
    assert open_count() == 0 and gauge() == before


async def test_the_address_quota_counts_the_connections_client_address(settings):
    """A confirm carries the connection's client address: one address, one SMS an hour."""
    settings.ACTION_QUOTA_PER_ADDRESS = "1/3600"
    results = []
    for n in range(2):
        ws = WebsocketCommunicator(application, "/ws/chat/")
        ws.scope["client"] = ("198.51.100.4", 1000 + n)
        assert (await ws.connect(timeout=5))[0]
        frames = await run_turn(ws, f"Skicka sms till 070-123 45 6{n}", message_id=f"s{n}")
        await ws.send_json_to(
            {"type": "confirm_action", "suggestionId": frames[-1]["suggestionId"]}
        )
        results.append((await ws.receive_json_from(timeout=5))["result"])
        await ws.disconnect()
    assert results[0]["success"] is True
    assert results[1]["success"] is False and "from your address" in results[1]["message"]
