"""A bound on what daphne buffers for a WebSocket client that does not read.

Daphne writes every frame straight into Twisted's transport, which buffers
without limit: a client that stops reading would make the server hold every
token it is sent. Past ``WS_MAX_SEND_BUFFER_BYTES`` waiting to go out, the
connection is dropped instead (the turn is recorded as cancelled by the
consumer's disconnect). Installed from ``config.asgi`` when daphne serves it.
"""

import logging

from django.conf import settings

logger = logging.getLogger(__name__)


def pending_bytes(transport) -> int:
    """Bytes a Twisted TCP transport holds that the peer has not taken yet."""
    buffered = len(getattr(transport, "dataBuffer", b"")) - getattr(transport, "offset", 0)
    return buffered + getattr(transport, "_tempDataLen", 0)


def install() -> bool:
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # not served by daphne
        return False
    if getattr(WebSocketProtocol, "_send_buffer_guard", False):
        return True
    original = WebSocketProtocol.serverSend
    limit = settings.WS_MAX_SEND_BUFFER_BYTES

    def server_send(self, content, binary=False):
        if getattr(self, "_dropped_slow_reader", False):
            return
        original(self, content, binary)
        if limit and pending_bytes(self.transport) > limit:
            self._dropped_slow_reader = True
            logger.warning("Dropping a WebSocket client that stopped reading: %s", self.client_addr)
            self.dropConnection(abort=True)

    WebSocketProtocol.serverSend = server_send
    WebSocketProtocol._send_buffer_guard = True
    return True
