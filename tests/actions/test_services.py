import datetime as dt
import re
import uuid

import pytest
from django.core.exceptions import ValidationError

from actions import executors
from actions.models import CallbackRequest, Execution, Suggestion, SupportTicket
from actions.selectors import (
    suggestion_get_for_conversation,
    suggestions_pending_for_conversation,
)
from actions.services import (
    ActionResult,
    SuggestionNotFound,
    suggestion_confirm,
    suggestion_create,
    suggestion_reject,
    suggestions_expire,
)
from actions.triggers import detect_action
from tests.actions.conftest import T0

pytestmark = pytest.mark.django_db

PHONE = {"phone": "+46 70 123 45 67", "phone_e164": "+46701234567"}


def make(conversation, *, action="schedule_callback", payload=None, now=T0) -> Suggestion:
    return suggestion_create(
        conversation_id=conversation.pk,
        action=action,
        payload=PHONE if payload is None else payload,
        now=now,
    )


def confirm(suggestion, *, conversation=None, now=T0) -> ActionResult:
    return suggestion_confirm(
        suggestion_id=suggestion.suggestion_id,
        conversation_id=(conversation or suggestion.conversation).pk,
        now=now,
    )


def reject(suggestion, *, conversation=None, now=T0) -> ActionResult:
    return suggestion_reject(
        suggestion_id=suggestion.suggestion_id,
        conversation_id=(conversation or suggestion.conversation).pk,
        now=now,
    )


def test_acceptance_trigger_confirm_twice_gives_one_callback(conversation):
    """The acceptance scenario: one callback row, ignored false then true."""
    trigger = detect_action("Ring mig imorgon på +46 70 123 45 67")
    suggestion = suggestion_create(
        conversation_id=conversation.pk, action=trigger.action, payload=trigger.payload, now=T0
    )
    assert suggestion.action == "schedule_callback"
    assert suggestion.payload["phone"] == "+46 70 123 45 67"

    first = confirm(suggestion, now=T0 + dt.timedelta(seconds=1))
    second = confirm(suggestion, now=T0 + dt.timedelta(seconds=1))

    assert first.as_dict() == {
        "success": True,
        "ignored": False,
        "message": "Callback scheduled to +46 70 123 45 67",
    }
    assert second.as_dict() == {"success": True, "ignored": True, "message": "Already executed"}
    callback = CallbackRequest.objects.get()
    assert (callback.phone, callback.phone_e164) == ("+46 70 123 45 67", "+46701234567")
    assert callback.suggestion == suggestion


def test_create_stores_pending_suggestion_with_window(conversation, settings):
    """A new suggestion is pending and expires ACTION_WINDOW_SECONDS after creation."""
    settings.ACTION_WINDOW_SECONDS = 45
    suggestion = make(conversation)
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.PENDING
    assert suggestion.created_at == T0
    assert suggestion.expires_at == T0 + dt.timedelta(seconds=45)
    assert suggestion.conversation == conversation


def test_suggestion_id_format_and_uniqueness(conversation):
    """Ids look like action_<ms>_<random>, and two made in the same millisecond differ."""
    first, second = make(conversation), make(conversation)
    ms = int(T0.timestamp() * 1000)
    assert re.fullmatch(rf"action_{ms}_[0-9a-f]{{12}}", first.suggestion_id)
    assert first.suggestion_id != second.suggestion_id


def test_create_rejects_unknown_action(conversation):
    """An action outside ActionType is refused before anything is stored."""
    with pytest.raises(ValidationError):
        make(conversation, action="format_disk")
    assert not Suggestion.objects.exists()


def test_create_rejects_unknown_conversation(db):
    """A suggestion must belong to an existing conversation."""
    with pytest.raises(ValidationError):
        suggestion_create(conversation_id=uuid.uuid4(), action="send_sms", payload={}, now=T0)


def test_as_frame_matches_protocol(conversation, window):
    """The frame has the protocol's field names and an ISO 8601 UTC expiry ending in Z."""
    suggestion = make(conversation)
    assert suggestion.as_frame() == {
        "type": "action_suggestion",
        "suggestionId": suggestion.suggestion_id,
        "action": "schedule_callback",
        "payload": PHONE,
        "expiresAt": "2025-06-02T10:00:02.000Z",
    }


def test_confirm_at_end_of_window_executes(conversation, window):
    """A confirm exactly at the window's end still counts as within it."""
    suggestion = make(conversation)
    assert confirm(suggestion, now=T0 + window).success is True
    assert CallbackRequest.objects.count() == 1


def test_confirm_after_window_marks_expired(conversation, window):
    """With a 2 s window, a confirm 3 s later answers expired and creates nothing."""
    suggestion = make(conversation)
    result = confirm(suggestion, now=T0 + dt.timedelta(seconds=3))
    assert result.as_dict() == {"success": False, "ignored": False, "message": "Suggestion expired"}
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.EXPIRED
    assert not Execution.objects.exists()
    assert not CallbackRequest.objects.exists()


