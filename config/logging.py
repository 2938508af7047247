"""Log records that say which conversation and turn they belong to.

``chat.logcontext.bind_conversation`` (per connection) and ``bind_turn`` (per
turn) set context variables; ``TurnContextFilter``, attached to the handler,
copies them onto every record, whichever logger wrote it.

``JsonFormatter`` writes one JSON object per line (``LOG_FORMAT=json``);
``PlainFormatter`` is the readable form for a terminal. Neither adds anything
the caller did not log: keeping the user's text out of INFO lines is the
callers' rule (log ids, statuses and timings, not message text).
"""

import datetime as dt
import json
import logging

from chat.logcontext import current_ids

# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD_ATTRIBUTES = frozenset(
    logging.LogRecord("", logging.INFO, "", 0, "", (), None).__dict__
) | {"message", "asctime", "conversation_id", "message_id", "turn_ids"}


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
