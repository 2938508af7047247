"""The actions app's services, as the async chat code calls them (off the event loop)."""

from actions import services as actions
from actions.services import SuggestionNotFound
from chat.asyncdb import off_loop
from chat.context import ConversationContext
from chat.services import conversation_touch

__all__ = ["SuggestionNotFound", "suggestion_confirm", "suggestion_create", "suggestion_reject"]


def _create(*, context: ConversationContext, action: str, payload: dict, message_id: str) -> dict:
    conversation_touch(
        conversation_id=context.id, session_key=context.session_key, language=context.language
    )
    suggestion = actions.suggestion_create(
        conversation_id=context.id, action=action, payload=payload, source_message_id=message_id
    )
    return suggestion.as_frame()


def _confirm(*, context: ConversationContext, suggestion_id: str) -> dict:
    return actions.suggestion_confirm(
        suggestion_id=suggestion_id,
        conversation_id=context.id,
        client_address=context.client_address,
    ).as_dict()


def _reject(*, context: ConversationContext, suggestion_id: str) -> dict:
    return actions.suggestion_reject(
        suggestion_id=suggestion_id, conversation_id=context.id
    ).as_dict()


suggestion_create = off_loop(_create)
suggestion_confirm = off_loop(_confirm)
suggestion_reject = off_loop(_reject)
