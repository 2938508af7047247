"""Exactly once through crashes: executions pending, running, succeeded or failed, recovered."""

import datetime as dt

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from actions.models import CallbackRequest, Execution, SmsMessage, Suggestion
from actions.services import executions_recover, suggestion_confirm, suggestion_create
from tests.actions.conftest import T0

pytestmark = pytest.mark.django_db

MOBILE = {"phone": "070-123 45 67", "phone_e164": "+46701234567"}
LATER = T0 + dt.timedelta(seconds=40)  # past EXECUTION_RECOVERY_SECONDS (30)


@pytest.fixture(autouse=True)
def _settings(settings):
    settings.ACTION_WINDOW_SECONDS = 30
    settings.EXECUTION_RECOVERY_SECONDS = 30
    settings.EXECUTION_MAX_ATTEMPTS = 3
    settings.EXECUTION_WAIT_SECONDS = 0.05


def claimed_by_a_crash(conversation, *, action="send_sms", status="pending", attempts=0):
    """A suggestion whose confirm claimed it, then the process died (kill -9).

    The executor's rows rolled back with its transaction; the claim (and the
    running mark, if it got that far) had committed.
    """
    suggestion = suggestion_create(
        conversation_id=conversation.pk, action=action, payload=MOBILE, now=T0
    )
    Suggestion.objects.filter(pk=suggestion.pk).update(status=Suggestion.Status.EXECUTED)
    started = T0 if status == "running" else None
    return Execution.objects.create(
        suggestion=suggestion, claimed_at=T0, status=status, attempts=attempts, started_at=started
    )


def confirm(execution, *, now):
    suggestion = execution.suggestion
    return suggestion_confirm(
        suggestion_id=suggestion.suggestion_id,
        conversation_id=suggestion.conversation_id,
        now=now,
    ).as_dict()


@pytest.mark.parametrize(("status", "attempts"), [("pending", 0), ("running", 1)])
def test_an_abandoned_claim_is_run_again_on_the_next_confirm_with_the_same_key(
    conversation, sms_outbox, status, attempts
):
    """After the timeout the retry runs it: one SMS, with the execution's idempotency key."""
    execution = claimed_by_a_crash(conversation, status=status, attempts=attempts)
    result = confirm(execution, now=LATER)
    assert result == {"success": True, "ignored": False, "message": "SMS sent to 070-123 45 67"}
    execution.refresh_from_db()
    assert execution.status == Execution.Status.SUCCEEDED and execution.success
    assert execution.attempts == attempts + 1
    assert [m.idempotency_key for m in sms_outbox] == [f"execution-{execution.pk}"]
    assert SmsMessage.objects.count() == 1


def test_a_claim_still_running_is_never_reported_as_success(conversation, sms_outbox):
    """Before the timeout a retry is told it is in progress; nothing runs, nothing succeeds."""
    execution = claimed_by_a_crash(conversation, status="running", attempts=1)
    result = confirm(execution, now=T0 + dt.timedelta(seconds=5))
    assert result["success"] is False and result["ignored"] is True
    assert sms_outbox == []
    execution.refresh_from_db()
    assert execution.status == Execution.Status.RUNNING


def test_after_the_last_attempt_it_is_failed_and_the_customer_told(conversation, sms_outbox):
    """An execution that crashed EXECUTION_MAX_ATTEMPTS times is failed, not run a 4th time."""
    execution = claimed_by_a_crash(conversation, status="running", attempts=3)
    result = confirm(execution, now=LATER)
    assert result["success"] is False and result["ignored"] is False
    assert "could not be completed after 3 attempts" in result["message"]
    assert sms_outbox == []
    execution.refresh_from_db()
    assert execution.status == Execution.Status.FAILED and execution.executed_at == LATER
    # A later confirm repeats the verdict, and still runs nothing.
    again = confirm(execution, now=LATER + dt.timedelta(seconds=1))
    assert again == {**result, "ignored": True}


def test_recover_command_runs_abandoned_claims_and_leaves_fresh_ones(conversation, sms_outbox):
    """At start-up every claim older than the timeout is resolved; a live one is left alone."""
    old = claimed_by_a_crash(conversation, action="schedule_callback")
    fresh_suggestion = suggestion_create(
        conversation_id=conversation.pk, action="schedule_callback", payload=MOBILE, now=LATER
    )
    fresh = Execution.objects.create(suggestion=fresh_suggestion, claimed_at=LATER)
    counts = executions_recover(now=LATER + dt.timedelta(seconds=1))
    assert counts == {"succeeded": 1, "failed": 0, "skipped": 0}
    old.refresh_from_db()
    fresh.refresh_from_db()
    assert old.status == Execution.Status.SUCCEEDED
    assert fresh.status == Execution.Status.PENDING
    assert CallbackRequest.objects.filter(suggestion=old.suggestion).count() == 1
    call_command("recover_executions", "--older-than", "0")
    fresh.refresh_from_db()
    assert fresh.status == Execution.Status.SUCCEEDED
    assert not Execution.objects.filter(status__in=["pending", "running"]).exists()


def test_two_recoveries_of_one_execution_run_it_once(conversation, sms_outbox):
    """Both saw the same attempt count; the second finds it moved on and runs nothing."""
    from actions.services import _attempt

    execution = claimed_by_a_crash(conversation, status="running", attempts=1)
    first = _attempt(execution=execution, seen_attempts=1, now=LATER)
    second = _attempt(execution=execution, seen_attempts=1, now=LATER)
    assert first.success and not first.ignored
    assert second.as_dict() == {"success": True, "ignored": True, "message": "Already executed"}
    assert len(sms_outbox) == 1


def test_success_without_a_succeeded_state_is_refused_by_the_database(conversation):
    """The constraints tie success to succeeded and a finished state to its time."""
    execution = claimed_by_a_crash(conversation)
    with pytest.raises(IntegrityError), transaction.atomic():
        Execution.objects.filter(pk=execution.pk).update(success=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        Execution.objects.filter(pk=execution.pk).update(status="failed")
    with pytest.raises(IntegrityError), transaction.atomic():
        Execution.objects.filter(pk=execution.pk).update(status="running")
