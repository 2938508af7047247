"""The lean text-frame path: RFC 6455 frames straight to daphne's transport, or a step aside."""

import functools
from collections import deque

import pytest
from daphne.server import Server
from daphne.ws_protocol import WebSocketProtocol
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from config.daphne_fast_send import frame_header, text_sender


def parse(data: bytes) -> Frame:
    """One server frame, read by the ``websockets`` library's own parser."""
    reader = StreamReader()
    reader.feed_data(data)
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        assert not reader.buffer, "the frame is exactly header and payload"
        return done.value
    raise AssertionError("incomplete frame")


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 300_000])
def test_frames_of_every_length_class_parse_back(length):
    """7-bit, 16-bit and 64-bit payload lengths: final, unmasked text frames."""
    payload = b"x" * length
    frame = parse(frame_header(length) + payload)
    assert (frame.opcode, frame.fin, frame.data) == (Opcode.TEXT, True, payload)


class Transport:
    def __init__(self, pending: int = 0) -> None:
        self.written: list[bytes] = []
        self.dataBuffer = b"\0" * pending
        self.offset = 0
        self._tempDataLen = 0

    def write(self, data: bytes) -> None:
        self.written.append(data)


def daphne_send(**state):
    """daphne's ASGI ``send`` for one open, uncompressed connection (no network)."""
    protocol = object.__new__(WebSocketProtocol)
    protocol.state = WebSocketProtocol.STATE_OPEN
    protocol._perMessageCompress = None
    protocol.send_queue = deque()
    protocol.maskServerFrames = False
    protocol.trackedTimings = None
    protocol.maxMessagePayloadSize = 0
    protocol.autoFragmentSize = 0
    protocol.transport = Transport()
    protocol.client_addr = ("127.0.0.1", 1)
    protocol.dropped = False
    protocol.dropConnection = lambda abort: setattr(protocol, "dropped", True)
    for name, value in state.items():
        setattr(protocol, name, value)
    server = object.__new__(Server)
    return functools.partial(server.handle_reply, protocol), protocol


def test_an_open_connection_gets_the_frame_in_one_write():
    """The payload goes out as one text frame, in a single transport write."""
    send, protocol = daphne_send()
    write = text_sender(send)
    assert write(b'{"type":"stream","delta":"Hej "}') is True
    [data] = protocol.transport.written
    assert parse(data).data == b'{"type":"stream","delta":"Hej "}'


@pytest.mark.parametrize(
    "state",
    [
        {"state": WebSocketProtocol.STATE_CLOSING},
        {"state": WebSocketProtocol.STATE_CONNECTING},
        {"_perMessageCompress": object()},
        {"send_queue": deque([(b"ping", False)])},
        {"maxMessagePayloadSize": 4},
        {"autoFragmentSize": 4},
    ],
)
def test_anything_but_a_plain_open_connection_takes_the_asgi_path(state):
    """Closing, not yet accepted, compressed, queued, oversized: nothing is written here."""
    send, protocol = daphne_send(**state)
    assert text_sender(send)(b'{"type":"stream"}') is False
    assert protocol.transport.written == []


def test_a_client_that_stopped_reading_is_dropped(settings):
    """Past WS_MAX_SEND_BUFFER_BYTES waiting to go out, the connection is dropped."""
    settings.WS_MAX_SEND_BUFFER_BYTES = 1000
    send, protocol = daphne_send(transport=Transport(pending=5000))
    assert text_sender(send)(b"{}") is True
    assert protocol.dropped is True
    assert text_sender(send)(b"{}") is True  # later frames go nowhere
    assert len(protocol.transport.written) == 1


def test_a_send_that_is_not_daphnes_gets_no_direct_path():
    """Under another server (or the test communicator) every frame takes the ASGI path."""

    async def send(message):
        pass

    assert text_sender(send) is None
