"""The load driver: real WebSocket clients against one server, in a process of its own.

    python -m bench.client record  --url URL
    python -m bench.client latency --url URL --turns 500
    python -m bench.client load    --url URL --clients 500 --turns 5 --delay-ms 50
    python -m bench.client actions --url URL --clients 200 --mode distinct|shared

Loopback only; counts are capped and every wait has a timeout. Output is
JSON lines on stdout, the last one the result. ``load`` stops twice and
waits for a line on stdin so the orchestrator can sample the server (memory,
CPU): after its warm-up turn (``{"stage": "warm"}``) and once every client is
connected (``{"stage": "connected"}``); then all clients run their turns at
once.

Timings: a frame is stamped when ``recv()`` hands it over, so the client's
own event-loop lag is included, equally for every server measured. To keep
that lag small, ``load`` turns its own garbage collector off while the turns
run (a full collection over 500 connections paused it for about 85 ms).
"""

import argparse
import asyncio
import gc
import json
import resource
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from bench.floors.schedule import token_count
from bench.limits import raise_open_files_limit
from bench.stats import summary_ms

QUESTION = "Vad kostar premium?"
ACTION_REQUEST = "Ring mig på 070-123 45 67"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
MAX_CLIENTS = 5000
MAX_TURNS = 5000
CONNECT_TIMEOUT = 30.0
now = time.perf_counter


class TurnFailed(Exception):
    """A turn that did not end in its ``response`` (the message is the error's kind)."""


def emit(payload: dict) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


async def wait_for_go() -> None:
    if not await asyncio.to_thread(sys.stdin.readline):
        raise SystemExit("the orchestrator went away")


def open_connection(url: str, headers: dict | None = None):
    # No compression and no pings: daphne does neither by default.
    return connect(
        url,
        compression=None,
        ping_interval=None,
        open_timeout=CONNECT_TIMEOUT,
        close_timeout=5,
        additional_headers=headers,
    )


async def connect_many(url: str, count: int, concurrency: int, errors: Counter, headers=None):
    """Open ``count`` connections, ``concurrency`` handshakes at a time (listen backlogs are 50)."""
    gate = asyncio.Semaphore(concurrency)

    async def one() -> ClientConnection | None:
        async with gate:
            try:
                return await open_connection(url, headers)
            except (OSError, TimeoutError, WebSocketException) as exc:
                errors[f"connect: {type(exc).__name__}"] += 1
                return None

    connections = await asyncio.gather(*(one() for _ in range(count)))
    return [c for c in connections if c is not None]


async def close_all(connections: list[ClientConnection]) -> None:
    await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


@dataclass
class TurnTiming:
    sent: float
    stamps: list[tuple[float, str]]  # (arrival, delta) of each stream frame
    done: float
    response: dict

    def first_stream(self) -> float | None:
        return self.stamps[0][0] - self.sent if self.stamps else None

    def extra_per_frame(self, delay: float) -> list[float]:
        """Each later frame's gap to the one before, less the token delays it waited for."""
        return [
            (at - before) - delay * token_count(delta)
            for (before, _), (at, delta) in zip(self.stamps, self.stamps[1:], strict=False)
        ]


async def send(ws: ClientConnection, frame: dict) -> None:
    try:
        await ws.send(json.dumps(frame))
    except ConnectionClosed:
        raise TurnFailed("connection closed") from None


async def receive_until(ws: ClientConnection, wanted: str, within: float, on_frame=None) -> dict:
    """Frames up to the first of type ``wanted``; an ``error`` frame or a timeout fails."""
    try:
        async with asyncio.timeout(within):
            while True:
                raw = await ws.recv()
                at = now()
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == wanted:
                    return frame
                if kind == "error":
                    raise TurnFailed(f"error frame: {frame.get('code')}")
                if on_frame is not None:
                    on_frame(at, frame)
    except TimeoutError:
        raise TurnFailed("timeout") from None
    except ConnectionClosed:
        raise TurnFailed("connection closed") from None


