"""The chat WebSocket: parses frames, calls one service each, sends the events back.

Only Channels' public hooks: ``connect``, ``decode_json`` (frame to JSON),
``receive_json`` (JSON to a command, to its handler), ``encode_json``
(orjson), ``disconnect``, and the channel-layer event handlers. Where each
client message type is handled: ``ChatConsumer.handlers`` below. The turns
run in a ``chat.turns.TurnRunner``; the turn itself is ``chat.pipeline``.

The website widget's socket (``/ws/widget/``, ``widget=True``) is the same
consumer: it is accepted without a conversation, and its first frame,
``resume``, presents the conversation token (``chat.widget``).

Every tab of a conversation sees the same turn: its question (``user_message``),
its text as it streams (``stream_sync``: the whole text so far, at most every
``TAB_SYNC_SECONDS``), its ``stream_end``, ``response`` and card, through the
conversation's group. A socket that goes away mid-turn (a reload, a drop) does
not stop the turn: it goes on, its frames to the other tabs, and the
conversation's next socket on this process adopts it and is sent where it is
(``chat.turns.TurnRunner.replay``).

Frames that are not JSON text never leave the JSON hooks as exceptions
(Channels ends the connection on one): ``decode_json`` returns the frame's
``ProtocolError`` and ``receive_json`` answers it with an error frame.
Binary and empty frames are the one case the JSON hooks cannot express
(``AsyncJsonWebsocketConsumer.receive`` raises on them before any hook runs),
so ``websocket_receive``, the consumer's documented handler for the ASGI
``websocket.receive`` event, sends those to ``receive_json`` the same way and
passes every other frame on to Channels unchanged.
"""

import asyncio
import logging
import secrets
import time

import orjson
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer
from django.conf import settings
from django.utils import timezone

from chat import protocol, texts
from chat.action_calls import PhoneProblem, SuggestionNotFound
from chat.composition import ChatServices, chat_services
from chat.edge import ConnectionSlot, client_address
from chat.handoff import TooManyRequests, owner_group
from chat.handoff_rules import asks_for_person
from chat.logcontext import bind_conversation
from chat.models import Handoff
from chat.pipeline import Turn
from chat.protocol import ErrorCode, ProtocolError, error_frame
from chat.ratelimit import limiter_from_setting
from chat.services import MessageNotFound
from chat.turns import TurnRunner
from grounding.broadcast import KB_GROUP

logger = logging.getLogger(__name__)


# The other tabs get a streaming answer's whole text at most this often.
TAB_SYNC_SECONDS = 0.2


def conversation_group(conversation_id) -> str:
    return f"conversation.{conversation_id}"


def new_message_id() -> str:
    return f"msg_{int(time.time() * 1000)}_{secrets.token_hex(4)}"


