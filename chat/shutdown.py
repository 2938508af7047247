"""Graceful shutdown: the chat connections of this process, so a shutdown can end them cleanly.

Whatever server runs the product awaits ``chat.composition.shut_down_connections``
(``SERVER_SHUTDOWN_HOOK``) before it stops: each connection ends its turn
(recorded as interrupted), tells the client and closes with 1001 (going
away), and the audit writes are waited for. ``config.server.shutdown`` does
it on daphne's SIGTERM.
"""

import asyncio
import weakref


class LiveConnections:
    """Open chat connections; each has an async ``shut_down()``."""

    def __init__(self) -> None:
        self.live: weakref.WeakSet = weakref.WeakSet()

    def register(self, connection) -> None:
        self.live.add(connection)

    def unregister(self, connection) -> None:
        self.live.discard(connection)

    def alone_in(self, connection, conversation_id) -> bool:
        """Whether no other open connection of this process is in ``conversation_id``."""
        return not any(
            other is not connection
            and getattr(getattr(other, "context", None), "id", None) == conversation_id
            for other in self.live
        )

    async def shut_down(self) -> int:
        """End every open chat connection (interrupting its turn); how many there were."""
        connections = list(self.live)
        await asyncio.gather(*(c.shut_down() for c in connections), return_exceptions=True)
        # Let the close handshakes finish: each connection leaves the set on disconnect.
        for _ in range(100):
            if not self.live:
                break
            await asyncio.sleep(0.02)
        return len(connections)
