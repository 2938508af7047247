"""Staff users, their session cookies and sockets, for the handoff tests."""

from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Permission
from django.test import Client

from config.asgi import application

ORIGIN = (b"origin", b"http://localhost")
HOST = (b"host", b"localhost")  # the origin's own host: a same-origin staff page


def staff_user(django_user_model, username: str, *, permitted: bool = True, **extra):
    user = django_user_model.objects.create_user(
        username, password="pw-123456", is_staff=True, **extra
    )
    if permitted:
        user.user_permissions.add(Permission.objects.get(codename="handle_handoff"))
    return user


def session_cookie(user) -> bytes:
    """The Cookie header of a browser logged in as ``user`` (the admin login)."""
    client = Client()
    client.force_login(user)
    return "; ".join(f"{k}={v.value}" for k, v in client.cookies.items()).encode()


def staff_socket(cookie: bytes | None, *, origin: bool = True) -> WebsocketCommunicator:
    headers = [(b"cookie", cookie)] if cookie else []
    if origin:
        headers += [ORIGIN, HOST]
    return WebsocketCommunicator(application, "/ws/staff/", headers=headers)


async def receive_until(communicator, kind: str, timeout: float = 5) -> dict:
    """Frames until one of type ``kind`` (the others are skipped)."""
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame
