"""What each confirmed action does: one function per action type.

An executor is called only by ``services.suggestion_confirm``, after the claim
on the suggestion has committed, inside a transaction of its own: the rows it
writes commit together with the execution's result or not at all. It works only
from the suggestion (whose payload is exactly what the user approved) and the
text of the message that asked for it (``source_text``, passed in by the
caller: the actions app reads nothing of the chat's), and raises
``ActionFailed`` with a message fit for the user when it cannot act.

Each also receives ``idempotency_key`` (the execution's, ``Execution.idempotency_key``):
the same on every attempt of one execution, so a provider that deduplicates
by it turns a re-run after a crash into no second SMS or ticket.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

import phonenumbers

from actions import sms
from actions.models import ActionType, CallbackRequest, SmsMessage, Suggestion, SupportTicket


class ActionFailed(Exception):
    """The action could not be carried out; ``str(exc)`` is shown to the user."""


@dataclass(frozen=True, slots=True)
class ExecutorOutcome:
    message: str
    result: dict = field(default_factory=dict)


# By the conversation's language code (chat's Language choices).
SMS_BODIES = {
    "sv": (
        "Hej! Du bad kundtjänsten om ett sms. Svara på det här meddelandet "
        "så hjälper vi dig vidare."
    ),
    "en": (
        "Hello! You asked customer support for a text message. Reply to this "
        "message and we will help you further."
    ),
}
TICKET_SUBJECT_CHARS = 80


def schedule_callback(
    suggestion: Suggestion,
    *,
    now: dt.datetime,
    source_text: str = "",
    idempotency_key: str = "",
) -> ExecutorOutcome:
    """Record a callback request for staff; the number is optional (they can reply in chat)."""
    phone = suggestion.payload.get("phone", "")
    callback = CallbackRequest.objects.create(
        suggestion=suggestion,
        conversation_id=suggestion.conversation_id,
        phone=phone,
        phone_e164=suggestion.payload.get("phone_e164", ""),
        created_at=now,
    )
    message = f"Callback scheduled to {phone}" if phone else "Callback scheduled"
    return ExecutorOutcome(message=message, result={"callback_id": callback.pk})


def send_sms(
    suggestion: Suggestion,
    *,
    now: dt.datetime,
    source_text: str = "",
    idempotency_key: str = "",
) -> ExecutorOutcome:
    """Send an SMS to the (mobile) number in the payload through the configured backend."""
    to = suggestion.payload.get("phone_e164", "")
    if not to:
        raise ActionFailed("No phone number to send the SMS to")
    if not is_mobile(to):
        shown = suggestion.payload.get("phone") or to
        raise ActionFailed(f"Not sent: {shown} is not a mobile number")
    language = suggestion.conversation.language
    body = suggestion.payload.get("body") or SMS_BODIES.get(language, SMS_BODIES["sv"])
    # The log row first, the send last: if the provider refuses, the row rolls
    # back with the transaction and the execution is recorded as failed.
    logged = SmsMessage.objects.create(
        suggestion=suggestion,
        conversation_id=suggestion.conversation_id,
        to=to,
        body=body,
        backend=sms.backend_path(),
        sent_at=now,
    )
    sms.get_backend().send(to=to, body=body, idempotency_key=idempotency_key)
    shown = suggestion.payload.get("phone") or to
    return ExecutorOutcome(message=f"SMS sent to {shown}", result={"sms_id": logged.pk})


def create_ticket(
    suggestion: Suggestion,
    *,
    now: dt.datetime,
    source_text: str = "",
    idempotency_key: str = "",
) -> ExecutorOutcome:
    """Open a support ticket about what the customer asked (the payload's ``subject``: the
    question that went unanswered, else their words), holding their own words
    (``source_text``) and how to reach them (the card's e-mail address or phone number)."""
    payload = suggestion.payload
    description = source_text
    subject = " ".join((payload.get("subject") or description).split())[:TICKET_SUBJECT_CHARS]
    if payload.get("subject") and payload["subject"] != " ".join(description.split()):
        description = f"{payload['subject']}\n\n{description}".strip()
    ticket = SupportTicket.objects.create(
        suggestion=suggestion,
        conversation_id=suggestion.conversation_id,
        subject=subject or "Support request from chat",
        description=description,
        email=payload.get("email", ""),
        phone=payload.get("phone", ""),
        phone_e164=payload.get("phone_e164", ""),
        created_at=now,
    )
    return ExecutorOutcome(
        message=f"Ticket {ticket.reference} created",
        result={"ticket_id": ticket.pk, "reference": ticket.reference},
    )


def is_mobile(e164: str) -> bool:
    """True for a valid number that can receive an SMS (mobile, or either where unknown)."""
    try:
        number = phonenumbers.parse(e164, None)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(number) and phonenumbers.number_type(number) in (
        phonenumbers.PhoneNumberType.MOBILE,
        phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE,
    )


EXECUTORS: dict[str, Callable[..., ExecutorOutcome]] = {
    ActionType.SCHEDULE_CALLBACK: schedule_callback,
    ActionType.SEND_SMS: send_sms,
    ActionType.CREATE_TICKET: create_ticket,
}
