from channels.auth import AuthMiddlewareStack
from channels.security.websocket import OriginValidator
from django.urls import path

from chat.consumers import ChatConsumer
from chat.edge import ReleaseSlots
from chat.staff_consumer import StaffConsumer


def staff_application():
    """The staff socket: the Django session's user, and an Origin header is required."""
    from config.websocket import allowed_origins

    return OriginValidator(AuthMiddlewareStack(StaffConsumer.as_asgi()), allowed_origins())


websocket_urlpatterns = [
    path("ws/chat/", ReleaseSlots(ChatConsumer.as_asgi())),
    path("ws/staff/", staff_application()),
    # Clients written against the seed connect to the root.
    path("", ReleaseSlots(ChatConsumer.as_asgi())),
]
