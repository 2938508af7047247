"""Writes of the chat audit trail."""

import datetime as dt
import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from chat.models import AnswerReview, Conversation, Feedback, Message, session_hash
from chat.protocol import made_storable

# The answers staff review: withheld by the guard, or no support in the KB.
REVIEWABLE_STATUSES = (Message.Status.WITHHELD, Message.Status.NO_SUPPORT)


class MessageNotFound(Exception):
    """No assistant message with that id in this conversation."""


class NotReviewable(Exception):
    """Only withheld and no-support assistant answers are reviewed."""


def conversation_touch(
    *, conversation_id: uuid.UUID, session_key: str = "", language: str = "sv"
) -> Conversation:
    """Create the conversation on first use, else mark it active now.

    ``session_key`` is the browser's; only its keyed hash is stored.
    """
    conversation, created = Conversation.objects.get_or_create(
        pk=conversation_id,
        defaults={"session_hash": session_hash(session_key), "language": language},
    )
    if not created:
        Conversation.objects.filter(pk=conversation_id).update(
            last_active_at=timezone.now(), language=language
        )
    return conversation


@transaction.atomic
def turn_begin(*, record) -> int:
    """Commit the question and its answer's row, in progress, before generation starts.

    ``record`` is a ``chat.pipeline.TurnRecord``. Returns the answer row's
    pk, which ``turn_complete`` fills in. A crash from here on leaves the row
    in progress; ``turns_mark_interrupted`` (at start-up) marks it.
    """
    conversation_touch(
        conversation_id=record.conversation_id,
        session_key=record.session_key,
        language=record.language,
    )
    question = Message.objects.create(
        conversation_id=record.conversation_id,
        role=Message.Role.USER,
        message_id=record.message_id,
        text=made_storable(record.question),
        language=record.language,
    )
    answer = Message.objects.create(
        conversation_id=record.conversation_id,
        role=Message.Role.ASSISTANT,
        message_id=record.message_id,
        reply_to=question,
        text="",
        status=Message.Status.IN_PROGRESS,
        language=record.language,
    )
    return answer.pk


@transaction.atomic
def turn_complete(*, record, answer_pk: int | None) -> int:
    """Complete a turn's answer row with what it showed, its verdict, citations and timings.

    Without ``answer_pk`` (the begin was never written) both rows are written
    now. Returns the answer's pk. One turn per transaction: a row that cannot
    be written never takes another turn's with it.
    """
    if answer_pk is None:
        answer_pk = turn_begin(record=record)
    else:
        Conversation.objects.filter(pk=record.conversation_id).update(
            last_active_at=timezone.now(), language=record.language
        )
    Message.objects.filter(pk=answer_pk).update(
        text=made_storable(record.text),
        status=record.status,
        draft=made_storable(record.draft),
        grounded=record.grounded,
        block_reason=made_storable(record.block_reason)[:200],
        unsupported=record.unsupported,
        citations=record.citations,
        retrieved=record.retrieved,
        error=made_storable(record.error),
        ttft_ms=record.ttft_ms,
        total_ms=record.total_ms,
        token_count=record.token_count,
        backend=record.backend,
        model=record.model,
    )
    return answer_pk


def turns_mark_interrupted(*, older_than_seconds: float, now=None) -> int:
    """Mark answers left in progress (their process died) as interrupted; returns how many.

    Only rows older than ``older_than_seconds``, so a process starting beside
    others never marks their live turns (no turn outlives ``LLM_TOTAL_TIMEOUT``).
    """
    now = now or timezone.now()
    return Message.objects.filter(
        status=Message.Status.IN_PROGRESS,
        created_at__lte=now - dt.timedelta(seconds=older_than_seconds),
    ).update(status=Message.Status.INTERRUPTED, error="Left in progress by a crash")


@transaction.atomic
def feedback_create(
    *, conversation_id: uuid.UUID, message_id: str, rating: str, comment: str = "", reason: str = ""
) -> Feedback:
    """Feedback on an assistant answer of this conversation."""
    message = (
        Message.objects.filter(
            conversation_id=conversation_id, role=Message.Role.ASSISTANT, message_id=message_id
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if message is None:
        raise MessageNotFound(message_id)
    feedback = Feedback(message=message, rating=rating, comment=comment, reason=reason)
    feedback.full_clean()
    feedback.save()
    return feedback


def _reviews_for(message_pks: list[int]) -> list[AnswerReview]:
    """The reviews of these answers, created open where missing, locked for this transaction."""
    messages = Message.objects.filter(pk__in=message_pks)
    reviewable = messages.filter(role=Message.Role.ASSISTANT, status__in=REVIEWABLE_STATUSES)
    if reviewable.count() != len(set(message_pks)):
        raise NotReviewable(sorted(set(message_pks) - set(reviewable.values_list("pk", flat=True))))
    AnswerReview.objects.bulk_create(
        [AnswerReview(message_id=pk) for pk in message_pks], ignore_conflicts=True
    )
    return list(AnswerReview.objects.select_for_update().filter(message_id__in=message_pks))


@transaction.atomic
def answers_mark_reviewed(
    *, message_pks: list[int], reviewer: AbstractBaseUser, note: str = ""
) -> int:
    """Mark rejected answers reviewed by ``reviewer`` now, with ``note``; returns how many changed.

    Idempotent: an answer already reviewed keeps its first reviewer, time and
    note (a repeated click does not rewrite who reviewed it). Locks the review
    rows, so two staff marking the same answer at once record one of them.
    """
    now = timezone.now()
    changed = 0
    for review in _reviews_for(message_pks):
        if review.status == AnswerReview.Status.REVIEWED:
            continue
        review.status = AnswerReview.Status.REVIEWED
        review.reviewed_by, review.reviewed_at, review.note = reviewer, now, note.strip()
        review.full_clean()
        review.save()
        changed += 1
    return changed


@transaction.atomic
def answers_assign(*, message_pks: list[int], assignee: AbstractBaseUser | None) -> int:
    """Assign rejected answers to a staff member (``None`` unassigns); returns how many."""
    reviews = _reviews_for(message_pks)
    for review in reviews:
        review.assignee = assignee
        review.full_clean()
        review.save(update_fields=["assignee", "updated_at"])
    return len(reviews)