def test_expired_stays_expired_even_with_an_earlier_clock(conversation, window):
    """Once expired, a later confirm (whatever its clock says) still answers expired."""
    suggestion = make(conversation)
    confirm(suggestion, now=T0 + dt.timedelta(seconds=3))
    again = confirm(suggestion, now=T0 + dt.timedelta(seconds=1))
    assert again.message == "Suggestion expired"
    assert not Execution.objects.exists()


def test_duplicate_confirms_are_counted(conversation):
    """Every ignored confirm increments the execution's duplicate counter."""
    suggestion = make(conversation)
    confirm(suggestion)
    for _ in range(3):
        assert confirm(suggestion).ignored is True
    execution = Execution.objects.get()
    assert execution.duplicate_confirms == 3
    assert execution.status == Execution.Status.SUCCEEDED
    assert execution.success is True
    assert execution.result == {"callback_id": CallbackRequest.objects.get().pk}


def test_confirm_after_window_of_executed_is_still_ignored(conversation, window):
    """An executed suggestion answers "Already executed" even after its window."""
    suggestion = make(conversation)
    confirm(suggestion)
    late = confirm(suggestion, now=T0 + dt.timedelta(hours=1))
    assert late.as_dict() == {"success": True, "ignored": True, "message": "Already executed"}


def test_other_conversation_cannot_confirm(conversation, other_conversation):
    """Confirming another conversation's suggestion is "not found" and changes nothing."""
    suggestion = make(conversation)
    with pytest.raises(SuggestionNotFound):
        confirm(suggestion, conversation=other_conversation)
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.PENDING
    assert not Execution.objects.exists()


def test_other_conversation_cannot_reject(conversation, other_conversation):
    """Rejecting another conversation's suggestion is "not found" and changes nothing."""
    suggestion = make(conversation)
    with pytest.raises(SuggestionNotFound):
        reject(suggestion, conversation=other_conversation)
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.PENDING
    assert confirm(suggestion).success is True


def test_unknown_id_is_not_found(conversation):
    """An id nobody issued raises the same error as a foreign one."""
    with pytest.raises(SuggestionNotFound):
        suggestion_confirm(suggestion_id="action_1_deadbeef", conversation_id=conversation.pk)
    with pytest.raises(SuggestionNotFound):
        suggestion_reject(suggestion_id="action_1_deadbeef", conversation_id=conversation.pk)


def test_reject_pending_then_confirm_never_runs(conversation):
    """A rejected suggestion answers "Suggestion rejected" to a confirm and nothing runs."""
    suggestion = make(conversation)
    assert reject(suggestion).as_dict() == {
        "success": True,
        "ignored": False,
        "message": "Suggestion rejected",
    }
    result = confirm(suggestion)
    assert result.as_dict() == {
        "success": False,
        "ignored": False,
        "message": "Suggestion rejected",
    }
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.REJECTED
    assert suggestion.closed_at == T0
    assert not Execution.objects.exists()
    assert not CallbackRequest.objects.exists()


def test_reject_twice_is_ignored(conversation):
    """A second reject is answered as ignored."""
    suggestion = make(conversation)
    reject(suggestion)
    again = reject(suggestion)
    assert (again.success, again.ignored) == (True, True)


def test_reject_executed_is_refused(conversation):
    """An executed suggestion cannot be rejected afterwards."""
    suggestion = make(conversation)
    confirm(suggestion)
    result = reject(suggestion)
    assert result.as_dict() == {"success": False, "ignored": False, "message": "Already executed"}
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.EXECUTED


def test_reject_after_window_answers_expired(conversation, window):
    """Rejecting a stale suggestion answers expired and marks it so."""
    suggestion = make(conversation)
    result = reject(suggestion, now=T0 + dt.timedelta(seconds=3))
    assert result.as_dict() == {"success": False, "ignored": False, "message": "Suggestion expired"}
    suggestion.refresh_from_db()
    assert suggestion.status == Suggestion.Status.EXPIRED


def test_failing_executor_is_recorded_and_never_retried(conversation, monkeypatch):
    """An executor that raises gives a failed execution; later confirms do not run it again."""
    calls = []

    def explode(suggestion, *, now, source_text="", idempotency_key=""):
        calls.append(suggestion)
        CallbackRequest.objects.create(
            suggestion=suggestion, conversation=suggestion.conversation, created_at=now
        )
        raise RuntimeError("switchboard down")

    monkeypatch.setitem(executors.EXECUTORS, "schedule_callback", explode)
    suggestion = make(conversation)
    first = confirm(suggestion)
    second = confirm(suggestion)

    assert first.as_dict() == {
        "success": False,
        "ignored": False,
        "message": "Schedule callback failed",
    }
    # A repeat is not run again and says what became of the first.
    assert second.as_dict() == {
        "success": False,
        "ignored": True,
        "message": "Schedule callback failed",
    }
    assert len(calls) == 1
    execution = Execution.objects.get()
    assert execution.status == Execution.Status.FAILED
    assert execution.error == "RuntimeError: switchboard down"
    # The executor's own writes rolled back with it.
    assert not CallbackRequest.objects.exists()


