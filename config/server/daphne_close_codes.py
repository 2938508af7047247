"""The close codes RFC 6455 gives servers, on daphne (``SERVER_CLOSE_CODES``).

Autobahn's ``sendClose`` only lets an application send 1000 or 3000-4999,
so daphne turns a close with 1008 (policy: flood, too many connections),
1009 (too big) or 1001 (going away: shutdown) into an exception and a 1011.
Those codes go out as sent, through Autobahn's ``sendCloseFrame``. Any other
ASGI server (uvicorn) sends them as they are.

Not a speed patch: it makes daphne do what the ASGI spec and the protocol
(``chat.protocol``) say. It wraps daphne's ``WebSocketProtocol.serverClose``
(missing, installing fails) and calls Autobahn's ``sendCloseFrame`` (missing,
the close raises); the live tests (``tests/chat/test_daphne_edge.py``,
``tests/chat/test_shutdown.py``) see the codes from a real daphne.
"""

from daphne.ws_protocol import WebSocketProtocol

SERVER_CLOSE_CODES = frozenset({1001, 1008, 1009, 1011})


def install() -> None:
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
