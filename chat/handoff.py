"""The live handoff's state and the customer's side of it: a customer asks for a person.

The staff side (take, answer, hand back, the console's presence) is the ``staff``
app's (``staff.handoff``); it reaches this module's services, never the other way.

Every write is one ``@transaction.atomic`` function here; what the other side
must hear goes over the channel layer after the commit (``on_commit``), so a
customer on one process and staff on another see the same thing, and nobody
hears of a change that was rolled back.

| service                  | who      | state              | event            | to              |
|--------------------------|----------|--------------------|------------------|-----------------|
| handoff_request          | customer | - -> waiting       | requested        | queue, queued   |
|                          |          | - -> offline       | offline          | handoff_offline |
| (``staff.handoff``)      | staff    | waiting -> active  | joined, ...      | agent_joined    |
| handoff_customer_message | customer | active             | customer_message | owner's console |
| customer_message_begin   | customer | active             | customer_message | owner's console |
|                          |          | (else: turn_begin) |                  |                 |

Released by time or by an admin (``handoffs_release_abandoned``, ``release``):

| when | state | the customer hears |
|---|---|---|
| the owner's last console closed | active, ``owner_left_at`` set | - |
| a console of the owner opened | active, ``owner_left_at`` cleared | - |
| gone past the grace; admin release | waiting (offline out of hours) | agent_left, queued |

(``staff.handoff.handoff_owner_away``, ``handoff_owner_back``;
``HANDOFF_RELEASE_SECONDS``; event ``released``.)

The customer's presence, and expiry when they are gone (``handoffs_expire_waiting``):

| when | state | staff see |
|---|---|---|
| the last connection closed | ``customer_left_at`` set | gone at once; no place in the queue |
| a connection opened | ``customer_left_at`` cleared | there again |
| waiting, gone past the grace | expired (event ``expired``) | a queue without it |

(Waiting or active; the owner hears ``customer_presence``; the grace is
``HANDOFF_WAITING_EXPIRE_SECONDS``.)

(``handoff_customer_away``, ``handoff_customer_here``; run wherever abandoned
conversations are released.) Taking a conversation whose customer is gone
works, and the console says they are gone (``customerPresent`` false).

A released conversation is waiting again: the agent answers meanwhile, and
any staff member may take it.

Typing indicators are not audited: the consumers relay them over the layer.
"""

import datetime as dt
import uuid
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from chat import texts
from chat.handoff_rules import available, next_opening, staff_name
from chat.models import Handoff, HandoffEvent, session_hash
from chat.selectors import handoff_position, staff_online
from chat.services import conversation_touch, turns_begin
from chat.statements import any_owned

STAFF_GROUP = "handoff.staff"


QUEUE_CHANGED = "handoff.queue"


def customer_group(conversation_id) -> str:
    """Every customer connection of a conversation (the chat consumer's group)."""
    return f"conversation.{conversation_id}"


def owner_group(conversation_id) -> str:
    """The staff connections that own a conversation."""
    return f"handoff.{conversation_id}"


class HandoffError(Exception):
    """A handoff step that the handoff's state does not allow."""


class TooManyRequests(HandoffError):
    """This address has as many requests waiting as ``HANDOFF_MAX_WAITING_PER_ADDRESS``."""


@dataclass(frozen=True, slots=True)
class RequestResult:
    handoff: Handoff
    position: int | None  # None when outside opening hours, or when a person owns it
    created: bool
    owner: str = ""  # the name of the person who owns the conversation, if one does
    frame: dict | None = None  # offline: the handoff_offline frame (when staff are back)

    @property
    def offline(self) -> bool:
        return self.handoff.status == Handoff.Status.OFFLINE


