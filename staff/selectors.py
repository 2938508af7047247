"""Reads of the staff side: the console's queue, a conversation's history, presence."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from chat.handoff_rules import staff_name
from chat.models import Handoff, HandoffEvent, Message
from staff.models import SavedReply


def handoff_queue_total() -> int:
    """How many handoffs are waiting or active (the console shows a page of them)."""
    return Handoff.objects.filter(
        status__in=(Handoff.Status.WAITING, Handoff.Status.ACTIVE)
    ).count()


def handoff_queue(*, limit: int | None = None) -> list[dict]:
    """Waiting and active handoffs as the staff console lists them, oldest request first;
    the first ``limit`` of them (``HANDOFF_QUEUE_PAGE`` by default)."""
    limit = settings.HANDOFF_QUEUE_PAGE if limit is None else limit
    items = []
    position = 0
    handoffs = (
        Handoff.objects.filter(status__in=(Handoff.Status.WAITING, Handoff.Status.ACTIVE))
        .select_related("taken_by", "conversation")
        .order_by("requested_at", "id")
    )[:limit]
    for handoff in handoffs:
        waiting = handoff.status == Handoff.Status.WAITING
        present = handoff.customer_left_at is None
        position += waiting and present
        question = (
            Message.objects.filter(conversation_id=handoff.conversation_id, role=Message.Role.USER)
            .order_by("-created_at", "-id")
            .values_list("text", flat=True)
            .first()
        )
        items.append(
            {
                "conversationId": str(handoff.conversation_id),
                "status": handoff.status,
                "position": position if waiting and present else None,
                "present": present,
                "leftAt": handoff.customer_left_at.isoformat() if not present else None,
                "requestedAt": handoff.requested_at.isoformat(),
                "takenBy": handoff.taken_by.get_username() if handoff.taken_by else None,
                "language": handoff.conversation.language,
                "lastQuestion": question or "",
            }
        )
    return items


def handoff_customer_present(*, conversation_id) -> bool:
    """Whether the customer of the conversation's open handoff has a connection open."""
    return not Handoff.objects.filter(
        conversation_id=conversation_id,
        status__in=(Handoff.Status.WAITING, Handoff.Status.ACTIVE),
        customer_left_at__isnull=False,
    ).exists()


def handoff_history(*, conversation_id) -> list[dict]:
    """What staff read when they take a conversation: every message and handoff event in order."""
    rows = [
        {
            "role": message.role,
            "text": message.text,
            "status": message.status if message.role == Message.Role.ASSISTANT else "",
            "at": message.created_at,
        }
        for message in Message.objects.filter(conversation_id=conversation_id)
    ]
    spoken = {
        HandoffEvent.Kind.STAFF_MESSAGE: "staff",
        HandoffEvent.Kind.CUSTOMER_MESSAGE: "user",
    }
    for event in HandoffEvent.objects.filter(conversation_id=conversation_id).select_related(
        "staff"
    ):
        rows.append(
            {
                "role": spoken.get(event.kind, "event"),
                "text": event.text or event.get_kind_display(),
                "status": event.kind,
                "at": event.created_at,
            }
        )
    rows.sort(key=lambda row: row["at"])
    return [{**row, "at": row["at"].isoformat()} for row in rows]


INBOX_STATES = ("waiting", "mine", "open", "resolved")
MAX_QUERY_CHARS = 200


class InboxQueryError(ValueError):
    """An inbox request that cannot be answered: an unknown state, or a search too long."""


