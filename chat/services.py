"""Writes of the chat audit trail."""

import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from chat.fast_insert import insert_rows
from chat.models import AnswerReview, Conversation, Feedback, Message, session_hash

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


# Every column of a Message row, in the order the rows below give them.
_MESSAGE_FIELDS = (
    "conversation",
    "role",
    "message_id",
    "reply_to",
    "text",
    "status",
    "language",
    "created_at",
    "draft",
    "grounded",
    "block_reason",
    "unsupported",
    "citations",
    "retrieved",
    "error",
    "ttft_ms",
    "total_ms",
    "token_count",
    "backend",
    "model",
)
_CONVERSATION_FIELDS = ("id", "session_hash", "language", "started_at", "last_active_at")
_USER, _ASSISTANT, _DONE = (
    Message.Role.USER.value,
    Message.Role.ASSISTANT.value,
    Message.Status.DONE.value,
)


def _question_row(record, now) -> tuple:
    """A user Message row in _MESSAGE_FIELDS order: the question, model defaults elsewhere."""
    return (
        record.conversation_id,
        _USER,
        record.message_id,
        None,  # reply_to
        record.question,
        _DONE,
        record.language,
        now,
        "",  # draft
        None,  # grounded
        "",  # block_reason
        [],  # unsupported
        [],  # citations
        [],  # retrieved
        "",  # error
        None,  # ttft_ms
        None,  # total_ms
        None,  # token_count
        "",  # backend
        "",  # model
    )


def _answer_row(record, question_id: int, now) -> tuple:
    """An assistant Message row in _MESSAGE_FIELDS order, replying to ``question_id``."""
    return (
        record.conversation_id,
        _ASSISTANT,
        record.message_id,
        question_id,
        record.text,
        record.status,
        record.language,
        now,
        record.draft,
        record.grounded,
        record.block_reason[:200],
        record.unsupported,
        record.citations,
        record.retrieved,
        record.error,
        record.ttft_ms,
        record.total_ms,
        record.token_count,
        record.backend,
        record.model,
    )


@transaction.atomic
def turns_record(*, records: list) -> int:
    """Persist turns (each the user's message and the assistant's answer) in one transaction.

    ``records`` are ``chat.pipeline.TurnRecord``s, oldest first; returns how
    many turns were written. A handful of queries whatever their number: the
    audit writer batches turns under load. The rows are plain tuples through
    ``chat.fast_insert`` rather than model instances through ``bulk_create``,
    whose per-row compilation held the GIL beside the streams. They store
    what ``Message.objects.create`` would (on SQLite, JSON in orjson's compact
    layout: the same values read back). All rows of a batch share one
    ``created_at``, so ids order them: the batch's questions, then its answers.
    """
    if not records:
        return 0
    now = timezone.now()
    latest = {record.conversation_id: record for record in records}
    insert_rows(
        Conversation,
        _CONVERSATION_FIELDS,
        [(cid, session_hash(r.session_key), r.language, now, now) for cid, r in latest.items()],
        ignore_conflicts=True,
    )
    # Two plain UPDATEs (one per language), not bulk_update: its CASE per row
    # is costly to build in Python, and this runs beside the streams.
    by_language: dict[str, list] = {}
    for cid, r in latest.items():
        by_language.setdefault(r.language, []).append(cid)
    for language, ids in by_language.items():
        Conversation.objects.filter(pk__in=ids).update(language=language, last_active_at=now)
    question_ids = insert_rows(
        Message, _MESSAGE_FIELDS, [_question_row(r, now) for r in records], returning_pk=True
    )
    insert_rows(
        Message,
        _MESSAGE_FIELDS,
        [
            _answer_row(r, question_id, now)
            for r, question_id in zip(records, question_ids, strict=True)
        ],
    )
    return len(records)


@transaction.atomic
def feedback_create(
    *, conversation_id: uuid.UUID, message_id: str, rating: str, comment: str = ""
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
    feedback = Feedback(message=message, rating=rating, comment=comment)
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
