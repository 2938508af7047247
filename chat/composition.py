"""The composition root: the one place that builds the chat's collaborators.

Everything a connection and its turns reach outside themselves (the LLM
backend, the KB index, the admission gate, the audit trail, the action and
feedback services, the metrics, the per-process connection registries) is
picked here, from the settings, and handed down: ``ChatConsumer`` gets a
``ChatServices``, each ``Turn`` its ``TurnServices``. Nothing else in the chat
reaches a module-level singleton, so a test passes fakes for any of them
(``ChatConsumer.as_asgi(services=...)``, ``Turn(services=...)``).

Built once per process and kept; rebuilt only when a setting that shapes it
changes (the tests override settings).
"""

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import cache
from types import ModuleType

from django.conf import settings

from chat import action_calls, admission, audit, handoff, metrics, widget
from chat.asyncdb import off_loop, off_loop_later
from chat.context import ConversationContext
from chat.edge import ConnectionsByAddress
from chat.llm import LLMBackend, get_backend
from chat.pipeline import TurnServices
from chat.selectors import conversation_context
from chat.services import feedback_create
from chat.shutdown import LiveConnections
from grounding.selectors import acurrent_index, arefresh_index

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ChatServices:
    """What one chat connection uses, besides its turns' ``TurnServices``."""

    turn: TurnServices
    # (session_key=) -> the browser session's conversation, resumed or new.
    conversation: Callable[..., Awaitable[ConversationContext]]
    # (token=, language=) -> the widget token's conversation, or None: revoked or expired.
    widget_conversation: Callable[..., Awaitable[ConversationContext | None]]
    # (context=, suggestion_id=) -> the action's result dict; raise SuggestionNotFound.
    confirm_action: Callable[..., Awaitable[dict]]
    reject_action: Callable[..., Awaitable[dict]]
    # (conversation_id=, message_id=, rating=, comment=); raise MessageNotFound.
    give_feedback: Callable[..., Awaitable[object]]
    # Waits until every audit record queued so far is written.
    audit_drain: Callable[[], Awaitable[None]]
    # (version=) -> load that KB index version now.
    refresh_index: Callable[..., Awaitable[None]]
    metrics: ModuleType  # connection_opened/closed, action_confirmed
    connections: ConnectionsByAddress
    live: LiveConnections
    # Live handoff (chat.handoff). (conversation_id=, session_key=, language=, source=, text=)
    # -> RequestResult: the conversation queued for a person, or offline.
    request_handoff: Callable[..., Awaitable[object]]
    # (conversation_id=, text=, message_id=) -> the event, or None when no person owns it.
    message_to_person: Callable[..., Awaitable[object]]
    # (conversation_id=) -> the name of the person who owns the conversation, or None; a
    # waiting request's expiry clock stops.
    customer_connected: Callable[..., Awaitable[str | None]]
    # (conversation_id=): the customer's last connection closed while waiting; the request
    # expires after HANDOFF_WAITING_EXPIRE_SECONDS unless a connection opens again.
    customer_left: Callable[..., Awaitable[None]]

    def with_backend(self, backend: LLMBackend) -> "ChatServices":
        return replace(self, turn=replace(self.turn, backend=backend))


# The per-process registries: one each, whatever the backend.
_connections = ConnectionsByAddress()
_live = LiveConnections()


def chat_services() -> ChatServices:
    """This process's services, for the current settings."""
    return _build(settings.LLM_BACKEND, settings.LLM_BASE_URL, settings.LLM_MODEL)


@cache
def _build(backend_name: str, base_url: str, model: str) -> ChatServices:
    # Keyed by the settings that shape the backend (see chat.llm.get_backend).
    turn = TurnServices(
        backend=get_backend(),
        current_index=acurrent_index,
        admit=admission.turn_start,
        record=audit.record_turn_later,
        begin=audit.begin_turn,
        suggest=action_calls.suggestion_create,
        turn_finished=metrics.turn_finished,
        verify_in_thread_above=settings.VERIFY_IN_THREAD_FACTS,
        verify_in_thread_numbers=settings.VERIFY_IN_THREAD_NUMBERS,
    )
    return ChatServices(
        turn=turn,
        conversation=off_loop(conversation_context),
        widget_conversation=off_loop(widget.widget_context),
        confirm_action=action_calls.suggestion_confirm,
        reject_action=action_calls.suggestion_reject,
        give_feedback=off_loop(feedback_create),
        audit_drain=audit.drain,
        refresh_index=arefresh_index,
        metrics=metrics,
        connections=_connections,
        live=_live,
        request_handoff=off_loop(handoff.handoff_request),
        message_to_person=off_loop(handoff.handoff_customer_message),
        customer_connected=off_loop(handoff.handoff_customer_here),
        customer_left=customer_left,
    )


async def customer_left(*, conversation_id) -> None:
    if await off_loop(handoff.handoff_customer_away)(conversation_id=conversation_id):
        delay = settings.HANDOFF_WAITING_EXPIRE_SECONDS + 0.1
        off_loop_later(delay, handoff.handoffs_expire_waiting)


def turn_services() -> TurnServices:
    return chat_services().turn


def live_connections() -> LiveConnections:
    """The open chat connections of this process (for a graceful shutdown)."""
    return _live


async def shut_down_connections() -> None:
    """End every chat connection of this process cleanly (``SERVER_SHUTDOWN_HOOK``)."""
    closed = await _live.shut_down()
    logger.info("Shutdown: closed %d chat connections", closed)


def connections_by_address() -> ConnectionsByAddress:
    return _connections
