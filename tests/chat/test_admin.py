"""The admin where staff review turns: lists, filters, search, read-only rows, export."""

import json
import re

import pytest
from django.urls import reverse

from actions.models import CallbackRequest, Execution, Suggestion
from chat import audit
from chat.models import Conversation, Feedback, Message
from tests.chat.conftest import open_socket, run_turn

pytestmark = pytest.mark.usefixtures("indexed_kb")


@pytest.fixture
async def seed_session(indexed_kb, settings):
    """The seed's manual test: premium price, hallucinate, call-me with confirm, a cancel."""
    ws = await open_socket()
    await run_turn(ws, "Vad kostar premium?", message_id="price")
    await run_turn(ws, "hallucinate: Vad kostar premium?", message_id="halluc")
    frames = await run_turn(ws, "Ring mig imorgon på +46 70 123 45 67", message_id="call")
    await ws.send_json_to({"type": "confirm_action", "suggestionId": frames[-1]["suggestionId"]})
    await ws.receive_json_from(timeout=5)
    settings.LLM_TOKEN_DELAY_MS = "40"
    await ws.send_json_to({"type": "message", "id": "cancelled", "text": "Vad kostar basic?"})
    await ws.receive_json_from(timeout=5)
    await ws.send_json_to({"type": "cancel"})
    while (await ws.receive_json_from(timeout=5))["type"] != "stream_end":
        pass
    await ws.disconnect()
    await audit.drain()


@pytest.mark.usefixtures("seed_session")
def test_seed_session_is_fully_audited(admin_client):
    """Four turns with the right statuses, the hallucinated draft and the executed action."""
    statuses = dict(Message.objects.filter(role="assistant").values_list("message_id", "status"))
    assert statuses == {
        "price": "done",
        "halluc": "withheld",
        "call": "action",
        "cancelled": "cancelled",
    }
    withheld = Message.objects.get(message_id="halluc", role="assistant")
    assert "777" in withheld.draft
    assert withheld.unsupported[0]["text"].startswith("777")
    assert Execution.objects.get().success is True
    assert CallbackRequest.objects.count() == 1

    conversation = Conversation.objects.get()
    page = admin_client.get(reverse("admin:chat_conversation_change", args=[conversation.pk]))
    assert page.status_code == 200
    for text in ("Vad kostar premium?", "Jag kan inte verifiera det.", "cancelled"):
        assert text in page.content.decode()

    rejected = admin_client.get(reverse("admin:chat_rejectedanswer_changelist"))
    body = rejected.content.decode()
    assert "hallucinate: Vad kostar premium?" in body and "777" in body
    detail = admin_client.get(reverse("admin:chat_rejectedanswer_change", args=[withheld.pk]))
    assert "kb/pricing.md" in detail.content.decode()

    suggestions = admin_client.get(reverse("admin:actions_suggestion_changelist"))
    assert Suggestion.objects.get().suggestion_id in suggestions.content.decode()


@pytest.mark.usefixtures("seed_session")
@pytest.mark.parametrize(
    "query",
    [
        "",
        "?status__exact=withheld",
        "?grounded__exact=1",
        "?language__exact=sv",
        "?q=premium",
        "?created_at__year=2026",
    ],
)
def test_message_changelist_filters_and_search(admin_client, query):
    """The message list works with each filter, the date drill-down and search."""
    response = admin_client.get(reverse("admin:chat_message_changelist") + query)
    assert response.status_code == 200


