"""chat.fast_insert: plain rows stored as the ORM stores them, without its per-row compiling."""

import datetime
import uuid

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from chat.fast_insert import insert_rows
from chat.models import Conversation, Message
from chat.services import _CONVERSATION_FIELDS, _MESSAGE_FIELDS
from tests.chat import insert_roundtrip


def message_row(conversation_id, message_id: str, now, **values) -> tuple:
    """A question row in _MESSAGE_FIELDS order, with ``values`` for some columns."""
    row = {
        "conversation": conversation_id,
        "role": "user",
        "message_id": message_id,
        "reply_to": None,
        "text": f"Fråga {message_id}",
        "status": "done",
        "language": "sv",
        "created_at": now,
        "draft": "",
        "grounded": None,
        "block_reason": "",
        "unsupported": [],
        "citations": [],
        "retrieved": [],
        "error": "",
        "ttft_ms": None,
        "total_ms": None,
        "token_count": None,
        "backend": "",
        "model": "",
    }
    row.update(values)
    return tuple(row[name] for name in _MESSAGE_FIELDS)


@pytest.fixture
def conversation(db):
    return Conversation.objects.create(session_hash="h1")


def test_rows_must_give_every_column_the_orm_would_fill(db):
    """Leaving out a column with a Python default would store something else: refused."""
    fields = [name for name in _MESSAGE_FIELDS if name != "status"]
    with pytest.raises(ValueError, match="status"):
        insert_rows(Message, fields, [])


def test_returning_keys_and_ignoring_conflicts_do_not_combine(db):
    with pytest.raises(ValueError, match="cannot be combined"):
        insert_rows(Message, _MESSAGE_FIELDS, [], returning_pk=True, ignore_conflicts=True)


def test_a_row_of_the_wrong_width_is_refused_before_anything_is_written(conversation):
    now = timezone.now()
    rows = [message_row(conversation.pk, "m1", now), message_row(conversation.pk, "m2", now)[:-1]]
    with pytest.raises(ValueError, match="19 values for 20 fields"):
        insert_rows(Message, _MESSAGE_FIELDS, rows)
    assert not Message.objects.exists()


def test_new_keys_come_back_in_row_order_across_statements(conversation):
    """120 rows take three multi-row statements on SQLite (999 parameters at most)."""
    now = timezone.now()
    rows = [message_row(conversation.pk, f"m{n}", now) for n in range(120)]
    pks = insert_rows(Message, _MESSAGE_FIELDS, rows, returning_pk=True)
    by_pk = Message.objects.in_bulk(pks)
    assert [by_pk[pk].message_id for pk in pks] == [f"m{n}" for n in range(120)]
    assert list(Message.objects.order_by("created_at", "id").values_list("pk", flat=True)) == pks


def test_without_bulk_returning_each_row_is_inserted_on_its_own(
    conversation, monkeypatch, django_assert_num_queries
):
    """A database that cannot return rows from a multi-row INSERT: one INSERT a row."""
    monkeypatch.setattr(type(connection.features), "can_return_rows_from_bulk_insert", False)
    now = timezone.now()
    rows = [
        message_row(conversation.pk, f"m{n}", now, retrieved=[{"n": n, "t": "på"}])
        for n in range(3)
    ]
    with django_assert_num_queries(3):
        pks = insert_rows(Message, _MESSAGE_FIELDS, rows, returning_pk=True)
    messages = [Message.objects.get(pk=pk) for pk in pks]
    assert [m.message_id for m in messages] == ["m0", "m1", "m2"]
    assert [m.retrieved for m in messages] == [[{"n": n, "t": "på"}] for n in range(3)]
    assert {m.created_at for m in messages} == {now}  # as given: no auto_now_add


def test_conflicting_rows_are_skipped_and_others_written(conversation):
    now = timezone.now()
    new = uuid.uuid4()
    insert_rows(
        Conversation,
        _CONVERSATION_FIELDS,
        [(conversation.pk, "s2", "en", now, now), (new, "s3", "en", now, now)],
        ignore_conflicts=True,
    )
    conversation.refresh_from_db()
    assert (conversation.session_hash, conversation.language) == ("h1", "sv")
    assert Conversation.objects.get(pk=new).session_hash == "s3"


