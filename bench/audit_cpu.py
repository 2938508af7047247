"""CPU the audit trail spends per turn: beginnings and completions in batches of 50.

    make python ARGS="-m bench.audit_cpu"

In process, on a throwaway SQLite database (``DATABASE_URL`` to measure
PostgreSQL): 500 turns of new conversations begun in batches of 50 as the
group commit writes them, then completed with a typical answer. Prints the
median of 5 rounds of process CPU per turn, for the beginning (the write that
stands between a question and its first token) of a new conversation and of
one already stored (each connection's later questions), and the completion. On the
server these run on a worker thread that shares the GIL with the event loop,
so their Python work delays every frame.
"""

import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

TURNS, BATCH, ROUNDS = 500, 50, 5


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("DATABASE_URL", f"sqlite:///{Path(tmp) / 'audit.sqlite3'}")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.core.management import call_command

        from chat import audit
        from chat.pipeline import TurnRecord

        call_command("migrate", verbosity=0)
        answer = "Premium kostar 399 kr/månad och har 5 TB lagring. " * 4
        begins, completes, later_begins = [], [], []
        for _ in range(ROUNDS):
            records = [
                TurnRecord(
                    conversation_id=uuid.uuid4(),
                    session_key="bench",
                    message_id=f"m{n}",
                    question="Vad kostar Premium?",
                    language="sv",
                )
                for n in range(TURNS)
            ]
            started = time.process_time()
            for i in range(0, TURNS, BATCH):
                batch = records[i : i + BATCH]
                begun = audit.audit_write_batch(writes=[(audit.BEGIN, r) for r in batch])
                for record, b in zip(batch, begun, strict=True):
                    record.answer_pk = b.answer_pk
            begun_at = time.process_time()
            for record in records:
                record.status, record.grounded = "done", True
                record.text = record.draft = record.shown = answer
                record.citations = [{"file": "priser.md", "line": 3, "snippet": "Premium: 399 kr"}]
                record.retrieved = [{"file": "priser.md", "line": 3, "text": answer}] * 3
                record.ttft_ms, record.total_ms, record.token_count = 1.0, 25.0, 40
            for i in range(0, TURNS, BATCH):
                audit.audit_write_batch(
                    writes=[(audit.COMPLETE, r) for r in records[i : i + BATCH]]
                )
            completed_at = time.process_time()
            # Each conversation's next question: its row is known stored (the usual turn).
            later = [
                TurnRecord(
                    conversation_id=r.conversation_id,
                    session_key="bench",
                    message_id=f"{r.message_id}-2",
                    question="Vad kostar Premium?",
                    language="sv",
                    conversation_stored=True,
                )
                for r in records
            ]
            later_started = time.process_time()
            for i in range(0, TURNS, BATCH):
                audit.audit_write_batch(writes=[(audit.BEGIN, r) for r in later[i : i + BATCH]])
            begins.append(begun_at - started)
            completes.append(completed_at - begun_at)
            later_begins.append(time.process_time() - later_started)
        per_turn = 1e6 / TURNS
        print(
            f"audit CPU per turn (median of {ROUNDS} x {TURNS}, batches of {BATCH}): "
            f"beginning {statistics.median(begins) * per_turn:.0f} us (a new conversation), "
            f"{statistics.median(later_begins) * per_turn:.0f} us (a stored one), "
            f"completion {statistics.median(completes) * per_turn:.0f} us"
        )


if __name__ == "__main__":
    main()
