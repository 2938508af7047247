"""The widget's socket and its conversation token (chat.widget's table), end to end."""

import datetime as dt
import logging
import secrets

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from chat import audit
from chat.models import Conversation, session_hash
from chat.widget import widget_conversation_open, widget_tokens_revoke
from tests.chat.conftest import open_socket, run_turn
from tests.live import run_python

pytestmark = pytest.mark.usefixtures("indexed_kb")


def new_token() -> str:
    return secrets.token_urlsafe(32)


async def widget_socket(token: str, language: str = "sv"):
    ws = await open_socket("/ws/widget/")
    await ws.send_json_to({"type": "resume", "token": token, "language": language})
    return ws


async def test_a_token_resumes_its_conversation_on_a_new_socket():
    """First use: a conversation; a later socket with the same token continues it."""
    token = new_token()
    first = await widget_socket(token)
    resumed = await first.receive_json_from(timeout=5)
    assert resumed["type"] == "resumed"
    sid = (await run_turn(first, "Ring mig på 070-123 45 67"))[-1]["suggestionId"]
    await first.disconnect()
    await audit.drain()
    second = await widget_socket(token)
    assert await second.receive_json_from(timeout=5) == resumed
    await second.send_json_to({"type": "confirm_action", "suggestionId": sid})
    assert (await second.receive_json_from(timeout=5))["result"]["ignored"] is False
    await second.disconnect()
    conversation = await sync_to_async(Conversation.objects.get)()
    assert conversation.channel == "widget" and str(conversation.pk) == resumed["conversationId"]


async def test_the_token_is_stored_only_as_its_keyed_hash(caplog):
    """Not the token itself in any column of the conversation, nor in a log line."""
    caplog.set_level(logging.DEBUG)
    token = new_token()
    ws = await widget_socket(token)
    await ws.receive_json_from(timeout=5)
    await run_turn(ws, "Vad kostar premium?")
    await ws.disconnect()
    await audit.drain()
    conversation = await sync_to_async(Conversation.objects.get)()
    row = await sync_to_async(
        lambda: list(Conversation.objects.values_list().get(pk=conversation.pk))
    )()
    assert token not in repr(row) and session_hash(token) in row
    assert token not in caplog.text


@pytest.mark.parametrize("why", ["revoked", "expired"])
async def test_a_revoked_or_expired_token_is_refused_and_a_new_one_starts_over(why):
    """token_refused and close 4001; the widget's next token is a new, empty conversation."""
    token = new_token()
    ws = await widget_socket(token)
    old = (await ws.receive_json_from(timeout=5))["conversationId"]
    await run_turn(ws, "Vad kostar premium?")
    await ws.disconnect()
    await audit.drain()
    if why == "revoked":
        await sync_to_async(widget_tokens_revoke)(conversation_ids=[old])
    else:
        past = timezone.now() - dt.timedelta(seconds=1)
        await sync_to_async(Conversation.objects.filter(pk=old).update)(token_expires_at=past)
    again = await widget_socket(token)
    assert await again.receive_json_from(timeout=5) == {"type": "token_refused"}
    assert (await again.receive_output(timeout=5))["code"] == 4001
    fresh = await widget_socket(new_token())
    assert (await fresh.receive_json_from(timeout=5))["conversationId"] != old
    await fresh.disconnect()


async def test_revoking_closes_the_open_sockets_of_the_token():
    """Staff revoke while the widget is connected: it is told at once, and closed."""
    token = new_token()
    ws = await widget_socket(token)
    conversation_id = (await ws.receive_json_from(timeout=5))["conversationId"]
    assert await sync_to_async(widget_tokens_revoke)(conversation_ids=[conversation_id]) == 1
    assert await ws.receive_json_from(timeout=5) == {"type": "token_refused"}
    assert (await ws.receive_output(timeout=5))["code"] == 4001


