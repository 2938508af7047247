"""Writes of the chat audit trail."""

import datetime as dt
import uuid

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from chat.models import AnswerReview, Conversation, Feedback, Message, session_hash
from chat.protocol import made_storable
from chat.statements import conversations_active, messages_insert

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
    return turns_begin(records=[record])[0]


@transaction.atomic(savepoint=False)  # inside a caller's transaction, part of it
def turns_begin(*, records: list) -> list[int]:
    """``turn_begin`` for many turns in a few statements (the audit trail's group commit).

    Each conversation is created on first use (its activity and language are
    written with the turn's completion, off the question's path); questions
    and answer rows are inserted one round per turn of the same conversation,
    so a conversation's rows keep the order question, answer, question, answer.
    Returns the answer rows' pks, in the order of ``records``.
    """
    _conversations_create(records)
    answer_pks: dict[int, int] = {}
    for round_ in _rounds(records):
        questions = messages_insert(
            [
                {
                    "conversation_id": r.conversation_id,
                    "role": Message.Role.USER,
                    "message_id": r.message_id,
                    "text": made_storable(r.question),
                    "language": r.language,
                }
                for r in round_
            ]
        )
        answers = messages_insert(
            [
                {
                    "conversation_id": r.conversation_id,
                    "role": Message.Role.ASSISTANT,
                    "message_id": r.message_id,
                    "reply_to_id": question_pk,
                    "text": "",
                    "status": Message.Status.IN_PROGRESS,
                    "language": r.language,
                }
                for r, question_pk in zip(round_, questions, strict=True)
            ]
        )
        answer_pks.update((id(r), pk) for r, pk in zip(round_, answers, strict=True))
    return [answer_pks[id(r)] for r in records]


@transaction.atomic
def turn_complete(*, record, answer_pk: int | None) -> int:
    """Complete a turn's answer row with what it showed, its verdict, citations and timings.

    Without ``answer_pk`` (the begin was never written) both rows are written
    now. Returns the answer's pk.
    """
    return turns_complete(completions=[(record, answer_pk)])[0]


@transaction.atomic(savepoint=False)
def turns_complete(*, completions: list[tuple[object, int | None]]) -> list[int]:
    """``turn_complete`` for many ``(record, answer_pk)`` at once; returns the answers' pks.

    The answers in one ``executemany`` of a single prepared UPDATE (values
    prepared by each field's ``get_db_prep_save``, as the ORM does), and one
    UPDATE for the conversations' activity. Django's ``bulk_update`` builds a
    CASE per field and row, and a ``QuerySet.update`` per answer compiles its
    statement each time: in ``make bench`` that compiling, on a worker thread,
    held the GIL the event loop needed to send frames. The conversations are
    marked active (and given the turn's language) here, not at the beginning.
    """
    unbegun = [record for record, answer_pk in completions if answer_pk is None]
    begun = dict(zip(map(id, unbegun), turns_begin(records=unbegun), strict=True))
    pks = [begun.get(id(record), answer_pk) for record, answer_pk in completions]
    _answers_complete([(record, pk) for (record, _), pk in zip(completions, pks, strict=True)])
    _conversations_active([record for record, _ in completions])
    return pks


# Between the withheld draft and the repair round trip's in the stored ``draft``.
REPAIR_SEPARATOR = "\n\n--- repair ---\n"
# What a turn's completion writes on its answer row, from the ``TurnRecord``.
_COMPLETED_FIELDS = {
    "text": lambda r: made_storable(r.text),
    "status": lambda r: r.status,
    # After a repair round trip, both drafts: the withheld one, then the repair's.
    "draft": lambda r: made_storable(
        r.draft + (REPAIR_SEPARATOR + r.repair_draft if getattr(r, "repaired", False) else "")
    ),
    "grounded": lambda r: r.grounded,
    "block_reason": lambda r: made_storable(r.block_reason)[:200],
    "unsupported": lambda r: r.unsupported,
    "citations": lambda r: r.citations,
    # The pipeline's record carries ``numbers`` once the guard maps them (issue 41).
    "numbers": lambda r: getattr(r, "numbers", None) or [],
    "retrieved": lambda r: r.retrieved,
    "error": lambda r: made_storable(r.error),
    "ttft_ms": lambda r: r.ttft_ms,
    "total_ms": lambda r: r.total_ms,
    "token_count": lambda r: r.token_count,
    "backend": lambda r: r.backend,
    "model": lambda r: r.model,
}


def _answers_complete(rows: list[tuple[object, int]]) -> None:
    """Write each ``(record, answer_pk)``'s completion on its answer row, in one statement
    executed for every row."""
    if not rows:
        return
    connection = transaction.get_connection()
    quote = connection.ops.quote_name
    fields = [Message._meta.get_field(name) for name in _COMPLETED_FIELDS]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = (
        f"UPDATE {quote(Message._meta.db_table)} SET {assignments} "
        f"WHERE {quote(Message._meta.pk.column)} = %s"
    )
    params = [
        [
            field.get_db_prep_save(value_of(record), connection)
            for field, value_of in zip(fields, _COMPLETED_FIELDS.values(), strict=True)
        ]
        + [answer_pk]
        for record, answer_pk in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _conversations_create(records: list) -> None:
    """The records' conversations created where missing (one ``INSERT``, existing ones left
    as they are: their activity is written with the turn's completion).

    A record whose conversation is known to be stored (``conversation_stored``: an earlier
    turn of its connection wrote it, or it was read from the database) adds nothing: building
    and compiling the conversation rows was a third of a beginning's CPU (``bench.audit_cpu``).
    """
    latest = {uuid.UUID(str(r.conversation_id)): r for r in records if not r.conversation_stored}
    if not latest:
        return
    Conversation.objects.bulk_create(
        [
            Conversation(pk=pk, session_hash=session_hash(r.session_key), language=r.language)
            for pk, r in latest.items()
        ],
        ignore_conflicts=True,  # it exists already, or another process creates it meanwhile
    )


def _conversations_active(records: list) -> None:
    """The records' conversations marked active now, in the language of their latest record."""
    conversations_active({uuid.UUID(str(r.conversation_id)): r.language for r in records})


def _rounds(records: list) -> list[list]:
    """``records`` in rounds that hold each conversation at most once, in order."""
    rounds: list[list] = []
    taken: list[set] = []
    for record in records:
        key = str(record.conversation_id)
        index = next((i for i, seen in enumerate(taken) if key not in seen), len(rounds))
        if index == len(rounds):
            rounds.append([])
            taken.append(set())
        rounds[index].append(record)
        taken[index].add(key)
    return rounds


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
