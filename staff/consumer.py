"""The staff console's WebSocket (``/ws/staff/``): the live queue, take, reply, hand back.

Authenticated by the Django session (the admin login); only active staff with
``chat.handle_handoff`` get in. Frames are listed in docs/protocol.md ("Staff
console"). Each hook parses a frame and calls one service of ``staff.handoff``;
what other processes must hear goes over the channel layer.

Who may stay is checked again, not only at the handshake:

| when | check | if it fails |
|---|---|---|
| a frame in, a queue or customer event out | ``still_allowed`` | close, 4403 |
| the user logs out (``user_logged_out``) | none: the session's sockets hear it | close, 4403 |

``still_allowed`` reads the session and the user afresh from the database, at
most every ``STAFF_RECHECK_SECONDS`` per socket.
"""

import asyncio
import contextlib
import hashlib
import logging
import time
import uuid

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.contrib.sessions.backends.base import SessionBase
from django.dispatch import receiver

from chat import handoff as chat_handoff
from chat.asyncdb import off_loop, off_loop_later
from chat.models import Handoff
from chat.ratelimit import limiter_from_setting
from staff import handoff
from staff.permissions import may_handle_handoffs
from staff.selectors import (
    InboxQueryError,
    colleagues,
    handoff_customer_present,
    handoff_history,
    handoff_queue,
    handoff_queue_total,
    inbox,
    saved_replies,
)

logger = logging.getLogger(__name__)

MAX_REPLY_CHARS = 4000
DENIED = 4403  # close code before accept: the handshake is refused with 403


def still_allowed(user_pk, session: SessionBase | None) -> bool:
    """The session still exists and its user may still handle handoffs (fresh from the database)."""
    if session is None or not session.session_key or not session.exists(session.session_key):
        return False
    user = get_user_model().objects.filter(pk=user_pk).first()
    return may_handle_handoffs(user)


def session_group(session_key: str) -> str:
    """The channel layer group of one browser session's staff sockets (the key hashed)."""
    return "staff.session." + hashlib.sha256(session_key.encode()).hexdigest()[:32]


