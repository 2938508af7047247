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
    assert "hallucinate" not in body, "the debug chip is for DJANGO_DEBUG=1 only"
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
        numbers=[
            {"start": 9, "end": 21, "text": "399 kr/månad", "file": "kb/pricing.md", "line": 18}
        ],
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
    assert mine["messages"][1]["numbers"][0]["line"] == 18
    assert "numbers" not in mine["messages"][0]
    assert [s["suggestionId"] for s in mine["suggestions"]] == [suggestion.suggestion_id]

    theirs = stranger.get("/history/").json()
    assert theirs == {"conversationId": None, "messages": [], "suggestions": [], "actions": []}


@pytest.mark.django_db
def test_debug_chip_shows_only_with_django_debug(client, settings):
    """The hallucinate chip (the guard demo) appears with DEBUG on."""
    settings.DEBUG = True
    assert "hallucinate: Vad kostar premium?" in client.get("/").content.decode()


@pytest.mark.django_db
def test_chips_come_from_settings_in_the_pages_language(client, settings):
    """CHAT_SUGGESTIONS per language; the browser's language picks the set and the strings."""
    settings.CHAT_SUGGESTIONS = {"sv": ["Hur säger jag upp?"], "en": ["How do I cancel?"]}
    swedish = client.get("/", HTTP_ACCEPT_LANGUAGE="sv").content.decode()
    english = Client().get("/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9").content.decode()
    assert "Hur säger jag upp?" in swedish and '<html lang="sv">' in swedish
    assert "Kundtjänst" in swedish
    assert "How do I cancel?" in english and '<html lang="en">' in english
    assert "Customer service" in english and "Kundtjänst" not in english


@pytest.mark.django_db
def test_language_switch_sets_the_page_language():
    """The header's switch posts to Django's set_language; the page follows it."""
    browser = Client()
    browser.get("/", HTTP_ACCEPT_LANGUAGE="sv")
    browser.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert '<html lang="en">' in browser.get("/", HTTP_ACCEPT_LANGUAGE="sv").content.decode()


@pytest.mark.django_db
def test_history_gives_every_card_its_final_state_and_feedback(settings):
    """Executed (with its ticket number), rejected, expired and pending cards; chosen thumbs."""
    import datetime as dt

    from django.utils import timezone

    from actions.services import suggestion_confirm, suggestion_reject
    from chat.models import Feedback

    owner = Client()
    owner.get("/", HTTP_ACCEPT_LANGUAGE="sv")
    conversation = Conversation.objects.create(
        session_hash=session_hash(owner.cookies["sessionid"].value)
    )
    answer = Message.objects.create(
        conversation=conversation, role="assistant", message_id="m1", text="Svar."
    )
    Feedback.objects.create(message=answer, rating="down", reason="wrong", comment="Fel pris")
    ticket = suggestion_create(conversation_id=conversation.pk, action="create_ticket", payload={})
    suggestion_confirm(suggestion_id=ticket.suggestion_id, conversation_id=conversation.pk)
    declined = suggestion_create(
        conversation_id=conversation.pk, action="schedule_callback", payload={}
    )
    suggestion_reject(suggestion_id=declined.suggestion_id, conversation_id=conversation.pk)
    stale = suggestion_create(
        conversation_id=conversation.pk,
        action="send_sms",
        payload={},
        now=timezone.now() - dt.timedelta(hours=1),
    )
    waiting = suggestion_create(conversation_id=conversation.pk, action="send_sms", payload={})

    data = owner.get("/history/", HTTP_ACCEPT_LANGUAGE="sv").json()
    cards = {a["suggestionId"]: a["card"] for a in data["actions"]}
    assert cards[ticket.suggestion_id]["state"] == "done"
    assert cards[ticket.suggestion_id]["reference"].startswith("T-")
    assert cards[ticket.suggestion_id]["message"] == (
        f"Ärende {cards[ticket.suggestion_id]['reference']} skapat."
    )
    assert cards[declined.suggestion_id]["state"] == "rejected"
    assert cards[stale.suggestion_id]["state"] == "expired"
    assert 25 < cards[waiting.suggestion_id].pop("secondsLeft") <= 30
    assert cards[waiting.suggestion_id] | {"message": ""} == {
        "state": "pending",
        "phone": "",
        "needsPhone": True,
        "reference": "",
        "message": "",
    }
    assert [s["suggestionId"] for s in data["suggestions"]] == [waiting.suggestion_id]
    assert data["messages"][0]["feedback"] == {
        "rating": "down",
        "reason": "wrong",
        "comment": "Fel pris",
    }


PLANTED = "attackerchosenkey0123456789abcdef"


@pytest.mark.django_db
def test_a_planted_session_cookie_is_replaced_by_an_issued_key():
    """Issue 25, finding 8: a key the server never issued is not kept for the chat."""
    from chat import sessionkeys

    browser = Client()
    browser.cookies["sessionid"] = PLANTED
    response = browser.get("/")
    issued = response.cookies["sessionid"].value
    assert issued != PLANTED and sessionkeys.is_signed(issued)
    assert "sessionid" not in browser.get("/").cookies, "an issued key is kept"


@pytest.mark.django_db
def test_history_under_a_key_the_server_never_issued_is_empty():
    """Whoever chose a planted key cannot read a conversation bound to it."""
    conversation = Conversation.objects.create(session_hash=session_hash(PLANTED))
    Message.objects.create(conversation=conversation, role="user", message_id="m1", text="Hej")
    attacker = Client()
    attacker.cookies["sessionid"] = PLANTED
    assert attacker.get("/history/").json()["messages"] == []
