"""Graceful shutdown: the chat connections of this process, so a shutdown can end them cleanly.

Whatever server runs the product awaits ``chat.composition.shut_down_connections``
(``SERVER_SHUTDOWN_HOOK``) before it stops: each connection ends its turn
(recorded as interrupted), tells the client and closes with 1001 (going
away), and the audit writes are waited for. ``config.server.shutdown`` does
it on daphne's SIGTERM.

The same register answers "is this the conversation's only tab here?" at every
message (``alone_in``), so it keeps the connections per conversation: a pass over
every connection of the process per message cost a turn more CPU than its
grounding at 500 clients (docs/performance.md).
"""

import asyncio
import weakref


class LiveConnections:
    """Open chat connections; each has an async ``shut_down()``."""

    def __init__(self) -> None:
        self.live: weakref.WeakSet = weakref.WeakSet()
        self._in_conversation: dict[object, weakref.WeakSet] = {}
        self._conversation_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def register(self, connection) -> None:
        self.live.add(connection)

    def entered(self, connection, conversation_id) -> None:
        """``connection`` is now in ``conversation_id`` (a connection is in one at most)."""
        self._leave(connection)
        self._conversation_of[connection] = conversation_id
        self._in_conversation.setdefault(conversation_id, weakref.WeakSet()).add(connection)

    def unregister(self, connection) -> None:
        self.live.discard(connection)
        self._leave(connection)

    def alone_in(self, connection, conversation_id) -> bool:
        """Whether no other open connection of this process is in ``conversation_id``."""
        others = self._in_conversation.get(conversation_id, ())
        return all(other is connection for other in others)

    def _leave(self, connection) -> None:
        conversation_id = self._conversation_of.pop(connection, None)
        members = self._in_conversation.get(conversation_id)
        if members is None:
            return
        members.discard(connection)
        if not members:
            del self._in_conversation[conversation_id]

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
