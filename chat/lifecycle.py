"""The chat connections of this process, so a shutdown can end them cleanly."""

import asyncio
import weakref

_live: weakref.WeakSet = weakref.WeakSet()


def connection_register(consumer) -> None:
    _live.add(consumer)


def connection_unregister(consumer) -> None:
    _live.discard(consumer)


async def connections_shut_down() -> int:
    """End every open chat connection (interrupting its turn); how many there were."""
    consumers = list(_live)
    await asyncio.gather(*(c.shut_down() for c in consumers), return_exceptions=True)
    # Let the close handshakes finish: each connection leaves the set on disconnect.
    for _ in range(100):
        if not _live:
            break
        await asyncio.sleep(0.02)
    return len(consumers)
