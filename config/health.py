"""``GET /healthz``: can this process serve a chat turn right now?

Three checks, each timed: the database answers ``SELECT 1``, a message sent
on the channel layer comes back (the layer every process shares in
production), and the KB index version can be read. 200 when all pass, 503
when any fails, so a load balancer takes the process out of rotation. The
body names the failed check and the exception type, never its message (a
connection error can carry a DSN).
"""

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from grounding.selectors import index_version

logger = logging.getLogger(__name__)

# Short: a probe must answer well inside the load balancer's own timeout.
CHANNEL_LAYER_TIMEOUT_SECONDS = 2.0


def database_check() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {}


def kb_index_check() -> dict:
    return {"version": index_version()}


async def channel_layer_check() -> dict:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("No channel layer configured")
    channel = await layer.new_channel(prefix="healthz")
    nonce = secrets.token_hex(8)
    await layer.send(channel, {"type": "healthz.ping", "nonce": nonce})
    reply = await asyncio.wait_for(layer.receive(channel), CHANNEL_LAYER_TIMEOUT_SECONDS)
    if reply.get("nonce") != nonce:
        raise RuntimeError("The channel layer returned another message")
    return {}


async def run_checks() -> dict[str, dict]:
    """Every check's result: ``{"ok": bool, "ms": float, ...}`` by check name."""
    checks: dict[str, Callable[[], Awaitable[dict]]] = {
        "database": database_sync_to_async(database_check),
        "channel_layer": channel_layer_check,
        "kb_index": database_sync_to_async(kb_index_check),
    }
    return {name: await _timed(name, check) for name, check in checks.items()}


@never_cache
@require_GET
async def healthz(request: HttpRequest) -> JsonResponse:
    """200 with each check's result when the process is healthy, 503 otherwise."""
    results = await run_checks()
    healthy = all(result["ok"] for result in results.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": results},
        status=200 if healthy else 503,
    )


async def _timed(name: str, check: Callable[[], Awaitable[dict]]) -> dict:
    started = time.perf_counter()
    try:
        details = await check()
    except Exception as exc:
        logger.warning("Health check %s failed", name, exc_info=True)
        return {"ok": False, "ms": _ms_since(started), "error": type(exc).__name__}
    return {"ok": True, "ms": _ms_since(started), **details}


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
