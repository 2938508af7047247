"""The audit writer's own process: the batches of ``chat.audit`` written beside the server.

Under load the server's process is bound by the GIL: its event loop runs the
turns, and a writer thread's database calls hand the GIL back at every step
of a statement (Python's ``sqlite3`` and ``psycopg`` both release it around
the database's work), then wait for the busy loop to give it back. A batch of
beginnings took several times its own CPU in wall time, and the questions of
a burst waited for it. In a process of its own the writer has a GIL (and a
core) of its own.

| step                  | server (``WriterProcess``)         | writer (``serve``)                |
|-----------------------|------------------------------------|-----------------------------------|
| server start-up       | ``spawn_early`` (``config.server``,| ``django.setup()``, then sends    |
|                       | before the app loads): spawns      | ``READY``; the server listens     |
|                       | ``manage.py audit_writer``, a      | once it has it                    |
|                       | socket pair between them           |                                   |
| the first write       | adopts it (or spawns one, under    | the server's database settings    |
|                       | another server): its settings      | (a test run's test database)      |
| a batch               | frame: the ``(kind, record)`` list | ``audit_write_batch`` in one      |
|                       |                                    | transaction; frame: the results   |
|                       |                                    | and what its commit published     |
| database away         | ``OperationalError`` raised: the   | the outage's message              |
|                       | batch is retried (``chat.audit``)  |                                   |
| the writer dies       | the batches in flight raise        | (gone)                            |
|                       | ``OperationalError``; the next     |                                   |
|                       | batch starts a new writer          |                                   |
| the server dies       | (gone)                             | end of its socket: it finishes    |
|                       |                                    | the batch it has and exits        |

A frame is a 4-byte big-endian length and a pickle (the two ends are the same
code, spawned by the server: nothing else can write to the socket). Batches are
answered in the order they were sent.

A writer killed between its commit and its reply (microseconds) leaves the server
not knowing that its batch was written: the retry writes its beginnings again, as
the thread writer does when a PostgreSQL connection is lost between COMMIT and its
acknowledgement. Nothing is lost; such a batch's questions may be stored twice.
"""

import asyncio
import logging
import pickle
import signal
import socket
import struct
import subprocess
import sys
from collections import deque

from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings
from django.db import OperationalError, connections

from chat.asyncdb import with_fresh_connections

logger = logging.getLogger(__name__)

HEADER = struct.Struct(">I")
AWAY, DONE = "away", "done"
READY = b"ready"  # the writer's first bytes: its start-up is done
EXITED = "the audit writer process exited"