async def run_turn(ws: ClientConnection, message_id: str, text: str, within: float) -> TurnTiming:
    stamps: list[tuple[float, str]] = []

    def on_frame(at: float, frame: dict) -> None:
        if frame.get("type") == "stream":
            stamps.append((at, frame["delta"]))

    sent = now()
    await send(ws, {"type": "message", "id": message_id, "text": text})
    response = await receive_until(ws, "response", within, on_frame)
    return TurnTiming(sent=sent, stamps=stamps, done=now(), response=response)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round(usage.ru_utime + usage.ru_stime, 3)


# -- modes ---------------------------------------------------------------------


async def record(args) -> dict:
    """One turn: the stream deltas and the response the floors will replay."""
    async with open_connection(args.url) as ws:
        turn = await run_turn(ws, "record", QUESTION, args.turn_timeout)
    response = {k: v for k, v in turn.response.items() if k != "messageId"}
    return {"frames": [delta for _, delta in turn.stamps], "response": response}


async def latency(args) -> dict:
    """One client, one turn after another: time to the first ``stream`` and to ``response``."""
    first, total, errors = [], [], Counter()
    async with open_connection(args.url) as ws:
        for number in range(args.warmup + args.turns):
            try:
                turn = await run_turn(ws, f"l{number}", QUESTION, args.turn_timeout)
            except TurnFailed as exc:
                errors[str(exc)] += 1
                if str(exc) == "connection closed":
                    break
                continue
            if number >= args.warmup and turn.stamps:
                first.append(turn.first_stream())
                total.append(turn.done - turn.sent)
            elif number >= args.warmup:
                errors["no stream frame"] += 1
    return {
        "turns": args.turns,
        "completed": len(total),
        "errors": dict(errors),
        "first_stream_ms": summary_ms(first),
        "response_ms": summary_ms(total),
    }


async def load(args) -> dict:
    """All clients connected first, then each runs ``turns`` turns, all at once."""
    errors: Counter = Counter()
    delay = args.delay_ms / 1000
    async with open_connection(args.url) as ws:
        warm = await run_turn(ws, "warm", QUESTION, args.turn_timeout)
    expected_text = warm.response.get("text")
    emit({"stage": "warm"})
    await wait_for_go()

    started = now()
    connections = await connect_many(args.url, args.clients, args.connect_concurrency, errors)
    connect_s = now() - started
    emit({"stage": "connected", "connected": len(connections), "seconds": round(connect_s, 3)})
    await wait_for_go()

    turns: list[TurnTiming] = []

    async def client(number: int, ws: ClientConnection) -> None:
        for turn_number in range(args.turns):
            try:
                turn = await run_turn(ws, f"c{number}t{turn_number}", QUESTION, args.turn_timeout)
            except TurnFailed as exc:
                errors[str(exc)] += 1
                return  # the connection's state is unknown now
            if turn.response.get("text") != expected_text:
                errors[f"unexpected response: {turn.response.get('status')}"] += 1
            turns.append(turn)

    gc.collect()
    gc.disable()  # bounded run: the client's own pauses stay out of every server's figures
    try:
        cpu_before, started = cpu_seconds(), now()
        await asyncio.gather(*(client(n, ws) for n, ws in enumerate(connections)))
        wall = now() - started
        cpu = cpu_seconds() - cpu_before
    finally:
        gc.enable()
    await close_all(connections)

    extra = [gap for turn in turns for gap in turn.extra_per_frame(delay)]
    first = [turn.first_stream() for turn in turns if turn.stamps]
    return {
        "clients": args.clients,
        "connected": len(connections),
        "connect_s": round(connect_s, 3),
        "turns_expected": args.clients * args.turns,
        "turns_completed": len(turns),
        "errors": dict(errors),
        "error_count": sum(errors.values()),
        "frames": sum(len(turn.stamps) for turn in turns),
        "extra_per_frame_ms": summary_ms(extra),
        "first_stream_ms": summary_ms(first),
        "turn_ms": summary_ms([turn.done - turn.sent for turn in turns]),
        "wall_s": round(wall, 3),
        "client_cpu_s": round(cpu, 3),
    }


