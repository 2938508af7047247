"""Writes for suggested actions: create, confirm (exactly once), reject, expire.

The exactly-once rule (SPEC section 7) is kept by the database, so it holds for
double clicks, two tabs, several server processes and restarts alike:

1. The claim: one transaction locks the suggestion row (``SELECT ... FOR
   UPDATE`` on PostgreSQL; on SQLite ``transaction_mode="IMMEDIATE"`` makes the
   transaction hold the database write lock from its start) and inserts the
   suggestion's ``Execution``. The unique one-to-one column is the backstop: a
   second insert fails and is answered as a duplicate.
2. The effect: after the claim committed, the executor runs in a transaction
   of its own and stores its result on the execution. If it raises, the
   execution is recorded as failed and is never retried.

Every function takes ``now`` so tests control the clock; call them outside any
atomic block (the claim must commit before the executor runs).
"""

import datetime as dt
import logging
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from actions.executors import EXECUTORS, ActionFailed
from actions.models import Execution, Suggestion

logger = logging.getLogger(__name__)

MSG_ALREADY_EXECUTED = "Already executed"
MSG_ALREADY_REJECTED = "Already rejected"
MSG_EXPIRED = "Suggestion expired"
MSG_REJECTED = "Suggestion rejected"


class SuggestionNotFound(Exception):
    """No such suggestion in this conversation (another conversation's counts as none)."""


@dataclass(frozen=True, slots=True)
class ActionResult:
    success: bool
    ignored: bool
    message: str

    def as_dict(self) -> dict:
        return {"success": self.success, "ignored": self.ignored, "message": self.message}


def new_suggestion_id(*, now: dt.datetime) -> str:
    """``action_<ms>_<random>``; the random part makes ids unguessable."""
    return f"action_{int(now.timestamp() * 1000)}_{secrets.token_hex(6)}"


@transaction.atomic
def suggestion_create(
    *,
    conversation_id: uuid.UUID,
    action: str,
    payload: dict,
    source_message_id: str = "",
    now: dt.datetime | None = None,
) -> Suggestion:
    """Store a pending suggestion that may be confirmed for ``ACTION_WINDOW_SECONDS``."""
    now = now or timezone.now()
    suggestions_expire(now=now, conversation_id=conversation_id)
    suggestion = Suggestion(
        suggestion_id=new_suggestion_id(now=now),
        conversation_id=conversation_id,
        action=action,
        payload=payload,
        source_message_id=source_message_id,
        created_at=now,
        expires_at=now + dt.timedelta(seconds=settings.ACTION_WINDOW_SECONDS),
    )
    suggestion.full_clean()
    suggestion.save(force_insert=True)
    return suggestion


def suggestion_confirm(
    *,
    suggestion_id: str,
    conversation_id: uuid.UUID,
    now: dt.datetime | None = None,
    source_text: Callable[[str], str] | None = None,
) -> ActionResult:
    """Run the suggestion's action if this is its first confirm within the window.

    ``source_text`` gives the text of the conversation's message with a given
    id (the chat's); the executor gets the one that asked for the action.
    Raises ``SuggestionNotFound`` for an unknown id or another conversation's.
    """
    now = now or timezone.now()
    answer, execution = _claim(
        suggestion_id=suggestion_id, conversation_id=conversation_id, now=now
    )
    if execution is None:
        return answer
    return _execute(execution=execution, now=now, source_text=source_text)


def suggestion_reject(
    *, suggestion_id: str, conversation_id: uuid.UUID, now: dt.datetime | None = None
) -> ActionResult:
    """Decline a pending suggestion for good; it can never run afterwards.

    Raises ``SuggestionNotFound`` for an unknown id or another conversation's.
    """
    now = now or timezone.now()
    with transaction.atomic():
        suggestion = _locked(suggestion_id=suggestion_id, conversation_id=conversation_id)
        match suggestion.status:
            case Suggestion.Status.REJECTED:
                return ActionResult(success=True, ignored=True, message=MSG_ALREADY_REJECTED)
            case Suggestion.Status.EXECUTED:
                return ActionResult(success=False, ignored=False, message=MSG_ALREADY_EXECUTED)
            case Suggestion.Status.EXPIRED:
                return ActionResult(success=False, ignored=False, message=MSG_EXPIRED)
        if suggestion.is_stale(now):
            _close(suggestion, status=Suggestion.Status.EXPIRED, now=now)
            return ActionResult(success=False, ignored=False, message=MSG_EXPIRED)
        _close(suggestion, status=Suggestion.Status.REJECTED, now=now)
        return ActionResult(success=True, ignored=False, message=MSG_REJECTED)


def suggestions_expire(
    *, now: dt.datetime | None = None, conversation_id: uuid.UUID | None = None
) -> int:
    """Mark pending suggestions whose window has passed as expired; returns how many.

    Idempotent. The status filter in the UPDATE means a suggestion claimed by a
    concurrent confirm is never overwritten.
    """
    now = now or timezone.now()
    stale = Suggestion.objects.filter(status=Suggestion.Status.PENDING, expires_at__lt=now)
    if conversation_id is not None:
        stale = stale.filter(conversation_id=conversation_id)
    return stale.update(status=Suggestion.Status.EXPIRED, closed_at=now)