@pytest.mark.usefixtures("seed_session")
def test_audit_rows_cannot_be_changed_or_deleted(admin_client):
    """Even a superuser gets no add, change or delete on audit rows, nor a bulk delete."""
    message = Message.objects.filter(role="assistant").first()
    change_url = reverse("admin:chat_message_change", args=[message.pk])
    response = admin_client.post(change_url, {"text": "edited"})
    assert response.status_code == 403
    delete = admin_client.post(
        reverse("admin:chat_message_delete", args=[message.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    assert admin_client.get(reverse("admin:chat_message_add")).status_code == 403
    bulk = admin_client.post(
        reverse("admin:chat_message_changelist"),
        {"action": "delete_selected", "_selected_action": [message.pk], "post": "yes"},
    )
    assert Message.objects.filter(pk=message.pk).exists()
    assert bulk.status_code in (200, 302)
    assert Message.objects.get(pk=message.pk).text != "edited"


@pytest.mark.usefixtures("seed_session")
def test_export_as_json_lines(admin_client):
    """The export action returns one JSON object per selected row."""
    ids = list(Message.objects.values_list("pk", flat=True))
    response = admin_client.post(
        reverse("admin:chat_message_changelist"),
        {"action": "export_jsonl", "_selected_action": ids},
    )
    assert response["Content-Type"] == "application/x-ndjson"
    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert {row["pk"] for row in rows} == set(ids)


def test_non_staff_cannot_open_the_admin(client, django_user_model):
    """A logged-in customer without staff status is sent to the login page."""
    user = django_user_model.objects.create_user("kund", password="pw-123456")
    client.force_login(user)
    response = client.get(reverse("admin:chat_message_changelist"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_feedback_admin_lists_feedback(admin_client):
    """Feedback shows with its answer."""
    conversation = Conversation.objects.create()
    answer = Message.objects.create(
        conversation=conversation, role="assistant", message_id="x", text="Svar"
    )
    Feedback.objects.create(message=answer, rating="down", comment="Fel pris")
    response = admin_client.get(reverse("admin:chat_feedback_changelist"))
    assert "Fel pris" in response.content.decode()


def test_retrieval_preview_shows_chunks_and_verdict(admin_client):
    """Staff see retrieved chunks with scores and the verdict on their answer."""
    url = reverse("retrieval-preview")
    response = admin_client.get(
        url,
        {
            "question": "Vad kostar premium?",
            "answer": "Premium kostar 777 kr/månad [kb/pricing.md:18].",
            "top_k": 5,
            "threshold": 0.2,
        },
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "kb/pricing.md" in body and "withheld" in body and "777" in body
    grounded = admin_client.get(
        url,
        {
            "question": "Vad kostar premium?",
            "answer": "Premium kostar 399 kr/månad [kb/pricing.md:18].",
            "top_k": 5,
            "threshold": 0.2,
        },
    )
    assert "Verdict: grounded" in grounded.content.decode()


def test_retrieval_preview_is_staff_only(client):
    """Anonymous users are sent to the admin login."""
    response = client.get(reverse("retrieval-preview"))
    assert response.status_code == 302


def test_retrieval_preview_needs_its_own_permission(client, django_user_model):
    """Staff status alone is not enough: 403 without grounding.preview_retrieval, 200 with it."""
    from django.contrib.auth.models import Permission

    staff = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)
    url = reverse("retrieval-preview")
    assert client.get(url).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="preview_retrieval"))
    client.force_login(django_user_model.objects.get(pk=staff.pk))
    assert client.get(url).status_code == 200


@pytest.mark.usefixtures("seed_session")
def test_an_answers_numbers_show_with_their_lines_read_only(admin_client):
    """The answer's page lists each number with the KB line it came from, as text only."""
    answer = Message.objects.get(message_id="price", role="assistant")
    Message.objects.filter(pk=answer.pk).update(
        numbers=[
            {"start": 9, "end": 21, "text": "399 kr/månad", "file": "kb/pricing.md", "line": 18}
        ]
    )

    page = admin_client.get(reverse("admin:chat_message_change", args=[answer.pk]))

    assert "<b>399 kr/månad</b>: kb/pricing.md:18" in page.content.decode()
    assert 'name="numbers"' not in page.content.decode()


def test_the_conversation_list_names_the_customer_by_their_first_question(admin_client):
    """Language, first question and start instead of a bare UUID; a conversation without a
    question yet is named by its short id."""
    asked = Conversation.objects.create(language="en")
    Message.objects.create(
        conversation=asked, role=Message.Role.USER, message_id="q1", text="How do I cancel?"
    )
    Message.objects.create(
        conversation=asked, role=Message.Role.USER, message_id="q2", text="Hello again"
    )
    silent = Conversation.objects.create(language="sv")
    body = admin_client.get(reverse("admin:chat_conversation_changelist")).content.decode()
    assert "How do I cancel?" in body and "Hello again" not in body
    assert f"No question yet ({str(silent.pk)[:8]})" in body
    cells = re.findall(r'<th class="field-customer"><a [^>]*>([^<]*)</a>', body)
    assert sorted(cells) == sorted(["How do I cancel?", f"No question yet ({str(silent.pk)[:8]})"])
    assert "customer (first question)" in body.lower()
