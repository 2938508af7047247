"""Audit writes: the question before generation, the answer completing it, one turn each."""

import datetime as dt
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from chat.models import Conversation, Message, session_hash
from chat.pipeline import TurnRecord
from chat.services import (
    MessageNotFound,
    feedback_create,
    turn_begin,
    turn_complete,
    turns_begin,
    turns_complete,
    turns_mark_interrupted,
)

pytestmark = pytest.mark.django_db


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


def test_begin_commits_the_question_and_an_answer_in_progress():
    """Before generation: the conversation (session hashed), the question, the answer row."""
    turn = record(uuid.uuid4(), 1)
    answer_pk = turn_begin(record=turn)
    answer = Message.objects.select_related("reply_to", "conversation").get(pk=answer_pk)
    assert answer.status == Message.Status.IN_PROGRESS and answer.text == ""
    assert answer.reply_to.text == "Fråga 1" and answer.reply_to.role == "user"
    assert answer.conversation.session_hash == session_hash("s1")


def test_complete_fills_in_the_answer_row():
    turn = record(uuid.uuid4(), 1, citations=[{"file": "kb/pricing.md", "line": 3}], ttft_ms=12.5)
    answer_pk = turn_begin(record=turn)
    assert turn_complete(record=turn, answer_pk=answer_pk) == answer_pk
    answer = Message.objects.get(pk=answer_pk)
    assert (answer.status, answer.text, answer.grounded) == ("done", "Svar 1", True)
    assert answer.citations == [{"file": "kb/pricing.md", "line": 3}] and answer.ttft_ms == 12.5
    assert Message.objects.count() == 2


def test_complete_keeps_where_each_number_came_from():
    """The response's ``numbers`` are stored on the answer, for the history to show again."""
    numbers = [{"start": 9, "end": 21, "text": "399 kr/månad", "file": "kb/pricing.md", "line": 18}]
    turn = record(uuid.uuid4(), 1, text="Premium: 399 kr/månad.")
    turn.numbers = numbers
    answer_pk = turn_begin(record=turn)
    turn_complete(record=turn, answer_pk=answer_pk)
    assert Message.objects.get(pk=answer_pk).numbers == numbers


def test_many_turns_begin_together_each_conversation_in_order():
    """The group commit's beginning: two turns of one conversation (two tabs) and one of
    another; each conversation's rows read question, answer, question, answer."""
    first, second = uuid.uuid4(), uuid.uuid4()
    Conversation.objects.create(pk=first, language="sv")
    turns = [record(first, 1), record(second, 2, language="en"), record(first, 3)]
    answer_pks = turns_begin(records=turns)
    answers = Message.objects.select_related("reply_to").in_bulk(answer_pks)
    assert [answers[pk].reply_to.text for pk in answer_pks] == ["Fråga 1", "Fråga 2", "Fråga 3"]
    rows = Message.objects.filter(conversation_id=first).order_by("id")
    assert [(m.role, m.message_id) for m in rows] == [
        ("user", "m1"),
        ("assistant", "m1"),
        ("user", "m3"),
        ("assistant", "m3"),
    ]
    assert Conversation.objects.get(pk=second).language == "en"


def test_a_conversations_activity_is_written_with_the_completion_not_the_beginning():
    """The beginning (on the question's path) only creates a missing conversation; the
    completion marks it active in the turn's language."""
    conversation_id = uuid.uuid4()
    long_ago = timezone.now() - dt.timedelta(days=1)
    Conversation.objects.create(pk=conversation_id, language="sv")
    Conversation.objects.filter(pk=conversation_id).update(last_active_at=long_ago)
    turn = record(conversation_id, 1, language="en")
    answer_pk = turn_begin(record=turn)
    conversation = Conversation.objects.get(pk=conversation_id)
    assert (conversation.language, conversation.last_active_at) == ("sv", long_ago)
    turn_complete(record=turn, answer_pk=answer_pk)
    conversation.refresh_from_db()
    assert conversation.language == "en" and conversation.last_active_at > long_ago


def test_many_turns_complete_together_one_of_them_never_begun():
    """Completions together: an answer row filled in, and a turn whose beginning was
    never written gets both rows."""
    begun, unbegun = record(uuid.uuid4(), 1), record(uuid.uuid4(), 2)
    answer_pk = turn_begin(record=begun)
    pks = turns_complete(completions=[(begun, answer_pk), (unbegun, None)])
    assert pks[0] == answer_pk
    done = Message.objects.select_related("reply_to").in_bulk(pks)
    assert [(done[pk].status, done[pk].text, done[pk].reply_to.text) for pk in pks] == [
        ("done", "Svar 1", "Fråga 1"),
        ("done", "Svar 2", "Fråga 2"),
    ]