def inbox(*, staff, state: str, query: str = "", now=None, limit: int | None = None) -> list:
    """The conversations of one inbox state, as the console lists them; ``query`` narrows them
    to those with a message, a staff reply or a note containing it (case-insensitive).

    | state    | handoffs                                  | order          |
    |----------|-------------------------------------------|----------------|
    | waiting  | waiting for a person                      | oldest request |
    | mine     | active, owned by ``staff``                | oldest request |
    | open     | active, anyone's                          | oldest request |
    | resolved | resolved (the latest of each conversation) | newest first   |
    """
    if state not in INBOX_STATES:
        raise InboxQueryError(f"state must be one of {', '.join(INBOX_STATES)}")
    query = query.strip()
    if len(query) > MAX_QUERY_CHARS:
        raise InboxQueryError(f"a search is at most {MAX_QUERY_CHARS} characters")
    now = now or timezone.now()
    limit = settings.HANDOFF_QUEUE_PAGE if limit is None else limit
    handoffs = Handoff.objects.select_related("taken_by", "conversation")
    if state == "waiting":
        handoffs = handoffs.filter(status=Handoff.Status.WAITING)
    elif state == "mine":
        handoffs = handoffs.filter(status=Handoff.Status.ACTIVE, taken_by=staff)
    elif state == "open":
        handoffs = handoffs.filter(status=Handoff.Status.ACTIVE)
    else:
        newer = Handoff.objects.filter(
            conversation_id=OuterRef("conversation_id"), requested_at__gt=OuterRef("requested_at")
        )
        handoffs = handoffs.filter(status=Handoff.Status.RESOLVED).exclude(Exists(newer))
    if query:
        said = Message.objects.filter(
            conversation_id=OuterRef("conversation_id"), text__icontains=query
        )
        written = HandoffEvent.objects.filter(
            conversation_id=OuterRef("conversation_id"), text__icontains=query
        )
        handoffs = handoffs.filter(Q(Exists(said)) | Q(Exists(written)))
    order = ("-closed_at", "-id") if state == "resolved" else ("requested_at", "id")
    return [_inbox_row(handoff, now=now) for handoff in handoffs.order_by(*order)[:limit]]


def _inbox_row(handoff, *, now) -> dict:
    conversation = handoff.conversation
    last = _last_said(handoff.conversation_id)
    waited_until = handoff.taken_at or now
    return {
        "conversationId": str(handoff.conversation_id),
        "status": handoff.status,
        "language": conversation.language,
        "from": conversation.get_channel_display(),
        "startedAt": conversation.started_at.isoformat(),
        "requestedAt": handoff.requested_at.isoformat(),
        "waitedSeconds": max(0, round((waited_until - handoff.requested_at).total_seconds())),
        "present": handoff.customer_left_at is None,
        "takenBy": handoff.taken_by.get_username() if handoff.taken_by else None,
        "lastMessage": last,
        "lastQuestion": _last_question(handoff.conversation_id),
    }


def _last_question(conversation_id) -> str:
    """What the customer last wrote (to the agent, or to a person)."""
    asked = (
        Message.objects.filter(conversation_id=conversation_id, role=Message.Role.USER)
        .order_by("-created_at", "-id")
        .values_list("created_at", "text")
        .first()
    )
    spoken = (HandoffEvent.Kind.CUSTOMER_MESSAGE, HandoffEvent.Kind.REQUESTED)
    said = (
        HandoffEvent.objects.filter(conversation_id=conversation_id, kind__in=spoken)
        .exclude(text="")
        .order_by("-created_at", "-id")
        .values_list("created_at", "text")
        .first()
    )
    latest = max((row for row in (asked, said) if row), default=None, key=lambda r: r[0])
    return latest[1][:200] if latest else ""


def _last_said(conversation_id) -> str:
    """The conversation's last message, by the customer, the agent or a person."""
    message = (
        Message.objects.filter(conversation_id=conversation_id)
        .order_by("-created_at", "-id")
        .values_list("created_at", "text")
        .first()
    )
    spoken = (HandoffEvent.Kind.CUSTOMER_MESSAGE, HandoffEvent.Kind.STAFF_MESSAGE, "requested")
    event = (
        HandoffEvent.objects.filter(conversation_id=conversation_id, kind__in=spoken)
        .exclude(text="")
        .order_by("-created_at", "-id")
        .values_list("created_at", "text")
        .first()
    )
    latest = max((row for row in (message, event) if row), default=None, key=lambda r: r[0])
    return latest[1][:200] if latest else ""


def colleagues(*, staff) -> list[dict]:
    """Everyone else who may handle handoffs (to assign a conversation to)."""
    users = (
        get_user_model()
        .objects.filter(is_active=True, is_staff=True)
        .filter(
            Q(is_superuser=True)
            | Q(user_permissions__codename="handle_handoff")
            | Q(groups__permissions__codename="handle_handoff")
        )
        .exclude(pk=staff.pk)
        .distinct()
        .order_by("username")
    )
    return [{"id": user.pk, "name": staff_name(user)} for user in users]


def saved_replies() -> list[dict]:
    """The saved replies, as the console offers them."""
    return [
        {"id": reply.pk, "title": reply.title, "text": reply.text, "language": reply.language}
        for reply in SavedReply.objects.all()
    ]
