"""The staff side of the live handoff: take, answer, hand back; the console's presence.

Every write is one ``@transaction.atomic`` function here; what the customer must
hear goes over the channel layer after the commit, through the chat's own
handoff services (``chat.handoff``: ``to_customer``, ``queue_changed``, ...),
which hold the handoff's state for both sides.

| service               | who   | state             | event         | to            |
|-----------------------|-------|-------------------|---------------|---------------|
| handoff_take          | staff | waiting -> active | joined        | agent_joined  |
| handoff_staff_message | owner | active            | staff_message | agent_message |
| handoff_hand_back     | owner | active -> closed  | left          | agent_left    |
| handoff_release       | admin | active -> waiting | released      | agent_left, queued |

The owner's console closing and opening again (``handoff_owner_away``,
``handoff_owner_back``) start and stop the clock of ``HANDOFF_RELEASE_SECONDS``
(``chat.handoff.handoffs_release_abandoned``). A console open anywhere is a person
available (``staff_console_open``, ``_seen``, ``_close``; ``chat.handoff.person_available``).
"""

import datetime as dt
import uuid

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from chat.handoff import (
    STAFF_GROUP,
    HandoffError,
    event_record,
    owner_group,
    positions_changed,
    publish,
    queue_changed,
    release,
    to_customer,
)
from chat.handoff_rules import staff_name
from chat.models import Handoff, HandoffEvent, StaffConsole
from grounding.answer_check import answer_check
from grounding.selectors import current_index
from staff.permissions import may_handle_handoffs


class AlreadyTaken(HandoffError):
    """Another staff member took the conversation first (or it is no longer waiting)."""

    def __init__(self, owner: str = "") -> None:
        super().__init__(owner)
        self.owner = owner


class NotOwner(HandoffError):
    """Only the staff member who took the conversation may answer or hand it back."""


@transaction.atomic
def handoff_owner_away(*, staff: AbstractBaseUser, conversation_ids: list[str]) -> int:
    """The owner's console closed: the clock of ``HANDOFF_RELEASE_SECONDS`` starts for each
    of these conversations they still own (unless it is running already)."""
    return Handoff.objects.filter(
        conversation_id__in=conversation_ids,
        status=Handoff.Status.ACTIVE,
        taken_by=staff,
        owner_left_at__isnull=True,
    ).update(owner_left_at=timezone.now())


@transaction.atomic
def handoff_owner_back(*, staff: AbstractBaseUser) -> int:
    """A console of the owner opened: what they own stays theirs."""
    return Handoff.objects.filter(
        status=Handoff.Status.ACTIVE, taken_by=staff, owner_left_at__isnull=False
    ).update(owner_left_at=None)


@transaction.atomic
def handoff_release(*, conversation_id: uuid.UUID, by: AbstractBaseUser | None = None) -> bool:
    """Take the conversation from its owner and put it back in the queue (an admin's action);
    False when nobody owns it."""
    return release(conversation_id, by=by)


def _presence_cutoff(now: dt.datetime) -> dt.datetime:
    return now - dt.timedelta(seconds=3 * settings.STAFF_PRESENCE_SECONDS)


@transaction.atomic
def staff_console_open(*, channel_name: str, staff: AbstractBaseUser) -> StaffConsole:
    """A staff console opened: a person is there to answer (``person_available``)."""
    now = timezone.now()
    StaffConsole.objects.filter(seen_at__lt=_presence_cutoff(now)).delete()  # dead processes'
    console, _ = StaffConsole.objects.update_or_create(
        channel_name=channel_name, defaults={"staff": staff, "opened_at": now, "seen_at": now}
    )
    return console


@transaction.atomic
def staff_console_seen(*, channel_names: list[str]) -> int:
    """These consoles are still open (every ``STAFF_PRESENCE_SECONDS``); returns how many."""
    return StaffConsole.objects.filter(channel_name__in=channel_names).update(
        seen_at=timezone.now()
    )


@transaction.atomic
def staff_console_close(*, channel_name: str) -> int:
    """A staff console closed; returns how many rows went (0 or 1)."""
    deleted, _ = StaffConsole.objects.filter(channel_name=channel_name).delete()
    return deleted


