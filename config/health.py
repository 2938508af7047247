"""Probes for a load balancer or an orchestrator.

``GET /livez`` (liveness): the process runs and its event loop answers. It
depends on nothing else, so a slow database or a Redis outage never gets a
healthy process restarted.

``GET /readyz`` (readiness; ``/healthz`` is the same): can this process serve
a chat turn right now? Three checks run side by side, each bounded by
``READINESS_CHECK_TIMEOUT_SECONDS``: the database answers ``SELECT 1``, the
channel layer answers a ``group_send`` (one round trip to Redis in
production), and the KB index version can be read. 200 when all pass, 503
when any fails. The checks stay off the paths the chat itself queues on:
the database check runs in a thread of its own, not behind the consumers'
shared sync thread, and the channel-layer check does not wait for the
process's receive loop (a message round trip through it timed out at 2 s
with 20 clients reconnecting: 5 of 14 probes answered 503).

The body names the failed check and the exception type, never its message
(a connection error can carry a DSN). Both probes answer whatever Host
header they come with (``ProbeMiddleware``): a load balancer probes by IP.
"""

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from asgiref.sync import async_to_sync, iscoroutinefunction, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.utils.cache import add_never_cache_headers
from django.utils.decorators import sync_and_async_middleware

from grounding.selectors import index_version

logger = logging.getLogger(__name__)

PROBE_GROUP = "healthz"


def database_check() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    finally:
        connection.close()  # a thread of the probe's own: leave no connection behind
    return {}


def kb_index_check() -> dict:
    try:
        return {"version": index_version()}
    finally:
        connection.close()


async def channel_layer_check() -> dict:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("No channel layer configured")
    await layer.group_send(PROBE_GROUP, {"type": "healthz.ping"})
    return {}


def _own_thread(check: Callable[[], dict]) -> Callable[[], Awaitable[dict]]:
    return sync_to_async(check, thread_sensitive=False)


async def run_checks() -> dict[str, dict]:
    """Every check's result: ``{"ok": bool, "ms": float, ...}`` by check name."""
    checks: dict[str, Callable[[], Awaitable[dict]]] = {
        "database": _own_thread(database_check),
        "channel_layer": channel_layer_check,
        "kb_index": _own_thread(kb_index_check),
    }
    results = await asyncio.gather(*(_timed(name, check) for name, check in checks.items()))
    return dict(zip(checks, results, strict=True))


async def readyz(request: HttpRequest) -> HttpResponse:
    """200 with each check's result when the process can serve, 503 otherwise."""
    results = await run_checks()
    ready = all(result["ok"] for result in results.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": results},
        status=200 if ready else 503,
    )


async def livez(request: HttpRequest) -> HttpResponse:
    """200 as long as the process's event loop runs; no other dependency."""
    return JsonResponse({"status": "ok"})


# The old name of the readiness probe is kept for existing load balancers.
PROBES: dict[str, Callable[[HttpRequest], Awaitable[HttpResponse]]] = {
    "/livez": livez,
    "/readyz": readyz,
    "/healthz": readyz,
}


async def answer_probe(request: HttpRequest) -> HttpResponse | None:
    """The probe's response for a probe path, None for any other request."""
    view = PROBES.get(request.path_info)
    if view is None:
        return None
    if request.method not in ("GET", "HEAD"):
        response = HttpResponseNotAllowed(["GET", "HEAD"])
    else:
        response = await view(request)
    add_never_cache_headers(response)
    return response


@sync_and_async_middleware
def ProbeMiddleware(get_response):
    """Answer probes before anything reads the Host header.

    First in ``MIDDLEWARE``: ``CommonMiddleware`` would refuse a probe by IP
    with 400 when ``ALLOWED_HOSTS`` names the public host only, and the SSL
    redirect would send it to https. Probes carry no cookies and change
    nothing, so they need neither.
    """
    if iscoroutinefunction(get_response):

        async def middleware(request):
            response = await answer_probe(request)
            return response if response is not None else await get_response(request)

    else:

        def middleware(request):
            response = async_to_sync(answer_probe)(request)
            return response if response is not None else get_response(request)

    return middleware


async def _timed(name: str, check: Callable[[], Awaitable[dict]]) -> dict:
    started = time.perf_counter()
    try:
        details = await asyncio.wait_for(check(), settings.READINESS_CHECK_TIMEOUT_SECONDS)
    except Exception as exc:
        logger.warning("Readiness check %s failed", name, exc_info=True)
        return {"ok": False, "ms": _ms_since(started), "error": type(exc).__name__}
    return {"ok": True, "ms": _ms_since(started), **details}


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