@pytest.mark.parametrize(
    "value",
    [
        [{"t": "på 🙂 “x” \\ \n", "n": None, "f": 0.1 + 0.2, "b": [True, False]}],
        [{"text": "null"}],  # the word null: written by json.dumps
        {1: "a", 2: ["b"]},  # int keys: orjson refuses, json.dumps makes them strings
        [2**70],  # beyond orjson's 64 bits
        ("a", ("b",)),  # tuples are arrays
        [],
    ],
)
def test_json_reads_back_as_what_the_orm_stores(conversation, value):
    now = timezone.now()
    [pk] = insert_rows(
        Message,
        _MESSAGE_FIELDS,
        [message_row(conversation.pk, "m1", now, retrieved=value)],
        returning_pk=True,
    )
    orm = Message.objects.create(
        conversation=conversation, role="user", message_id="m1", text="q", retrieved=value
    )
    orm.refresh_from_db()
    assert Message.objects.get(pk=pk).retrieved == orm.retrieved


@pytest.mark.parametrize("value", [[datetime.date(2024, 1, 1)], {"s": {1, 2}}])
def test_json_the_orm_refuses_is_refused(conversation, value):
    """orjson could write dates; json.dumps cannot, so neither path stores them."""
    with pytest.raises(TypeError):
        Message.objects.create(conversation=conversation, role="user", text="q", retrieved=value)
    row = message_row(conversation.pk, "m1", timezone.now(), retrieved=value)
    with pytest.raises(TypeError):
        insert_rows(Message, _MESSAGE_FIELDS, [row])


def raw_column(pk: int, column: str):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM chat_message WHERE id = %s", [pk])
        return cursor.fetchone()[0]


def test_unusual_values_take_the_fields_own_preparation(conversation):
    """A UUID as text and a naive datetime are stored as the ORM stores them."""
    naive = datetime.datetime(2024, 5, 1, 12, 30)
    row = message_row(str(conversation.pk), "m1", naive)
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        [pk] = insert_rows(Message, _MESSAGE_FIELDS, [row], returning_pk=True)
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        orm = Message.objects.create(
            conversation_id=str(conversation.pk), role="user", message_id="m1", text="q"
        )
        Message.objects.filter(pk=orm.pk).update(created_at=naive)
    for column in ("conversation_id", "created_at"):
        assert raw_column(pk, column) == raw_column(orm.pk, column)
    assert raw_column(pk, "conversation_id") == conversation.pk.hex


def test_one_timestamp_for_the_batch_is_stored_for_every_row(conversation):
    now = timezone.now()
    rows = [message_row(conversation.pk, f"m{n}", now) for n in range(3)]
    insert_rows(Message, _MESSAGE_FIELDS, rows)
    assert set(Message.objects.values_list("created_at", flat=True)) == {now}


@pytest.mark.django_db
def test_too_long_text_is_treated_as_the_orm_treats_it():
    """SQLite keeps a message_id beyond max_length whole, with the ORM or without."""
    assert insert_roundtrip.too_long_report() == {"fast": 101, "orm": 101}


@pytest.mark.postgres
def test_too_long_text_is_refused_on_postgres_not_cut(postgres_insert_report):
    """The jsonb path leaves varchar's length check to the INSERT, as the ORM's VALUES do."""
    assert postgres_insert_report["too_long"] == {"fast": "DataError", "orm": "DataError"}


@pytest.mark.parametrize("value", [[float("nan")], [{"x": float("inf")}]])
def test_non_finite_floats_in_json_are_refused_as_the_orm_refuses_them(conversation, value):
    """json.dumps writes NaN and Infinity, which SQLite's JSON_VALID check refuses.

    orjson would have written null, and the row would have been stored.
    """
    with pytest.raises(IntegrityError, match="JSON_VALID"), transaction.atomic():
        Message.objects.create(conversation=conversation, role="user", text="q", retrieved=value)
    row = message_row(conversation.pk, "m1", timezone.now(), retrieved=value)
    with pytest.raises(IntegrityError, match="JSON_VALID"), transaction.atomic():
        insert_rows(Message, _MESSAGE_FIELDS, [row])
