"""One connection's turns, one at a time: start, stream, cancel, stop.

The consumer owns one ``TurnRunner`` and calls it; the runner runs each turn
(``chat.pipeline.Turn``) in a task of its own and hands its frames to
``send``. Testable without a socket: ``send`` is any async callable.

| call            | a turn is streaming                | past its stream_end       | idle    |
|-----------------|------------------------------------|---------------------------|---------|
| ``start(turn)`` | stop it, stream_end cancelled; run | let it finish; then run   | run     |
| ``cancel()``    | stop it, stream_end cancelled      | let it finish (in order)  | nothing |
| ``stop()``      | stop it silently (client gone)     | stop it silently          | nothing |
| ``interrupt()`` | stop it (interrupted), stream_end  | stop it (interrupted)     | nothing |
| ``detach(send)``| goes on; its frames go to ``send`` | goes on, to ``send``      | nothing |

A page that reloads (or a socket that drops) does not stop its turn: the
consumer detaches the runner (its frames go to the conversation's other tabs,
``chat.consumers``) and parks it (``chat.shutdown.LiveConnections.park``); the
conversation's next connection on this process adopts it (``attach``) and gets
``replay()``: the question, the answer's text so far (``stream_sync``) and the
turn's frames after its stream. The runner keeps what the replay needs: the
current turn's streamed text and its frames other than ``stream``.

A turn whose beginning finds that a person owns the conversation yields only
``ToPerson``: its frame (handoff_delivered) goes out, then ``on_person`` is told
the person's name (the consumer silences the agent from then on).

A stopped turn is recorded by the turn itself (cancelled, or interrupted on
server shutdown). A turn that fails gets stream_end{done} if its stream was
open, then an ``internal_error`` frame; the connection stays usable.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import aclosing, suppress

from chat.events import StreamEnd, ToPerson
from chat.logcontext import bind_turn
from chat.pipeline import Turn
from chat.protocol import ErrorCode, error_frame

logger = logging.getLogger(__name__)

Send = Callable[[dict], Awaitable[None]]
OnPerson = Callable[[str], Awaitable[None]]


async def _nobody(name: str) -> None:
    """A runner nobody asked to hear of a person."""


class TurnRunner:
    def __init__(self, send: Send, *, on_person: OnPerson = _nobody) -> None:
        self.send = send
        self.on_person = on_person
        self.turn: Turn | None = None
        self.task: asyncio.Task | None = None
        self.streaming_id: str | None = None  # messageId of the turn whose stream is open
        self.text = ""  # the current turn's streamed text so far
        self.frames: list[dict] = []  # the current turn's frames other than stream

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def start(self, turn: Turn) -> None:
        """End the current turn (see the table), then run ``turn`` in the background."""
        await self.cancel()
        self.turn = turn
        self.streaming_id = turn.message_id
        self.text, self.frames = "", []
        self.task = asyncio.create_task(self._run(turn), name=f"turn {turn.message_id}")

    async def cancel(self) -> None:
        """The client's cancel: stop the open stream (telling the client), or let a turn finish."""
        if not self.running:
            return
        message_id = self.streaming_id
        if message_id is None:
            # Past stream_end: only the response/suggestion are left; keep their order.
            with suppress(asyncio.CancelledError):
                await self.task
            return
        await self._stop_task()
        self.streaming_id = None
        await self._send(StreamEnd("cancelled", message_id).frame())

    async def stop(self) -> None:
        """The client went away: stop the turn, nobody to tell."""
        await self._stop_task()

    async def interrupt(self) -> None:
        """Server shutdown: stop the turn (recorded as interrupted) and close its open stream."""
        if self.running and self.turn is not None:
            self.turn.interrupted = True
            await self._stop_task()
        if self.streaming_id is not None:
            message_id, self.streaming_id = self.streaming_id, None
            await self._send(StreamEnd("interrupted", message_id).frame())

    def detach(self, send: Send) -> None:
        """The connection went away: the turn goes on, its frames to ``send`` from now on."""
        self.send, self.on_person = send, _nobody

    def attach(self, send: Send, *, on_person: OnPerson = _nobody) -> list[dict]:
        """A connection adopts the runner: its frames go there; returns ``replay()``."""
        self.send, self.on_person = send, on_person
        return self.replay()

    def replay(self) -> list[dict]:
        """What a page that missed the current turn needs to show it as it is now."""
        turn = self.turn
        if turn is None:
            return []
        question = {"type": "user_message", "messageId": turn.message_id, "text": turn.question}
        text = {
            "type": "stream_sync",
            "messageId": turn.message_id,
            "text": self.text,
            "question": turn.question,
            "adopted": True,  # this socket's turn now: its Stop stops it
        }
        return [question, text, *self.frames]

    async def _send(self, frame: dict) -> None:
        """Send ``frame``, keeping what a replay needs."""
        if frame["type"] == "stream":
            self.text += frame["delta"]
        else:
            self.frames.append(frame)
        await self.send(frame)

    async def _stop_task(self) -> None:
        task = self.task
        if task is not None and not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    async def _run(self, turn: Turn) -> None:
        with bind_turn(turn.context.id, turn.message_id):
            try:
                async with aclosing(turn.events()) as events:
                    async for event in events:
                        if isinstance(event, StreamEnd | ToPerson):
                            self.streaming_id = None
                        await self._send(event.frame())
                        if isinstance(event, ToPerson):
                            await self.on_person(event.person)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("Turn %s failed", turn.message_id)
                if self.streaming_id == turn.message_id:
                    self.streaming_id = None
                    await self._send(StreamEnd("done", turn.message_id).frame())
                await self._send(
                    error_frame(ErrorCode.INTERNAL, "The answer failed.", messageId=turn.message_id)
                )
