"""Client frames of the WebSocket protocol (SPEC section 4), parsed and validated.

Pure: no ORM, no I/O. ``parse_frame`` turns one received frame into a command
or raises ``ProtocolError`` with a stable ``code`` the client can rely on. It
is two steps, which the consumer calls from two Channels hooks:
``decode_frame`` (the frame to JSON, in ``decode_json``) and ``parse_command``
(JSON to a command, in ``receive_json``).

| frame                                   | error code             | connection      |
|-----------------------------------------|------------------------|-----------------|
| larger than the close limit (any kind)  | too_large              | closed, 1009    |
| binary                                  | binary_not_supported   | stays open      |
| text larger than ``max_frame_bytes``    | too_large              | stays open      |
| not JSON (an empty frame included)      | invalid_json           | stays open      |
| JSON but not an object                  | invalid_message        | stays open      |
| object without a known ``type``         | unknown_type           | stays open      |
| a known type with a bad field           | invalid_message (text: too_large) | stays open |

The widget's socket (``/ws/widget/``) takes one more command, and it first:
``{"type": "resume", "token": ..., "language": "sv"|"en"}``. The token is the
widget's conversation token (``WIDGET_TOKEN``: 43 URL-safe base64 characters,
32 random bytes); it is never echoed in an error.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson


class ErrorCode:
    INVALID_JSON = "invalid_json"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_MESSAGE = "invalid_message"
    TOO_LARGE = "too_large"
    BINARY_NOT_SUPPORTED = "binary_not_supported"
    RATE_LIMITED = "rate_limited"
    FLOOD = "flood"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    SERVER_SHUTDOWN = "server_shutdown"
    NOT_FOUND = "not_found"
    PHONE_REQUIRED = "phone_required"
    INVALID_PHONE = "invalid_phone"
    INVALID_CONTACT = "invalid_contact"
    INTERNAL = "internal_error"


class ProtocolError(Exception):
    close_code: int | None = None  # set when the connection cannot go on after this frame

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields

    def frame(self) -> dict:
        return error_frame(self.code, self.message, **self.fields)


def error_frame(code: str, message: str, **fields: Any) -> dict:
    return {"type": "error", "code": code, "message": message, **fields}


@dataclass(frozen=True, slots=True)
class SendMessage:
    text: str
    id: str | None = None
    language: str = ""  # the page's language ("sv"/"en"): a question that does not say


@dataclass(frozen=True, slots=True)
class Cancel:
    pass


@dataclass(frozen=True, slots=True)
class ConfirmAction:
    suggestion_id: str
    phone: str = ""  # typed on the card when the suggestion has no number
    contact: str = ""  # a ticket's e-mail address or phone number, typed on the card


@dataclass(frozen=True, slots=True)
class RejectAction:
    suggestion_id: str


@dataclass(frozen=True, slots=True)
class GiveFeedback:
    message_id: str
    rating: str
    comment: str = ""
    reason: str = ""  # one of FEEDBACK_REASONS, or empty


@dataclass(frozen=True, slots=True)
class RequestHandoff:
    """The customer asks for a person (the page's button)."""


@dataclass(frozen=True, slots=True)
class Typing:
    """The customer is typing (relayed to the person who owns the conversation)."""


@dataclass(frozen=True, slots=True)
class Resume:
    """The widget's first frame: its conversation token (chat.widget) and page language."""

    token: str
    language: str = "sv"

    def __repr__(self) -> str:  # a token never reaches a log line through a repr
        return f"Resume(token=<hidden>, language={self.language!r})"


Command = (
    SendMessage
    | Cancel
    | ConfirmAction
    | RejectAction
    | GiveFeedback
    | RequestHandoff
    | Typing
    | Resume
)

MAX_ID_CHARS = 100
MAX_COMMENT_CHARS = 2000
# Characters no database here can store: NUL (PostgreSQL text) and lone
# surrogates (not encodable as UTF-8: SQLite, and every frame sent back).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(value: str) -> bool:
    """True when ``value`` can be stored and sent back as it is."""
    return _UNSTORABLE.search(value) is None


def made_storable(value: str) -> str:
    """``value`` with each unstorable character replaced by U+FFFD (for text we did not parse)."""
    return value if storable(value) else _UNSTORABLE.sub("\ufffd", value)


MAX_PHONE_CHARS = 40
MAX_CONTACT_CHARS = 254  # an e-mail address's longest (RFC 5321 path)
WIDGET_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
LANGUAGES = ("sv", "en")
FEEDBACK_REASONS = ("wrong", "not_helpful", "no_answer", "other")


class FrameTooLarge(ProtocolError):
    """A frame so large that the connection is closed after the error frame (1009)."""

    close_code = 1009

    def __init__(self) -> None:
        super().__init__(ErrorCode.TOO_LARGE, "Frame far too large; closing.")


def parse_frame(
    text_data: str | None,
    bytes_data: bytes | None,
    *,
    max_frame_bytes: int,
    max_text_chars: int,
    close_frame_bytes: int = 0,
) -> Command:
    """Parse one WebSocket frame into a command, or raise ``ProtocolError``."""
    data = decode_frame(
        text_data, bytes_data, max_frame_bytes=max_frame_bytes, close_frame_bytes=close_frame_bytes
    )
    return parse_command(data, max_text_chars=max_text_chars)


def decode_frame(
    text_data: str | None,
    bytes_data: bytes | None,
    *,
    max_frame_bytes: int,
    close_frame_bytes: int = 0,
) -> Any:
    """The JSON value of one frame, or raise ``ProtocolError`` (the first four rows of the table).

    ``close_frame_bytes`` (0: no limit) is the size past which the error is a
    ``FrameTooLarge``: the connection closes.
    """
    size = len(text_data) if text_data is not None else len(bytes_data or b"")
    if close_frame_bytes and size > close_frame_bytes:
        raise FrameTooLarge()
    if text_data is None:
        if size > max_frame_bytes:
            raise ProtocolError(ErrorCode.TOO_LARGE, f"Frame exceeds {max_frame_bytes} bytes.")
        raise ProtocolError(ErrorCode.BINARY_NOT_SUPPORTED, "Binary frames are not supported.")
    # A character is at most 4 bytes in UTF-8: skip encoding the common small frame.
    if (
        len(text_data) * 4 > max_frame_bytes
        and len(text_data.encode(errors="surrogatepass")) > max_frame_bytes
    ):
        raise ProtocolError(ErrorCode.TOO_LARGE, f"Frame exceeds {max_frame_bytes} bytes.")
    try:
        return orjson.loads(text_data)
    except orjson.JSONDecodeError:
        pass
    # orjson also refuses lone surrogates (valid JSON, refused by parse_command
    # as invalid_message) and nesting past 1024: the standard parser tells which.
    try:
        return json.loads(text_data)
    except (ValueError, RecursionError):  # RecursionError: nested too deep
        raise ProtocolError(ErrorCode.INVALID_JSON, "Frame is not valid JSON.") from None


def parse_command(data: Any, *, max_text_chars: int) -> Command:
    """The command a decoded frame asks for, or raise ``ProtocolError`` (the last rows)."""
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "Frame must be a JSON object.")
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"Unknown message type: {kind!r:.40}.")
    return parser(data, max_text_chars)


