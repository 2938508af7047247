"""A Channels consumer that streams the product's frames and does nothing else."""

import asyncio
from contextlib import suppress

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from bench.floors.schedule import Schedule

_schedule: Schedule | None = None


def schedule() -> Schedule:
    global _schedule
    if _schedule is None:
        _schedule = Schedule.from_env()
    return _schedule


class FloorConsumer(AsyncJsonWebsocketConsumer):
    turn: asyncio.Task | None = None

    async def connect(self) -> None:
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self._stop()

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        if kind == "message":
            # Like the product: the turn runs in the background, a new one cancels it.
            await self._stop()
            self.turn = asyncio.create_task(self._stream(str(content.get("id") or "m")))
        elif kind == "cancel":
            await self._stop()

    async def _stream(self, message_id: str) -> None:
        async for frame in schedule().frames(message_id):
            await self.send_json(frame)

    async def _stop(self) -> None:
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
            with suppress(asyncio.CancelledError):
                await self.turn
