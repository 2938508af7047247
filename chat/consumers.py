"""The chat WebSocket: parses frames, calls one service each, sends the events back.

Where each client message type is handled: ``ChatConsumer.handlers`` below.
The turn itself lives in ``chat.pipeline``.
"""

import asyncio
import logging
import secrets
import time
from contextlib import aclosing, suppress

import orjson
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from chat import action_calls, audit, protocol, texts
from chat.asyncdb import off_loop
from chat.edge import client_address, connection_admit, connection_release
from chat.events import StreamEnd
from chat.lifecycle import connection_register, connection_unregister
from chat.pipeline import Turn
from chat.protocol import ErrorCode, ProtocolError, error_frame
from chat.ratelimit import limiter_from_setting
from chat.selectors import conversation_context
from chat.services import MessageNotFound, feedback_create
from config import daphne_fast_send, metrics
from config.logging import bind_conversation, bind_turn
from grounding.broadcast import KB_GROUP
from grounding.selectors import arefresh_index

logger = logging.getLogger(__name__)
# The messages that still get Channels' close_old_connections hop (see dispatch).
_CONNECTION_EVENTS = frozenset({"websocket.connect", "websocket.disconnect"})


def conversation_group(conversation_id) -> str:
    return f"conversation.{conversation_id}"


def new_message_id() -> str:
    return f"msg_{int(time.time() * 1000)}_{secrets.token_hex(4)}"