def _locked(*, suggestion_id: str, conversation_id: uuid.UUID) -> Suggestion:
    """The suggestion row, locked until the surrounding transaction ends."""
    try:
        return Suggestion.objects.select_for_update().get(
            suggestion_id=suggestion_id, conversation_id=conversation_id
        )
    except Suggestion.DoesNotExist:
        raise SuggestionNotFound(suggestion_id) from None


def _close(suggestion: Suggestion, *, status: str, now: dt.datetime) -> None:
    suggestion.status = status
    suggestion.closed_at = now
    suggestion.save(update_fields=["status", "closed_at"])


def _claim(
    *, suggestion_id: str, conversation_id: uuid.UUID, now: dt.datetime
) -> tuple[ActionResult | None, Execution | None]:
    """Decide a confirm under the row lock: an answer, or the execution this confirm won."""
    with transaction.atomic():
        suggestion = _locked(suggestion_id=suggestion_id, conversation_id=conversation_id)
        match suggestion.status:
            case Suggestion.Status.EXECUTED:
                return _duplicate(suggestion), None
            case Suggestion.Status.REJECTED:
                return ActionResult(success=False, ignored=False, message=MSG_REJECTED), None
            case Suggestion.Status.EXPIRED:
                return ActionResult(success=False, ignored=False, message=MSG_EXPIRED), None
        if suggestion.is_stale(now):
            _close(suggestion, status=Suggestion.Status.EXPIRED, now=now)
            return ActionResult(success=False, ignored=False, message=MSG_EXPIRED), None
        try:
            with transaction.atomic():
                execution = Execution.objects.create(suggestion=suggestion, claimed_at=now)
        except IntegrityError:
            # Only reachable if the row lock was bypassed; the unique column still holds.
            return _duplicate(suggestion), None
        _close(suggestion, status=Suggestion.Status.EXECUTED, now=now)
    return None, execution


def _duplicate(suggestion: Suggestion) -> ActionResult:
    """Count a confirm that arrived after the winning one and answer it as ignored."""
    Execution.objects.filter(suggestion=suggestion).update(
        duplicate_confirms=F("duplicate_confirms") + 1
    )
    execution = Execution.objects.get(suggestion=suggestion)
    # A claim whose executor is still running (or died mid-run) counts as accepted.
    success = execution.success or execution.status == Execution.Status.CLAIMED
    return ActionResult(success=success, ignored=True, message=MSG_ALREADY_EXECUTED)


def _execute(
    *, execution: Execution, now: dt.datetime, source_text: Callable[[str], str] | None
) -> ActionResult:
    """Run the executor for a committed claim and record what happened, once."""
    suggestion = execution.suggestion
    executor = EXECUTORS[suggestion.action]
    source_id = suggestion.source_message_id
    asked = source_text(source_id) if source_text is not None and source_id else ""
    try:
        with transaction.atomic():
            # Lock order: the suggestion row first, as every confirm does. PostgreSQL
            # checks the artifact's foreign key to the suggestion (deferred) at COMMIT;
            # without this lock a duplicate confirm holding the row and waiting for the
            # execution row would deadlock with us. Duplicates now wait for the result.
            Suggestion.objects.select_for_update().values_list("pk").get(pk=suggestion.pk)
            outcome = executor(suggestion, now=now, source_text=asked)
            Execution.objects.filter(pk=execution.pk).update(
                status=Execution.Status.SUCCEEDED,
                success=True,
                message=outcome.message,
                result=outcome.result,
                executed_at=now,
            )
    except Exception as exc:
        if isinstance(exc, ActionFailed):
            message = str(exc)
        else:
            logger.exception("Executor %s failed for %s", suggestion.action, suggestion)
            message = f"{suggestion.get_action_display()} failed"
        Execution.objects.filter(pk=execution.pk).update(
            status=Execution.Status.FAILED,
            success=False,
            message=message,
            error=f"{type(exc).__name__}: {exc}",
            executed_at=now,
        )
        return ActionResult(success=False, ignored=False, message=message)
    return ActionResult(success=True, ignored=False, message=outcome.message)


@transaction.atomic
def suggestion_set_phone(
    *, suggestion_id: str, conversation_id: uuid.UUID, phone: str, phone_e164: str
) -> Suggestion:
    """Give a pending suggestion the phone number the customer typed on its card.

    Only while it is pending: once confirmed, rejected or expired the payload
    is what was approved and stays as it is. Raises ``SuggestionNotFound``.
    """
    suggestion = _locked(suggestion_id=suggestion_id, conversation_id=conversation_id)
    if suggestion.status == Suggestion.Status.PENDING:
        suggestion.payload = {**suggestion.payload, "phone": phone, "phone_e164": phone_e164}
        suggestion.save(update_fields=["payload"])
    return suggestion
