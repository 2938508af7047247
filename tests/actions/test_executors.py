import pytest

from actions import executors
from actions.executors import ActionFailed, create_ticket, schedule_callback, send_sms
from actions.models import ActionType, CallbackRequest, SmsMessage, SupportTicket
from actions.services import suggestion_create
from chat.models import Language
from tests.actions.conftest import T0

pytestmark = pytest.mark.django_db

PHONE = {"phone": "+46 70 123 45 67", "phone_e164": "+46701234567"}


def suggestion(conversation, action, payload=None, source_message_id=""):
    return suggestion_create(
        conversation_id=conversation.pk,
        action=action,
        payload=PHONE if payload is None else payload,
        source_message_id=source_message_id,
        now=T0,
    )


def test_registry_covers_every_action_type():
    """Every ActionType has exactly one executor."""
    assert set(executors.EXECUTORS) == set(ActionType.values)


def test_schedule_callback_with_number(conversation):
    """A callback row is created with both forms of the number; the message names it."""
    s = suggestion(conversation, "schedule_callback")
    outcome = schedule_callback(s, now=T0)
    callback = CallbackRequest.objects.get()
    assert outcome.message == "Callback scheduled to +46 70 123 45 67"
    assert outcome.result == {"callback_id": callback.pk}
    assert (callback.phone_e164, callback.conversation, callback.created_at) == (
        "+46701234567",
        conversation,
        T0,
    )


def test_schedule_callback_without_number(conversation):
    """Without a number the callback is still recorded and the message says so plainly."""
    s = suggestion(conversation, "schedule_callback", payload={})
    assert schedule_callback(s, now=T0).message == "Callback scheduled"
    assert CallbackRequest.objects.get().phone == ""


def test_send_sms_goes_through_configured_backend(conversation, sms_outbox, settings):
    """The SMS goes to the E.164 number through the backend named in settings, and is logged."""
    s = suggestion(conversation, "send_sms")
    outcome = send_sms(s, now=T0)
    assert outcome.message == "SMS sent to +46 70 123 45 67"
    assert [m.to for m in sms_outbox] == ["+46701234567"]
    logged = SmsMessage.objects.get()
    assert logged.body == sms_outbox[0].body
    assert logged.backend == settings.SMS_BACKEND == "actions.sms.LocmemBackend"
    assert outcome.result == {"sms_id": logged.pk}


def test_send_sms_body_follows_conversation_language(conversation, sms_outbox):
    """An English conversation gets the English text; a payload body overrides both."""
    conversation.language = Language.ENGLISH
    conversation.save()
    send_sms(suggestion(conversation, "send_sms"), now=T0)
    send_sms(suggestion(conversation, "send_sms", payload={**PHONE, "body": "Code 1234"}), now=T0)
    assert sms_outbox[0].body == executors.SMS_BODIES[Language.ENGLISH]
    assert sms_outbox[1].body == "Code 1234"


def test_send_sms_without_number_fails_clearly(conversation, sms_outbox):
    """No number means no SMS and an ActionFailed the user can read."""
    with pytest.raises(ActionFailed, match="No phone number"):
        send_sms(suggestion(conversation, "send_sms", payload={}), now=T0)
    assert sms_outbox == []


def test_create_ticket_holds_the_source_text_and_a_reference(conversation):
    """The ticket holds the customer's message and gets a T-000042 style reference."""
    s = suggestion(conversation, "create_ticket", source_message_id="m-7")
    outcome = create_ticket(
        s, now=T0, source_text="Skapa ärende: fakturan är fel, ring +46 70 123 45 67"
    )
    ticket = SupportTicket.objects.get()
    assert ticket.reference == f"T-{ticket.pk:06d}"
    assert outcome.message == f"Ticket {ticket.reference} created"
    assert outcome.result == {"ticket_id": ticket.pk, "reference": ticket.reference}
    assert ticket.description.startswith("Skapa ärende: fakturan är fel")
    assert ticket.subject == ticket.description
    assert ticket.phone_e164 == "+46701234567"


def test_create_ticket_without_source_message(conversation):
    """Without a source message the ticket gets a generic subject."""
    create_ticket(suggestion(conversation, "create_ticket", payload={}), now=T0)
    assert SupportTicket.objects.get().subject == "Support request from chat"


def test_ticket_reference_is_zero_padded():
    """References are T- plus the pk padded to six digits."""
    assert SupportTicket(pk=42).reference == "T-000042"
    assert SupportTicket(pk=1234567).reference == "T-1234567"
