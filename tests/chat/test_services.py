"""Audit writes: turns are stored in batches, each answer linked to its question."""

import uuid

import pytest

from chat.models import Conversation, Message, session_hash
from chat.pipeline import TurnRecord
from chat.services import MessageNotFound, feedback_create, turns_record
from tests.chat import insert_roundtrip


def record(conversation_id, n: int, **fields) -> TurnRecord:
    defaults = {
        "conversation_id": conversation_id,
        "session_key": "s1",
        "message_id": f"m{n}",
        "question": f"Fråga {n}",
        "language": "sv",
        "status": "done",
        "text": f"Svar {n}",
        "grounded": True,
    }
    return TurnRecord(**{**defaults, **fields})


@pytest.mark.django_db
def test_a_batch_of_turns_is_written_in_a_bounded_number_of_queries(
    django_assert_max_num_queries,
):
    """40 turns of 3 conversations: questions, linked answers, conversations, few queries."""
    ids = [uuid.uuid4() for _ in range(3)]
    records = [record(ids[n % 3], n) for n in range(40)]
    # SAVEPOINT, the conversations, one UPDATE (one language), questions, answers, RELEASE.
    with django_assert_max_num_queries(6):
        written = turns_record(records=records)
    assert written == 40
    assert Message.objects.filter(role="assistant").count() == 40
    assert Message.objects.filter(role="user").count() == 40
    assert Conversation.objects.count() == 3
    answer = Message.objects.select_related("reply_to").get(role="assistant", message_id="m7")
    assert answer.reply_to.text == "Fråga 7" and answer.text == "Svar 7"
    assert answer.conversation_id == ids[7 % 3]


@pytest.mark.django_db
def test_an_existing_conversation_is_touched_not_duplicated():
    """Writing to a known conversation updates its language and activity time."""
    conversation = Conversation.objects.create(session_hash=session_hash("s1"))
    before = conversation.last_active_at
    turns_record(records=[record(conversation.pk, 1, language="en")])
    conversation.refresh_from_db()
    assert Conversation.objects.count() == 1
    assert conversation.language == "en" and conversation.last_active_at > before


@pytest.mark.django_db
def test_feedback_needs_an_answer_of_the_same_conversation():
    """Feedback binds to this conversation's answer; another's id is not found."""
    mine, other = uuid.uuid4(), uuid.uuid4()
    turns_record(records=[record(mine, 1), record(other, 2)])
    feedback = feedback_create(conversation_id=mine, message_id="m1", rating="up")
    assert feedback.message.text == "Svar 1"
    with pytest.raises(MessageNotFound):
        feedback_create(conversation_id=mine, message_id="m2", rating="up")


def assert_stored_as_the_orm_stores(report: dict, vendor: str) -> None:
    """A ``tests.chat.insert_roundtrip.turns_report``: the batch against the ORM's rows."""
    assert report["vendor"] == vendor
    turns = report["records"]
    assert report["written"] == turns
    # Every column but id, conversation, reply_to and created_at, row by row,
    # in (created_at, id) order: the batch's questions in record order, then its answers.
    assert len(report["fast"]) == 2 * turns
    assert report["fast"] == report["orm"]
    assert report["roles"] == ["user"] * turns + ["assistant"] * turns
    assert report["fast_conversations"] == report["record_conversations"]
    # Each answer replies to its own question, even where message_ids repeat.
    assert report["replies_to_own_question"] == [True] * turns
    assert report["reply_texts"] == report["questions"]
    assert report["created_at_values"] == 1
    # The same values in SQL too (SQLite: and the same storage class).
    compared = [
        f
        for f in Message._meta.concrete_fields
        if f.name not in insert_roundtrip.SKIPPED_FIELDS
        and not (vendor == "sqlite" and f.get_internal_type() == "JSONField")
    ]
    assert report["columns_compared"] == 2 * turns * len(compared)
    assert report["column_differences"] == []
    # New conversations take the last record's session and language; an
    # existing one keeps its session and start, and takes the language.
    expected = dict(report["latest"])
    existing = report["existing"]
    if existing["id"] in expected:
        expected[existing["id"]] = [session_hash("old"), expected[existing["id"]][1]]
        assert existing["started_at_kept"]
    assert report["conversations"] == expected


@pytest.mark.django_db
def test_a_batch_stores_what_the_orm_stores():
    """Unicode, nested JSON, None and floats, a cut block_reason, a repeated message_id."""
    report = insert_roundtrip.turns_report()
    assert report["records"] == 3 and report["existing"]["id"] in report["latest"]
    assert_stored_as_the_orm_stores(report, "sqlite")


@pytest.mark.django_db
def test_infinite_timings_are_stored_as_the_orm_stores_them():
    assert_stored_as_the_orm_stores(insert_roundtrip.non_finite_report(), "sqlite")


@pytest.mark.postgres
def test_a_batch_stores_what_the_orm_stores_on_postgres(postgres_insert_report):
    """The same comparisons on PostgreSQL (the jsonb path, and VALUES for infinities)."""
    report = postgres_insert_report["turns"]
    assert report["records"] == 3 and report["existing"]["id"] in report["latest"]
    assert_stored_as_the_orm_stores(report, "postgresql")
    assert_stored_as_the_orm_stores(postgres_insert_report["non_finite"], "postgresql")
