"""Two limits daphne leaves at Twisted's and Autobahn's defaults (always installed).

1. A close, not a TCP reset, for frames over daphne's size limit. Autobahn
fails a connection whose message exceeds ``--websocket-max-message-size`` by
dropping the TCP connection (``failByDrop``, on by default); with it off
(Autobahn's public ``setProtocolOptions``) the client gets a close frame
with 1009 first.

2. A shorter idle timeout for HTTP connections. A request that never
completes (half-open, or headers sent with long pauses) is held until
Twisted's idle timeout, 60 s by default: 3,000 such connections were held
for 40 s. ``HTTP_IDLE_TIMEOUT_SECONDS`` sets Twisted's public
``HTTPFactory.timeOut``; a connection upgraded to a WebSocket is not affected
(Twisted pauses the timeout while a request is being handled).

Both wrap a daphne factory's ``__init__`` (missing, installing fails); the
live tests in ``tests/chat/test_daphne_edge.py`` see the results from a real
daphne.
"""

from daphne.http_protocol import HTTPFactory
from daphne.ws_protocol import WebSocketFactory
from django.conf import settings


def install() -> None:
    if getattr(WebSocketFactory, "_edge_limits", False):
        return
    original_ws_init = WebSocketFactory.__init__
    original_http_init = HTTPFactory.__init__

    def ws_factory_init(self, *args, **kwargs):
        original_ws_init(self, *args, **kwargs)
        self.setProtocolOptions(failByDrop=False)

    def http_factory_init(self, *args, **kwargs):
        original_http_init(self, *args, **kwargs)
        # A project whose settings lack the key (the bench's Channels floor) keeps Twisted's.
        timeout = getattr(settings, "HTTP_IDLE_TIMEOUT_SECONDS", None)
        if timeout is not None:
            self.timeOut = timeout

    WebSocketFactory.__init__ = ws_factory_init
    HTTPFactory.__init__ = http_factory_init
    WebSocketFactory._edge_limits = True
