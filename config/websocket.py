"""The WebSocket side of the ASGI application: origin check, session key, routes."""

import logging

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.cookie import parse_cookie
from django.urls import path

from chat import metrics, sessionkeys
from chat.consumers import ChatConsumer
from chat.edge import ReleaseSlots, allowed_widget_origins, origin_allowed
from staff.consumer import StaffConsumer

logger = logging.getLogger(__name__)


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class OriginGate:
    """Refuse browser handshakes from origins that may not open this socket (chat.edge's table).

    The whole origin is compared (scheme, host, port) with the server's own,
    and for the chat with ``WIDGET_ALLOWED_ORIGINS``. A refusal is a 403 to the
    handshake (the browser's console shows it), a warning naming the origin
    and the setting, and ``chat_websocket_origin_refusals_total{socket}``.
    """

    def __init__(self, app, *, socket: str, embedders: bool, origin_required: bool) -> None:
        self.app = app
        self.socket = socket
        self.embedders = embedders
        self.origin_required = origin_required

    async def __call__(self, scope, receive, send):
        origin = _header(scope, b"origin")
        embedders = allowed_widget_origins() if self.embedders else frozenset()
        allowed = origin_allowed(
            origin, host=_header(scope, b"host") or "", secure=_secure(scope), embedders=embedders
        ) and not (origin is None and self.origin_required)
        if allowed:
            return await self.app(scope, receive, send)
        metrics.origin_refused(self.socket)
        logger.warning(
            "Refused a %s WebSocket from origin %.100r: not this site%s",
            self.socket,
            origin,
            " and not in WIDGET_ALLOWED_ORIGINS" if self.embedders else "",
        )
        return await WebsocketDenier()(scope, receive, send)


def _secure(scope) -> bool:
    """wss, or https at a trusted TLS proxy (``SECURE_PROXY_SSL_HEADER``, as Django reads it)."""
    if scope.get("scheme") in ("wss", "https"):
        return True
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    return bool(proxy) and (_header(scope, b"x-forwarded-proto") or "").lower() == "https"


def session_key_from_headers(headers) -> str:
    """The browser session's key from the handshake's Cookie header; "" without a usable one.

    A key is usable as Django's session store takes one: 8 to 40 characters.
    """
    cookies = b"; ".join(value for name, value in headers if name.lower() == b"cookie")
    if not cookies:
        return ""
    key = parse_cookie(cookies.decode("latin-1")).get(settings.SESSION_COOKIE_NAME, "")
    return key if 8 <= len(key) <= 40 else ""


class SessionKeyMiddleware:
    """Put the browser session's key in ``scope["session_key"]``.

    The chat needs only the key that binds a conversation to its browser
    session. Channels' session and auth middleware would load a session
    object and a user it never reads, and wrap ``send`` for every frame of
    every stream (to save sessions on HTTP responses): a cost per token.
    """

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        key = session_key_from_headers(scope.get("headers", ()))
        if key and not sessionkeys.is_signed(key):
            # A key we did not issue binds nothing (chat.sessionkeys): a planted cookie.
            key = key if await database_sync_to_async(sessionkeys.is_issued)(key) else ""
        return await self.app({**scope, "session_key": key}, receive, send)


def staff_application():
    """The staff socket: the Django session's user; only this site's own pages, Origin required."""
    return OriginGate(
        AuthMiddlewareStack(StaffConsumer.as_asgi()),
        socket="staff",
        embedders=False,
        origin_required=True,
    )


def chat_application(**initkwargs):
    """The customer's socket: this site's pages and the sites allowed to embed the widget."""
    return OriginGate(
        SessionKeyMiddleware(ReleaseSlots(ChatConsumer.as_asgi(**initkwargs))),
        socket="chat",
        embedders=True,
        origin_required=False,
    )


def websocket_urlpatterns() -> list:
    return [
        path("ws/chat/", chat_application()),
        # The widget's frame: the conversation token comes in the first frame (chat/widget.py).
        path("ws/widget/", chat_application(widget=True)),
        path("ws/staff/", staff_application()),
        # Clients written against the seed connect to the root.
        path("", chat_application()),
    ]


def websocket_application():
    return URLRouter(websocket_urlpatterns())
