"""The plain-``websockets`` floor: the chat protocol's turn, and nothing else.

BENCH_FRAMES=... BENCH_RESPONSE=... python -m bench.floors.websockets_server --port PORT
"""

import argparse
import asyncio
import json
import signal
from contextlib import suppress

from websockets.asyncio.server import ServerConnection, serve

from bench.floors.schedule import Schedule


async def _stream(ws: ServerConnection, schedule: Schedule, message_id: str) -> None:
    async for frame in schedule.frames(message_id):
        await ws.send(json.dumps(frame))


async def _stop(task: asyncio.Task | None) -> None:
    if task is not None and not task.done():
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


def handler_for(schedule: Schedule):
    async def handler(ws: ServerConnection) -> None:
        turn: asyncio.Task | None = None
        try:
            async for raw in ws:
                try:
                    content = json.loads(raw)
                except ValueError:
                    continue
                kind = content.get("type") if isinstance(content, dict) else None
                if kind == "message":
                    await _stop(turn)
                    turn = asyncio.create_task(_stream(ws, schedule, str(content.get("id") or "m")))
                elif kind == "cancel":
                    await _stop(turn)
        finally:
            await _stop(turn)

    return handler


async def main(host: str, port: int) -> None:
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set_result, None)
    async with serve(
        handler_for(Schedule.from_env()),
        host,
        port,
        compression=None,  # daphne does not compress either
        ping_interval=None,
        backlog=50,  # daphne's (Twisted's) listen backlog
    ):
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(main(args.host, args.port))
