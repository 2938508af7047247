"""Turns written by ``turns_record`` beside the same turns written through the ORM.

Used in-process by ``test_services.py`` and ``test_fast_insert.py`` (the
SQLite test database) and as a script in a separate process that reaches
PostgreSQL through ``DATABASE_URL`` (it migrates that database first)::

    python -m tests.chat.insert_roundtrip

which prints :func:`report` as one JSON document. Each part of the report
holds what was read back, so the tests compare it themselves.
"""

import json
import os
import sys
import uuid

SKIPPED_FIELDS = ("id", "conversation", "reply_to", "created_at")


def sample_records(new_id: uuid.UUID, existing_id: uuid.UUID) -> list:
    """Turns with every field away from its default, one batch's worth.

    Two of them share a message_id in one conversation (a client that
    retried); JSON with nesting, None, floats, unicode, and the word null.
    """
    from chat.pipeline import TurnRecord

    snippet = {
        "file": "kb/priser.md",
        "line": 12,
        "heading": "Priser – månadsavgift",
        "score": 7.2513,
        "text": 'Abonnemanget kostar 149 kr/mån.\n"Bas" ingår; \\ och \t tab. 🙂',
    }
    return [
        TurnRecord(
            conversation_id=new_id,
            session_key="sess-ä",
            message_id="m1",
            question="Vad kostar abonnemanget? 🙂 “citat” \\ backslash",
            language="sv",
            status="done",
            draft="Det kostar 149 kr/mån [1].",
            shown="Det kostar",
            text="Det kostar 149 kr/mån [1].",
            grounded=True,
            citations=[
                {"file": "kb/priser.md", "snippet": "149 kr/mån", "line": 12, "score": 7.25}
            ],
            retrieved=[snippet, {**snippet, "line": 40, "score": 0.1 + 0.2}],
            ttft_ms=12.5,
            total_ms=1234.75,
            token_count=42,
            backend="openai",
            model="gpt-4o-mini",
        ),
        TurnRecord(
            conversation_id=existing_id,
            session_key="sess-2",
            message_id="m2",
            question="What does it cost per year?",
            language="en",
            status="withheld",
            draft="It costs 1 788 kr per year.",
            text="I cannot verify that.",
            grounded=False,
            block_reason="unverified number: " + "x" * 250,  # cut to 200
            unsupported=[
                {
                    "text": "1 788 kr",
                    "kind": "price",
                    "reason": "not in retrieved snippets",
                    "kb_locations": [{"file": "kb/priser.md", "line": 3, "text": "1 788 kr"}],
                }
            ],
            citations=[{"file": "kb/priser.md", "snippet": "149 kr", "line": 12, "score": 3.0}],
            retrieved=[snippet],
            ttft_ms=0.001,
            total_ms=2e-7,
            token_count=0,
            backend="mock",
            model="mock-1",
        ),
        TurnRecord(
            conversation_id=new_id,
            session_key="sess-3",
            message_id="m1",  # the same message_id in the same conversation
            question="Och per år?\nMed moms?",
            language="sv",
            status="cancelled",
            draft="Per år",
            text="Per år",
            grounded=None,
            retrieved=[{"file": "kb/a.md", "line": 1, "heading": None, "text": "null"}],
            error="Timeout: upstream\tclosed",
            ttft_ms=None,
            total_ms=98765.4321,
            token_count=None,
            backend="openai",
            model="gpt-4o",
        ),
    ]


def _orm_write(records: list, conversation_ids: dict) -> tuple[list, list]:
    """The same turns through ``Message.objects.create``, as turns_record stored
    them before chat.fast_insert (questions first, then answers)."""
    from chat.models import Message

    questions = [
        Message.objects.create(
            conversation_id=conversation_ids[r.conversation_id],
            role=Message.Role.USER,
            message_id=r.message_id,
            text=r.question,
            language=r.language,
        )
        for r in records
    ]
    answers = [
        Message.objects.create(
            conversation_id=conversation_ids[r.conversation_id],
            role=Message.Role.ASSISTANT,
            message_id=r.message_id,
            reply_to=question,
            text=r.text,
            status=r.status,
            language=r.language,
            draft=r.draft,
            grounded=r.grounded,
            block_reason=r.block_reason[:200],
            unsupported=r.unsupported,
            citations=r.citations,
            retrieved=r.retrieved,
            error=r.error,
            ttft_ms=r.ttft_ms,
            total_ms=r.total_ms,
            token_count=r.token_count,
            backend=r.backend,
            model=r.model,
        )
        for r, question in zip(records, questions, strict=True)
    ]
    return questions, answers


def _plain(value):
    return str(value) if isinstance(value, uuid.UUID) else value


def stored(message) -> dict:
    """Every column of ``message`` as the ORM reads it back, but its identity and time."""
    return {
        field.name: _plain(getattr(message, field.attname))
        for field in message._meta.concrete_fields
        if field.name not in SKIPPED_FIELDS
    }