def publish(group: str, event: dict) -> None:
    """Send ``event`` to ``group`` over the channel layer once the transaction commits."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(group, event)

    transaction.on_commit(send)


def to_customer(conversation_id, frame: dict) -> None:
    publish(customer_group(conversation_id), {"type": "handoff.frame", "frame": frame})


def queue_changed() -> None:
    publish(STAFF_GROUP, {"type": QUEUE_CHANGED})


def positions_changed() -> None:
    """Tell each waiting customer who is there their place in the queue now."""
    waiting = Handoff.objects.filter(
        status=Handoff.Status.WAITING, customer_left_at__isnull=True
    ).order_by("requested_at", "id")
    for position, conversation_id in enumerate(
        waiting.values_list("conversation_id", flat=True), 1
    ):
        to_customer(conversation_id, {"type": "handoff_queued", "position": position})


@transaction.atomic
def handoff_request(
    *,
    conversation_id: uuid.UUID,
    session_key: str = "",
    language: str = "sv",
    source: str = Handoff.Source.BUTTON,
    text: str = "",
    client_address: str = "",
) -> RequestResult:
    """Put the conversation in the queue for a person (idempotent while one is open).

    With nobody available (``person_available``: no staff console open, or outside
    ``HANDOFF_OPENING_HOURS``) the request is recorded as offline and the customer is
    offered a callback or a ticket instead, and told when staff are back.
    """
    conversation_touch(conversation_id=conversation_id, session_key=session_key, language=language)
    handoffs_release_abandoned()  # its owner may be gone: then it is waiting again
    handoffs_expire_waiting()  # customers who left do not hold the address's places
    open_handoff = _open_handoff(conversation_id)
    if open_handoff is not None:
        owner = staff_name(open_handoff.taken_by) if open_handoff.taken_by_id else ""
        return RequestResult(
            open_handoff, handoff_position(handoff=open_handoff), created=False, owner=owner
        )
    client_hash = session_hash(client_address)
    limit = settings.HANDOFF_MAX_WAITING_PER_ADDRESS
    if client_hash and limit:
        waiting = Handoff.objects.filter(status=Handoff.Status.WAITING, client_hash=client_hash)
        if waiting.count() >= limit:
            raise TooManyRequests(client_hash)
    now = timezone.now()
    if not person_available(now=now):
        handoff = Handoff.objects.create(
            conversation_id=conversation_id,
            status=Handoff.Status.OFFLINE,
            source=source,
            requested_at=now,
            closed_at=now,
        )
        event_record(handoff, HandoffEvent.Kind.OFFLINE, text=text)
        frame = offline_frame(language=language, now=now)
        return RequestResult(handoff, None, created=True, frame=frame)
    try:
        with transaction.atomic():
            handoff = Handoff.objects.create(
                conversation_id=conversation_id,
                source=source,
                requested_at=now,
                client_hash=client_hash,
            )
    except IntegrityError:  # another tab asked at the same moment: one request
        handoff = _open_handoff(conversation_id)
        return RequestResult(handoff, handoff_position(handoff=handoff), created=False)
    event_record(handoff, HandoffEvent.Kind.REQUESTED, text=text)
    queue_changed()
    return RequestResult(handoff, handoff_position(handoff=handoff), created=True)


@transaction.atomic
def handoffs_release_abandoned(*, now=None) -> int:
    """Conversations whose owner has been gone past ``HANDOFF_RELEASE_SECONDS`` go back to the
    queue (see ``handoff_release``); returns how many. Safe to call from any process, any
    number of times: each release is one conditional UPDATE."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(seconds=settings.HANDOFF_RELEASE_SECONDS)
    abandoned = Handoff.objects.filter(
        status=Handoff.Status.ACTIVE, owner_left_at__lte=cutoff
    ).values_list("conversation_id", flat=True)
    return sum(release(conversation_id, only_if_away_since=cutoff) for conversation_id in abandoned)


@transaction.atomic
def handoff_customer_away(*, conversation_id: uuid.UUID) -> int:
    """The customer's last connection closed: staff see them gone at once (the queue, and the
    owner's console), the places behind them move up, and for a waiting request the clock of
    ``HANDOFF_WAITING_EXPIRE_SECONDS`` starts (unless it is running already)."""
    gone = list(
        Handoff.objects.select_for_update().filter(
            conversation_id=conversation_id,
            status__in=(Handoff.Status.WAITING, Handoff.Status.ACTIVE),
            customer_left_at__isnull=True,
        )
    )
    now = timezone.now()
    for handoff in gone:
        handoff.customer_left_at = now
        handoff.save(update_fields=["customer_left_at"])
        _presence_changed(handoff, present=False)
    return sum(handoff.status == Handoff.Status.WAITING for handoff in gone)


