"""Audit writes: turns are stored in batches, each answer linked to its question."""

import uuid

import pytest

from chat.models import Conversation, Message
from chat.pipeline import TurnRecord
from chat.services import MessageNotFound, feedback_create, turns_record


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
    with django_assert_max_num_queries(10):
        answers = turns_record(records=records)
    assert len(answers) == 40
    assert Conversation.objects.count() == 3
    answer = Message.objects.select_related("reply_to").get(role="assistant", message_id="m7")
    assert answer.reply_to.text == "Fråga 7" and answer.text == "Svar 7"
    assert answer.conversation_id == ids[7 % 3]


@pytest.mark.django_db
def test_an_existing_conversation_is_touched_not_duplicated():
    """Writing to a known conversation updates its language and activity time."""
    conversation = Conversation.objects.create(session_key="s1")
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