class ChatConsumer(AsyncJsonWebsocketConsumer):
    # The person who owns the conversation (live handoff); None while the agent answers.
    person: str | None = None
    closing = False
    groups_joined: tuple[str, ...] = ()
    context = None  # the conversation's ConversationContext once known
    held: list[dict] | None = None  # a turn's frames that wait while its replay is sent
    ready = False  # the client may be sent an adopted turn's replay
    parked = False  # this socket went away mid-turn; its turn is parked (_park_turn)

    def __init__(
        self, *args, services: ChatServices | None = None, widget: bool = False, **kwargs
    ) -> None:
        """``services``: fakes for a test (``as_asgi(services=...)``); else the process's.

        ``widget``: the widget's socket, whose first frame presents its token.
        """
        super().__init__(*args, **kwargs)
        self.services = services or chat_services()
        self.widget = widget
        # Every frame of a turn goes through the handoff gate (see _agent_frame).
        self.turns = TurnRunner(self._agent_frame, on_person=self._person_found)
        # messageId -> (its text so far, when the other tabs were last sent it)
        self.tab_text: dict[str, list] = {}

    # -- Channels' hooks -------------------------------------------------------

    @classmethod
    async def decode_json(cls, text_data: str):
        """The frame's JSON (orjson), or the ``ProtocolError`` saying what is wrong with it."""
        return _decoded(text_data, None)

    @classmethod
    async def encode_json(cls, content: dict) -> str:
        return orjson.dumps(content).decode()

    async def websocket_receive(self, message: dict) -> None:
        """Binary and empty frames get their error frame; text frames go to Channels as usual."""
        if message.get("text"):
            await super().websocket_receive(message)
        else:
            await self.receive_json(_decoded(message.get("text"), message.get("bytes")))

    async def connect(self) -> None:
        """Resume the browser session's conversation (or start one) and accept.

        The widget's socket is accepted without one: its conversation comes with
        its first frame (``resume``, ``on_resume``). The connection's slot
        (per-address count, open-connections gauge) is released on every path
        that does not end in an open connection.
        """
        services = self.services
        self.address = client_address(self.scope)
        self.slot = ConnectionSlot(services.connections, self.address)
        self.scope.get("connection_slots", []).append(self.slot)
        if not self.slot.admit(limit=settings.WS_MAX_CONNECTIONS_PER_IP):
            await self.accept()
            await self._refuse(
                ErrorCode.TOO_MANY_CONNECTIONS, "Too many connections from your address.", 1008
            )
            return
        try:
            self.limiter = limiter_from_setting(settings.WS_RATE_LIMIT)
            self.flood = limiter_from_setting(settings.WS_FLOOD_LIMIT)
            if not self.widget:
                context = await services.conversation(session_key=self.scope.get("session_key", ""))
                if not await self._open(context):
                    self.slot.release()
                    await self.close()  # the handshake is refused; the client retries
                    return
            await self.accept()
        except BaseException:
            self.slot.release()
            raise
        services.live.register(self)
        services.metrics.connection_opened()
        self.slot.on_release(services.metrics.connection_closed)
        if self.person is not None:  # a reload while a person owns the conversation
            await self.send_json({"type": "agent_joined", "name": self.person})
        elif not self.widget:
            self.ready = True
            await self._adopt_turns()

    async def receive_json(self, content, **kwargs) -> None:
        """One decoded frame: the command's handler, or one error frame for bad input."""
        if self.closing:
            return
        if not self.flood.allow():
            await self._refuse(ErrorCode.FLOOD, "Too many frames; closing.", 1008)
            return
        if isinstance(content, ProtocolError) and content.close_code:
            await self._refuse(content.code, content.message, content.close_code)
            return
        try:
            if isinstance(content, ProtocolError):
                raise content
            command = protocol.parse_command(content, max_text_chars=settings.WS_MAX_TEXT_CHARS)
            if (self.context is None) != isinstance(command, protocol.Resume):
                await self._refuse(*_out_of_order(self.widget, command))
                return
            unlimited = isinstance(command, protocol.Cancel | protocol.Typing)
            if not unlimited and not self.limiter.allow():
                raise ProtocolError(ErrorCode.RATE_LIMITED, "Too many messages; slow down.")
            await self.handlers[type(command)](self, command)
        except ProtocolError as exc:
            if self.context is None:  # the widget's resume: nothing to go on with
                await self._refuse(exc.code, exc.message, 1008)
                return
            await self.send_json(exc.frame())
        except Exception:
            logger.exception("Unexpected error handling a frame")
            await self.send_json(error_frame(ErrorCode.INTERNAL, "Something went wrong."))

    async def disconnect(self, code: int) -> None:
        """Leave the groups; a running turn goes on for the conversation's other tabs and its
        next connection (parked), unless the server closed this one. A widget token's expiry
        timer stops."""
        expiry = getattr(self, "_expiry", None)
        if expiry is not None:
            expiry.cancel()
        try:
            context = getattr(self, "context", None)
            if context is not None and self.turns.running and not self.closing:
                await self._park_turn()
            elif not self.parked:
                await self.turns.stop()
            for group in self.groups_joined:
                try:
                    await self.channel_layer.group_discard(group, self.channel_name)
                except Exception:  # the layer is away; its group entries expire
                    logger.warning("Could not leave %s", group, exc_info=True)
            if context is not None and self.services.live.alone_in(self, context.id):
                # The customer's last tab here closed: a waiting request's clock runs.
                await self.services.customer_left(conversation_id=context.id)
        finally:
            slot = getattr(self, "slot", None)
            if slot is not None:
                slot.release()
            self.services.live.unregister(self)

    # -- handlers, one per client message type ---------------------------------

    async def on_message(self, command: protocol.SendMessage) -> None:
        """To the person who owns the conversation; else a request for one; else a new turn.

        The database says who owns the conversation at every message: here when a
        person joined as far as this connection knows, else in the turn's first
        write (``chat.handoff.customer_message_begin``), which routes the message
        to a person whose join never reached us.
        """
        message_id = command.id or new_message_id()
        await self._tell_other_tabs(
            "tab.frame", {"type": "user_message", "messageId": message_id, "text": command.text}
        )
        if self.person is not None:
            # A DatabaseError propagates: never let the agent answer a conversation a person owns.
            delivered = await self.services.message_to_person(
                conversation_id=self.context.id, text=command.text, message_id=message_id
            )
            if delivered is not None:
                await self.send_json({"type": "handoff_delivered", "messageId": message_id})
                return
            self.person = None  # a missed agent_left: nobody owns it now
        if asks_for_person(command.text):
            await self.send_json({"type": "handoff_delivered", "messageId": message_id})
            await self._request_handoff(Handoff.Source.PHRASE, command.text)
            return
        turn = Turn(
            context=self.context,
            text=command.text,
            message_id=message_id,
            services=self.services.turn,
            page_language=command.language,
        )
        await self.turns.start(turn)

    async def on_resume(self, command: protocol.Resume) -> None:
        """The widget's token: its conversation (new or resumed), or ``token_refused``."""
        context = await self.services.widget_conversation(
            token=command.token, language=command.language
        )
        if context is None:
            await self._token_refused()
            return
        if not await self._open(context):
            await self.close(code=1011)  # the channel layer is away; the widget retries
            return
        await self.send_json({"type": "resumed", "conversationId": str(context.id)})
        self._close_at_expiry(context.token_expires_at)
        if self.person is not None:
            await self.send_json({"type": "agent_joined", "name": self.person})
        else:
            self.ready = True
            await self._adopt_turns()

    async def on_handoff_request(self, command: protocol.RequestHandoff) -> None:
        """Queue the conversation for a person (or, outside opening hours, offer alternatives)."""
        await self._request_handoff(Handoff.Source.BUTTON, "")

    async def on_typing(self, command: protocol.Typing) -> None:
        """Show the person who owns the conversation that the customer is typing."""
        if self.person is not None:
            await self.channel_layer.group_send(
                owner_group(self.context.id),
                {
                    "type": "handoff.customer",
                    "frame": {"type": "customer_typing", "conversationId": str(self.context.id)},
                },
            )

    async def on_cancel(self, command: protocol.Cancel) -> None:
        """Stop the stream between tokens; a no-op when nothing is streaming."""
        await self.turns.cancel()

    async def on_confirm(self, command: protocol.ConfirmAction) -> None:
        """Run a suggested action, at most once; every tab of the conversation sees it run."""
        outcome = await self._action(
            self.services.confirm_action,
            command.suggestion_id,
            phone=command.phone,
            contact=command.contact,
        )
        result = outcome["result"]
        self.services.metrics.action_confirmed(result)
        frame = {
            "type": "action_executed",
            "suggestionId": command.suggestion_id,
            "result": result,
            "card": outcome["card"],
        }
        await self.send_json(frame)
        if not result["ignored"]:
            await self._tell_other_tabs("action.executed", frame)

    async def on_reject(self, command: protocol.RejectAction) -> None:
        """Reject a suggested action; it can never run afterwards. Every tab sees it."""
        outcome = await self._action(self.services.reject_action, command.suggestion_id)
        frame = {
            "type": "action_rejected",
            "suggestionId": command.suggestion_id,
            "result": outcome["result"],
            "card": outcome["card"],
        }
        await self.send_json(frame)
        if not outcome["result"]["ignored"]:
            await self._tell_other_tabs("action.rejected", frame)

    async def on_feedback(self, command: protocol.GiveFeedback) -> None:
        """Keep a thumbs up/down (and comment) on one of this conversation's answers."""
        await self.services.audit_drain()  # the answer's row may still be on its way
        try:
            await self.services.give_feedback(
                conversation_id=self.context.id,
                message_id=command.message_id,
                rating=command.rating,
                comment=command.comment,
                reason=command.reason,
            )
        except MessageNotFound:
            raise ProtocolError(
                ErrorCode.NOT_FOUND, "No such answer.", messageId=command.message_id
            ) from None
        await self.send_json(
            {"type": "feedback_received", "messageId": command.message_id, "rating": command.rating}
        )

    handlers = {
        protocol.SendMessage: on_message,
        protocol.Cancel: on_cancel,
        protocol.ConfirmAction: on_confirm,
        protocol.RejectAction: on_reject,
        protocol.GiveFeedback: on_feedback,
        protocol.RequestHandoff: on_handoff_request,
        protocol.Typing: on_typing,
        protocol.Resume: on_resume,
    }

    # -- channel layer events --------------------------------------------------

    async def action_executed(self, event: dict) -> None:
        """Another tab of this conversation ran an action: show its result here too."""
        if event["origin"] != self.channel_name:
            await self.send_json(event["frame"])

    async def handoff_frame(self, event: dict) -> None:
        """A person joined, wrote, typed or left (on any process): tell the customer.

        When a person joins, the running turn is ended first (its frames,
        stream_end included, come before agent_joined) and from then on the
        gate drops every agent frame until agent_left.
        """
        frame = event["frame"]
        if frame["type"] == "agent_joined":
            await self.turns.cancel()
            self.person = frame["name"]
        elif frame["type"] == "agent_left":
            self.person = None
        await self.send_json(frame)

    async def action_suggested(self, event: dict) -> None:
        """Another tab of this conversation got a suggestion: show its card here too."""
        if event["origin"] != self.channel_name:
            await self.send_json(event["frame"])

    async def action_rejected(self, event: dict) -> None:
        """Another tab of this conversation declined an action: show it here too."""
        if event["origin"] != self.channel_name:
            await self.send_json(event["frame"])

    async def tab_frame(self, event: dict) -> None:
        """Another tab of this conversation sent a message or got an answer: show it here too."""
        if event["origin"] != self.channel_name:
            await self.send_json(event["frame"])

    async def token_revoked(self, event: dict) -> None:
        """Staff revoked this widget conversation's token: the widget starts a new one."""
        if self.widget:
            await self._token_refused()

    async def kb_reindexed(self, event: dict) -> None:
        """A reindex committed somewhere: load the new index now, not on the next question."""
        await self.services.refresh_index(version=event["version"])

    # -- server shutdown (chat.shutdown) ----------------------------------------

    async def shut_down(self) -> None:
        """Server shutdown: stop the stream (recorded as interrupted), say so, close 1001."""
        if self.closing:
            return
        self.closing = True
        try:
            await self.turns.interrupt()
            await self.send_json(
                error_frame(
                    ErrorCode.SERVER_SHUTDOWN,
                    texts.localized(
                        texts.SERVER_RESTARTING, self.context.language if self.context else "sv"
                    ),
                )
            )
            await self.close(code=1001)
        except Exception:  # the client may be gone already
            logger.debug("Shutdown: client already gone", exc_info=True)
        await self.services.audit_drain()

    # -- helpers ---------------------------------------------------------------

    async def _agent_frame(self, frame: dict) -> None:
        """Every frame of the agent passes here: none goes out while a person owns the chat.

        The conversation's other tabs follow the turn (``_tabs_follow``).
        """
        if self.person is not None:
            return
        if self.held is not None:  # an adopted turn's replay is being sent
            self.held.append(frame)
            return
        try:
            await self.send_json(frame)
        except Exception:  # the socket closed before its disconnect reached the consumer
            if self.closing:
                return
            logger.info("Socket gone mid-turn; the turn goes on for the conversation")
            await self._park_turn()
        await self._tabs_follow(frame)

    async def _park_turn(self) -> None:
        """This socket went away mid-turn: the turn goes on, its frames to the other tabs, and
        waits for the conversation's next socket here (or an open one adopts it now)."""
        if self.parked:
            return
        self.parked = True
        if not self.turns.running:  # the frame was of an adopted turn; its tabs follow it
            return
        self.turns.detach(self._detached_frame)
        live = self.services.live
        live.park(self.context.id, self.turns, grace=settings.PARKED_TURN_GRACE_SECONDS)
        for other in live.others_in(self, self.context.id):
            if await other.adopt_parked():
                break

    async def adopt_parked(self) -> bool:
        """Another socket of the conversation parked its turn: this one takes it, if it can."""
        if not self.ready or self.closing or self.parked or self.person is not None:
            return False
        try:
            await self._adopt_turns()
        except Exception:  # this socket is going away too; the turn stays with the group
            logger.debug("Could not adopt a parked turn", exc_info=True)
            return False
        return True

    async def _detached_frame(self, frame: dict) -> None:
        """The frames of a turn whose socket went away: to the conversation's other tabs."""
        if self.person is None:
            await self._tabs_follow(frame)

    async def _tabs_follow(self, frame: dict) -> None:
        """The other tabs get the turn's text so far (at most every ``TAB_SYNC_SECONDS``),
        its end, its response and its card."""
        if self.context is None:  # no conversation yet: no other tab
            return
        kind = frame["type"]
        if kind == "stream":
            message_id = frame["messageId"]
            entry = self.tab_text.setdefault(message_id, ["", 0.0])
            entry[0] += frame["delta"]
            now = time.monotonic()
            if now - entry[1] >= TAB_SYNC_SECONDS:
                entry[1] = now
                sync = {"type": "stream_sync", "messageId": message_id, "text": entry[0]}
                turn = self.turns.turn
                if turn is not None and turn.message_id == message_id:
                    sync["question"] = turn.question  # a tab that came later shows it too
                await self._tell_other_tabs("tab.frame", sync)
        elif kind == "action_suggestion":
            await self._tell_other_tabs("action.suggested", frame)
        elif kind in ("stream_end", "response", "error") and frame.get("messageId"):
            if kind == "stream_end":
                self.tab_text.pop(frame["messageId"], None)
            await self._tell_other_tabs("tab.frame", frame)

    async def _adopt_turns(self) -> None:
        """The turns this conversation's last socket here left running: this socket's now.

        Each one's replay (question, text so far, frames since) goes out first; its frames
        meanwhile wait (``held``), so nothing comes before the text it follows.
        """
        for runner in self.services.live.adopt(self.context.id):
            self.held = []
            try:
                replay = runner.attach(self._agent_frame, on_person=self._person_found)
                if runner.running and not self.turns.running:
                    self.turns = runner
                    if runner.streaming_id is not None:
                        self.tab_text[runner.streaming_id] = [runner.text, 0.0]
                for frame in replay:
                    await self.send_json(frame)
            finally:
                held, self.held = self.held, None
            for frame in held:
                await self._agent_frame(frame)

    async def _person_found(self, name: str) -> None:
        """A turn's beginning found that a person owns the conversation (their join never
        reached us): the message went to them, and the agent is silent from now on."""
        self.person = name
        await self.send_json({"type": "agent_joined", "name": name})

    async def _request_handoff(self, source: str, text: str) -> None:
        await self.turns.cancel()
        await self.services.audit_drain()  # the person reads the history, last answer included
        context = self.context
        try:
            result = await self.services.request_handoff(
                conversation_id=context.id,
                session_key=context.session_key,
                language=context.language,
                source=source,
                text=text,
                client_address=self.address,
            )
        except TooManyRequests:
            raise ProtocolError(
                ErrorCode.RATE_LIMITED,
                "Too many requests for a person are waiting from your address; "
                "one of them will be answered.",
            ) from None
        if result.offline:
            # When staff are back, then the callback and the ticket as action cards.
            await self.send_json(result.frame)
            for action in result.frame["options"]:
                card = await self.services.turn.suggest(
                    context=context, action=action, payload={}, message_id=""
                )
                await self._agent_frame(card)
        elif result.position is not None:
            await self.send_json({"type": "handoff_queued", "position": result.position})
        elif result.owner:  # asked again while a person owns the conversation
            await self.send_json({"type": "agent_joined", "name": result.owner})

    async def _open(self, context) -> bool:
        """Make ``context`` this connection's conversation and join its groups.

        False when the channel layer is unavailable (the connection cannot go on).
        """
        self.context = context
        context.client_address = self.address
        self.services.live.entered(self, context.id)
        self.person = await self.services.customer_connected(conversation_id=context.id)
        if not await self._join_groups(conversation_group(context.id), KB_GROUP):
            return False
        bind_conversation(context.id)
        return True

    def _close_at_expiry(self, expires_at) -> None:
        """The token expires while its socket is open: it is refused then, as on revocation."""
        if expires_at is None:
            return
        delay = max((expires_at - timezone.now()).total_seconds(), 0.0)
        if getattr(self, "_expiry", None) is not None:
            self._expiry.cancel()
        self._expiry = asyncio.get_running_loop().call_later(delay, self._expired)

    def _expired(self) -> None:
        if not self.closing:
            self._expiring = asyncio.ensure_future(self._token_refused())

    async def _token_refused(self) -> None:
        """The widget's token may not resume (revoked, expired): it makes a new one."""
        self.closing = True
        await self.turns.stop()
        await self.send_json({"type": "token_refused"})
        await self.close(code=4001)

    async def _refuse(self, code: str, message: str, close_code: int) -> None:
        """One error frame, then close with ``close_code`` (1008 policy, 1009 too big)."""
        self.closing = True
        await self.send_json(error_frame(code, message))
        await self.close(code=close_code)

    async def _join_groups(self, *groups: str) -> bool:
        """Join ``groups``; one retry per group (the first use of a pooled connection
        after a Redis restart fails). False when the channel layer is unavailable."""
        for group in groups:
            for attempt in (1, 2):
                try:
                    await self.channel_layer.group_add(group, self.channel_name)
                    break
                except Exception:
                    if attempt == 2:
                        logger.error("Channel layer unavailable; refusing a connection")
                        return False
                    await asyncio.sleep(0.05)
            self.groups_joined += (group,)
        return True

    async def _tell_other_tabs(self, event_type: str, frame: dict) -> None:
        # One process (the in-memory layer) knows every tab: a lone tab tells no one. Channels'
        # in-memory group_send costs a pass over every channel of the process, which at 500
        # clients doubled the CPU of a turn (docs/performance.md).
        local = isinstance(self.channel_layer, InMemoryChannelLayer)
        if local and self.services.live.alone_in(self, self.context.id):
            return
        await self.channel_layer.group_send(
            conversation_group(self.context.id),
            {"type": event_type, "frame": frame, "origin": self.channel_name},
        )

    async def _action(self, call, suggestion_id: str, **fields) -> dict:
        try:
            return await call(context=self.context, suggestion_id=suggestion_id, **fields)
        except SuggestionNotFound:
            raise ProtocolError(
                ErrorCode.NOT_FOUND, "No such suggestion.", suggestionId=suggestion_id
            ) from None
        except PhoneProblem as problem:
            raise ProtocolError(problem.code, problem.message, suggestionId=suggestion_id) from None


def _out_of_order(widget: bool, command) -> tuple[str, str, int]:
    """The refusal of a frame that comes before (or instead of) the widget's ``resume``."""
    if not widget:
        return ErrorCode.INVALID_MESSAGE, "resume is for the widget's socket only.", 1008
    if isinstance(command, protocol.Resume):
        return ErrorCode.INVALID_MESSAGE, "The conversation is already resumed.", 1008
    return ErrorCode.INVALID_MESSAGE, "The widget's first frame must be resume.", 1008


def _decoded(text_data: str | None, bytes_data: bytes | None):
    """``protocol.decode_frame`` with this deployment's limits; its error returned, not raised."""
    try:
        return protocol.decode_frame(
            text_data,
            bytes_data,
            max_frame_bytes=settings.WS_MAX_FRAME_BYTES,
            close_frame_bytes=settings.WS_CLOSE_FRAME_BYTES,
        )
    except ProtocolError as exc:
        return exc
