"""Reads of suggested actions."""

import datetime as dt
import uuid

from django.utils import timezone

from actions.models import Suggestion


def suggestion_get_for_conversation(
    *, suggestion_id: str, conversation_id: uuid.UUID
) -> Suggestion | None:
    """The suggestion if it belongs to this conversation; None for unknown or foreign ids."""
    return (
        Suggestion.objects.select_related("execution")
        .filter(suggestion_id=suggestion_id, conversation_id=conversation_id)
        .first()
    )


def suggestions_pending_for_conversation(
    *, conversation_id: uuid.UUID, now: dt.datetime | None = None
) -> list[Suggestion]:
    """Suggestions still waiting for an answer, oldest first (for resuming a conversation).

    Stale ones are left out even before anything has marked them expired.
    """
    now = now or timezone.now()
    return list(
        Suggestion.objects.filter(
            conversation_id=conversation_id,
            status=Suggestion.Status.PENDING,
            expires_at__gte=now,
        ).order_by("created_at", "pk")
    )


def suggestions_for_conversation(*, conversation_id: uuid.UUID) -> list[Suggestion]:
    """Every suggestion of the conversation with its execution, oldest first."""
    return list(
        Suggestion.objects.select_related("execution")
        .filter(conversation_id=conversation_id)
        .order_by("created_at", "pk")
    )
