"""Writes for suggested actions: create, confirm (exactly once), reject, expire, recover.

The exactly-once rule (SPEC section 7) is kept by the database, so it holds for
double clicks, two tabs, several server processes, restarts and crashes alike:

1. The claim: one transaction locks the suggestion row (``SELECT ... FOR
   UPDATE`` on PostgreSQL; on SQLite ``transaction_mode="IMMEDIATE"`` makes the
   transaction hold the database write lock from its start), checks the
   quotas (``actions.quotas``) and inserts the suggestion's ``Execution``,
   pending. The unique one-to-one column is the backstop: a second insert
   fails and is answered as a duplicate.
2. The attempt: a transaction marks the execution running (``attempts`` + 1).
3. The effect: the executor runs in a transaction of its own, under the
   suggestion's row lock, and its rows commit together with ``succeeded``
   or not at all. If it raises, the execution is failed and never retried.

A crash (``kill -9``) between the claim and the effect's commit leaves the
execution pending or running and rolls the executor's rows back. Once it has
been so for ``EXECUTION_RECOVERY_SECONDS``, the next confirm of the suggestion,
or ``manage.py recover_executions`` (run at start-up), runs it again with the
same idempotency key (``Execution.idempotency_key``, handed to the executor);
after ``EXECUTION_MAX_ATTEMPTS`` attempts it is marked failed and the next
confirm tells the customer. A confirm answers success only for a succeeded
execution; one that is still running is answered "in progress", not success.

Every function takes ``now`` so tests control the clock; call them outside any
atomic block (the claim must commit before the executor runs).
"""

import datetime as dt
import logging
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import F
from django.utils import timezone

from actions.executors import EXECUTORS, ActionFailed
from actions.models import UNFINISHED_EXECUTION, Execution, Suggestion
from actions.quotas import quota_reached

logger = logging.getLogger(__name__)

MSG_ALREADY_EXECUTED = "Already executed"
MSG_ALREADY_REJECTED = "Already rejected"
MSG_EXPIRED = "Suggestion expired"
MSG_REJECTED = "Suggestion rejected"
MSG_IN_PROGRESS = "Being carried out; confirm again in a moment to see the result"
MSG_GAVE_UP = "{action} could not be completed after {attempts} attempts; please ask again"


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
    client_address: str = "",
    now: dt.datetime | None = None,
    source_text: Callable[[str], str] | None = None,
) -> ActionResult:
    """Run the suggestion's action if this is its first confirm within the window.

    Also runs an execution abandoned by a crash again (see the module
    docstring). ``source_text`` gives the text of the conversation's message
    with a given id (the chat's); the executor gets the one that asked for the
    action. Raises ``SuggestionNotFound`` for an unknown id or another
    conversation's.
    """
    now = now or timezone.now()
    decision = _claim(
        suggestion_id=suggestion_id,
        conversation_id=conversation_id,
        client_address=client_address,
        now=now,
    )
    if isinstance(decision, ActionResult):
        if decision.message == MSG_IN_PROGRESS:
            return _result_when_finished(suggestion_id=suggestion_id) or decision
        return decision
    execution, attempts = decision
    return _attempt(execution=execution, seen_attempts=attempts, now=now, source_text=source_text)


def executions_recover(
    *,
    older_than: float | None = None,
    now: dt.datetime | None = None,
    source_text: Callable[[str, str], str] | None = None,
) -> dict:
    """Run every execution abandoned by a crash again, or fail it; returns counts by outcome.

    Abandoned: pending or running for ``older_than`` seconds (default
    ``EXECUTION_RECOVERY_SECONDS``). Safe beside running processes: a live
    attempt is younger than that, and each recovery takes the same locks as a
    confirm, so two recoveries of one execution run it at most once.
    ``source_text(conversation_id, message_id)``: the asking message's text.
    """
    now = now or timezone.now()
    seconds = settings.EXECUTION_RECOVERY_SECONDS if older_than is None else older_than
    counts = {"succeeded": 0, "failed": 0, "skipped": 0}
    for pk in _abandoned(now=now, seconds=seconds).values_list("pk", flat=True):
        execution = Execution.objects.select_related("suggestion").get(pk=pk)
        conversation_id = execution.suggestion.conversation_id
        result = _attempt(
            execution=execution,
            seen_attempts=execution.attempts,
            now=now,
            older_than=seconds,
            source_text=(
                (lambda message_id, c=conversation_id: source_text(c, message_id))
                if source_text is not None
                else None
            ),
        )
        if result.ignored:
            counts["skipped"] += 1
        else:
            counts["succeeded" if result.success else "failed"] += 1
    return counts


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


