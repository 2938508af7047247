"""Reads of the chat audit trail."""

from django.conf import settings

from chat.context import ConversationContext
from chat.models import Conversation, Message, session_hash


def conversation_for_session(*, session_key: str) -> Conversation | None:
    """The most recent conversation of a browser session."""
    if not session_key:
        return None
    return (
        Conversation.objects.filter(session_hash=session_hash(session_key))
        .order_by("-last_active_at")
        .first()
    )


def conversation_context(*, session_key: str) -> ConversationContext:
    """A connection's starting state: the session's conversation resumed, or a new one."""
    conversation = conversation_for_session(session_key=session_key)
    if conversation is None:
        return ConversationContext(session_key=session_key)
    context = ConversationContext(
        id=conversation.pk, session_key=session_key, language=conversation.language
    )
    answered = (
        Message.objects.filter(
            conversation=conversation, role=Message.Role.ASSISTANT, status=Message.Status.DONE
        )
        .select_related("reply_to")
        .order_by("-created_at", "-id")[: settings.HISTORY_EXCHANGES]
    )
    for answer in reversed(answered):
        question = answer.reply_to.text if answer.reply_to else ""
        context.remember(question=question, answer=answer.text, query=question)
    return context


def conversation_transcript(*, conversation: Conversation) -> list[dict]:
    """The conversation's messages as the chat page shows them, oldest first."""
    transcript = []
    for message in conversation.messages.order_by("created_at", "id"):
        item = {"role": message.role, "text": message.text, "messageId": message.message_id}
        if message.role == Message.Role.ASSISTANT:
            item.update(
                status=message.status, grounded=bool(message.grounded), citations=message.citations
            )
            if message.block_reason:
                item["blocked"] = message.block_reason
        transcript.append(item)
    return transcript