async def test_two_tabs_with_one_token_before_the_first_message_share_everything():
    """Both resume before any message: one conversation; the message and the answer, and
    the rejection of a card, reach the other tab."""
    token = new_token()
    first, second = await widget_socket(token), await widget_socket(token)
    assert (await first.receive_json_from(timeout=5)) == (await second.receive_json_from(timeout=5))
    frames = await run_turn(first, "Ring mig på 070-123 45 67", message_id="q1")
    shown = [await second.receive_json_from(timeout=5) for _ in range(5)]
    kinds = ["user_message", "stream_sync", "stream_end", "response", "action_suggestion"]
    assert [f["type"] for f in shown] == kinds
    await second.send_json_to({"type": "reject_action", "suggestionId": frames[-1]["suggestionId"]})
    assert (await second.receive_json_from(timeout=5))["type"] == "action_rejected"
    assert (await first.receive_json_from(timeout=5))["card"]["state"] == "rejected"
    await first.disconnect()
    await second.disconnect()


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "message", "text": "Hej"},  # before resume
        {"type": "resume", "token": "short"},
        {"type": "resume", "token": "x" * 43, "language": "de"},
    ],
)
async def test_the_widget_socket_wants_a_well_formed_resume_first(frame):
    """Anything else first, or a malformed token, is refused and the socket closed (1008);
    the error never echoes the token."""
    ws = await open_socket("/ws/widget/")
    await ws.send_json_to(frame)
    error = await ws.receive_json_from(timeout=5)
    assert error["type"] == "error" and error["code"] == "invalid_message"
    assert "short" not in str(error)
    assert (await ws.receive_output(timeout=5))["code"] == 1008


async def test_resume_on_the_chat_page_socket_is_refused():
    ws = await open_socket("/ws/chat/")
    await ws.send_json_to({"type": "resume", "token": new_token()})
    assert (await ws.receive_json_from(timeout=5))["code"] == "invalid_message"


def test_a_token_is_created_once_with_an_expiry(transactional_db, settings):
    """The token's first use creates its conversation; later uses find the same one."""
    settings.WIDGET_TOKEN_DAYS = 7
    token, now = new_token(), timezone.now()
    created = widget_conversation_open(token=token, language="en", now=now)
    assert created.token_expires_at == now + dt.timedelta(days=7)
    assert widget_conversation_open(token=token, language="sv", now=now).pk == created.pk
    assert (
        widget_conversation_open(token=token, language="sv", now=now + dt.timedelta(days=8)) is None
    )


# -- the admin, the export, the HTTP side -------------------------------------------


@pytest.fixture
def widget_conversation(transactional_db):
    """A widget conversation with one exchange, and its token."""
    from chat.models import Message

    token = new_token()
    conversation = widget_conversation_open(token=token, language="sv")
    question = Message.objects.create(
        conversation=conversation, role="user", message_id="q1", text="Vad kostar premium?"
    )
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        message_id="q1",
        reply_to=question,
        text="Premium: 399 kr/månad.",
    )
    return conversation, token


def test_neither_the_token_nor_its_hash_is_in_the_admin_or_its_export(
    admin_client, widget_conversation
):
    """Changelist, change page, timeline and the JSON Lines export: a stolen token is impossible."""
    from django.urls import reverse

    conversation, token = widget_conversation
    secret_forms = (token, session_hash(token))
    pages = [
        admin_client.get(reverse("admin:chat_conversation_changelist")),
        admin_client.get(reverse("admin:chat_conversation_change", args=[conversation.pk])),
        admin_client.get(reverse("admin:chat_timeline", args=[conversation.pk])),
        admin_client.post(
            reverse("admin:chat_conversation_changelist"),
            {"action": "export_jsonl", "_selected_action": [conversation.pk]},
        ),
    ]
    for page in pages:
        assert page.status_code == 200
        body = page.content.decode()
        assert not any(secret in body for secret in secret_forms)
    assert "live until" in pages[0].content.decode()
    assert "widget" in pages[3].content.decode()