class ChatConsumer(AsyncJsonWebsocketConsumer):
    turn: Turn | None = None
    turn_task: asyncio.Task | None = None
    closing = False
    streaming_id: str | None = None  # messageId of the turn whose stream is open
    direct_send = None  # daphne's lean text-frame path, when daphne serves us

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch without its thread hop on every frame.

        ``AsyncConsumer.dispatch`` runs ``close_old_connections`` on the
        process's one shared sync thread before each message: a thread hop per
        frame, about a fifth of a bare consumer's CPU under load (profiled).
        Nothing here uses the ORM on that thread: every database call goes
        through ``chat.asyncdb.off_loop``, whose worker closes stale
        connections around each call. Connect and disconnect keep the hop.
        """
        if message["type"] in _CONNECTION_EVENTS:
            await super().dispatch(message)
            return
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def send_json(self, content: dict, close: bool = False) -> None:
        """Send one frame, encoded once with orjson (several times json's speed).

        On daphne it goes straight to the socket (``config.daphne_fast_send``),
        else through the ASGI ``send``.
        """
        payload = orjson.dumps(content)
        direct = self.direct_send
        if direct is not None and not close and direct(payload):
            return
        await self.send(text_data=payload.decode(), close=close)

    async def connect(self) -> None:
        """Resume the browser session's conversation (or start one) and accept."""
        self.address = client_address(self.scope)
        self.direct_send = daphne_fast_send.text_sender(self.base_send)
        self.admitted = connection_admit(self.address, limit=settings.WS_MAX_CONNECTIONS_PER_IP)
        if not self.admitted:
            await self.accept()
            await self._refuse(
                ErrorCode.TOO_MANY_CONNECTIONS, "Too many connections from your address.", 1008
            )
            return
        session_key = self.scope.get("session_key", "")
        self.context = await off_loop(conversation_context)(session_key=session_key)
        self.limiter = limiter_from_setting(settings.WS_RATE_LIMIT)
        self.flood = limiter_from_setting(settings.WS_FLOOD_LIMIT)
        self.groups_joined = (conversation_group(self.context.id), KB_GROUP)
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        connection_register(self)
        bind_conversation(self.context.id)
        metrics.connection_opened()
        self.counted = True

    async def disconnect(self, code: int) -> None:
        """Stop the running turn (it is recorded as cancelled) and leave the groups."""
        task = self.turn_task
        if task is not None and not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        for group in getattr(self, "groups_joined", ()):
            await self.channel_layer.group_discard(group, self.channel_name)
        if getattr(self, "counted", False):
            metrics.connection_closed()
        if getattr(self, "admitted", False):
            connection_release(self.address)
        connection_unregister(self)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Parse one frame and hand it to its handler; bad input gets one error frame."""
        if self.closing:
            return
        if not self.flood.allow():
            await self._refuse(ErrorCode.FLOOD, "Too many frames; closing.", 1008)
            return
        size = len(text_data) if text_data is not None else len(bytes_data or b"")
        if size > settings.WS_CLOSE_FRAME_BYTES:
            await self._refuse(ErrorCode.TOO_LARGE, "Frame far too large; closing.", 1009)
            return
        try:
            command = protocol.parse_frame(
                text_data,
                bytes_data,
                max_frame_bytes=settings.WS_MAX_FRAME_BYTES,
                max_text_chars=settings.WS_MAX_TEXT_CHARS,
            )
            if not isinstance(command, protocol.Cancel) and not self.limiter.allow():
                raise ProtocolError(ErrorCode.RATE_LIMITED, "Too many messages; slow down.")
            await self.handlers[type(command)](self, command)
        except ProtocolError as exc:
            await self.send_json(exc.frame())
        except Exception:
            logger.exception("Unexpected error handling a frame")
            await self.send_json(error_frame(ErrorCode.INTERNAL, "Something went wrong."))

    # -- handlers, one per client message type ---------------------------------

    async def on_message(self, command: protocol.SendMessage) -> None:
        """Cancel a running stream, then start the new turn in the background."""
        await self._stop_turn()
        message_id = command.id or new_message_id()
        turn = Turn(context=self.context, text=command.text, message_id=message_id)
        self.turn = turn
        self.streaming_id = message_id
        self.turn_task = asyncio.create_task(self._run_turn(turn))

    async def on_cancel(self, command: protocol.Cancel) -> None:
        """Stop the stream between tokens; a no-op when nothing is streaming."""
        await self._stop_turn()

    async def on_confirm(self, command: protocol.ConfirmAction) -> None:
        """Run a suggested action, at most once; every tab of the conversation sees it run."""
        outcome = await self._action(
            action_calls.suggestion_confirm, command.suggestion_id, phone=command.phone
        )
        result = outcome["result"]
        metrics.action_confirmed(result)
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
        outcome = await self._action(action_calls.suggestion_reject, command.suggestion_id)
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
        await audit.drain()  # the answer's row may still be on its way
        try:
            await off_loop(feedback_create)(
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
    }

    async def shut_down(self) -> None:
        """Server shutdown: stop the stream (recorded as interrupted), say so, close 1001."""
        if self.closing:
            return
        self.closing = True
        task = self.turn_task
        if task is not None and not task.done() and self.turn is not None:
            self.turn.interrupted = True
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        with suppress(Exception):  # the client may be gone already
            if self.streaming_id is not None:
                await self.send_json(StreamEnd("cancelled", self.streaming_id).frame())
            await self.send_json(
                error_frame(
                    ErrorCode.SERVER_SHUTDOWN,
                    texts.localized(texts.SERVER_RESTARTING, self.context.language),
                )
            )
            await self.close(code=1001)
        await audit.drain()

    async def _refuse(self, code: str, message: str, close_code: int) -> None:
        """One error frame, then close with ``close_code`` (1008 policy, 1009 too big)."""
        self.closing = True
        await self.send_json(error_frame(code, message))
        await self.close(code=close_code)

    # -- channel layer events --------------------------------------------------

    async def action_executed(self, event: dict) -> None:
        """Another tab of this conversation ran an action: show its result here too."""
        if event["origin"] != self.channel_name:
            await self.send_json(event["frame"])

    async def action_rejected(self, event: dict) -> None:
        """Another tab of this conversation declined an action: show it here too."""
        if event["origin"] != self.channel_name:
            await self.send_json(event["frame"])

    async def kb_reindexed(self, event: dict) -> None:
        """A reindex committed somewhere: load the new index now, not on the next question."""
        await arefresh_index(version=event["version"])

    # -- turn plumbing ---------------------------------------------------------

    async def _run_turn(self, turn: Turn) -> None:
        with bind_turn(self.context.id, turn.message_id):
            await self._stream_turn(turn)

    async def _stream_turn(self, turn: Turn) -> None:
        try:
            async with aclosing(turn.events()) as events:
                async for event in events:
                    if isinstance(event, StreamEnd):
                        self.streaming_id = None
                    await self.send_json(event.frame())
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("Turn %s failed", turn.message_id)
            if self.streaming_id == turn.message_id:
                self.streaming_id = None
                await self.send_json(StreamEnd("done", turn.message_id).frame())
            await self.send_json(
                error_frame(ErrorCode.INTERNAL, "The answer failed.", messageId=turn.message_id)
            )

    async def _stop_turn(self) -> None:
        """Cancel the open stream (telling the client), or let a finishing turn finish."""
        task = self.turn_task
        if task is None or task.done():
            return
        message_id = self.streaming_id
        if message_id is None:
            # Past stream_end: only the response/suggestion are left; keep their order.
            with suppress(asyncio.CancelledError):
                await task
            return
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        self.streaming_id = None
        await self.send_json(StreamEnd("cancelled", message_id).frame())

    async def _tell_other_tabs(self, event_type: str, frame: dict) -> None:
        await self.channel_layer.group_send(
            conversation_group(self.context.id),
            {"type": event_type, "frame": frame, "origin": self.channel_name},
        )

    async def _action(self, call, suggestion_id: str, **fields) -> dict:
        from actions.services import SuggestionNotFound

        try:
            return await call(context=self.context, suggestion_id=suggestion_id, **fields)
        except SuggestionNotFound:
            raise ProtocolError(
                ErrorCode.NOT_FOUND, "No such suggestion.", suggestionId=suggestion_id
            ) from None
        except action_calls.PhoneProblem as problem:
            raise ProtocolError(problem.code, problem.message, suggestionId=suggestion_id) from None
