"""Reads of the chat audit trail."""

import datetime as dt
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import F

from actions.models import Suggestion
from chat.context import ConversationContext
from chat.handoff_rules import staff_name
from chat.models import (
    Conversation,
    Feedback,
    Handoff,
    HandoffEvent,
    Message,
    StaffConsole,
    conversation_id_for,
    session_hash,
)


def conversation_for_session(*, session_key: str) -> Conversation | None:
    """The most recent chat-page conversation of a browser session."""
    if not session_key:
        return None
    return (
        Conversation.objects.filter(
            session_hash=session_hash(session_key), channel=Conversation.Channel.PAGE
        )
        .order_by("-last_active_at")
        .first()
    )


def conversation_for_token(*, token: str, now) -> Conversation | None:
    """The widget conversation of a conversation token, unless revoked or expired at ``now``."""
    if not token:
        return None
    return Conversation.objects.filter(
        session_hash=session_hash(token),
        channel=Conversation.Channel.WIDGET,
        token_revoked_at__isnull=True,
        token_expires_at__gt=now,
    ).first()


def conversation_context(*, session_key: str) -> ConversationContext:
    """A connection's starting state: the session's conversation resumed, or a new one.

    A new one's id follows from the session key (``conversation_id_for``): the
    session's tabs that connect before its first message share it.
    """
    conversation = conversation_for_session(session_key=session_key)
    if conversation is None:
        if not session_key:
            return ConversationContext()
        return ConversationContext(id=conversation_id_for(session_key), session_key=session_key)
    return context_of(conversation, session_key=session_key)


def context_of(conversation: Conversation, *, session_key: str) -> ConversationContext:
    """The connection state of an existing conversation: its last exchanges for the LLM."""
    context = ConversationContext(
        id=conversation.pk, session_key=session_key, language=conversation.language, stored=True
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
    last = (
        Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT)
        .select_related("reply_to")
        .order_by("-created_at", "-id")
        .first()
    )
    unanswerable = (Message.Status.WITHHELD, Message.Status.NO_SUPPORT)
    if last is not None and last.status in unanswerable and last.reply_to is not None:
        context.unanswered = last.reply_to.text  # a ticket asked for now is about it
    return context


def conversation_transcript(*, conversation: Conversation) -> list[dict]:
    """The conversation's messages as the chat page shows them, oldest first.

    An answer carries its latest feedback (``{rating, reason, comment}``), so
    the page shows the chosen thumb after a reload.
    """
    latest_feedback = {}
    for feedback in Feedback.objects.filter(message__conversation=conversation).order_by(
        "created_at", "id"
    ):
        latest_feedback[feedback.message_id] = {
            "rating": feedback.rating,
            "reason": feedback.reason,
            "comment": feedback.comment,
        }
    transcript = []
    for message in conversation.messages.order_by("created_at", "id"):
        item = {
            "role": message.role,
            "text": message.text,
            "messageId": message.message_id,
            "language": message.language,
        }
        if message.role == Message.Role.ASSISTANT:
            item.update(
                status=message.status, grounded=bool(message.grounded), citations=message.citations
            )
            if message.numbers:
                item["numbers"] = message.numbers
            if message.block_reason:
                item["blocked"] = message.block_reason
            if message.pk in latest_feedback:
                item["feedback"] = latest_feedback[message.pk]
        transcript.append((message.created_at, item))
    transcript += _handoff_transcript(conversation)
    transcript.sort(key=lambda entry: entry[0])
    return [item for _, item in transcript]


def _handoff_transcript(conversation: Conversation) -> list[tuple]:
    """What the customer and a person wrote during a handoff (role "user" and "agent")."""
    kinds = (HandoffEvent.Kind.CUSTOMER_MESSAGE, HandoffEvent.Kind.STAFF_MESSAGE)
    items = []
    for event in conversation.handoff_events.filter(kind__in=kinds).select_related("staff"):
        item = {"role": "user", "text": event.text, "messageId": event.message_id}
        if event.kind == HandoffEvent.Kind.STAFF_MESSAGE:
            item.update(role="agent", name=staff_name(event.staff))
        items.append((event.created_at, item))
    return items


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


def conversation_timeline(
    *, conversation: Conversation, with_actions: bool = True
) -> list[TimelineTurn]:
    """The conversation's turns in order: question, answer, actions (``with_actions``) and
    feedback of each."""
    messages = list(
        conversation.messages.select_related("review__reviewed_by", "review__assignee")
        .prefetch_related("feedback")
        .order_by("created_at", "id")
    )
    answers = {m.reply_to_id: m for m in messages if m.role == Message.Role.ASSISTANT}
    suggestions: dict[str, list] = {}
    shown = Suggestion.objects.all() if with_actions else Suggestion.objects.none()
    for suggestion in (
        shown.filter(conversation=conversation).select_related("execution").order_by("created_at")
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


def staff_online(*, now) -> bool:
    """Whether a staff console is open anywhere (touched within three presence intervals)."""
    cutoff = now - dt.timedelta(seconds=3 * settings.STAFF_PRESENCE_SECONDS)
    return StaffConsole.objects.filter(seen_at__gte=cutoff).exists()


def handoff_position(*, handoff) -> int | None:
    """The handoff's place in the waiting queue (1 = next), None when it is not waiting; only
    customers who are there (a connection open) count ahead of it."""
    if handoff.status != Handoff.Status.WAITING:
        return None
    return (
        Handoff.objects.filter(
            status=Handoff.Status.WAITING,
            requested_at__lte=handoff.requested_at,
            customer_left_at__isnull=True,  # customers who are gone hold no place
        )
        .exclude(requested_at=handoff.requested_at, id__gt=handoff.id)
        .exclude(pk=handoff.pk)
        .count()
        + 1
    )


def handoff_events(*, conversation) -> list:
    """The conversation's handoff events in order, for the timeline."""
    return list(conversation.handoff_events.select_related("staff").order_by("created_at", "id"))


def user_message_text(*, conversation_id, message_id: str) -> str:
    """The text of the conversation's user message ``message_id``; "" when there is none."""
    source = (
        Message.objects.filter(
            conversation_id=conversation_id, message_id=message_id, role=Message.Role.USER
        )
        .order_by("created_at")
        .first()
    )
    return source.text if source else ""
