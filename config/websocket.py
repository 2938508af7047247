"""The WebSocket side of the ASGI application: origin check, session key, routes."""

from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.http.cookie import parse_cookie
from django.urls import path

from chat.consumers import ChatConsumer
from chat.edge import ReleaseSlots
from chat.staff_consumer import StaffConsumer


class BrowserOriginValidator(OriginValidator):
    """Refuse browser handshakes from foreign origins, accept non-browser clients.

    Only browsers send an Origin header, and only browsers carry a victim's
    cookies, so a handshake without one (curl, the seed's test client) is
    accepted. ``Origin: null`` (sandboxed frames, file:// pages) is refused.
    """

    def valid_origin(self, parsed_origin) -> bool:
        if parsed_origin is None:
            return True
        return super().valid_origin(parsed_origin)


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
        return await self.app({**scope, "session_key": key}, receive, send)


def allowed_origins() -> list[str]:
    """ALLOWED_HOSTS, plus the local names Django itself allows in DEBUG."""
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def staff_application():
    """The staff socket: the Django session's user, and an Origin header is required."""
    return OriginValidator(AuthMiddlewareStack(StaffConsumer.as_asgi()), allowed_origins())


def websocket_urlpatterns() -> list:
    return [
        path("ws/chat/", ReleaseSlots(ChatConsumer.as_asgi())),
        path("ws/staff/", staff_application()),
        # Clients written against the seed connect to the root.
        path("", ReleaseSlots(ChatConsumer.as_asgi())),
    ]


def websocket_application():
    return BrowserOriginValidator(
        SessionKeyMiddleware(URLRouter(websocket_urlpatterns())), allowed_origins()
    )