def _abandoned(*, now: dt.datetime, seconds: float):
    """Executions pending or running for ``seconds``: their process died (or is stuck)."""
    before = now - dt.timedelta(seconds=seconds)
    return Execution.objects.filter(
        models.Q(status=Execution.Status.PENDING, claimed_at__lte=before)
        | models.Q(status=Execution.Status.RUNNING, started_at__lte=before)
    ).order_by("claimed_at", "pk")


def _is_abandoned(execution: Execution, *, now: dt.datetime, seconds: float) -> bool:
    since = execution.started_at if execution.status == Execution.Status.RUNNING else None
    since = since or execution.claimed_at
    return execution.status in UNFINISHED_EXECUTION and since <= now - dt.timedelta(seconds=seconds)


def _claim(
    *, suggestion_id: str, conversation_id: uuid.UUID, client_address: str, now: dt.datetime
) -> ActionResult | tuple[Execution, int]:
    """Decide a confirm under the row lock: an answer, or the execution this confirm runs.

    With the execution comes the attempt count this confirm saw, so that of
    two confirms recovering the same execution only one runs it.
    """
    with transaction.atomic():
        suggestion = _locked(suggestion_id=suggestion_id, conversation_id=conversation_id)
        match suggestion.status:
            case Suggestion.Status.EXECUTED:
                return _claimed_before(suggestion, now=now)
            case Suggestion.Status.REJECTED:
                return ActionResult(success=False, ignored=False, message=MSG_REJECTED)
            case Suggestion.Status.EXPIRED:
                return ActionResult(success=False, ignored=False, message=MSG_EXPIRED)
        if suggestion.is_stale(now):
            _close(suggestion, status=Suggestion.Status.EXPIRED, now=now)
            return ActionResult(success=False, ignored=False, message=MSG_EXPIRED)
        reached = quota_reached(suggestion=suggestion, client_address=client_address, now=now)
        if reached is not None:
            label = suggestion.get_action_display().lower().replace("send ", "")
            return ActionResult(success=False, ignored=False, message=reached.message(label))
        try:
            with transaction.atomic():
                execution = Execution.objects.create(
                    suggestion=suggestion, claimed_at=now, client_address=client_address
                )
        except IntegrityError:
            # Only reachable if the row lock was bypassed; the unique column still holds.
            return _claimed_before(suggestion, now=now)
        _close(suggestion, status=Suggestion.Status.EXECUTED, now=now)
    return execution, 0


def _claimed_before(suggestion: Suggestion, *, now: dt.datetime) -> ActionResult | tuple:
    """A confirm of a suggestion already claimed: its result, or a recovery to run."""
    Execution.objects.filter(suggestion=suggestion).update(
        duplicate_confirms=F("duplicate_confirms") + 1
    )
    execution = Execution.objects.select_related("suggestion").get(suggestion=suggestion)
    if execution.status == Execution.Status.SUCCEEDED:
        return ActionResult(success=True, ignored=True, message=MSG_ALREADY_EXECUTED)
    if execution.status == Execution.Status.FAILED:
        return ActionResult(success=False, ignored=True, message=execution.message)
    if _is_abandoned(execution, now=now, seconds=settings.EXECUTION_RECOVERY_SECONDS):
        return execution, execution.attempts
    return ActionResult(success=False, ignored=True, message=MSG_IN_PROGRESS)