def session_cookie(url: str) -> dict:
    """A browser session of the product (its chat page makes one): the Cookie header."""
    parts = urlsplit(url)
    page = f"http://{parts.hostname}:{parts.port}/"
    with urllib.request.urlopen(page, timeout=CONNECT_TIMEOUT) as reply:
        cookies = reply.headers.get_all("Set-Cookie") or []
    for cookie in cookies:
        name, _, rest = cookie.partition("=")
        if name.strip() == "sessionid":
            return {"Cookie": f"sessionid={rest.split(';')[0]}"}
    raise RuntimeError("the chat page set no session cookie")


async def suggest(ws: ClientConnection, number: int, within: float) -> str:
    await send(ws, {"type": "message", "id": f"a{number}", "text": ACTION_REQUEST})
    frame = await receive_until(ws, "action_suggestion", within)
    return frame["suggestionId"]


async def confirm(ws: ClientConnection, suggestion_id: str, within: float) -> tuple[float, dict]:
    sent = now()
    await send(ws, {"type": "confirm_action", "suggestionId": suggestion_id})
    frame = await receive_until(ws, "action_executed", within)
    return now() - sent, frame["result"]


async def actions(args) -> dict:
    """``clients`` confirms at once: of as many suggestions, or all of one (``shared``)."""
    errors: Counter = Counter()
    shared = args.action_mode == "shared"
    headers = session_cookie(args.url) if shared else None
    count = 1 if shared else args.clients
    connections = await connect_many(args.url, count, args.connect_concurrency, errors, headers)
    try:
        if shared:
            one = await suggest(connections[0], 0, args.turn_timeout)
            # Connected after the suggestion exists, each connection resumes the
            # session's conversation (the one the suggestion is bound to).
            connections += await connect_many(
                args.url, args.clients - 1, args.connect_concurrency, errors, headers
            )
            suggestion_ids = [one] * len(connections)
        else:
            suggestion_ids = await asyncio.gather(
                *(suggest(ws, n, args.turn_timeout) for n, ws in enumerate(connections))
            )
    except TurnFailed as exc:
        await close_all(connections)
        return {"mode": args.action_mode, "error": f"no suggestion: {exc}", "errors": dict(errors)}

    async def one_confirm(ws, suggestion_id):
        try:
            return await confirm(ws, suggestion_id, args.turn_timeout)
        except TurnFailed as exc:
            errors[str(exc)] += 1
            return None

    started = now()
    results = await asyncio.gather(
        *(one_confirm(ws, sid) for ws, sid in zip(connections, suggestion_ids, strict=True))
    )
    wall = now() - started
    await close_all(connections)
    done = [r for r in results if r is not None]
    outcomes = Counter(
        "executed"
        if result["success"] and not result["ignored"]
        else "ignored"
        if result["success"]
        else f"failed: {result['message']}"
        for _, result in done
    )
    return {
        "mode": args.action_mode,
        "confirms": len(connections),
        "suggestions": len(set(suggestion_ids)),
        "outcomes": dict(outcomes),
        "errors": dict(errors),
        "error_count": sum(errors.values()),
        "confirm_ms": summary_ms([latency for latency, _ in done]),
        "wall_s": round(wall, 3),
    }


MODES = {"record": record, "latency": latency, "load": load, "actions": actions}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--url", required=True)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--connect-concurrency", type=int, default=50)
    parser.add_argument("--turn-timeout", type=float, default=30.0)
    parser.add_argument("--run-timeout", type=float, default=300.0)
    parser.add_argument("--mode", dest="action_mode", choices=["distinct", "shared"])
    args = parser.parse_args(argv)
    if urlsplit(args.url).hostname not in LOOPBACK:
        parser.error("loopback addresses only")
    if not 1 <= args.clients <= MAX_CLIENTS or not 1 <= args.turns <= MAX_TURNS:
        parser.error(f"1..{MAX_CLIENTS} clients and 1..{MAX_TURNS} turns")
    if args.mode == "actions" and args.action_mode is None:
        parser.error("actions needs --mode distinct or --mode shared")
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    raise_open_files_limit(args.clients + 256)

    async def run() -> dict:
        async with asyncio.timeout(args.run_timeout):
            return await MODES[args.mode](args)

    emit({"result": asyncio.run(run())})


if __name__ == "__main__":
    main()
