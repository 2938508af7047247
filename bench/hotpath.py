"""Do concurrent turns queue behind each other inside one server process?

Channels runs every thread-sensitive ``database_sync_to_async`` call of a
process on one shared thread; if the turn's database work went there, 50
turns at once would take far longer than one. This drives a real daphne
(product settings, token delay 20-80 ms) with one turn, then with 50 turns at
once from 50 connections, and prints both wall times and their ratio
(target: at most 1.5).

    make python ARGS="-m bench.hotpath [--turns 50] [--rounds 3]"
"""

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import websockets

from tests.live import daphne_server, prepare_database, product_env

QUESTION = "Vad kostar premium?"


async def turn(ws, message_id: str) -> float:
    started = time.perf_counter()
    await ws.send(json.dumps({"type": "message", "id": message_id, "text": QUESTION}))
    async with asyncio.timeout(30):
        while json.loads(await ws.recv())["type"] != "response":
            pass
    return time.perf_counter() - started


async def one_turn(url: str, message_id: str) -> float:
    async with websockets.connect(url, max_size=2**20) as ws:
        return await turn(ws, message_id)


async def concurrent_turns(url: str, count: int) -> float:
    """All connections open first; the clock covers only the turns."""
    sockets = [await websockets.connect(url, max_size=2**20) for _ in range(count)]
    try:
        started = time.perf_counter()
        await asyncio.gather(*(turn(ws, f"c{i}") for i, ws in enumerate(sockets)))
        return time.perf_counter() - started
    finally:
        await asyncio.gather(*(ws.close() for ws in sockets))


async def measure(url: str, turns: int, rounds: int) -> dict:
    await one_turn(url, "warm-up")
    single = [await one_turn(url, f"s{i}") for i in range(rounds)]
    many = [await concurrent_turns(url, turns) for _ in range(rounds)]
    one, all_ = statistics.median(single), statistics.median(many)
    return {"one_turn_s": one, f"{turns}_turns_s": all_, "ratio": all_ / one}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--delay",
        default="20,80",
        help="LLM_TOKEN_DELAY_MS; random delays make the slowest of 50 turns longer than a "
        "typical one even with no queueing, a fixed delay (50) isolates the server's share",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = product_env(
            DATABASE_URL=f"sqlite:///{Path(tmp) / 'db.sqlite3'}",
            LLM_TOKEN_DELAY_MS=args.delay,
            WS_MAX_CONNECTIONS_PER_IP="0",
        )
        prepare_database(env)
        with daphne_server(env) as (port, _):
            result = asyncio.run(
                measure(f"ws://127.0.0.1:{port}/ws/chat/", args.turns, args.rounds)
            )
    result["token_delay_ms"] = args.delay
    print(json.dumps(result, indent=2))
    verdict = "meets" if result["ratio"] <= 1.5 else "misses"
    print(f"{args.turns} concurrent turns take {result['ratio']:.2f}x one turn ({verdict} <= 1.5)")


if __name__ == "__main__":
    main()
