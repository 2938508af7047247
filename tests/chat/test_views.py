"""The chat page and its history endpoint, bound to the browser session."""

import pytest
from django.test import Client

from actions.services import suggestion_create
from chat.models import Conversation, Message, session_hash


@pytest.mark.django_db
def test_chat_page_serves_the_client_and_starts_a_session(client):
    """GET / renders the page with the chips and gives the browser a session cookie."""
    response = client.get("/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "Vad kostar premium?" in body and "chat.js" in body
    assert client.session.session_key


@pytest.mark.django_db
def test_page_view_that_never_chats_leaves_no_session_row(client):
    """A cookieless GET / sets a session cookie but writes nothing to the session table."""
    from django.contrib.sessions.models import Session

    response = client.get("/")
    assert response.cookies["sessionid"].value
    assert Session.objects.count() == 0
    # The same browser keeps its key on the next view.
    again = client.get("/")
    assert "sessionid" not in again.cookies
    assert Session.objects.count() == 0


@pytest.mark.django_db
def test_static_client_is_served():
    """The page's script is served by the app itself (no collectstatic needed)."""
    response = Client().get("/static/chat/chat.js")
    assert response.status_code == 200


@pytest.mark.django_db
def test_history_is_only_the_sessions_own_conversation():
    """Reloading shows this browser's conversation; another browser sees nothing of it."""
    owner, stranger = Client(), Client()
    owner.get("/")
    stranger.get("/")
    conversation = Conversation.objects.create(
        session_hash=session_hash(owner.cookies["sessionid"].value)
    )
    question = Message.objects.create(
        conversation=conversation, role="user", message_id="m1", text="Vad kostar premium?"
    )
    Message.objects.create(
        conversation=conversation,
        role="assistant",
        message_id="m1",
        reply_to=question,
        text="Premium: 399 kr/månad.",
        grounded=True,
        citations=[{"file": "kb/pricing.md", "snippet": "- Premium: 399 kr/månad", "line": 18}],
    )
    suggestion = suggestion_create(
        conversation_id=conversation.pk, action="schedule_callback", payload={}
    )

    mine = owner.get("/history/").json()
    assert [m["text"] for m in mine["messages"]] == [
        "Vad kostar premium?",
        "Premium: 399 kr/månad.",
    ]
    assert mine["messages"][1]["citations"][0]["file"] == "kb/pricing.md"
    assert [s["suggestionId"] for s in mine["suggestions"]] == [suggestion.suggestion_id]

    theirs = stranger.get("/history/").json()
    assert theirs == {"conversationId": None, "messages": [], "suggestions": []}
