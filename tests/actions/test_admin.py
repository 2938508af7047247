import datetime as dt
import json

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from actions.models import CallbackRequest, Execution, SmsMessage, Suggestion, SupportTicket
from actions.services import suggestion_confirm, suggestion_create
from chat.models import Message

pytestmark = pytest.mark.django_db

PHONE = {"phone": "+46 70 123 45 67", "phone_e164": "+46701234567"}
MODELS = [Suggestion, Execution, CallbackRequest, SmsMessage, SupportTicket]


def url(model, view: str, *args) -> str:
    return reverse(f"admin:actions_{model._meta.model_name}_{view}", args=args)


@pytest.fixture
def executed(conversation):
    """One executed suggestion of each action type, all with the same number."""
    made = {}
    for action in ("schedule_callback", "send_sms", "create_ticket"):
        suggestion = suggestion_create(
            conversation_id=conversation.pk, action=action, payload=PHONE
        )
        result = suggestion_confirm(
            suggestion_id=suggestion.suggestion_id, conversation_id=conversation.pk
        )
        assert result.success
        made[action] = suggestion
    return made


@pytest.fixture
def pending(other_conversation):
    return suggestion_create(
        conversation_id=other_conversation.pk,
        action="schedule_callback",
        payload={"phone": "08-123 45 67", "phone_e164": "+4681234567"},
    )


def rows(model) -> list:
    return list(model.objects.order_by("pk").values())


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelist_and_detail_pages_load(admin_client, executed, model):
    """Every actions model lists its rows and shows each one read-only (no save button)."""
    response = admin_client.get(url(model, "changelist"))
    assert response.status_code == 200
    assert response.context["cl"].result_count == model.objects.count() > 0
    for obj in model.objects.all():
        detail = admin_client.get(url(model, "change", obj.pk))
        assert detail.status_code == 200
        assert b'name="_save"' not in detail.content


