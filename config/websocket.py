"""The WebSocket side of the ASGI application: origin check, session, routes."""

from channels.auth import AuthMiddlewareStack
from channels.security.websocket import OriginValidator
from django.conf import settings

from chat.routing import websocket_urlpatterns


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


def allowed_origins() -> list[str]:
    """ALLOWED_HOSTS, plus the local names Django itself allows in DEBUG."""
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def websocket_application():
    from channels.routing import URLRouter

    return BrowserOriginValidator(
        AuthMiddlewareStack(URLRouter(websocket_urlpatterns)), allowed_origins()
    )
