"""An action suggestion as the page's card (chat.action_cards, pure given the rows)."""

import datetime as dt
from types import SimpleNamespace

import pytest

from chat.action_cards import card, card_state

T0 = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)


def suggestion(status="pending", action="schedule_callback", payload=None, execution=None):
    return SimpleNamespace(
        status=status,
        action=action,
        payload=payload if payload is not None else {},
        execution=execution,
        expires_at=T0 + dt.timedelta(seconds=30),
        is_stale=lambda now: now > T0 + dt.timedelta(seconds=30),
    )


@pytest.mark.parametrize(
    ("status", "execution_status", "seconds", "expected"),
    [
        ("pending", None, 10, "pending"),
        ("pending", None, 31, "expired"),
        ("expired", None, 0, "expired"),
        ("rejected", None, 0, "rejected"),
        ("executed", "claimed", 0, "running"),
        ("executed", "succeeded", 0, "done"),
        ("executed", "failed", 0, "failed"),
    ],
)
def test_card_state_follows_the_table(status, execution_status, seconds, expected):
    execution = SimpleNamespace(status=execution_status, result={}) if execution_status else None
    row = suggestion(status=status, execution=execution)
    assert card_state(row, now=T0 + dt.timedelta(seconds=seconds)) == expected


def test_done_ticket_names_its_reference_in_the_conversations_language():
    execution = SimpleNamespace(status="succeeded", result={"reference": "T-000042"})
    row = suggestion(status="executed", action="create_ticket", execution=execution)
    assert card(row, language="sv", now=T0)["message"] == "Ärende T-000042 skapat."
    assert card(row, language="en", now=T0)["message"] == "Ticket T-000042 created."


def test_callback_without_a_number_needs_one_and_counts_down():
    fields = card(suggestion(), language="sv", now=T0 + dt.timedelta(seconds=12))
    assert fields["needsPhone"] is True and fields["secondsLeft"] == 18.0
    with_number = suggestion(payload={"phone": "070-123 45 67", "phone_e164": "+46701234567"})
    assert card(with_number, language="sv", now=T0)["needsPhone"] is False


def test_a_ticket_never_needs_a_number():
    assert card(suggestion(action="create_ticket"), language="sv", now=T0)["needsPhone"] is False
