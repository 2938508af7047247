"""The database connection dropped mid-traffic: every answered turn is still recorded.

The finding: a 10-second database outage left 247 answered turns unrecorded,
with no retry. The product reaches PostgreSQL through a TCP proxy of the
test's own, which cuts every connection and refuses new ones for a while.
"""

import asyncio
import contextlib
import json
import os
import socket
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import RECV_TIMEOUT_SECONDS
from tests.live import free_port

pytestmark = [pytest.mark.postgres]

OUTAGE_SECONDS = float(os.environ.get("FAULT_DATABASE_OUTAGE_SECONDS") or 5)
CLIENTS = 10
TURNS_DURING_OUTAGE = 3
RECORDED_WITHIN_SECONDS = 20.0


class CuttableProxy:
    """A TCP proxy to PostgreSQL that can drop every connection and refuse new ones."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.up = True
        self.sockets: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.up = False
        with self.lock:
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            self.sockets.clear()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.server.close()
        self.cut()


@pytest.fixture
def proxy(database_url):
    parts = urlsplit(database_url)
    proxy = CuttableProxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    yield proxy, urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}"))
    proxy.close()


async def ask(ws, n: int, message_id: str) -> dict:
    await ws.send(json.dumps({"type": "message", "id": message_id, "text": "Vad kostar premium?"}))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), RECV_TIMEOUT_SECONDS))
        if frame["type"] == "response":
            return frame


def test_turns_answered_while_the_database_is_away_are_recorded_when_it_returns(
    product_factory, proxy
):
    cuttable, proxied_url = proxy
    product = product_factory(DATABASE_URL=proxied_url, KB_VERSION_CHECK_SECONDS="3600")
    product.start()

    async def scenario() -> list[str]:
        sockets = [await connect(product.ws_url, close_timeout=1) for _ in range(CLIENTS)]
        asked = []
        for n, ws in enumerate(sockets):  # a turn each while the database answers
            await ask(ws, n, f"before-{n}")
            asked.append(f"before-{n}")
        cuttable.cut()
        for round_number in range(TURNS_DURING_OUTAGE):
            answers = await asyncio.gather(
                *(ask(ws, n, f"away-{round_number}-{n}") for n, ws in enumerate(sockets))
            )
            assert all(a["status"] == "done" for a in answers)
            asked += [f"away-{round_number}-{n}" for n in range(CLIENTS)]
        await asyncio.sleep(max(0.0, OUTAGE_SECONDS - 1))
        cuttable.restore()
        for ws in sockets:
            await ws.close()
        return asked

    asked = asyncio.run(scenario())
    restored = time.monotonic()
    query = (
        "SELECT q.message_id FROM chat_message q JOIN chat_message a ON a.reply_to_id = q.id "
        "WHERE q.role = 'user' AND a.status = 'done'"
    )
    while time.monotonic() - restored < RECORDED_WITHIN_SECONDS:
        recorded = {row[0] for row in product.query(query)}
        if recorded >= set(asked):
            break
        time.sleep(0.5)
    took = time.monotonic() - restored
    print(
        f"\nDatabase away {OUTAGE_SECONDS:g} s: {len(asked)} turns answered "
        f"({CLIENTS * TURNS_DURING_OUTAGE} during the outage), {len(recorded & set(asked))} "
        f"recorded {took:.1f} s after it returned"
    )
    assert recorded >= set(asked)
