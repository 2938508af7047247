"""Writes of the chat audit trail."""

import uuid

from django.db import transaction
from django.utils import timezone

from chat.models import Conversation, Feedback, Message


class MessageNotFound(Exception):
    """No assistant message with that id in this conversation."""


def conversation_touch(
    *, conversation_id: uuid.UUID, session_key: str = "", language: str = "sv"
) -> Conversation:
    """Create the conversation on first use, else mark it active now."""
    conversation, created = Conversation.objects.get_or_create(
        pk=conversation_id, defaults={"session_key": session_key, "language": language}
    )
    if not created:
        Conversation.objects.filter(pk=conversation_id).update(
            last_active_at=timezone.now(), language=language
        )
    return conversation


def _assistant_message(record, question: Message) -> Message:
    return Message(
        conversation_id=record.conversation_id,
        role=Message.Role.ASSISTANT,
        message_id=record.message_id,
        reply_to=question,
        text=record.text,
        status=record.status,
        language=record.language,
        draft=record.draft,
        grounded=record.grounded,
        block_reason=record.block_reason[:200],
        unsupported=record.unsupported,
        citations=record.citations,
        retrieved=record.retrieved,
        error=record.error,
        ttft_ms=record.ttft_ms,
        total_ms=record.total_ms,
        token_count=record.token_count,
        backend=record.backend,
        model=record.model,
    )


@transaction.atomic
def turns_record(*, records: list) -> list[Message]:
    """Persist turns (each the user's message and the assistant's answer) in one transaction.

    ``records`` are ``chat.pipeline.TurnRecord``s, oldest first. A handful of
    queries whatever their number: the audit writer batches turns under load.
    """
    now = timezone.now()
    latest = {record.conversation_id: record for record in records}
    Conversation.objects.bulk_create(
        [
            Conversation(pk=cid, session_key=r.session_key, language=r.language)
            for cid, r in latest.items()
        ],
        ignore_conflicts=True,
    )
    # Two plain UPDATEs (one per language), not bulk_update: its CASE per row
    # is costly to build in Python, and this runs beside the streams.
    by_language: dict[str, list] = {}
    for cid, r in latest.items():
        by_language.setdefault(r.language, []).append(cid)
    for language, ids in by_language.items():
        Conversation.objects.filter(pk__in=ids).update(language=language, last_active_at=now)
    questions = Message.objects.bulk_create(
        [
            Message(
                conversation_id=record.conversation_id,
                role=Message.Role.USER,
                message_id=record.message_id,
                text=record.question,
                language=record.language,
            )
            for record in records
        ]
    )
    return Message.objects.bulk_create(
        [
            _assistant_message(record, question)
            for record, question in zip(records, questions, strict=True)
        ]
    )


@transaction.atomic
def feedback_create(
    *, conversation_id: uuid.UUID, message_id: str, rating: str, comment: str = ""
) -> Feedback:
    """Feedback on an assistant answer of this conversation."""
    message = (
        Message.objects.filter(
            conversation_id=conversation_id, role=Message.Role.ASSISTANT, message_id=message_id
        )
        .order_by("-created_at")
        .first()
    )
    if message is None:
        raise MessageNotFound(message_id)
    feedback = Feedback(message=message, rating=rating, comment=comment)
    feedback.full_clean()
    feedback.save()
    return feedback
