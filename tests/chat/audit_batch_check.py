"""One audit batch written for real, then read back: for a database reached by URL.

    python -m tests.chat.audit_batch_check

Migrates, begins 60 turns of 30 conversations (two each: two rounds of the
multi-row insert) in one batch, completes them in another, and prints what
``test_statements`` compares: each answer row's question, message id and
status, in the order of the batch, and the columns the writes did not name.
"""

import json
import uuid

TURNS, CONVERSATIONS = 60, 30


def main() -> None:
    import django

    django.setup()
    from django.core.management import call_command

    from chat import audit
    from chat.models import Message
    from chat.pipeline import TurnRecord

    call_command("migrate", verbosity=0)
    conversations = [uuid.uuid4() for _ in range(CONVERSATIONS)]
    records = [
        TurnRecord(
            conversation_id=conversations[n % CONVERSATIONS],
            session_key="check",
            message_id=f"m{n:02d}",
            question=f"Fråga {n}",
            language="sv",
        )
        for n in range(TURNS)
    ]
    begun = audit.audit_write_batch(writes=[(audit.BEGIN, r) for r in records])
    for record, result in zip(records, begun, strict=True):
        record.answer_pk = result.answer_pk
        record.status, record.text, record.grounded = "done", f"Svar {record.message_id}", True
    audit.audit_write_batch(writes=[(audit.COMPLETE, r) for r in records])
    answers = Message.objects.select_related("reply_to").in_bulk([r.answer_pk for r in records])
    print(
        json.dumps(
            {
                "answers": [
                    {
                        "message_id": answers[r.answer_pk].message_id,
                        "question": answers[r.answer_pk].reply_to.text,
                        "question_message_id": answers[r.answer_pk].reply_to.message_id,
                        "conversation": str(answers[r.answer_pk].conversation_id),
                        "status": answers[r.answer_pk].status,
                        "text": answers[r.answer_pk].text,
                    }
                    for r in records
                ],
                "question_defaults": sorted(
                    {
                        (q.status, q.citations == [], q.retrieved == [], q.draft, q.grounded)
                        for q in Message.objects.filter(role=Message.Role.USER)
                    },
                    key=str,
                ),
                "conversations": [str(c) for c in conversations],
            }
        )
    )


if __name__ == "__main__":
    main()
