"""The WebSocket stack's session key: read from the handshake's cookies, nothing else."""

import pytest

from chat import sessionkeys
from config.websocket import SessionKeyMiddleware, session_key_from_headers

KEY = "abcdefgh12345678abcdefgh12345678"


def test_the_session_cookie_gives_the_key():
    """``sessionid`` among other cookies is found."""
    headers = [(b"host", b"x"), (b"cookie", f"csrftoken=t; sessionid={KEY}; theme=dark".encode())]
    assert session_key_from_headers(headers) == KEY


def test_no_cookie_or_no_session_cookie_gives_no_key():
    """Without the session cookie the key is empty."""
    assert session_key_from_headers([]) == ""
    assert session_key_from_headers([(b"cookie", b"csrftoken=t")]) == ""


def test_a_key_django_would_refuse_is_ignored():
    """Too short or too long for Django's session store: no key."""
    assert session_key_from_headers([(b"cookie", b"sessionid=short")]) == ""
    assert session_key_from_headers([(b"cookie", b"sessionid=" + b"x" * 41)]) == ""


def test_several_cookie_headers_are_read_together():
    """HTTP/2 style: one Cookie header per cookie."""
    headers = [(b"cookie", b"a=1"), (b"Cookie", f"sessionid={KEY}".encode())]
    assert session_key_from_headers(headers) == KEY


async def test_the_middleware_adds_the_key_and_leaves_send_alone():
    """The application gets ``scope["session_key"]`` and the server's own ``send``."""
    key = sessionkeys.issue()
    seen = {}

    async def app(scope, receive, send):
        seen.update(scope=scope, send=send)

    async def send(message):
        pass

    scope = {"type": "websocket", "headers": [(b"cookie", f"sessionid={key}".encode())]}
    await SessionKeyMiddleware(app)(scope, None, send)
    assert seen["scope"]["session_key"] == key
    assert seen["send"] is send
    assert "session_key" not in scope


@pytest.mark.django_db(transaction=True)
async def test_a_key_the_server_never_issued_binds_nothing():
    """A planted cookie (issue 25, finding 8): the application gets no key from it."""
    seen = {}

    async def app(scope, receive, send):
        seen.update(scope=scope)

    forged = KEY[:20] + "0" * 16  # the signed form, with a wrong signature
    for planted in (KEY, forged):
        scope = {"type": "websocket", "headers": [(b"cookie", f"sessionid={planted}".encode())]}
        await SessionKeyMiddleware(app)(scope, None, None)
        assert seen["scope"]["session_key"] == ""