def test_staff_with_the_permission_revoke_a_token_in_the_admin(
    client, django_user_model, widget_conversation
):
    """The admin action revokes; staff without the permission are not offered it."""
    from django.contrib.auth.models import Permission
    from django.urls import reverse

    conversation, token = widget_conversation
    user = django_user_model.objects.create_user("eva", password="pw-123456", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_conversation"))
    client.force_login(user)
    url = reverse("admin:chat_conversation_changelist")
    assert "revoke_widget_tokens" not in client.get(url).content.decode()
    user.user_permissions.add(Permission.objects.get(codename="revoke_widget_token"))
    user = django_user_model.objects.get(pk=user.pk)
    client.force_login(user)
    assert "revoke_widget_tokens" in client.get(url).content.decode()
    client.post(url, {"action": "revoke_widget_tokens", "_selected_action": [conversation.pk]})
    conversation.refresh_from_db()
    assert conversation.token_revoked_at is not None
    assert widget_conversation_open(token=token, language="sv") is None
    assert "revoked" in client.get(url).content.decode()


def test_the_history_takes_the_token_from_the_authorization_header(client, widget_conversation):
    """Bearer token: the transcript; none, malformed or revoked: nothing of it."""
    conversation, token = widget_conversation
    answer = client.get("/widget/history/", headers={"Authorization": f"Bearer {token}"})
    assert answer.json()["conversationId"] == str(conversation.pk)
    assert [m["text"] for m in answer.json()["messages"]] == [
        "Vad kostar premium?",
        "Premium: 399 kr/månad.",
    ]
    assert client.get("/widget/history/").status_code == 401
    assert client.get("/widget/history/", headers={"Authorization": "Bearer x"}).status_code == 401
    widget_tokens_revoke(conversation_ids=[conversation.pk])
    revoked = client.get("/widget/history/", headers={"Authorization": f"Bearer {token}"})
    assert revoked.json() == {
        "conversationId": None,
        "messages": [],
        "suggestions": [],
        "actions": [],
    }


def test_the_frame_may_be_embedded_only_by_allowed_sites(client, db, settings):
    """CSP frame-ancestors lists them (no X-Frame-Options DENY on the frame, as on '/'); a
    Referer from another site is refused and counted; the loader says why in the console."""
    from chat.metrics import WIDGET_EMBED_REFUSALS

    settings.WIDGET_ALLOWED_ORIGINS = ["https://shop.example"]
    frame = client.get("/widget/?lang=en", headers={"Referer": "https://shop.example/cart"})
    assert frame.status_code == 200
    assert frame["Content-Security-Policy"] == "frame-ancestors 'self' https://shop.example"
    assert "X-Frame-Options" not in frame and client.get("/")["X-Frame-Options"] == "DENY"
    assert '<html lang="en"' in frame.content.decode()
    before = WIDGET_EMBED_REFUSALS._value.get()
    refused = client.get("/widget/", headers={"Referer": "http://shop.example/"})  # http
    assert refused.status_code == 403
    loader = client.get("/widget.js", headers={"Referer": "https://evil.example/"})
    assert loader.content.decode().startswith('console.error("Support widget: https://evil.example')
    assert WIDGET_EMBED_REFUSALS._value.get() == before + 2
    allowed = client.get("/widget.js", headers={"Referer": "https://shop.example/"})
    assert "https://shop.example" in allowed.content.decode()


def test_the_demo_page_is_served_when_widget_demo_is_on_and_its_404_says_how_to_turn_it_on(
    client, db, settings
):
    settings.DEBUG = False
    settings.WIDGET_DEMO = False
    off = client.get("/widget-demo/")
    assert off.status_code == 404
    assert "Set WIDGET_DEMO=1" in off.content.decode()
    settings.WIDGET_DEMO = True  # outside debug too
    assert '<script src="/widget.js" async' in client.get("/widget-demo/").content.decode()


def test_the_demo_is_on_by_default_in_development_only(monkeypatch):
    code = "import config.settings as settings; print(settings.WIDGET_DEMO)"
    for debug, expected in (("1", "True"), ("0", "False")):
        monkeypatch.setenv("DJANGO_DEBUG", debug)
        monkeypatch.delenv("WIDGET_DEMO", raising=False)
        assert run_python(code) == expected


def test_an_entry_of_widget_allowed_origins_that_is_no_origin_fails_the_check(settings):
    """A host without scheme, or a URL with a path, is named in a clear error."""
    from chat.checks import widget_allowed_origins_check

    settings.WIDGET_ALLOWED_ORIGINS = [
        "https://shop.example",
        "shop.example",
        "https://a.example/x",
    ]
    errors = widget_allowed_origins_check(None)
    assert [e.id for e in errors] == ["chat.E001", "chat.E001"]
    assert "'shop.example' is not an origin" in errors[0].msg


def test_a_parsed_resume_never_shows_its_token_in_a_repr():
    from chat import protocol

    token = new_token()
    command = protocol.parse_command({"type": "resume", "token": token}, max_text_chars=10)
    assert command.token == token and token not in repr(command) and token not in str(command)


async def test_a_token_that_expires_while_its_socket_is_open_closes_it():
    """Expiry is not checked only at resume: the open socket is refused when it comes."""
    token = new_token()
    ws = await widget_socket(token)
    conversation_id = (await ws.receive_json_from(timeout=5))["conversationId"]
    await ws.disconnect()
    soon = timezone.now() + dt.timedelta(seconds=2)
    await sync_to_async(Conversation.objects.filter(pk=conversation_id).update)(
        token_expires_at=soon
    )
    ws = await widget_socket(token)
    assert (await ws.receive_json_from(timeout=5))["conversationId"] == conversation_id
    assert await ws.receive_json_from(timeout=30) == {"type": "token_refused"}
    assert (await ws.receive_output(timeout=5))["code"] == 4001
    assert timezone.now() >= soon
