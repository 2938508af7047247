"""The chat consumer's ``dispatch``: Channels' own, less its per-frame hop to close connections.

``ChatConsumer.dispatch`` restates Channels' ``AsyncConsumer.dispatch`` without the
``aclose_old_connections()`` it awaits before every handler (a thread hop per frame
a client sends; every query of the consumer closes old connections around itself).
The first test pins Channels' method as it is: when a Channels release changes it,
the test fails and the override is read again against the new one.
"""

import inspect
import textwrap

import pytest
from channels import consumer as channels_consumer

from chat.consumers import ChatConsumer
from tests.chat.conftest import open_socket, run_turn

pytestmark = pytest.mark.usefixtures("indexed_kb")

CHANNELS_DISPATCH = '''
async def dispatch(self, message):
    """
    Works out what to do with a message.
    """
    handler = getattr(self, get_handler_name(message), None)
    if handler:
        await aclose_old_connections()
        await handler(message)
    else:
        raise ValueError("No handler for message type %s" % message["type"])
'''


def test_channels_dispatch_is_still_the_one_the_override_restates():
    """Channels' dispatch does what ``ChatConsumer.dispatch`` restates, and nothing more."""
    source = textwrap.dedent(inspect.getsource(channels_consumer.AsyncConsumer.dispatch))
    assert source.strip() == CHANNELS_DISPATCH.strip()


async def test_frames_reach_their_handlers_without_a_hop_to_close_connections(monkeypatch):
    """A whole turn (connect, message, answer) closes no connections per frame, and answers."""
    hops = []

    async def counted() -> None:
        hops.append(1)

    monkeypatch.setattr(channels_consumer, "aclose_old_connections", counted)
    ws = await open_socket()
    frames = await run_turn(ws, "Vad kostar premium?")
    assert frames[-1]["type"] == "response" and frames[-1]["grounded"] is True
    await ws.disconnect()
    assert hops == []


async def test_a_message_without_a_handler_is_refused_as_channels_refuses_it():
    consumer = ChatConsumer()
    with pytest.raises(ValueError, match=r"No handler for message type no\.such"):
        await consumer.dispatch({"type": "no.such"})