def _string(data: dict, name: str, *, max_chars: int, required: bool = True, **fields) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE, f"Field '{name}' must be a non-empty string.", **fields
        )
    if not storable(value):
        # Never echoed back: a lone surrogate cannot be encoded into a frame.
        fields = {k: v for k, v in fields.items() if v != value}
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE, f"Field '{name}' contains NUL or a lone surrogate.", **fields
        )
    if len(value) > max_chars:
        code = ErrorCode.TOO_LARGE if name == "text" else ErrorCode.INVALID_MESSAGE
        raise ProtocolError(code, f"Field '{name}' exceeds {max_chars} characters.", **fields)
    return value


def _parse_message(data: dict, max_text_chars: int) -> SendMessage:
    message_id = data.get("id")
    if message_id is not None and (
        not isinstance(message_id, str)
        or not message_id
        or len(message_id) > MAX_ID_CHARS
        or not storable(message_id)
    ):
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE,
            f"Field 'id' must be a string of 1..{MAX_ID_CHARS} storable chars.",
        )
    fields = {"messageId": message_id} if message_id else {}
    text = _string(data, "text", max_chars=max_text_chars, **fields)
    if not text.strip():
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "Field 'text' is blank.", **fields)
    return SendMessage(text=text, id=message_id, language=_language(data, default=""))


def _language(data: dict, *, default: str) -> str:
    language = data.get("language") or default
    if language and language not in LANGUAGES:
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE, f"Field 'language' must be one of {', '.join(LANGUAGES)}."
        )
    return language


def _parse_cancel(data: dict, max_text_chars: int) -> Cancel:
    return Cancel()


def _parse_confirm(data: dict, max_text_chars: int) -> ConfirmAction:
    suggestion_id = _string(data, "suggestionId", max_chars=MAX_ID_CHARS)
    phone = _string(
        data, "phone", max_chars=MAX_PHONE_CHARS, required=False, suggestionId=suggestion_id
    )
    contact = _string(
        data, "contact", max_chars=MAX_CONTACT_CHARS, required=False, suggestionId=suggestion_id
    )
    return ConfirmAction(suggestion_id, phone=phone.strip(), contact=contact.strip())


def _parse_reject(data: dict, max_text_chars: int) -> RejectAction:
    return RejectAction(_string(data, "suggestionId", max_chars=MAX_ID_CHARS))


def _parse_feedback(data: dict, max_text_chars: int) -> GiveFeedback:
    message_id = _string(data, "messageId", max_chars=MAX_ID_CHARS)
    rating = data.get("rating")
    if rating not in ("up", "down"):
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE,
            "Field 'rating' must be 'up' or 'down'.",
            messageId=message_id,
        )
    comment = _string(
        data, "comment", max_chars=MAX_COMMENT_CHARS, required=False, messageId=message_id
    )
    reason = data.get("reason") or ""
    if reason and reason not in FEEDBACK_REASONS:
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE,
            f"Field 'reason' must be one of {', '.join(FEEDBACK_REASONS)}.",
            messageId=message_id,
        )
    return GiveFeedback(message_id=message_id, rating=rating, comment=comment, reason=reason)


def _parse_handoff_request(data: dict, max_text_chars: int) -> RequestHandoff:
    return RequestHandoff()


def _parse_typing(data: dict, max_text_chars: int) -> Typing:
    return Typing()


def _parse_resume(data: dict, max_text_chars: int) -> Resume:
    token = data.get("token")
    if not isinstance(token, str) or not WIDGET_TOKEN.fullmatch(token):
        raise ProtocolError(
            ErrorCode.INVALID_MESSAGE,
            "Field 'token' must be 43 URL-safe base64 characters (32 random bytes).",
        )
    return Resume(token=token, language=_language(data, default="sv"))


_PARSERS = {
    "resume": _parse_resume,
    "handoff_request": _parse_handoff_request,
    "typing": _parse_typing,
    "message": _parse_message,
    "cancel": _parse_cancel,
    "confirm_action": _parse_confirm,
    "reject_action": _parse_reject,
    "feedback": _parse_feedback,
}
