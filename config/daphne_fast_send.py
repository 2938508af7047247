"""A lean path to the socket for the chat's text frames when daphne serves them.

Through the ASGI ``send`` every streamed token passes Channels' send layers,
daphne's ``handle_reply`` and Autobahn's ``sendMessage``, ``sendFrame`` and
``sendData`` (which formats a debug log line for every frame even with
debug logging off) before Twisted's ``transport.write``: the largest share
of a frame's cost on the event loop in the load profile, and paid by every
frame of every stream. For an open, uncompressed server connection a text
frame is a 2-10 byte header and the payload (RFC 6455 section 5.2); this
writes exactly that, in one ``transport.write``. Anything else (accept,
close, binary frames, a compressed or closing connection, an application
not served by daphne) keeps the ASGI path.
"""

import functools
import struct
from collections.abc import Callable

from config import daphne_guard

_TEXT_FIN = 0x81  # FIN + opcode 1 (text); server frames are never masked


def frame_header(length: int) -> bytes:
    """The header of one unmasked, final text frame of ``length`` payload bytes."""
    if length < 126:
        return bytes((_TEXT_FIN, length))
    if length < 1 << 16:
        return struct.pack("!BBH", _TEXT_FIN, 126, length)
    return struct.pack("!BBQ", _TEXT_FIN, 127, length)


def text_sender(send) -> Callable[[bytes], bool] | None:
    """A direct writer for the connection daphne's ASGI ``send`` belongs to; None if not daphne's.

    The writer takes a UTF-8 payload and returns True once the frame is
    written, or False when the frame must take the ASGI path instead.
    """
    try:
        from daphne.server import Server
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # not served by daphne
        return None
    if not (
        isinstance(send, functools.partial)
        and getattr(send.func, "__func__", None) is Server.handle_reply
        and len(send.args) == 1
        and isinstance(send.args[0], WebSocketProtocol)
    ):
        return None
    protocol = send.args[0]
    is_open = WebSocketProtocol.STATE_OPEN

    def write(payload: bytes) -> bool:
        if (
            protocol.state != is_open
            or protocol._perMessageCompress is not None
            or protocol.send_queue  # Autobahn has frames of its own queued: keep the order
            or protocol.maskServerFrames
            or protocol.trackedTimings
            or 0 < protocol.maxMessagePayloadSize < len(payload)
            or 0 < protocol.autoFragmentSize < len(payload)
        ):
            return False
        if getattr(protocol, "_dropped_slow_reader", False):
            return True  # dropped: the frame goes nowhere, as on the ASGI path
        protocol.transport.write(frame_header(len(payload)) + payload)
        daphne_guard.enforce_send_buffer(protocol)
        return True

    return write