@transaction.atomic
def handoff_customer_here(*, conversation_id: uuid.UUID) -> str | None:
    """A connection of the conversation opened: the owner's name, or None. A customer who was
    gone is there again (a waiting request's clock stops; staff see them back)."""
    handoff = (
        Handoff.objects.filter(
            conversation_id=conversation_id,
            status__in=(Handoff.Status.WAITING, Handoff.Status.ACTIVE),
        )
        .select_related("taken_by")
        .first()
    )
    if handoff is None:
        return None
    if handoff.customer_left_at is not None:
        back = Handoff.objects.filter(pk=handoff.pk, customer_left_at__isnull=False).update(
            customer_left_at=None
        )
        if back:
            _presence_changed(handoff, present=True)
    if handoff.status == Handoff.Status.ACTIVE:
        return staff_name(handoff.taken_by)
    return None


def _presence_changed(handoff: Handoff, *, present: bool) -> None:
    """Staff see the customer gone or back (after commit); the waiting hear their places."""
    queue_changed()
    if handoff.status == Handoff.Status.WAITING:
        positions_changed()
    else:
        publish(
            owner_group(handoff.conversation_id),
            {
                "type": "handoff.customer",
                "frame": {
                    "type": "customer_presence",
                    "conversationId": str(handoff.conversation_id),
                    "present": present,
                },
            },
        )


