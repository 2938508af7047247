"""Four guards daphne lacks at the edge.

1. A bound on what daphne buffers for a WebSocket client that does not read.

Daphne writes every frame straight into Twisted's transport, which buffers
without limit: a client that stops reading would make the server hold every
token it is sent. Past ``WS_MAX_SEND_BUFFER_BYTES`` waiting to go out, the
connection is dropped instead (the turn is recorded as cancelled by the
consumer's disconnect).

2. The close codes RFC 6455 gives servers. Autobahn's ``sendClose`` only
lets an application send 1000 or 3000-4999, so daphne turns a close with
1008 (policy: flood, too many connections), 1009 (too big) or 1001 (going
away: shutdown) into an exception and a 1011. Those codes go out as sent.

3. A close, not a TCP reset, for frames over daphne's size limit.
Autobahn fails a connection whose message exceeds
``--websocket-max-message-size`` by dropping the TCP connection
(``failByDrop``, on by default); with it off (autobahn's public
``setProtocolOptions``) the client gets a close frame with 1009 first.

4. A shorter idle timeout for HTTP connections. A request that never
completes (half-open, or headers sent a byte at a time with pauses) is held
until Twisted's idle timeout, 60 s by default: 3,000 such connections were
held for 40 s. ``HTTP_IDLE_TIMEOUT_SECONDS`` sets Twisted's public
``HTTPFactory.timeOut``; a connection upgraded to a WebSocket is not
affected (Twisted pauses the timeout while a request is being handled).

Installed from ``config.asgi`` when daphne serves it.
"""

import logging

from django.conf import settings

logger = logging.getLogger(__name__)

SERVER_CLOSE_CODES = frozenset({1001, 1008, 1009, 1011})


def pending_bytes(transport) -> int:
    """Bytes a Twisted TCP transport holds that the peer has not taken yet."""
    buffered = len(getattr(transport, "dataBuffer", b"")) - getattr(transport, "offset", 0)
    return buffered + getattr(transport, "_tempDataLen", 0)


def enforce_send_buffer(protocol) -> None:
    """Drop ``protocol``'s client if more than ``WS_MAX_SEND_BUFFER_BYTES`` wait to go out."""
    limit = settings.WS_MAX_SEND_BUFFER_BYTES
    if limit and pending_bytes(protocol.transport) > limit:
        protocol._dropped_slow_reader = True
        logger.warning("Dropping a WebSocket client that stopped reading: %s", protocol.client_addr)
        protocol.dropConnection(abort=True)


def install() -> bool:
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # not served by daphne
        return False
    if getattr(WebSocketProtocol, "_send_buffer_guard", False):
        return True
    original = WebSocketProtocol.serverSend

    def server_send(self, content, binary=False):
        if getattr(self, "_dropped_slow_reader", False):
            return
        original(self, content, binary)
        enforce_send_buffer(self)

    def server_close(self, code=None):
        if code in SERVER_CLOSE_CODES:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            original_close(self, code)

    from daphne.ws_protocol import WebSocketFactory

    original_factory_init = WebSocketFactory.__init__

    def factory_init(self, *args, **kwargs):
        original_factory_init(self, *args, **kwargs)
        self.setProtocolOptions(failByDrop=False)

    WebSocketFactory.__init__ = factory_init

    from daphne.http_protocol import HTTPFactory

    original_http_init = HTTPFactory.__init__

    def http_factory_init(self, *args, **kwargs):
        original_http_init(self, *args, **kwargs)
        self.timeOut = settings.HTTP_IDLE_TIMEOUT_SECONDS

    HTTPFactory.__init__ = http_factory_init
    original_close = WebSocketProtocol.serverClose
    WebSocketProtocol.serverSend = server_send
    WebSocketProtocol.serverClose = server_close
    WebSocketProtocol._send_buffer_guard = True
    return True
