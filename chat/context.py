"""What a connection remembers about its conversation between turns."""

import datetime as dt
import uuid
from collections import deque
from dataclasses import dataclass, field

from django.conf import settings

from chat.llm.base import Exchange


def _history() -> deque:
    return deque(maxlen=max(1, settings.HISTORY_EXCHANGES))


@dataclass
class ConversationContext:
    id: uuid.UUID = field(default_factory=uuid.uuid4)
    session_key: str = ""
    client_address: str = ""  # chat.edge.client_address of the connection (for quotas)
    language: str = "sv"
    previous_query: str | None = None
    # The last question the agent could not answer (withheld, no support), until one is
    # answered: a ticket asked for right after it is about it.
    unanswered: str = ""
    history: deque = field(default_factory=_history)  # of Exchange, oldest first
    # The conversation's row is in the database (it was read from there, or a turn's beginning
    # wrote it): later beginnings need not create it. Conversations with messages are never
    # deleted (``Message.conversation`` protects them).
    stored: bool = False
    # A widget conversation's token expiry: its sockets close then (``chat.consumers``).
    token_expires_at: dt.datetime | None = None

    def remember(self, *, question: str, answer: str, query: str) -> None:
        """Keep a completed exchange for the LLM and the query for follow-ups."""
        self.history.append(Exchange(question=question, answer=answer))
        self.previous_query = query
        self.unanswered = ""
