"""Reads of the chat audit trail."""

from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import F

from chat.context import ConversationContext
from chat.models import Conversation, Message


def conversation_for_session(*, session_key: str) -> Conversation | None:
    """The most recent conversation of a browser session."""
    if not session_key:
        return None
    return Conversation.objects.filter(session_key=session_key).order_by("-last_active_at").first()


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


@dataclass(frozen=True, slots=True)
class TimelineTurn:
    """One exchange of a conversation as staff read it on the timeline."""

    question: Message | None
    answer: Message | None
    suggestions: list = field(default_factory=list)
    feedback: list = field(default_factory=list)

    @property
    def at(self):
        return (self.question or self.answer).created_at


def conversation_timeline(*, conversation: Conversation) -> list[TimelineTurn]:
    """The conversation's turns in order: question, answer, actions and feedback of each."""
    from actions.models import Suggestion

    messages = list(
        conversation.messages.select_related("review__reviewed_by", "review__assignee")
        .prefetch_related("feedback")
        .order_by("created_at", "id")
    )
    answers = {m.reply_to_id: m for m in messages if m.role == Message.Role.ASSISTANT}
    suggestions: dict[str, list] = {}
    for suggestion in (
        Suggestion.objects.filter(conversation=conversation)
        .select_related("execution")
        .order_by("created_at")
    ):
        suggestions.setdefault(suggestion.source_message_id, []).append(suggestion)
    turns = []
    for message in messages:
        if message.role == Message.Role.USER:
            answer = answers.get(message.pk)
        elif message.reply_to_id is None:
            answer, message = message, None
        else:
            continue
        turns.append(
            TimelineTurn(
                question=message,
                answer=answer,
                suggestions=suggestions.get((message or answer).message_id, []),
                feedback=list(answer.feedback.all()) if answer else [],
            )
        )
    return turns


def unanswered_questions(*, since, until) -> list[dict]:
    """Questions whose answer was withheld or had no KB support in [since, until), newest first."""
    return list(
        Message.objects.filter(
            role=Message.Role.ASSISTANT,
            status__in=(Message.Status.WITHHELD, Message.Status.NO_SUPPORT),
            created_at__gte=since,
            created_at__lt=until,
            reply_to__isnull=False,
        )
        .order_by("-created_at", "-id")
        .values("status", "created_at", "conversation_id", question=F("reply_to__text"))
    )