@transaction.atomic
def handoffs_expire_waiting(*, now=None) -> int:
    """Waiting requests whose customer has been gone past ``HANDOFF_WAITING_EXPIRE_SECONDS``
    expire; returns how many. Safe from any process, any number of times."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(seconds=settings.HANDOFF_WAITING_EXPIRE_SECONDS)
    gone = list(
        Handoff.objects.select_for_update().filter(
            status=Handoff.Status.WAITING, customer_left_at__lte=cutoff
        )
    )
    for handoff in gone:
        handoff.status, handoff.closed_at = Handoff.Status.EXPIRED, now
        handoff.save(update_fields=["status", "closed_at"])
        event_record(handoff, HandoffEvent.Kind.EXPIRED)
    if gone:
        queue_changed()
        positions_changed()
    return len(gone)


def person_available(*, now: dt.datetime | None = None) -> bool:
    """Whether a customer asking for a person now is queued for one (``handoff_rules.available``:
    a staff console open somewhere, within ``HANDOFF_OPENING_HOURS`` when they are set)."""
    now = now or timezone.now()
    spec = settings.HANDOFF_OPENING_HOURS
    if spec.strip().lower() in ("always", "never"):  # the hours decide alone: no read
        return available(spec, timezone.localtime(now), staff_online=False)
    return available(spec, timezone.localtime(now), staff_online=staff_online(now=now))


OFFLINE_OPTIONS = ("schedule_callback", "create_ticket")


def offline_frame(*, language: str, now: dt.datetime | None = None) -> dict:
    """What a customer hears when nobody is available: when staff are back, and a callback or a
    ticket instead (the consumer sends them as action cards after this frame)."""
    now = timezone.localtime(now or timezone.now())
    back = next_opening(settings.HANDOFF_OPENING_HOURS, now)
    if back is None:
        when = texts.localized(texts.HANDOFF_BACK_SOON, language)
    else:
        when = texts.localized(texts.HANDOFF_BACK_AT, language).format(
            when=texts.format_moment(back, language=language, now=now)
        )
    return {
        "type": "handoff_offline",
        "text": texts.localized(texts.HANDOFF_OFFLINE, language) + " " + when,
        "backAt": back.isoformat() if back else None,
        "options": list(OFFLINE_OPTIONS),
    }


def release(conversation_id, *, by=None, only_if_away_since=None) -> bool:
    """Take the conversation from its owner and put it back in the queue (waiting, or offline
    when nobody is available); False when nobody owns it. Locks the row; call in a transaction."""
    active = Handoff.objects.select_related("taken_by").filter(
        conversation_id=conversation_id, status=Handoff.Status.ACTIVE
    )
    if only_if_away_since is not None:
        active = active.filter(owner_left_at__lte=only_if_away_since)
    handoff = active.select_for_update().first()
    if handoff is None:
        return False
    owner = handoff.taken_by
    now = timezone.now()
    online = person_available(now=now)
    handoff.status = Handoff.Status.WAITING if online else Handoff.Status.OFFLINE
    handoff.taken_by, handoff.taken_at, handoff.owner_left_at = None, None, None
    handoff.closed_at = None if online else now
    handoff.save(update_fields=["status", "taken_by", "taken_at", "owner_left_at", "closed_at"])
    event_record(handoff, HandoffEvent.Kind.RELEASED, staff=by)
    to_customer(conversation_id, {"type": "agent_left", "name": staff_name(owner) if owner else ""})
    if online:
        to_customer(
            conversation_id,
            {"type": "handoff_queued", "position": handoff_position(handoff=handoff)},
        )
        positions_changed()
    else:
        to_customer(conversation_id, offline_frame(language=handoff.conversation.language))
    publish(
        owner_group(conversation_id),
        {"type": "handoff.closed", "conversationId": str(conversation_id)},
    )
    queue_changed()
    return True


@transaction.atomic
def handoff_customer_message(
    *, conversation_id: uuid.UUID, text: str, message_id: str = ""
) -> HandoffEvent | None:
    """The customer's message while a person owns the conversation; None when nobody does.

    Called when the customer's connection believes a person joined; a message
    it believes nobody owns goes through ``customer_message_begin``.
    """
    handoff = Handoff.objects.filter(
        conversation_id=conversation_id, status=Handoff.Status.ACTIVE
    ).first()
    if handoff is None:
        return None
    return _to_owner(handoff, text=text, message_id=message_id)


@dataclass(frozen=True)
class Begun:
    """How a customer's message began: the agent's turn, or a message to a person."""

    answer_pk: int | None = None  # the turn's answer row, in progress
    person: str | None = None  # the name of the person who owns the conversation


@transaction.atomic
def customer_message_begin(*, record) -> Begun:
    """A customer's message as its turn begins: to the person who owns the conversation,
    else the turn's question and answer row (``turn_begin``), in one transaction.

    ``record`` is a ``chat.pipeline.TurnRecord``. This is where the database
    says who owns the conversation when the customer's connection believes
    nobody does (a join it never heard of), at no cost beyond the write every
    turn makes anyway.
    """
    return customer_messages_begin(records=[record])[0]


@transaction.atomic(savepoint=False)
def customer_messages_begin(*, records: list) -> list[Begun]:
    """``customer_message_begin`` for many messages: one read of who owns their
    conversations, then the agent's turns together (``turns_begin``)."""
    conversations = {r.conversation_id for r in records}
    owned = {}
    if any_owned(conversations):  # rare: the plain read first, the join only when someone owns one
        active = Handoff.objects.filter(
            conversation_id__in=conversations, status=Handoff.Status.ACTIVE
        ).select_related("taken_by")
        owned = {str(h.conversation_id): h for h in active}
    begun: dict[int, Begun] = {}
    for record in records:
        if (handoff := owned.get(str(record.conversation_id))) is not None:
            _to_owner(handoff, text=record.question, message_id=record.message_id)
            begun[id(record)] = Begun(person=staff_name(handoff.taken_by))
    agent = [record for record in records if id(record) not in begun]
    for record, answer_pk in zip(agent, turns_begin(records=agent), strict=True):
        begun[id(record)] = Begun(answer_pk=answer_pk)
    return [begun[id(record)] for record in records]


def _to_owner(handoff: Handoff, *, text: str, message_id: str) -> HandoffEvent:
    """Record the customer's message and pass it to the owner's console (after commit)."""
    event = event_record(
        handoff, HandoffEvent.Kind.CUSTOMER_MESSAGE, text=text, message_id=message_id
    )
    publish(
        owner_group(handoff.conversation_id),
        {
            "type": "handoff.customer",
            "frame": {
                "type": "customer_message",
                "conversationId": str(handoff.conversation_id),
                "messageId": message_id,
                "text": text,
                "at": event.created_at.isoformat(),
            },
        },
    )
    return event


def _open_handoff(conversation_id) -> Handoff | None:
    return Handoff.objects.filter(
        conversation_id=conversation_id,
        status__in=(Handoff.Status.WAITING, Handoff.Status.ACTIVE),
    ).first()


def event_record(handoff: Handoff, kind: str, *, staff=None, text: str = "", message_id: str = ""):
    """One step of the handoff in the conversation's timeline (``HandoffEvent``, never edited)."""
    return HandoffEvent.objects.create(
        handoff=handoff,
        conversation_id=handoff.conversation_id,
        kind=kind,
        staff=staff,
        text=text,
        message_id=message_id,
    )
