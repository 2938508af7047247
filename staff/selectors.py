"""Reads of the staff side: the console's queue, a conversation's history, presence."""

from django.conf import settings

from chat.models import Handoff, HandoffEvent, Message


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
