"""The audit trail's prepared SQL: the rows it writes are the rows the ORM would write."""

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from chat.models import Conversation, Handoff, Message
from chat.statements import any_owned, conversations_active, messages_insert
from tests.actions import test_concurrency
from tests.live import module_process, process_outputs

pytestmark = pytest.mark.django_db

# A throwaway database on the server of TEST_POSTGRES_URL (the actions race's fixture).
postgres_database_url = test_concurrency.postgres_database_url


def conversation(**fields) -> Conversation:
    return Conversation.objects.create(**fields)


def test_an_inserted_row_has_the_defaults_the_orm_gives_a_new_message():
    chat = conversation()
    before = timezone.now()
    [pk] = messages_insert(
        [{"conversation_id": chat.pk, "role": "user", "message_id": "m1", "text": "Hej"}]
    )
    row = Message.objects.get(pk=pk)
    unsaved = Message(conversation=chat, role="user", message_id="m1", text="Hej")
    for field in Message._meta.concrete_fields:
        if field.primary_key or field.name == "created_at":
            continue
        assert getattr(row, field.attname) == getattr(unsaved, field.attname), field.name
    assert before <= row.created_at <= timezone.now()


def test_a_default_list_is_a_new_list_for_every_row():
    chat = conversation()
    pks = messages_insert(
        [{"conversation_id": chat.pk, "role": "user", "message_id": f"m{n}"} for n in range(2)]
    )
    first, second = (Message.objects.get(pk=pk) for pk in pks)
    first.citations.append({"file": "a.md"})
    first.save()
    assert Message.objects.get(pk=second.pk).citations == []


def test_many_rows_keep_their_order_across_statements():
    """More rows than one statement's parameters allow: several statements, pks in order."""
    chat = conversation()
    rows = [
        {"conversation_id": chat.pk, "role": "user", "message_id": f"m{n:04d}", "text": str(n)}
        for n in range(300)
    ]
    with CaptureQueriesContext(connection) as queries:
        pks = messages_insert(rows)
    per_statement = (connection.features.max_query_params or 10_000) // (
        len(Message._meta.concrete_fields) - 1
    )
    assert len(queries) == -(-300 // per_statement)
    texts = dict(Message.objects.filter(pk__in=pks).values_list("pk", "text"))
    assert [texts[pk] for pk in pks] == [str(n) for n in range(300)]


def test_nothing_to_insert_is_no_statement():
    with CaptureQueriesContext(connection) as queries:
        assert messages_insert([]) == []
    assert len(queries) == 0


@pytest.mark.parametrize(
    ("status", "owned"),
    [(Handoff.Status.ACTIVE, True), (Handoff.Status.WAITING, False), (None, False)],
)
def test_a_conversation_is_owned_only_while_its_handoff_is_active(status, owned, django_user_model):
    chat, other = conversation(), conversation()
    staff = django_user_model.objects.create_user("eva", is_staff=True)
    if status is not None:
        Handoff.objects.create(
            conversation=chat,
            status=status,
            requested_at=timezone.now(),
            taken_by=staff if status == Handoff.Status.ACTIVE else None,
            taken_at=timezone.now() if status == Handoff.Status.ACTIVE else None,
        )
    assert any_owned([other.pk, str(chat.pk)]) is owned
    assert any_owned([other.pk]) is False
    assert any_owned([]) is False


def test_conversations_are_marked_active_in_their_language():
    long_ago = timezone.now() - dt.timedelta(days=1)
    chat, other, untouched = (conversation(language="sv") for _ in range(3))
    Conversation.objects.update(last_active_at=long_ago)
    conversations_active({chat.pk: "en", str(other.pk): "sv"})
    rows = {c.pk: c for c in Conversation.objects.all()}
    assert rows[chat.pk].language == "en" and rows[chat.pk].last_active_at > long_ago
    assert rows[other.pk].language == "sv" and rows[other.pk].last_active_at > long_ago
    assert rows[untouched.pk].last_active_at == long_ago
    conversations_active({uuid.uuid4(): "en"})  # a conversation that is not there: nothing


@pytest.mark.postgres
def test_a_batch_on_postgresql_pairs_every_answer_with_its_own_question(postgres_database_url):
    """On PostgreSQL the rows go in as one array per column: the pks still come back in the
    batch's order, so every answer row replies to its own question."""
    [written] = process_outputs(
        module_process("tests.chat.audit_batch_check", database_url=postgres_database_url)
    )
    conversations = written["conversations"]
    for n, answer in enumerate(written["answers"]):
        assert answer == {
            "message_id": f"m{n:02d}",
            "question": f"Fråga {n}",
            "question_message_id": f"m{n:02d}",
            "conversation": conversations[n % len(conversations)],
            "status": "done",
            "text": f"Svar m{n:02d}",
        }
    assert written["question_defaults"] == [["done", True, True, "", None]]
