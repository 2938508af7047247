"""A client that stops reading cannot make daphne buffer without bound.

The guard wraps daphne's ``WebSocketProtocol.serverSend``; these tests drive
the wrapped method with a transport that, like Twisted's, keeps what the
kernel did not take yet.
"""

from daphne.ws_protocol import WebSocketProtocol

from config import daphne_guard


class StuckTransport:
    """A Twisted-like transport whose peer never reads: everything stays buffered."""

    def __init__(self):
        self.dataBuffer = b""
        self.offset = 0
        self._tempDataLen = 0

    def write(self, data: bytes) -> None:
        self._tempDataLen += len(data)


class FakeProtocol:
    client_addr = ("127.0.0.1", 5555)

    def __init__(self):
        self.transport = StuckTransport()
        self.sent = 0
        self.aborted = False

    def original_send(self, content, binary=False):
        self.sent += 1
        self.transport.write(content.encode())

    def dropConnection(self, abort=False):
        self.aborted = abort


def test_pending_bytes_counts_both_twisted_buffers():
    """Pending bytes are the unsent part of dataBuffer plus the temporary buffer."""
    transport = StuckTransport()
    transport.dataBuffer, transport.offset, transport._tempDataLen = b"x" * 100, 30, 5
    assert daphne_guard.pending_bytes(transport) == 75


def test_a_stuck_client_is_dropped_past_the_limit(settings, monkeypatch):
    """Past WS_MAX_SEND_BUFFER_BYTES waiting, the connection is aborted and sends stop."""
    settings.WS_MAX_SEND_BUFFER_BYTES = 1000
    monkeypatch.setattr(WebSocketProtocol, "serverSend", FakeProtocol.original_send)
    monkeypatch.setattr(WebSocketProtocol, "_send_buffer_guard", False, raising=False)
    assert daphne_guard.install()
    guarded = WebSocketProtocol.serverSend
    protocol = FakeProtocol()
    for _ in range(100):
        guarded(protocol, "x" * 100)
    assert protocol.aborted is True
    assert protocol.sent == 11  # 1,100 bytes buffered: over the limit, then nothing more


def test_a_reading_client_is_never_dropped(settings, monkeypatch):
    """While the peer keeps up (nothing buffered) no amount of output drops it."""
    settings.WS_MAX_SEND_BUFFER_BYTES = 1000
    monkeypatch.setattr(WebSocketProtocol, "serverSend", FakeProtocol.original_send)
    monkeypatch.setattr(WebSocketProtocol, "_send_buffer_guard", False, raising=False)
    daphne_guard.install()
    protocol = FakeProtocol()
    for _ in range(1000):
        WebSocketProtocol.serverSend(protocol, "x" * 100)
        protocol.transport._tempDataLen = 0  # the kernel took it
    assert protocol.aborted is False and protocol.sent == 1000
