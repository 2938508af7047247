"""The actions app's services, as the async chat code calls them (off the event loop).

Confirm and reject answer with the service's result and the suggestion's card
(``chat.action_cards``) in the conversation's language, read back after the write.
"""

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils import timezone

from actions import selectors as action_reads
from actions import services as actions
from actions.services import SuggestionNotFound
from chat import texts
from chat.action_cards import CONTACT_ACTIONS, PHONE_ACTIONS, card, suggestion_frame
from chat.asyncdb import off_loop
from chat.context import ConversationContext
from chat.selectors import user_message_text
from chat.services import conversation_touch
from grounding.phones import first_phone

__all__ = [
    "PhoneProblem",
    "SuggestionNotFound",
    "suggestion_confirm",
    "suggestion_create",
    "suggestion_reject",
]


class PhoneProblem(Exception):
    """A callback or SMS cannot run: no phone number, or not a valid one."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _create(*, context: ConversationContext, action: str, payload: dict, message_id: str) -> dict:
    conversation_touch(
        conversation_id=context.id, session_key=context.session_key, language=context.language
    )
    suggestion = actions.suggestion_create(
        conversation_id=context.id, action=action, payload=payload, source_message_id=message_id
    )
    return suggestion_frame(suggestion, language=context.language, now=timezone.now())


def _card(*, context: ConversationContext, suggestion_id: str) -> dict:
    suggestion = action_reads.suggestion_get_for_conversation(
        suggestion_id=suggestion_id, conversation_id=context.id
    )
    return card(suggestion, language=context.language, now=timezone.now())


def _give_phone(*, context: ConversationContext, suggestion_id: str, phone: str) -> None:
    """Validate the number typed on the card (``phonenumbers``) and store it on the suggestion."""
    suggestion = action_reads.suggestion_get_for_conversation(
        suggestion_id=suggestion_id, conversation_id=context.id
    )
    if suggestion is None:
        raise SuggestionNotFound(suggestion_id)
    if suggestion.action not in PHONE_ACTIONS or suggestion.status != "pending":
        return
    if suggestion.payload.get("phone_e164") and not phone:
        return
    language = context.language
    if not phone:
        raise PhoneProblem("phone_required", texts.localized(texts.PHONE_REQUIRED, language))
    match = first_phone(phone)
    if match is None or match.text.strip() != phone.strip():
        raise PhoneProblem("invalid_phone", texts.localized(texts.PHONE_INVALID, language))
    actions.suggestion_set_phone(
        suggestion_id=suggestion_id,
        conversation_id=context.id,
        phone=match.text,
        phone_e164=match.e164,
    )


def _give_contact(*, context: ConversationContext, suggestion_id: str, contact: str) -> None:
    """A ticket's way to reach the customer, typed on its card (it may be left empty): an
    e-mail address or a phone number, validated and stored on the suggestion."""
    suggestion = action_reads.suggestion_get_for_conversation(
        suggestion_id=suggestion_id, conversation_id=context.id
    )
    if suggestion is None:
        raise SuggestionNotFound(suggestion_id)
    if suggestion.action not in CONTACT_ACTIONS or suggestion.status != "pending":
        return
    if not contact:
        return
    language = context.language
    if "@" in contact:
        try:
            validate_email(contact)
        except ValidationError:
            raise PhoneProblem(
                "invalid_contact", texts.localized(texts.CONTACT_INVALID, language)
            ) from None
        fields = {"email": contact}
    else:
        match = first_phone(contact)
        if match is None or match.text.strip() != contact:
            raise PhoneProblem("invalid_contact", texts.localized(texts.CONTACT_INVALID, language))
        fields = {"phone": match.text, "phone_e164": match.e164}
    actions.suggestion_set_contact(
        suggestion_id=suggestion_id, conversation_id=context.id, contact=fields
    )


def _confirm(
    *, context: ConversationContext, suggestion_id: str, phone: str = "", contact: str = ""
) -> dict:
    """Run the suggestion (a callback or SMS only with a valid number, a ticket only with a
    way to reach the customer); result and card."""
    _give_phone(context=context, suggestion_id=suggestion_id, phone=phone)
    _give_contact(context=context, suggestion_id=suggestion_id, contact=contact)
    result = actions.suggestion_confirm(
        suggestion_id=suggestion_id,
        conversation_id=context.id,
        client_address=context.client_address,
        source_text=lambda message_id: user_message_text(
            conversation_id=context.id, message_id=message_id
        ),
    )
    return {
        "result": result.as_dict(),
        "card": _card(context=context, suggestion_id=suggestion_id),
    }


def _reject(*, context: ConversationContext, suggestion_id: str) -> dict:
    result = actions.suggestion_reject(suggestion_id=suggestion_id, conversation_id=context.id)
    return {
        "result": result.as_dict(),
        "card": _card(context=context, suggestion_id=suggestion_id),
    }


suggestion_create = off_loop(_create)
suggestion_confirm = off_loop(_confirm)
suggestion_reject = off_loop(_reject)