def test_action_failed_message_reaches_the_user(conversation):
    """An SMS suggestion without a number fails with a message saying why."""
    suggestion = make(conversation, action="send_sms", payload={})
    result = confirm(suggestion)
    assert result.as_dict() == {
        "success": False,
        "ignored": False,
        "message": "No phone number to send the SMS to",
    }
    assert Execution.objects.get().message == "No phone number to send the SMS to"


def test_claim_in_progress_answers_ignored_and_not_success(conversation, settings):
    """A confirm arriving while the winning claim runs (past the wait) is ignored, not run
    again, and never reported as a success: nothing has succeeded yet."""
    settings.EXECUTION_WAIT_SECONDS = 0.05
    suggestion = make(conversation)
    Execution.objects.create(suggestion=suggestion, claimed_at=T0)
    Suggestion.objects.filter(pk=suggestion.pk).update(status=Suggestion.Status.EXECUTED)
    result = confirm(suggestion)
    assert result.as_dict() == {
        "success": False,
        "ignored": True,
        "message": "Being carried out; confirm again in a moment to see the result",
    }
    assert not CallbackRequest.objects.exists()


def test_unique_execution_is_the_backstop(conversation, monkeypatch):
    """If the status check were bypassed, the unique execution still stops a second run."""
    suggestion = make(conversation)
    confirm(suggestion)
    # Simulate a lost status update: the row says pending though an execution exists.
    Suggestion.objects.filter(pk=suggestion.pk).update(status=Suggestion.Status.PENDING)
    result = confirm(suggestion)
    assert result.as_dict() == {"success": True, "ignored": True, "message": "Already executed"}
    assert CallbackRequest.objects.count() == 1
    assert Execution.objects.get().duplicate_confirms == 1


def test_create_ticket_flow_returns_reference(conversation):
    """Confirming a ticket suggestion answers with the new ticket's reference."""
    suggestion = make(conversation, action="create_ticket", payload={})
    result = confirm(suggestion)
    ticket = SupportTicket.objects.get()
    assert result.message == f"Ticket T-{ticket.pk:06d} created"


def test_suggestions_expire_marks_only_stale_pending(conversation, other_conversation, window):
    """The sweep expires stale pending suggestions only, and a second sweep finds none."""
    stale = make(conversation)
    fresh = make(other_conversation, now=T0 + dt.timedelta(seconds=10))
    done = make(conversation)
    confirm(done)
    now = T0 + dt.timedelta(seconds=11)
    assert suggestions_expire(now=now) == 1
    assert suggestions_expire(now=now) == 0
    statuses = {s.pk: s.status for s in Suggestion.objects.all()}
    assert statuses == {stale.pk: "expired", fresh.pk: "pending", done.pk: "executed"}


def test_create_expires_stale_suggestions_of_its_conversation(
    conversation, other_conversation, window
):
    """Creating a suggestion lazily expires the stale ones of the same conversation only."""
    mine = make(conversation)
    theirs = make(other_conversation)
    make(conversation, now=T0 + dt.timedelta(seconds=5))
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.status == Suggestion.Status.EXPIRED
    assert theirs.status == Suggestion.Status.PENDING


def test_pending_selector_hides_stale_and_foreign(conversation, other_conversation, window):
    """Resuming a conversation offers its own pending suggestions still inside their window."""
    stale = make(conversation)
    live = make(conversation, now=T0 + dt.timedelta(seconds=2))
    make(other_conversation, now=T0 + dt.timedelta(seconds=2))
    rejected = make(conversation, now=T0 + dt.timedelta(seconds=2))
    reject(rejected, now=T0 + dt.timedelta(seconds=2))
    pending = suggestions_pending_for_conversation(
        conversation_id=conversation.pk, now=T0 + dt.timedelta(seconds=3)
    )
    assert pending == [live]
    stale.refresh_from_db()
    assert stale.status == Suggestion.Status.PENDING  # reading changes nothing


def test_get_for_conversation_is_scoped(conversation, other_conversation):
    """The selector finds a suggestion only through its own conversation."""
    suggestion = make(conversation)
    found = suggestion_get_for_conversation(
        suggestion_id=suggestion.suggestion_id, conversation_id=conversation.pk
    )
    assert found == suggestion
    assert (
        suggestion_get_for_conversation(
            suggestion_id=suggestion.suggestion_id, conversation_id=other_conversation.pk
        )
        is None
    )


def test_services_default_to_the_real_clock(conversation):
    """Without ``now`` a fresh suggestion is confirmable straight away."""
    suggestion = suggestion_create(
        conversation_id=conversation.pk, action="schedule_callback", payload={}
    )
    result = suggestion_confirm(
        suggestion_id=suggestion.suggestion_id, conversation_id=conversation.pk
    )
    assert result.as_dict() == {"success": True, "ignored": False, "message": "Callback scheduled"}


def test_action_result_is_frozen():
    """Results are values: they cannot be altered after the fact."""
    result = ActionResult(success=True, ignored=False, message="x")
    with pytest.raises(AttributeError):
        result.success = False  # type: ignore[misc]