def test_acceptance_admin_shows_suggestion_execution_and_callback(admin_client, executed):
    """The suggestion's page shows its execution inline; the callback is listed."""
    suggestion = executed["schedule_callback"]
    page = admin_client.get(url(Suggestion, "change", suggestion.pk)).content.decode()
    assert suggestion.suggestion_id in page
    assert "Callback scheduled to +46 70 123 45 67" in page
    callbacks = admin_client.get(url(CallbackRequest, "changelist")).content.decode()
    assert "Callback to +46 70 123 45 67" in callbacks


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_add_change_delete_are_refused(admin_client, executed, model):
    """No audit row can be added, changed or deleted, even by a superuser."""
    obj = model.objects.first()
    before = rows(model)
    assert admin_client.get(url(model, "add")).status_code == 403
    assert admin_client.post(url(model, "add"), {}).status_code == 403
    assert admin_client.post(url(model, "change", obj.pk), {"message": "x"}).status_code == 403
    assert admin_client.get(url(model, "delete", obj.pk)).status_code == 403
    assert admin_client.post(url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
    assert rows(model) == before


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_bulk_delete_is_not_offered_nor_accepted(admin_client, executed, model):
    """The changelist offers no delete action, and posting one deletes nothing."""
    page = admin_client.get(url(model, "changelist"))
    assert b"delete_selected" not in page.content
    ids = list(model.objects.values_list("pk", flat=True))
    admin_client.post(
        url(model, "changelist"),
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
    )
    assert model.objects.count() == len(ids)


def test_suggestion_search_by_id_and_phone(admin_client, executed, pending):
    """Suggestions are found by their exact id and by the phone as written or in E.164."""
    changelist = url(Suggestion, "changelist")

    def found(term: str) -> set[str]:
        response = admin_client.get(changelist, {"q": term})
        return {s.suggestion_id for s in response.context["cl"].result_list}

    assert found(pending.suggestion_id) == {pending.suggestion_id}
    assert found("08-123 45 67") == {pending.suggestion_id}
    assert found("+4681234567") == {pending.suggestion_id}
    assert found("+46 70 123") == {s.suggestion_id for s in executed.values()}


def test_suggestion_filters(admin_client, executed, pending):
    """Action type, status and date filters narrow the suggestion list."""
    changelist = url(Suggestion, "changelist")

    def count(**params) -> int:
        response = admin_client.get(changelist, params)
        assert response.status_code == 200
        return response.context["cl"].result_count

    today = timezone.localdate()
    assert count(action__exact="send_sms") == 1
    assert count(status__exact="executed") == 3
    assert count(status__exact="pending") == 1
    assert count(created_at__year=today.year, created_at__month=today.month) == 4
    assert count(created_at__year=today.year - 1) == 0


def test_execution_filters_and_search(admin_client, executed):
    """Executions filter by action and outcome and are found by suggestion id."""
    changelist = url(Execution, "changelist")
    by_action = admin_client.get(changelist, {"suggestion__action__exact": "create_ticket"})
    assert by_action.context["cl"].result_count == 1
    assert admin_client.get(changelist, {"success__exact": "1"}).context["cl"].result_count == 3
    sid = executed["send_sms"].suggestion_id
    found = admin_client.get(changelist, {"q": sid}).context["cl"].result_list
    assert [e.suggestion.suggestion_id for e in found] == [sid]


def test_ticket_found_by_reference(admin_client, executed):
    """Staff can paste the reference the customer was given."""
    ticket = SupportTicket.objects.get()
    response = admin_client.get(url(SupportTicket, "changelist"), {"q": ticket.reference})
    assert list(response.context["cl"].result_list) == [ticket]
    assert ticket.reference.encode() in response.content


def test_artifacts_found_by_phone(admin_client, executed):
    """Callbacks, SMS and tickets are found by the customer's number."""
    for model in (CallbackRequest, SmsMessage, SupportTicket):
        response = admin_client.get(url(model, "changelist"), {"q": "+46701234567"})
        assert response.context["cl"].result_count == 1, model


def test_changelist_expires_stale_suggestions(admin_client, conversation):
    """Opening the suggestion list marks suggestions past their window as expired."""
    stale = suggestion_create(
        conversation_id=conversation.pk,
        action="send_sms",
        payload={},
        now=timezone.now() - dt.timedelta(hours=1),
    )
    admin_client.get(url(Suggestion, "changelist"))
    stale.refresh_from_db()
    assert stale.status == Suggestion.Status.EXPIRED


def test_anonymous_user_is_sent_to_login(client, executed):
    """The admin is for staff only."""
    response = client.get(url(Suggestion, "changelist"))
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_the_executions_export_holds_only_what_their_page_shows(admin_client, executed):
    """The client address is kept for quotas and hidden on the execution's page: the JSON
    Lines export leaves it out too."""
    Execution.objects.update(client_address="203.0.113.7")
    ids = list(Execution.objects.values_list("pk", flat=True))
    response = admin_client.post(
        url(Execution, "changelist"), {"action": "export_jsonl", "_selected_action": ids}
    )
    body = response.content.decode()
    rows = [json.loads(line) for line in body.splitlines()]
    assert {row["id"] for row in rows} == set(ids)
    assert all("client_address" not in row for row in rows) and "203.0.113.7" not in body
    assert all("status" in row and "message" in row for row in rows)


def test_the_timeline_shows_actions_only_to_who_may_view_them(
    client, django_user_model, executed, conversation
):
    """Staff who may view conversations but not actions see the turns, not the phone numbers
    or execution results."""

    def staff(name, *codenames):
        user = django_user_model.objects.create_user(name, password="pw-123456", is_staff=True)
        user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
        return user

    source = executed["schedule_callback"].source_message_id
    Message.objects.create(
        conversation=conversation, role=Message.Role.USER, message_id=source, text="Ring mig"
    )
    timeline = reverse("admin:chat_timeline", args=[conversation.pk])
    client.force_login(staff("vera", "view_conversation"))
    limited = client.get(timeline).content.decode()
    client.force_login(staff("alma", "view_conversation", "view_suggestion", "view_execution"))
    full = client.get(timeline).content.decode()
    assert "+46 70 123 45 67" in full or "+46701234567" in full
    assert "+46 70 123 45 67" not in limited and "+46701234567" not in limited
