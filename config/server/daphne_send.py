"""A lean path to the socket for text frames on daphne (``SERVER_FAST_SEND``).

Daphne sends a text frame through Autobahn's ``sendMessage``, ``sendFrame``
and ``sendData`` (which formats a debug log line for every frame even with
debug logging off) before Twisted's ``transport.write``. For an open,
uncompressed server connection a text frame is a 2-10 byte header and the
payload (RFC 6455 section 5.2); this writes exactly that, in one
``transport.write``. Anything else (binary frames, a compressed, masked,
fragmenting or closing connection, frames Autobahn itself has queued) keeps
Autobahn's path.

Reads Autobahn's private fields: ``_perMessageCompress``, ``send_queue``,
``maskServerFrames``, ``trackedTimings``, ``maxMessagePayloadSize``,
``autoFragmentSize``. ``check`` runs on the first frame a live connection
sends and fails loudly (the frame raises) when one is gone; every read is a
plain attribute access, so a later rename raises too instead of silently
taking the wrong path.
"""

import struct

from daphne.ws_protocol import WebSocketProtocol

_TEXT_FIN = 0x81  # FIN + opcode 1 (text); server frames are never masked
# What the direct path reads of an Autobahn connection.
PROTOCOL_FIELDS = (
    "state",
    "transport",
    "_perMessageCompress",
    "send_queue",
    "maskServerFrames",
    "trackedTimings",
    "maxMessagePayloadSize",
    "autoFragmentSize",
)


def frame_header(length: int) -> bytes:
    """The header of one unmasked, final text frame of ``length`` payload bytes."""
    if length < 126:
        return bytes((_TEXT_FIN, length))
    if length < 1 << 16:
        return struct.pack("!BBH", _TEXT_FIN, 126, length)
    return struct.pack("!BBQ", _TEXT_FIN, 127, length)


def check(protocol) -> None:
    """Raise if ``protocol`` (a live connection) lacks a field the direct path reads."""
    missing = [name for name in PROTOCOL_FIELDS if not hasattr(protocol, name)]
    if missing:
        raise RuntimeError(f"Autobahn changed: WebSocket protocol lacks {missing}")


def write_direct(protocol, payload: bytes) -> bool:
    """Write one text frame straight to the transport; False when Autobahn's path must take it."""
    if (
        protocol.state != WebSocketProtocol.STATE_OPEN
        or protocol._perMessageCompress is not None
        or protocol.send_queue  # Autobahn has frames of its own queued: keep the order
        or protocol.maskServerFrames
        or protocol.trackedTimings
        or 0 < protocol.maxMessagePayloadSize < len(payload)
        or 0 < protocol.autoFragmentSize < len(payload)
    ):
        return False
    protocol.transport.write(frame_header(len(payload)) + payload)
    return True


def install() -> None:
    """Send daphne's text frames through ``write_direct`` where it can take them."""
    if getattr(WebSocketProtocol, "_direct_text_frames", False):
        return
    original = WebSocketProtocol.serverSend
    unchecked = [True]

    def server_send(self, content, binary=False):
        if unchecked:
            check(self)
            unchecked.clear()
        if binary or not write_direct(self, content.encode()):
            original(self, content, binary)

    WebSocketProtocol.serverSend = server_send
    WebSocketProtocol._direct_text_frames = True
