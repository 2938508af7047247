"""Which conversation and turn the running code belongs to, for log records.

``bind_conversation`` (per connection) and ``bind_turn`` (per turn) set
context variables; ``config.logging.TurnContextFilter`` copies them onto every
record, whichever logger wrote it. Context variables follow the code across
``await``, into tasks created afterwards (``asyncio.create_task`` copies the
context) and into ``sync_to_async`` worker threads, so a turn's database and
LLM code log with its ids without passing them around.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

_conversation_id: ContextVar[str | None] = ContextVar("log_conversation_id", default=None)
_message_id: ContextVar[str | None] = ContextVar("log_message_id", default=None)


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


def _as_text(value: object) -> str | None:
    return None if value is None else str(value)


def _reset(var: ContextVar, token: Token) -> None:
    try:
        var.reset(token)
    except ValueError:
        # The block was left in another context (an async generator finalised
        # elsewhere); restoring the old value there is the closest equivalent.
        var.set(token.old_value if token.old_value is not Token.MISSING else None)
