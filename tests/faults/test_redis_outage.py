"""A Redis outage under two processes: afterwards both accept new connections at once.

The finding: after a 10-second outage every new WebSocket from the same
address was refused with ``too_many_connections`` on both processes, and the
open-connections gauge stayed above zero with no clients.
"""

import asyncio
import json
import os
import re
import time

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.faults.conftest import HTTP_TIMEOUT_SECONDS

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

OUTAGE_SECONDS = float(os.environ.get("FAULT_REDIS_OUTAGE_SECONDS") or 10)
CLIENTS = 20
NEW_CONNECTIONS = 50  # WS_MAX_CONNECTIONS_PER_IP: the whole allowance of one address
BUDGET_SECONDS = 5.0


async def chatting_client(url: str, stop: asyncio.Event) -> None:
    """Reconnects and asks again whenever its connection fails, until told to stop."""
    while not stop.is_set():
        try:
            async with connect(url, open_timeout=2, close_timeout=1) as ws:
                await ws.send(json.dumps({"type": "message", "text": "Vad kostar premium?"}))
                while not stop.is_set():
                    await asyncio.wait_for(ws.recv(), 1)
        except Exception:
            await asyncio.sleep(0.2)


async def usable_connection(url: str, deadline: float):
    """A connection that answers a frame, retried until ``deadline``."""
    while True:
        try:
            ws = await connect(url, open_timeout=2, close_timeout=1)
            await ws.send(json.dumps({"type": "probe"}))
            frame = json.loads(await asyncio.wait_for(ws.recv(), 2))
            if frame.get("code") == "unknown_type":
                return ws
            await ws.close()
        except Exception:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError("no usable connection before the deadline")
        await asyncio.sleep(0.1)


def gauge(product) -> float:
    text = httpx.get(product.http_url + "/metrics", timeout=HTTP_TIMEOUT_SECONDS).text
    return float(re.search(r"^chat_connections_open (\S+)$", text, re.M).group(1))


def test_after_a_redis_outage_both_processes_accept_a_full_allowance_within_5_s(
    product_factory, own_redis
):
    a = product_factory("a", REDIS_URL=own_redis.url, WS_MAX_CONNECTIONS_PER_IP="50")
    b = product_factory("b", REDIS_URL=own_redis.url, WS_MAX_CONNECTIONS_PER_IP="50")
    a.start()
    b.start()

    async def scenario() -> float:
        stop = asyncio.Event()
        traffic = [
            asyncio.create_task(chatting_client(p.ws_url, stop))
            for p in (a, b)
            for _ in range(CLIENTS // 2)
        ]
        await asyncio.sleep(1.5)
        own_redis.stop()
        await asyncio.sleep(OUTAGE_SECONDS)
        own_redis.start()
        back = time.monotonic()
        stop.set()
        await asyncio.gather(*traffic, return_exceptions=True)
        sockets = await asyncio.gather(
            *(
                usable_connection(p.ws_url, back + BUDGET_SECONDS)
                for p in (a, b)
                for _ in range(NEW_CONNECTIONS)
            )
        )
        took = time.monotonic() - back
        gauges = [await asyncio.to_thread(gauge, p) for p in (a, b)]
        for ws in sockets:
            await ws.close()
        await asyncio.sleep(0.5)
        after = [await asyncio.to_thread(gauge, p) for p in (a, b)]
        print(
            f"\nRedis away {OUTAGE_SECONDS:g} s under {CLIENTS} clients: "
            f"{2 * NEW_CONNECTIONS} new connections usable {took:.2f} s after it returned; "
            f"gauge with them open {gauges}, after closing {after}"
        )
        assert gauges == [NEW_CONNECTIONS, NEW_CONNECTIONS]
        assert after == [0, 0]
        return took

    took = asyncio.run(scenario())
    assert took <= BUDGET_SECONDS