def _attempt(
    *,
    execution: Execution,
    seen_attempts: int,
    now: dt.datetime,
    older_than: float | None = None,
    source_text: Callable[[str], str] | None = None,
) -> ActionResult:
    """Start an attempt of ``execution`` unless another one did since; then run it."""
    suggestion = execution.suggestion
    with transaction.atomic():
        Suggestion.objects.select_for_update().values_list("pk").get(pk=suggestion.pk)
        execution = Execution.objects.select_for_update().get(pk=execution.pk)
        if execution.status not in UNFINISHED_EXECUTION or execution.attempts != seen_attempts:
            return _answer(execution)
        if older_than is not None and not _is_abandoned(execution, now=now, seconds=older_than):
            return _answer(execution)
        if execution.attempts >= settings.EXECUTION_MAX_ATTEMPTS:
            message = MSG_GAVE_UP.format(
                action=suggestion.get_action_display(), attempts=execution.attempts
            )
            _finish(
                execution,
                status=Execution.Status.FAILED,
                message=message,
                now=now,
                error="Abandoned by crashes; not run again",
            )
            logger.error("Gave up on %s after %d attempts", execution, execution.attempts)
            return ActionResult(success=False, ignored=False, message=message)
        if execution.attempts:
            logger.warning("Recovering %s (attempt %d)", execution, execution.attempts + 1)
        execution.status = Execution.Status.RUNNING
        execution.attempts += 1
        execution.started_at = now
        execution.save(update_fields=["status", "attempts", "started_at"])
    return _execute(execution=execution, now=now, source_text=source_text)


def _result_when_finished(*, suggestion_id: str) -> ActionResult | None:
    """The answer once the running attempt finishes (a double click waits for the result).

    None if it has not finished within ``EXECUTION_WAIT_SECONDS``.
    """
    deadline = time.monotonic() + settings.EXECUTION_WAIT_SECONDS
    while time.monotonic() < deadline:
        execution = Execution.objects.get(suggestion__suggestion_id=suggestion_id)
        if execution.status not in UNFINISHED_EXECUTION:
            return _answer(execution)
        time.sleep(0.02)
    return None


def _answer(execution: Execution) -> ActionResult:
    """What a confirm that did not run ``execution`` itself answers about it."""
    if execution.status == Execution.Status.SUCCEEDED:
        return ActionResult(success=True, ignored=True, message=MSG_ALREADY_EXECUTED)
    if execution.status == Execution.Status.FAILED:
        return ActionResult(success=False, ignored=True, message=execution.message)
    return ActionResult(success=False, ignored=True, message=MSG_IN_PROGRESS)


def _finish(execution: Execution, *, status: str, message: str, now: dt.datetime, **fields):
    Execution.objects.filter(pk=execution.pk).update(
        status=status,
        success=status == Execution.Status.SUCCEEDED,
        message=message[:300],
        executed_at=now,
        **fields,
    )


def _execute(
    *, execution: Execution, now: dt.datetime, source_text: Callable[[str], str] | None
) -> ActionResult:
    """Run the executor for a started attempt and record what happened, once."""
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
            outcome = executor(
                suggestion,
                now=now,
                source_text=asked,
                idempotency_key=execution.idempotency_key,
            )
            _finish(
                execution,
                status=Execution.Status.SUCCEEDED,
                message=outcome.message,
                now=now,
                result=outcome.result,
            )
    except Exception as exc:
        if isinstance(exc, ActionFailed):
            message = str(exc)
        else:
            logger.exception("Executor %s failed for %s", suggestion.action, suggestion)
            message = f"{suggestion.get_action_display()} failed"
        _finish(
            execution,
            status=Execution.Status.FAILED,
            message=message,
            now=now,
            error=f"{type(exc).__name__}: {exc}",
        )
        return ActionResult(success=False, ignored=False, message=message)
    return ActionResult(success=True, ignored=False, message=outcome.message)


@transaction.atomic
def suggestion_set_contact(
    *, suggestion_id: str, conversation_id: uuid.UUID, contact: dict[str, str]
) -> Suggestion:
    """Give a pending suggestion the contact the customer typed on its card (``email``, or
    ``phone`` and ``phone_e164``); only while it is pending, as ``suggestion_set_phone``."""
    allowed = {key: contact[key] for key in ("email", "phone", "phone_e164") if key in contact}
    suggestion = _locked(suggestion_id=suggestion_id, conversation_id=conversation_id)
    if suggestion.status == Suggestion.Status.PENDING:
        suggestion.payload = {**suggestion.payload, **allowed}
        suggestion.save(update_fields=["payload"])
    return suggestion


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