@receiver(user_logged_out)
def close_staff_sockets_on_logout(sender, request, user, **kwargs) -> None:
    """Every process's staff sockets of this browser session close (``staff_logout``)."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    layer = get_channel_layer()
    if not session_key or layer is None:
        return
    try:
        async_to_sync(layer.group_send)(session_group(session_key), {"type": "staff.logout"})
    except Exception:
        logger.warning("Could not tell the staff sockets of a logged-out session", exc_info=True)


# This process's open staff consoles, by user: a second tab keeps what the user owns.
_CONSOLES: dict[int, set] = {}


def _release_later() -> None:
    """Release what is still abandoned once the grace has passed (the task outlives the socket)."""
    off_loop_later(settings.HANDOFF_RELEASE_SECONDS + 0.1, chat_handoff.handoffs_release_abandoned)


def _queue_page() -> tuple[list[dict], int]:
    return handoff_queue(), handoff_queue_total()


def _owned_conversations(user) -> list[str]:
    return [
        str(pk)
        for pk in Handoff.objects.filter(status=Handoff.Status.ACTIVE, taken_by=user).values_list(
            "conversation_id", flat=True
        )
    ]


class StaffConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        """Staff with the handoff permission only; then the queue and their open conversations."""
        self.user = self.scope.get("user")
        self.owned: set[str] = set()
        self.limiter = limiter_from_setting(settings.STAFF_RATE_LIMIT)
        if not await database_sync_to_async(may_handle_handoffs)(self.user):
            await self.close(code=DENIED)
            return
        self.session = self.scope.get("session")
        self.checked_at = time.monotonic()
        self.groups_joined = [chat_handoff.STAFF_GROUP, session_group(self.session.session_key)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        _CONSOLES.setdefault(self.user.pk, set()).add(self)
        # A person is there to answer while this console is open (handoff.person_available).
        await off_loop(handoff.staff_console_open)(channel_name=self.channel_name, staff=self.user)
        self.presence = asyncio.get_running_loop().create_task(self._stay_present())
        await off_loop(handoff.handoff_owner_back)(staff=self.user)
        await off_loop(chat_handoff.handoffs_release_abandoned)()  # a process that died meanwhile
        await off_loop(chat_handoff.handoffs_expire_waiting)()
        await self._send_queue()
        await self.send_json(
            {
                "type": "workspace",
                "colleagues": await off_loop(colleagues)(staff=self.user),
                "savedReplies": await off_loop(saved_replies)(),
            }
        )
        for conversation_id in await off_loop(_owned_conversations)(self.user):
            await self._open(conversation_id)

    async def disconnect(self, code: int) -> None:
        """Leave the groups. What this staff member owns stays theirs for
        ``HANDOFF_RELEASE_SECONDS``; if no console of theirs opens meanwhile, it goes back to the
        queue (``handoffs_release_abandoned``, run here after the grace and by any process)."""
        for group in getattr(self, "groups_joined", ()):
            await self.channel_layer.group_discard(group, self.channel_name)
        if (presence := getattr(self, "presence", None)) is not None:
            presence.cancel()
            await off_loop(handoff.staff_console_close)(channel_name=self.channel_name)
        consoles = _CONSOLES.get(getattr(self.user, "pk", None), set())
        consoles.discard(self)
        if self.owned and not consoles:
            await off_loop(handoff.handoff_owner_away)(
                staff=self.user, conversation_ids=sorted(self.owned)
            )
            _release_later()
        for conversation_id in self.owned:
            await self.channel_layer.group_discard(
                chat_handoff.owner_group(conversation_id), self.channel_name
            )

    async def receive_json(self, content, **kwargs) -> None:
        """One frame: take, message, typing or hand_back, each for one conversation."""
        if not await self._still_allowed():
            return
        if not self.limiter.allow():
            await self._error("rate_limited", "Too many frames; slow down.")
            return
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "inbox":
            await self.on_inbox(content)
            return
        handler = self.handlers.get(kind)
        conversation_id = _conversation_id(content)
        if handler is None or conversation_id is None:
            await self._error(
                "invalid_message",
                "Expected inbox, or take, message, typing, hand_back, assign, resolve, reopen or "
                "note with a conversationId.",
            )
            return
        await handler(self, conversation_id, content)

    async def on_inbox(self, content: dict) -> None:
        """One state of the inbox (waiting, mine, open, resolved), searched by ``query``."""
        state, query = content.get("state"), content.get("query", "")
        if not isinstance(state, str) or not isinstance(query, str):
            await self._error("invalid_message", "'state' and 'query' must be strings.")
            return
        try:
            items = await off_loop(inbox)(staff=self.user, state=state, query=query)
        except InboxQueryError as exc:
            await self._error("invalid_message", str(exc))
            return
        await self.send_json({"type": "inbox", "state": state, "query": query, "items": items})

    async def on_take(self, conversation_id: str, content: dict) -> None:
        """Take a waiting conversation: exactly one staff member wins."""
        try:
            await off_loop(handoff.handoff_take)(conversation_id=conversation_id, staff=self.user)
        except handoff.AlreadyTaken as exc:
            await self.send_json(
                {"type": "take_failed", "conversationId": conversation_id, "takenBy": exc.owner}
            )
            return
        await self._open(conversation_id)

    async def on_message(self, conversation_id: str, content: dict) -> None:
        """Send the customer a message (only the owner may). A number the KB does not state
        about its subject is flagged first (``flagged``, nothing sent); the same text with
        ``"overFlag": true`` goes, and the timeline records it was sent over the flag."""
        text = _text(content)
        if text is None:
            await self._error("invalid_message", f"'text' must be 1..{MAX_REPLY_CHARS} characters.")
            return
        if conversation_id not in self.owned:
            await self._error("not_owner", "You do not own this conversation.")
            return
        flags = await off_loop(handoff.staff_message_flags)(text=text)
        if flags and content.get("overFlag") is not True:
            await self.send_json(
                {
                    "type": "flagged",
                    "conversationId": conversation_id,
                    "text": text,
                    "unsupported": flags,
                }
            )
            return
        try:
            event = await off_loop(handoff.handoff_staff_message)(
                conversation_id=conversation_id, staff=self.user, text=text, flags=flags
            )
        except handoff.NotOwner:
            await self._error("not_owner", "You do not own this conversation.")
            return
        await self.send_json(
            {
                "type": "sent",
                "conversationId": conversation_id,
                "messageId": event.message_id,
                "text": event.text,
            }
        )

    async def on_typing(self, conversation_id: str, content: dict) -> None:
        """Show the customer that the owner is typing."""
        if conversation_id in self.owned:
            await self.channel_layer.group_send(
                chat_handoff.customer_group(conversation_id),
                {"type": "handoff.frame", "frame": {"type": "agent_typing"}},
            )

    async def on_hand_back(self, conversation_id: str, content: dict) -> None:
        """Leave the conversation: the agent answers the customer again."""
        try:
            await off_loop(handoff.handoff_hand_back)(
                conversation_id=conversation_id, staff=self.user
            )
        except handoff.NotOwner:
            await self._error("not_owner", "You do not own this conversation.")

    async def on_assign(self, conversation_id: str, content: dict) -> None:
        """Give the conversation to a colleague (``to``: their user id)."""
        to = await off_loop(_colleague)(content.get("to"))
        if to is None:
            await self._error("invalid_message", "'to' must be a colleague's id.")
            return
        await self._owner_step(
            handoff.handoff_assign, conversation_id=conversation_id, staff=self.user, to=to
        )

    async def on_resolve(self, conversation_id: str, content: dict) -> None:
        """Resolve the conversation: the agent answers the customer again."""
        await self._owner_step(
            handoff.handoff_resolve, conversation_id=conversation_id, staff=self.user
        )

    async def on_reopen(self, conversation_id: str, content: dict) -> None:
        """Reopen a resolved conversation: it is this staff member's again."""
        try:
            await off_loop(handoff.handoff_reopen)(conversation_id=conversation_id, staff=self.user)
        except handoff.NotAllowed:
            await self._error("not_allowed", "Only a resolved conversation can be reopened.")
            return
        await self._open(conversation_id)

    async def on_note(self, conversation_id: str, content: dict) -> None:
        """A private note on the conversation's timeline; the customer never sees it."""
        text = _text(content)
        if text is None:
            await self._error("invalid_message", f"'text' must be 1..{MAX_REPLY_CHARS} characters.")
            return
        try:
            await off_loop(handoff.handoff_note)(
                conversation_id=conversation_id, staff=self.user, text=text
            )
        except handoff.NotAllowed:
            await self._error("not_allowed", "No handoff of this conversation to note on.")
            return
        if conversation_id not in self.owned:  # the owner's consoles hear it over the layer
            await self.send_json(
                {"type": "note", "conversationId": conversation_id, "text": text, "by": ""}
            )

    handlers = {
        "take": on_take,
        "message": on_message,
        "typing": on_typing,
        "hand_back": on_hand_back,
        "assign": on_assign,
        "resolve": on_resolve,
        "reopen": on_reopen,
        "note": on_note,
    }

    # -- channel layer events --------------------------------------------------

    async def handoff_queue(self, event: dict) -> None:
        """The queue changed somewhere: send the current one."""
        if await self._still_allowed():
            await self._send_queue()

    async def handoff_customer(self, event: dict) -> None:
        """The customer of a conversation this staff member owns wrote or is typing."""
        if await self._still_allowed():
            await self.send_json(event["frame"])

    async def handoff_assigned(self, event: dict) -> None:
        """A colleague assigned a conversation: the assignee's consoles open it."""
        if event["to"] == self.user.pk and await self._still_allowed():
            await self._open(event["conversationId"])

    async def staff_logout(self, event: dict) -> None:
        """This browser session logged out: close its staff sockets."""
        await self.close(code=DENIED)

    async def handoff_closed(self, event: dict) -> None:
        """The conversation was handed back: stop following it."""
        conversation_id = event["conversationId"]
        self.owned.discard(conversation_id)
        await self.channel_layer.group_discard(
            chat_handoff.owner_group(conversation_id), self.channel_name
        )
        await self.send_json({"type": "closed", "conversationId": conversation_id})

    # -- helpers ---------------------------------------------------------------

    async def _still_allowed(self) -> bool:
        """The table's first row; closes the socket when the answer is no."""
        if time.monotonic() - self.checked_at < settings.STAFF_RECHECK_SECONDS:
            return True
        allowed = await off_loop(still_allowed)(self.user.pk, self.session)
        self.checked_at = time.monotonic()
        if not allowed:
            await self.close(code=DENIED)
        return allowed

    async def _stay_present(self) -> None:
        """Say every ``STAFF_PRESENCE_SECONDS`` that this console is still open."""
        while True:
            await asyncio.sleep(settings.STAFF_PRESENCE_SECONDS)
            with contextlib.suppress(Exception):  # the database is away: the next beat tries
                await off_loop(handoff.staff_console_seen)(channel_names=[self.channel_name])

    async def _open(self, conversation_id: str) -> None:
        self.owned.add(conversation_id)
        await self.channel_layer.group_add(
            chat_handoff.owner_group(conversation_id), self.channel_name
        )
        history = await off_loop(handoff_history)(conversation_id=conversation_id)
        present = await off_loop(handoff_customer_present)(conversation_id=conversation_id)
        await self.send_json(
            {
                "type": "conversation",
                "conversationId": conversation_id,
                "history": history,
                "customerPresent": present,  # False: taken, but the customer has gone
            }
        )

    async def _send_queue(self) -> None:
        items, total = await off_loop(_queue_page)()
        await self.send_json({"type": "queue", "items": items, "total": total})

    async def _owner_step(self, step, **kwargs) -> None:
        """A step only the owner may take (assign, resolve): ``not_owner`` otherwise."""
        try:
            await off_loop(step)(**kwargs)
        except handoff.NotOwner:
            await self._error("not_owner", "You do not own this conversation.")
        except handoff.NotAllowed:
            await self._error("not_allowed", "That colleague may not handle handoffs.")

    async def _error(self, code: str, message: str) -> None:
        await self.send_json({"type": "error", "code": code, "message": message})


def _text(content: dict) -> str | None:
    """The frame's ``text``, stripped; None unless 1..MAX_REPLY_CHARS characters."""
    text = content.get("text")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_REPLY_CHARS:
        return None
    return text.strip()


def _colleague(user_id):
    """The user with this id, or None (any type but an int is None)."""
    if not isinstance(user_id, int) or isinstance(user_id, bool):
        return None
    return get_user_model().objects.filter(pk=user_id).first()


def _conversation_id(content) -> str | None:
    try:
        return str(uuid.UUID(str(content.get("conversationId"))))
    except (AttributeError, ValueError):
        return None
