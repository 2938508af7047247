"""Quotas on SMS and callbacks: past one, the action is not run and the result says why."""

import datetime as dt

import pytest

from actions.models import Execution
from actions.quotas import QUOTA_REFUSALS, parse_quota
from actions.services import suggestion_confirm, suggestion_create
from chat.models import Conversation
from tests.actions.conftest import T0

pytestmark = pytest.mark.django_db


def mobile(n: int) -> dict:
    return {"phone": f"070-123 45 {n:02d}", "phone_e164": f"+467012345{n:02d}"}


def confirm(conversation, *, payload, action="send_sms", address="203.0.113.9", now=T0) -> dict:
    suggestion = suggestion_create(
        conversation_id=conversation.pk, action=action, payload=payload, now=now
    )
    return suggestion_confirm(
        suggestion_id=suggestion.suggestion_id,
        conversation_id=conversation.pk,
        client_address=address,
        now=now,
    ).as_dict()


def refusals(action: str, quota: str) -> float:
    return QUOTA_REFUSALS.labels(action=action, quota=quota)._value.get()


@pytest.fixture(autouse=True)
def quotas(settings):
    settings.ACTION_QUOTA_PER_CONVERSATION = "3/86400"
    settings.ACTION_QUOTA_PER_NUMBER = "3/86400"
    settings.ACTION_QUOTA_PER_ADDRESS = "10/3600"
    settings.ACTION_QUOTA_PER_MINUTE = "30/60"


def test_the_fourth_sms_of_a_conversation_is_not_sent(sms_outbox):
    """Three SMS per conversation and day; the fourth says it was not run and why."""
    conversation = Conversation.objects.create()
    before = refusals("send_sms", "conversation")
    results = [confirm(conversation, payload=mobile(n)) for n in range(4)]
    assert [r["success"] for r in results] == [True, True, True, False]
    assert results[3]["message"] == (
        "Not run: the limit of 3 sms per day in this conversation is reached"
    )
    assert len(sms_outbox) == 3 and Execution.objects.count() == 3
    assert refusals("send_sms", "conversation") == before + 1


def test_one_number_gets_at_most_three_sms_whoever_asks(sms_outbox):
    """Different conversations cannot flood one destination number."""
    results = [confirm(Conversation.objects.create(), payload=mobile(7)) for _ in range(4)]
    assert [r["success"] for r in results] == [True, True, True, False]
    assert "to this number" in results[3]["message"]


def test_one_address_cannot_send_to_many_numbers(settings, sms_outbox):
    """The finding: 50 sockets from one address sent 969 SMS to random numbers."""
    settings.ACTION_QUOTA_PER_ADDRESS = "5/3600"
    results = [confirm(Conversation.objects.create(), payload=mobile(n)) for n in range(8)]
    assert sum(r["success"] for r in results) == 5
    assert all("from your address" in r["message"] for r in results[5:])
    other = confirm(Conversation.objects.create(), payload=mobile(50), address="198.51.100.1")
    assert other["success"] is True


def test_overall_per_minute_and_the_window_moves_on(settings, sms_outbox):
    """The overall quota counts everyone; a minute later it has room again."""
    settings.ACTION_QUOTA_PER_MINUTE = "2/60"
    results = [
        confirm(Conversation.objects.create(), payload=mobile(n), address=f"198.51.100.{n}")
        for n in range(3)
    ]
    assert [r["success"] for r in results] == [True, True, False]
    later = confirm(
        Conversation.objects.create(),
        payload=mobile(9),
        address="198.51.100.9",
        now=T0 + dt.timedelta(seconds=61),
    )
    assert later["success"] is True


def test_callbacks_have_quotas_too(settings):
    settings.ACTION_QUOTA_PER_CONVERSATION = "1/86400"
    conversation = Conversation.objects.create()
    first = confirm(conversation, payload=mobile(1), action="schedule_callback")
    second = confirm(conversation, payload=mobile(2), action="schedule_callback")
    assert first["success"] is True and second["success"] is False
    assert second["message"].startswith("Not run: the limit of 1 schedule callback")


def test_sms_only_to_a_mobile_number(sms_outbox):
    """A landline (Stockholm 08) gets no SMS; the customer is told why."""
    landline = {"phone": "08-123 456 78", "phone_e164": "+46812345678"}
    result = confirm(Conversation.objects.create(), payload=landline)
    assert result == {
        "success": False,
        "ignored": False,
        "message": "Not sent: 08-123 456 78 is not a mobile number",
    }
    assert sms_outbox == []


def test_zero_turns_a_quota_off(settings, sms_outbox):
    settings.ACTION_QUOTA_PER_CONVERSATION = "0"
    settings.ACTION_QUOTA_PER_NUMBER = "0"
    conversation = Conversation.objects.create()
    assert all(confirm(conversation, payload=mobile(n))["success"] for n in range(5))
    assert parse_quota("0") is None and parse_quota("3/60") == (3, 60.0)