@transaction.atomic
def handoff_take(*, conversation_id: uuid.UUID, staff: AbstractBaseUser) -> Handoff:
    """Give the waiting conversation to ``staff``; raises ``AlreadyTaken`` if someone was first.

    One conditional UPDATE (waiting -> active): under concurrent takes, from
    any number of processes, the database lets exactly one of them match.
    """
    now = timezone.now()
    taken = Handoff.objects.filter(
        conversation_id=conversation_id, status=Handoff.Status.WAITING
    ).update(status=Handoff.Status.ACTIVE, taken_by=staff, taken_at=now)
    if taken != 1:
        current = (
            Handoff.objects.filter(conversation_id=conversation_id)
            .select_related("taken_by")
            .order_by("-requested_at", "-id")
            .first()
        )
        owner = staff_name(current.taken_by) if current and current.taken_by else ""
        raise AlreadyTaken(owner)
    handoff = Handoff.objects.get(conversation_id=conversation_id, status=Handoff.Status.ACTIVE)
    event_record(handoff, HandoffEvent.Kind.JOINED, staff=staff)
    to_customer(conversation_id, {"type": "agent_joined", "name": staff_name(staff)})
    queue_changed()
    positions_changed()
    return handoff


@transaction.atomic
def handoff_staff_message(
    *, conversation_id: uuid.UUID, staff: AbstractBaseUser, text: str, flags: list | None = None
) -> HandoffEvent:
    """The owner's message to the customer (kept in the audit trail). ``flags``: the numbers
    the console flagged (``staff_message_flags``) that the owner chose to send anyway; the
    timeline records the message as sent over the flag."""
    handoff = _owned(conversation_id, staff)
    event = event_record(
        handoff,
        HandoffEvent.Kind.STAFF_MESSAGE,
        staff=staff,
        text=text,
        message_id=f"agent_{uuid.uuid4().hex[:12]}",
    )
    if flags:
        numbers = ", ".join(str(flag.get("text") or flag.get("value") or flag) for flag in flags)
        event_record(
            handoff,
            HandoffEvent.Kind.SENT_OVER_FLAG,
            staff=staff,
            text=f"Sent over the flag (not in the KB: {numbers})",
            message_id=event.message_id,
        )
    to_customer(
        conversation_id, {"type": "agent_message", "messageId": event.message_id, "text": text}
    )
    return event


@transaction.atomic
def handoff_hand_back(*, conversation_id: uuid.UUID, staff: AbstractBaseUser) -> Handoff:
    """The owner leaves: the agent answers the customer again."""
    handoff = _owned(conversation_id, staff)
    handoff.status, handoff.closed_at = Handoff.Status.CLOSED, timezone.now()
    handoff.save(update_fields=["status", "closed_at"])
    event_record(handoff, HandoffEvent.Kind.LEFT, staff=staff)
    to_customer(conversation_id, {"type": "agent_left", "name": staff_name(staff)})
    publish(
        owner_group(conversation_id),
        {"type": "handoff.closed", "conversationId": str(conversation_id)},
    )
    queue_changed()
    return handoff


def _owned(conversation_id, staff) -> Handoff:
    """The active handoff owned by ``staff``, locked; ``NotOwner`` otherwise."""
    handoff = (
        Handoff.objects.select_for_update()
        .filter(conversation_id=conversation_id, status=Handoff.Status.ACTIVE)
        .first()
    )
    if handoff is None or handoff.taken_by_id != staff.pk:
        raise NotOwner(str(conversation_id))
    return handoff


class NotAllowed(HandoffError):
    """The colleague may not handle handoffs, or the conversation is not in a state for it."""


ASSIGNED = "handoff.assigned"  # to every console: the conversation is the colleague's now