def _column_differences(pairs: list) -> tuple[list, int]:
    """Columns whose stored values differ in SQL between two rows, and how many were compared.

    PostgreSQL: every column, ``IS NOT DISTINCT FROM`` (jsonb compares by
    value). SQLite: the same value and storage class, JSON columns left out:
    their text differs in layout by design (see chat.fast_insert._json_bytes).
    """
    from django.db import connection

    from chat.models import Message

    fields = [f for f in Message._meta.concrete_fields if f.name not in SKIPPED_FIELDS]
    if connection.vendor == "sqlite":
        fields = [f for f in fields if f.get_internal_type() != "JSONField"]
    qn = connection.ops.quote_name
    if connection.vendor == "postgresql":
        tests = [f"a.{qn(f.column)} IS NOT DISTINCT FROM b.{qn(f.column)}" for f in fields]
    else:
        tests = [
            f"a.{qn(f.column)} IS b.{qn(f.column)} AND typeof(a.{qn(f.column)}) = "
            f"typeof(b.{qn(f.column)})"
            for f in fields
        ]
    table = qn(Message._meta.db_table)
    sql = (
        f"SELECT {', '.join(f'({test})' for test in tests)}"
        f" FROM {table} a, {table} b WHERE a.id = %s AND b.id = %s"
    )
    differences, compared = [], 0
    with connection.cursor() as cursor:
        for index, (fast_pk, orm_pk) in enumerate(pairs):
            cursor.execute(sql, [fast_pk, orm_pk])
            for field, same in zip(fields, cursor.fetchone(), strict=True):
                compared += 1
                if not same:
                    differences.append([index, field.name])
    return differences, compared


def turns_report(records: list | None = None) -> dict:
    """Write ``records`` (default: :func:`sample_records`) both ways; what was stored.

    The conversation the second record names exists beforehand (session
    "old", language sv): turns_record must leave it and only touch it.
    """
    from django.db import connection

    from chat.models import Conversation, Message, session_hash
    from chat.services import turns_record

    new_id = uuid.uuid4()
    existing = Conversation.objects.create(session_hash=session_hash("old"), language="sv")
    if records is None:
        records = sample_records(new_id, existing.pk)
    conversation_ids = {r.conversation_id: uuid.uuid4() for r in records}
    for cid in conversation_ids.values():
        Conversation.objects.create(pk=cid)

    written = turns_record(records=records)
    fast = list(
        Message.objects.filter(conversation_id__in=list(conversation_ids)).order_by(
            "created_at", "id"
        )
    )
    orm_questions, orm_answers = _orm_write(records, conversation_ids)
    orm = orm_questions + orm_answers
    questions, answers = fast[: len(records)], fast[len(records) :]
    differences, compared = _column_differences(
        [(f.pk, o.pk) for f, o in zip(fast, orm, strict=False)]
    )
    existing_after = Conversation.objects.get(pk=existing.pk)
    return {
        "vendor": connection.vendor,
        "written": written,
        "records": len(records),
        "fast": [stored(m) for m in fast],
        "orm": [stored(m) for m in orm],
        "fast_conversations": [str(m.conversation_id) for m in fast],
        "record_conversations": [str(r.conversation_id) for r in records] * 2,
        "roles": [m.role for m in fast],
        "replies_to_own_question": [
            a.reply_to_id == q.pk for a, q in zip(answers, questions, strict=False)
        ],
        "reply_texts": [a.reply_to.text for a in answers],
        "questions": [r.question for r in records],
        "created_at_values": len({m.created_at for m in fast}),
        "column_differences": differences,
        "columns_compared": compared,
        "conversations": {
            str(cid): [c.session_hash, c.language]
            for cid in {r.conversation_id for r in records}
            for c in [Conversation.objects.get(pk=cid)]
        },
        # The last record of each conversation wins.
        "latest": {
            str(r.conversation_id): [session_hash(r.session_key), r.language] for r in records
        },
        "existing": {
            "id": str(existing.pk),
            "session_hash": existing_after.session_hash,
            "started_at_kept": existing_after.started_at == existing.started_at,
        },
    }


def non_finite_report() -> dict:
    """A turn with infinite timings (PostgreSQL: the VALUES path, not jsonb)."""
    records = sample_records(uuid.uuid4(), uuid.uuid4())[:1]
    records[0].ttft_ms, records[0].total_ms = float("inf"), float("-inf")
    return turns_report(records)


def too_long_report() -> dict:
    """What a message_id beyond its max_length of 100 does, fast and through the ORM."""
    from django.db import DatabaseError, transaction
    from django.utils import timezone

    from chat.fast_insert import insert_rows
    from chat.models import Conversation, Message
    from chat.services import _MESSAGE_FIELDS, _question_row

    conversation = Conversation.objects.create()
    record = sample_records(conversation.pk, conversation.pk)[0]
    record.message_id = "x" * 101
    row = _question_row(record, timezone.now())
    writes = {
        "fast": lambda: insert_rows(Message, _MESSAGE_FIELDS, [row], returning_pk=True)[0],
        "orm": lambda: (
            Message.objects.create(
                conversation=conversation, role="user", message_id=record.message_id, text="q"
            ).pk
        ),
    }
    outcomes = {}
    for name, write in writes.items():
        try:
            with transaction.atomic():
                pk = write()
        except DatabaseError as exc:
            outcomes[name] = type(exc).__name__
        else:
            outcomes[name] = len(Message.objects.get(pk=pk).message_id)
    return outcomes


def report() -> dict:
    return {
        "turns": turns_report(),
        "non_finite": non_finite_report(),
        "too_long": too_long_report(),
    }


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    json.dump(report(), sys.stdout)


if __name__ == "__main__":
    main()
