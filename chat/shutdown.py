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

It also keeps the turns whose connection went away mid-turn (a reload, a
dropped socket): ``park`` keeps the turn's runner (``chat.turns.TurnRunner``)
until the conversation's next connection here ``adopt``s it, or until
``PARKED_TURN_KEEP_SECONDS`` after the turn ended; a shutdown interrupts them.
A turn still running that no connection took within its ``grace``
(``PARKED_TURN_GRACE_SECONDS``: a reload comes back in a second or two) is
cancelled: nobody is reading it, and its check (seconds of CPU on a KB of
thousands of like facts) must not run on for a socket that closed.
"""

import asyncio
import weakref

# How long a finished turn whose page went away waits for the page to come back.
PARKED_TURN_KEEP_SECONDS = 60.0


class LiveConnections:
    """Open chat connections; each has an async ``shut_down()``."""

    def __init__(self) -> None:
        self.live: weakref.WeakSet = weakref.WeakSet()
        self._in_conversation: dict[object, weakref.WeakSet] = {}
        self._conversation_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._parked: dict[object, list] = {}  # conversation id -> runners, oldest first
        self._cancelling: set[asyncio.Task] = set()

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

    def park(self, conversation_id, runner, *, grace: float) -> None:
        """Keep ``runner`` (its connection went away mid-turn) for the conversation's next one;
        cancel its turn if none takes it within ``grace`` seconds."""
        self._parked.setdefault(conversation_id, []).append(runner)
        loop = asyncio.get_running_loop()

        def ended(_task) -> None:
            loop.call_later(PARKED_TURN_KEEP_SECONDS, self._unpark, conversation_id, runner)

        runner.task.add_done_callback(ended)
        loop.call_later(grace, self._abandoned, conversation_id, runner)

    def _abandoned(self, conversation_id, runner) -> None:
        """Nobody took the parked turn in time: cancel it (its frames still go to the tabs
        that follow it) and its check with it."""
        if runner.running and runner in self._parked.get(conversation_id, ()):
            task = asyncio.ensure_future(runner.cancel())
            self._cancelling.add(task)
            task.add_done_callback(self._cancelling.discard)

    def adopt(self, conversation_id) -> list:
        """The conversation's parked runners (oldest first), no longer parked."""
        return self._parked.pop(conversation_id, [])

    def parked(self, conversation_id) -> int:
        """How many of the conversation's turns wait for a connection here."""
        return len(self._parked.get(conversation_id, ()))

    def _unpark(self, conversation_id, runner) -> None:
        runners = self._parked.get(conversation_id)
        if runners is not None and runner in runners:
            runners.remove(runner)
            if not runners:
                del self._parked[conversation_id]

    def others_in(self, connection, conversation_id) -> list:
        """The other open connections of this process in ``conversation_id``."""
        members = self._in_conversation.get(conversation_id, ())
        return [other for other in members if other is not connection]

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
        parked = [runner for runners in self._parked.values() for runner in runners]
        await asyncio.gather(*(r.interrupt() for r in parked), return_exceptions=True)
        # Let the close handshakes finish: each connection leaves the set on disconnect.
        for _ in range(100):
            if not self.live:
                break
            await asyncio.sleep(0.02)
        return len(connections)