@transaction.atomic
def handoff_assign(
    *, conversation_id: uuid.UUID, staff: AbstractBaseUser, to: AbstractBaseUser
) -> Handoff:
    """The owner gives the conversation to a colleague (``to`` must may handle handoffs): the
    customer hears who joined; the colleague's consoles open it, the owner's close it."""
    handoff = _owned(conversation_id, staff)
    if to.pk == staff.pk or not may_handle_handoffs(to):
        raise NotAllowed(str(to.pk))
    handoff.taken_by, handoff.taken_at, handoff.owner_left_at = to, timezone.now(), None
    handoff.save(update_fields=["taken_by", "taken_at", "owner_left_at"])
    event_record(
        handoff, HandoffEvent.Kind.ASSIGNED, staff=staff, text=f"Assigned to {staff_name(to)}"
    )
    to_customer(conversation_id, {"type": "agent_joined", "name": staff_name(to)})
    publish(
        owner_group(conversation_id),
        {"type": "handoff.closed", "conversationId": str(conversation_id)},
    )
    publish(STAFF_GROUP, {"type": ASSIGNED, "conversationId": str(conversation_id), "to": to.pk})
    queue_changed()
    return handoff


@transaction.atomic
def handoff_resolve(*, conversation_id: uuid.UUID, staff: AbstractBaseUser) -> Handoff:
    """The owner resolves the conversation: the agent answers the customer again, and the
    inbox lists it as resolved (any staff member may reopen it)."""
    handoff = _owned(conversation_id, staff)
    handoff.status, handoff.closed_at = Handoff.Status.RESOLVED, timezone.now()
    handoff.save(update_fields=["status", "closed_at"])
    event_record(handoff, HandoffEvent.Kind.RESOLVED, staff=staff)
    to_customer(conversation_id, {"type": "agent_left", "name": staff_name(staff)})
    publish(
        owner_group(conversation_id),
        {"type": "handoff.closed", "conversationId": str(conversation_id)},
    )
    queue_changed()
    return handoff


@transaction.atomic
def handoff_reopen(*, conversation_id: uuid.UUID, staff: AbstractBaseUser) -> Handoff:
    """A resolved conversation is ``staff``'s again (active): the customer hears who joined.
    ``NotAllowed`` when its last handoff is not resolved (or another is open)."""
    handoff = (
        Handoff.objects.select_for_update()
        .filter(conversation_id=conversation_id)
        .order_by("-requested_at", "-id")
        .first()
    )
    if handoff is None or handoff.status != Handoff.Status.RESOLVED:
        raise NotAllowed(str(conversation_id))
    now = timezone.now()
    handoff.status, handoff.taken_by, handoff.taken_at = Handoff.Status.ACTIVE, staff, now
    handoff.closed_at, handoff.owner_left_at = None, None
    handoff.save(update_fields=["status", "taken_by", "taken_at", "closed_at", "owner_left_at"])
    event_record(handoff, HandoffEvent.Kind.REOPENED, staff=staff)
    to_customer(conversation_id, {"type": "agent_joined", "name": staff_name(staff)})
    queue_changed()
    return handoff


@transaction.atomic
def handoff_note(*, conversation_id: uuid.UUID, staff: AbstractBaseUser, text: str) -> HandoffEvent:
    """A private note on the conversation's timeline: staff read it, the customer never does
    (nothing goes to the customer's group, and their transcript has no notes)."""
    handoff = (
        Handoff.objects.filter(conversation_id=conversation_id)
        .order_by("-requested_at", "-id")
        .first()
    )
    if handoff is None:
        raise NotAllowed(str(conversation_id))
    event = event_record(handoff, HandoffEvent.Kind.NOTE, staff=staff, text=text)
    publish(
        owner_group(conversation_id),
        {
            "type": "handoff.customer",  # the owner's consoles show it (not the customer's)
            "frame": {
                "type": "note",
                "conversationId": str(conversation_id),
                "text": text,
                "by": staff_name(staff),
            },
        },
    )
    return event


def staff_message_flags(*, text: str) -> list[dict]:
    """The numbers of an agent's message that the KB does not state about their subject
    (``grounding.answer_check`` on the message, as the agent's own answers are checked);
    [] when there are none. Read-only."""
    check = answer_check(index=current_index(), question=text, answer=text, uncited=True)
    if check.grounded:
        return []
    return list(check.unsupported)
