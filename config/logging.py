"""Log records that say which conversation and turn they belong to.

``bind_conversation`` (per connection) and ``bind_turn`` (per turn) set
context variables; ``TurnContextFilter``, attached to the handler, copies them
onto every record, whichever logger wrote it. Context variables follow the
code across ``await``, into tasks created afterwards (``asyncio.create_task``
copies the context) and into ``sync_to_async`` worker threads, so a turn's
database and LLM code log with its ids without passing them around.

``JsonFormatter`` writes one JSON object per line (``LOG_FORMAT=json``);
``PlainFormatter`` is the readable form for a terminal. Neither adds anything
the caller did not log: keeping the user's text out of INFO lines is the
callers' rule (log ids, statuses and timings, not message text).
"""

import datetime as dt
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

_conversation_id: ContextVar[str | None] = ContextVar("log_conversation_id", default=None)
_message_id: ContextVar[str | None] = ContextVar("log_message_id", default=None)

# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD_ATTRIBUTES = frozenset(
    logging.LogRecord("", logging.INFO, "", 0, "", (), None).__dict__
) | {"message", "asctime", "conversation_id", "message_id", "turn_ids"}


def bind_conversation(conversation_id: object) -> Token:
    """Tag the rest of this task's records (and tasks it starts) with the conversation.

    Call it where a connection knows its conversation (``connect``): each
    connection runs in its own task, so the value ends with the connection.
    Returns the token for ``unbind_conversation`` if the caller wants to undo it early.
    """
    return _conversation_id.set(_as_text(conversation_id))


def unbind_conversation(token: Token) -> None:
    """Undo ``bind_conversation``."""
    _conversation_id.reset(token)


@contextmanager
def bind_turn(conversation_id: object, message_id: str) -> Iterator[None]:
    """Tag every record written inside the block with the turn's conversation and message ids."""
    conversation_token = _conversation_id.set(_as_text(conversation_id))
    message_token = _message_id.set(_as_text(message_id))
    try:
        yield
    finally:
        _reset(_message_id, message_token)
        _reset(_conversation_id, conversation_token)


def current_ids() -> tuple[str | None, str | None]:
    """The ``(conversation_id, message_id)`` bound here, ``None`` where unbound."""
    return _conversation_id.get(), _message_id.get()


class TurnContextFilter(logging.Filter):
    """Adds ``conversation_id`` and ``message_id`` (``None`` when unbound) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        conversation_id, message_id = current_ids()
        # A record may carry its own ids via ``extra=``; those win.
        if getattr(record, "conversation_id", None) is None:
            record.conversation_id = conversation_id
        if getattr(record, "message_id", None) is None:
            record.message_id = message_id
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the turn's ids, extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": dt.datetime.fromtimestamp(record.created, tz=dt.UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "conversation_id": getattr(record, "conversation_id", None),
            "message_id": getattr(record, "message_id", None),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD_ATTRIBUTES and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # default=str: extras such as Django's ``request`` are objects, and a log
        # line must never fail to serialise.
        return json.dumps(entry, ensure_ascii=False, default=str)


class PlainFormatter(logging.Formatter):
    """The usual one-line format, with ``[conversation message]`` when a turn is bound."""

    default_format = "%(asctime)s %(levelname)s %(name)s%(turn_ids)s %(message)s"

    def __init__(self, fmt: str | None = None, *args, **kwargs) -> None:
        super().__init__(fmt or self.default_format, *args, **kwargs)

    def format(self, record: logging.LogRecord) -> str:
        conversation_id = getattr(record, "conversation_id", None)
        message_id = getattr(record, "message_id", None)
        # Set on the record like Formatter sets ``message`` and ``asctime``.
        record.turn_ids = (
            ""
            if conversation_id is None and message_id is None
            else f" [{conversation_id or '-'} {message_id or '-'}]"
        )
        return super().format(record)


def _as_text(value: object) -> str | None:
    return None if value is None else str(value)


def _reset(var: ContextVar, token: Token) -> None:
    try:
        var.reset(token)
    except ValueError:
        # The block was left in another context (an async generator finalised
        # elsewhere); restoring the old value there is the closest equivalent.
        var.set(token.old_value if token.old_value is not Token.MISSING else None)
