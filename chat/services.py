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


@transaction.atomic
def turn_record(*, record) -> Message:
    """Persist one turn (the user's message and the assistant's answer) atomically.

    ``record`` is a ``chat.pipeline.TurnRecord``.
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
        text=record.question,
        language=record.language,
    )
    return Message.objects.create(
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
