"""Two guards daphne lacks at the WebSocket edge.

1. ``SERVER_SLOW_READER_GUARD``: a bound on what daphne buffers for a
WebSocket client that does not read. Daphne writes every frame straight into
Twisted's transport, which buffers without limit: a client that stops
reading would make the server hold every token it is sent. Past
``WS_MAX_SEND_BUFFER_BYTES`` waiting to go out, the connection is dropped
instead (the turn is recorded as cancelled by the consumer's disconnect).
Reads Twisted's ``dataBuffer``, ``offset`` and ``_tempDataLen``: checked on
the first frame a live connection sends (``check_transport``), which fails
loudly (the frame raises) when Twisted has renamed them.

2. ``SERVER_CLOSE_CODES``: the close codes RFC 6455 gives servers.
Autobahn's ``sendClose`` only lets an application send 1000 or 3000-4999,
so daphne turns a close with 1008 (policy: flood, too many connections),
1009 (too big) or 1001 (going away: shutdown) into an exception and a 1011.
Those codes go out as sent, through Autobahn's ``sendCloseFrame``.

Both wrap methods of daphne's ``WebSocketProtocol`` (``serverSend``,
``serverClose``); installed by ``config.server.install_patches``.
"""

import logging

from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings

logger = logging.getLogger(__name__)

SERVER_CLOSE_CODES = frozenset({1001, 1008, 1009, 1011})
TRANSPORT_FIELDS = ("dataBuffer", "offset", "_tempDataLen")


def pending_bytes(transport) -> int:
    """Bytes a Twisted TCP transport holds that the peer has not taken yet."""
    return len(transport.dataBuffer) - transport.offset + transport._tempDataLen


def check_transport(transport) -> None:
    """Raise if a live Twisted transport lacks a field ``pending_bytes`` reads."""
    missing = [name for name in TRANSPORT_FIELDS if not hasattr(transport, name)]
    if missing:
        raise RuntimeError(f"Twisted changed: the TCP transport lacks {missing}")


def enforce_send_buffer(protocol) -> None:
    """Drop ``protocol``'s client if more than ``WS_MAX_SEND_BUFFER_BYTES`` wait to go out."""
    limit = settings.WS_MAX_SEND_BUFFER_BYTES
    if limit and pending_bytes(protocol.transport) > limit:
        protocol._dropped_slow_reader = True
        logger.warning("Dropping a WebSocket client that stopped reading: %s", protocol.client_addr)
        protocol.dropConnection(abort=True)


def install_send_buffer_guard() -> None:
    if getattr(WebSocketProtocol, "_send_buffer_guard", False):
        return
    original = WebSocketProtocol.serverSend
    unchecked = [True]

    def server_send(self, content, binary=False):
        if getattr(self, "_dropped_slow_reader", False):
            return
        if unchecked:
            check_transport(self.transport)
            unchecked.clear()
        original(self, content, binary)
        enforce_send_buffer(self)

    WebSocketProtocol.serverSend = server_send
    WebSocketProtocol._send_buffer_guard = True


def install_close_codes() -> None:
    if getattr(WebSocketProtocol, "_server_close_codes", False):
        return
    original = WebSocketProtocol.serverClose

    def server_close(self, code=None):
        if code in SERVER_CLOSE_CODES:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            original(self, code)

    WebSocketProtocol.serverClose = server_close
    WebSocketProtocol._server_close_codes = True