class WriterProcess:
    """The server's end: ``await write(writes)`` is ``audit_write_batch(writes=writes)``
    run in the writer process (started at the first write unless ``spawn_early`` started
    it with the server, and again after it died), then the channel-layer events its
    commit published, sent on the server's layer. A writer that dies, starting or
    holding batches, fails them with ``OperationalError``: ``chat.audit`` retries them."""

    def __init__(self, *, alias: str = "default") -> None:
        self.alias = alias
        self.process: subprocess.Popen | None = None
        self.stream: asyncio.StreamWriter | None = None
        self.waiting: deque[asyncio.Future] = deque()  # one per batch sent, in order
        self.starting = asyncio.Lock()
        self.replies: asyncio.Task | None = None

    async def write(self, writes: list[tuple[str, object]]) -> list[object]:
        try:
            await self.start()
        except (OSError, asyncio.IncompleteReadError) as exc:  # it died starting: an outage
            raise OperationalError(f"{EXITED} at start-up") from exc
        reply = asyncio.get_running_loop().create_future()
        self.waiting.append(reply)
        self.stream.write(_frame(writes))
        status, value, published = await reply
        if status == AWAY:
            raise OperationalError(value)
        if published:
            layer = get_channel_layer()
            for group, message in published:
                await layer.group_send(group, message)
        return value

    async def start(self) -> None:
        """Start the writer unless it runs, or adopt the one ``spawn_early`` started."""
        async with self.starting:
            if self.stream is not None and not self.stream.is_closing():
                return
            early = bool(_EARLY)
            ours, self.process = _EARLY.pop() if early else spawn()
            reader, stream = await asyncio.open_connection(sock=ours)
            try:
                if not early:  # (``spawn_early`` waited for it)
                    await reader.readexactly(len(READY))  # its start-up is done
            except BaseException:
                stream.close()
                raise
            self.stream = stream
            self.stream.write(_frame(dict(connections[self.alias].settings_dict)))
            self.replies = asyncio.get_running_loop().create_task(
                self._replies(reader, self.stream, self.process)
            )

    async def _replies(self, reader, stream, process) -> None:
        try:
            while True:
                (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
                self.waiting.popleft().set_result(pickle.loads(await reader.readexactly(size)))
        except (asyncio.IncompleteReadError, ConnectionError):
            logger.error("The audit writer process (pid %d) exited", process.pid)
        finally:
            stream.close()
            while self.waiting:  # retried by chat.audit as an outage, by a new writer
                self.waiting.popleft().set_result((AWAY, EXITED, []))
            await asyncio.get_running_loop().run_in_executor(None, process.wait)


def spawn() -> tuple[socket.socket, subprocess.Popen]:
    """A new writer process and the server's end of its socket (a fork and an exec)."""
    ours, theirs = socket.socketpair()
    with theirs:
        process = subprocess.Popen(
            [
                sys.executable,
                str(settings.BASE_DIR / "manage.py"),
                "audit_writer",
                str(theirs.fileno()),
            ],
            pass_fds=[theirs.fileno()],
        )
    return ours, process


_EARLY: list[tuple[socket.socket, subprocess.Popen]] = []


def spawn_early(timeout: float = 60.0) -> None:
    """At the server's start-up, before its application loads: the writer's own start-up
    (Django's and the app's imports, 2-3 s) runs beside the server's, and the server
    listens only once it is done, so no question waits for it. The event loop's writer
    adopts it at its first write."""
    ours, process = spawn()
    ours.settimeout(timeout)
    if ours.recv(len(READY), socket.MSG_WAITALL) != READY:
        raise RuntimeError(f"The audit writer process exited at start-up ({process.wait()})")
    ours.settimeout(None)
    _EARLY.append((ours, process))


class ForwardingLayer(BaseChannelLayer):
    """The writer's channel layer: what a batch publishes (``group_send`` after its
    commit) goes back with its results, and the server sends it on its own layer,
    which the writer may not share (the in-memory one)."""

    published: list[tuple[str, dict]] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.published.append((group, message))

    @classmethod
    def taken(cls) -> list[tuple[str, dict]]:
        published, cls.published = cls.published, []
        return published


def _frame(value: object) -> bytes:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def _frames(sock: socket.socket):
    stream = sock.makefile("rb")
    while len(header := stream.read(HEADER.size)) == HEADER.size:
        (size,) = HEADER.unpack(header)
        yield pickle.loads(stream.read(size))


def _reply(status: str, results, published: list) -> bytes:
    try:
        return _frame((status, results, published))
    except Exception:  # an exception that does not pickle is sent as its text
        results = [RuntimeError(repr(r)) if isinstance(r, Exception) else r for r in results]
        return _frame((status, results, published))


def serve(fd: int, *, write_batch, database_away: tuple[type[Exception], ...]) -> None:
    """The writer's side (``manage.py audit_writer``, Django set up): write the batches the
    server sends on the socket ``fd`` with ``write_batch`` (``audit_write_batch``) until
    the server closes it (it exited)."""
    # The server's signals are its own: Ctrl-C or a SIGTERM to the group must not cut a
    # batch in two. The writer ends when the server does (the end of the socket).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "chat.audit_process.ForwardingLayer"}}
    sock = socket.socket(fileno=fd)
    sock.sendall(READY)
    frames = _frames(sock)
    database = next(frames, None)
    if database is None:
        return
    # The server's database (in a test run, its test database), set as Django's own test
    # set-up sets a test database's name: in the settings and on the connection.
    settings.DATABASES["default"].update(database)
    connections["default"].settings_dict.update(database)
    for writes in frames:
        try:
            results = with_fresh_connections(write_batch, {"writes": writes})
            reply = _reply(DONE, results, ForwardingLayer.taken())
        except database_away as exc:
            reply = _reply(AWAY, str(exc), ForwardingLayer.taken())
        except Exception as exc:  # the batch failed as a whole
            reply = _reply(DONE, [exc] * len(writes), ForwardingLayer.taken())
        sock.sendall(reply)
