"""Prometheus metrics: defined once here, recorded through the hook functions below.

Each server process counts for itself and serves its own numbers at
``/metrics`` (prometheus-client's default registry, so process CPU, memory
and file descriptors come along). With several daphne processes, scrape each
one (a target per process or port) and aggregate in the queries, e.g.
``sum(rate(chat_turns_total[5m])) by (outcome)``; counters restart at zero
with their process, which ``rate()`` handles.

Times are recorded in seconds, the Prometheus base unit; the hooks take the
milliseconds the audit trail keeps.
"""

import hmac
import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder

from actions.services import MSG_EXPIRED, MSG_REJECTED
from chat.models import Message

logger = logging.getLogger("chat.turn")

# Confirm outcomes, from the ``{success, ignored, message}`` a confirm answers.
EXECUTED, ALREADY_EXECUTED, EXPIRED, REJECTED, FAILED = (
    "executed",
    "already_executed",
    "expired",
    "rejected",
    "failed",
)
CONFIRM_RESULTS = (EXECUTED, ALREADY_EXECUTED, EXPIRED, REJECTED, FAILED)

CONNECTIONS_OPEN = Gauge("chat_connections_open", "Chat WebSockets open in this process.")
CONNECTIONS_OPENED = Counter(
    "chat_connections_opened", "Chat WebSockets accepted by this process since it started."
)
CHECKS_RUNNING = Gauge(
    "chat_checks_running", "Answers' number checks running in the verification pool now."
)
CHECKS_WAITING = Gauge(
    "chat_checks_waiting", "Answers' number checks queued for the verification pool now."
)
TURNS = Counter("chat_turns", "Finished chat turns, by outcome (message status).", ["outcome"])
WITHHELD_ANSWERS = Counter(
    "chat_withheld_answers", "Answers withheld because a number could not be verified."
)
ACTION_CONFIRMATIONS = Counter(
    "chat_action_confirmations", "Confirms of suggested actions, by result.", ["result"]
)
TIME_TO_FIRST_TOKEN = Histogram(
    "chat_time_to_first_token_seconds",
    "From the user's message to the LLM's first token.",
    buckets=(0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20),
)
TURN_DURATION = Histogram(
    "chat_turn_duration_seconds",
    "From the user's message to the end of the turn (any outcome).",
    buckets=(0.1, 0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 60, 120),
)

ORIGIN_REFUSALS = Counter(
    "chat_websocket_origin_refusals",
    "WebSocket handshakes refused for their Origin, by socket (chat, staff).",
    ["socket"],
)
WIDGET_EMBED_REFUSALS = Counter(
    "chat_widget_embed_refusals",
    "Widget frames asked for by a page whose origin is not in WIDGET_ALLOWED_ORIGINS.",
)

# Every known label value exported from the start, so rates work from zero.
for _status in Message.Status.values:
    TURNS.labels(outcome=_status)
for _result in CONFIRM_RESULTS:
    ACTION_CONFIRMATIONS.labels(result=_result)
for _socket in ("chat", "staff"):
    ORIGIN_REFUSALS.labels(socket=_socket)


def connection_opened() -> None:
    """Count a chat WebSocket that was accepted."""
    CONNECTIONS_OPEN.inc()
    CONNECTIONS_OPENED.inc()


def connection_closed() -> None:
    """Count a chat WebSocket that closed; call once per ``connection_opened``."""
    CONNECTIONS_OPEN.dec()


def origin_refused(socket: str) -> None:
    """Count a handshake refused for its Origin (``socket``: chat or staff)."""
    ORIGIN_REFUSALS.labels(socket=socket).inc()


def widget_embed_refused() -> None:
    """Count a widget frame refused to a page on an origin that may not embed it."""
    WIDGET_EMBED_REFUSALS.inc()


def turn_finished(status: str, ttft_ms: float | None, total_ms: float | None) -> None:
    """Record a finished turn (any outcome, cancelled included) and log one line about it.

    The line carries the status and timings, never the user's or the model's text.
    """
    TURNS.labels(outcome=status).inc()
    if status == Message.Status.WITHHELD:
        WITHHELD_ANSWERS.inc()
    if ttft_ms is not None:
        TIME_TO_FIRST_TOKEN.observe(ttft_ms / 1000)
    if total_ms is not None:
        TURN_DURATION.observe(total_ms / 1000)
    # DEBUG: one line per turn at INFO costs the event loop measurably under load.
    logger.debug(
        "Turn finished: %s",
        status,
        extra={"status": str(status), "ttft_ms": ttft_ms, "total_ms": total_ms},
    )


def action_confirmed(result: dict) -> str:
    """Count one confirm by its result (the ``action_executed`` frame's ``result``).

    Returns the label it was counted under.
    """
    label = confirm_result_label(result)
    ACTION_CONFIRMATIONS.labels(result=label).inc()
    return label


def confirm_result_label(result: dict) -> str:
    """The metric label of a confirm's ``{success, ignored, message}``."""
    if result.get("ignored"):
        # A repeat of a confirm that already claimed the action, whatever came of it.
        return ALREADY_EXECUTED
    if result.get("success"):
        return EXECUTED
    if result.get("message") == MSG_EXPIRED:
        return EXPIRED
    if result.get("message") == MSG_REJECTED:
        return REJECTED
    return FAILED


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """This process's metrics, in the format the scraper's Accept header asks for.

    The library's negotiation: Prometheus text 0.0.4 by default, OpenMetrics or
    text 1.0.0 when the scraper offers them.
    """
    if not _may_scrape(request):
        return HttpResponseForbidden(
            "Metrics: only METRICS_ALLOWED_ADDRESSES, or METRICS_TOKEN as a bearer token.",
            content_type="text/plain; charset=utf-8",
        )
    encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encoder(REGISTRY), content_type=content_type)


def _may_scrape(request: HttpRequest) -> bool:
    """A configured address (loopback by default), or ``Authorization: Bearer <METRICS_TOKEN>``."""
    token = settings.METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    return request.META.get("REMOTE_ADDR", "") in settings.METRICS_ALLOWED_ADDRESSES