def test_complete_without_a_begin_writes_both_rows():
    """The begin never made it (database away): the completion writes the whole turn."""
    turn = record(uuid.uuid4(), 1)
    answer_pk = turn_complete(record=turn, answer_pk=None)
    answer = Message.objects.select_related("reply_to").get(pk=answer_pk)
    assert answer.status == "done" and answer.reply_to.text == "Fråga 1"


def test_text_a_database_cannot_store_is_replaced_not_refused():
    """An LLM draft with NUL or a lone surrogate is stored with U+FFFD, not lost."""
    turn = record(uuid.uuid4(), 1, draft="a\x00b\ud800c", text="ok\x00")
    answer_pk = turn_complete(record=turn, answer_pk=turn_begin(record=turn))
    answer = Message.objects.get(pk=answer_pk)
    assert answer.draft == "a\ufffdb\ufffdc" and answer.text == "ok\ufffd"


def test_an_existing_conversation_is_touched_not_duplicated():
    conversation = Conversation.objects.create(session_hash=session_hash("s1"))
    before = conversation.last_active_at
    turn = record(conversation.pk, 1, language="en")
    turn_complete(record=turn, answer_pk=turn_begin(record=turn))
    conversation.refresh_from_db()
    assert Conversation.objects.count() == 1
    assert conversation.language == "en" and conversation.last_active_at > before


def test_start_up_marks_old_rows_in_progress_interrupted():
    """Rows a crash left in progress become interrupted; a live (young) one is left alone."""
    old, young = record(uuid.uuid4(), 1), record(uuid.uuid4(), 2)
    old_pk, young_pk = turn_begin(record=old), turn_begin(record=young)
    Message.objects.filter(pk=old_pk).update(created_at=timezone.now() - dt.timedelta(minutes=5))
    assert turns_mark_interrupted(older_than_seconds=130) == 1
    assert Message.objects.get(pk=old_pk).status == Message.Status.INTERRUPTED
    assert Message.objects.get(pk=young_pk).status == Message.Status.IN_PROGRESS
    assert turns_mark_interrupted(older_than_seconds=0) == 1


def test_feedback_needs_an_answer_of_the_same_conversation():
    """Feedback binds to this conversation's answer; another's id is not found."""
    mine, other = uuid.uuid4(), uuid.uuid4()
    for turn in (record(mine, 1), record(other, 2)):
        turn_complete(record=turn, answer_pk=turn_begin(record=turn))
    feedback = feedback_create(conversation_id=mine, message_id="m1", rating="up")
    assert feedback.message.text == "Svar 1"
    with pytest.raises(MessageNotFound):
        feedback_create(conversation_id=mine, message_id="m2", rating="up")


def test_a_beginning_of_a_stored_conversation_writes_no_conversation_row():
    """Known stored (an earlier turn wrote it, or it was read): only the two messages."""
    conversation_id = uuid.uuid4()
    turn_begin(record=record(conversation_id, 1))
    later = record(conversation_id, 2, conversation_stored=True)
    with CaptureQueriesContext(connection) as queries:
        turn_begin(record=later)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert not any("chat_conversation" in sql for sql in statements)
    assert Message.objects.filter(conversation_id=conversation_id).count() == 4


def test_a_beginning_not_known_stored_creates_its_conversation_once():
    conversation_id = uuid.uuid4()
    turn_begin(record=record(conversation_id, 1))
    turn_begin(record=record(conversation_id, 2))  # not known stored: the insert is a no-op
    assert Conversation.objects.filter(pk=conversation_id).count() == 1


@pytest.mark.parametrize(
    "lookup",
    [
        {"message_id": "m1", "role": Message.Role.ASSISTANT},  # feedback on an answer
        {"message_id": "m1", "role": Message.Role.USER},  # a question's text
        {},  # a conversation's history
    ],
)
def test_a_conversations_messages_are_found_by_its_index_alone(lookup):
    """Neither the conversation nor the message id has an index of its own (each cost every
    turn's inserts): the (conversation, created_at) index finds a conversation's messages."""
    conversation = Conversation.objects.create()
    query = Message.objects.filter(conversation_id=conversation.pk, **lookup)
    plan = query.order_by("created_at").explain()
    (index,) = Message._meta.indexes
    assert index.name in plan, plan


def test_the_message_table_indexes_only_the_conversation_and_keys_that_grow_in_order():
    """Every index of a random key costs each turn's inserts; the only ones left are the
    conversation's and those of keys that grow in order (pk, reply, time)."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Message._meta.db_table)
    indexed = sorted(
        tuple(c["columns"])
        for c in constraints.values()
        if (c["index"] or c["unique"]) and not c["primary_key"]
    )
    assert indexed == [("conversation_id", "created_at"), ("created_at",), ("reply_to_id",)]
