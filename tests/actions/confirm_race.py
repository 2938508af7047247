"""Many simultaneous confirms of one suggestion, in this process or in others.

Used by ``test_concurrency.py`` in-process (threads against the test
database) and as a script in separate processes, which reach the same
database through ``DATABASE_URL``::

    python -m tests.actions.confirm_race setup
    python -m tests.actions.confirm_race confirm SUGGESTION_ID CONVERSATION_ID THREADS

Each prints one JSON document on stdout; ``confirm`` prints the answers and
what the database held for the suggestion once they were all in.
"""

import argparse
import json
import os
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

BARRIER_TIMEOUT_SECONDS = 60


def confirm_concurrently(*, suggestion_id: str, conversation_id: uuid.UUID, threads: int) -> list:
    """Confirm from ``threads`` threads released at the same instant; their answers."""
    from django.db import connections

    from actions.services import suggestion_confirm

    start = threading.Barrier(threads)

    def confirm_once() -> dict:
        try:
            start.wait(timeout=BARRIER_TIMEOUT_SECONDS)
            result = suggestion_confirm(
                suggestion_id=suggestion_id, conversation_id=conversation_id
            )
            return result.as_dict()
        finally:
            # Each thread has its own connection; leave none open behind.
            connections.close_all()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(confirm_once) for _ in range(threads)]
        return [future.result() for future in futures]


def counts(*, suggestion_id: str) -> dict:
    """What the confirms left in the database for this suggestion."""
    from actions.models import CallbackRequest, Execution, Suggestion

    suggestion = Suggestion.objects.get(suggestion_id=suggestion_id)
    executions = Execution.objects.filter(suggestion=suggestion)
    return {
        "status": suggestion.status,
        "executions": executions.count(),
        "duplicate_confirms": sum(e.duplicate_confirms for e in executions),
        "callbacks": CallbackRequest.objects.filter(suggestion=suggestion).count(),
    }


def _setup() -> dict:
    from django.core.management import call_command

    from actions.services import suggestion_create
    from chat.models import Conversation

    call_command("migrate", verbosity=0)  # every app: the models need all their columns
    conversation = Conversation.objects.create()
    suggestion = suggestion_create(
        conversation_id=conversation.pk,
        action="schedule_callback",
        payload={"phone": "+46 70 123 45 67", "phone_e164": "+46701234567"},
    )
    return {"suggestion_id": suggestion.suggestion_id, "conversation_id": str(conversation.pk)}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("setup")
    confirm = commands.add_parser("confirm")
    confirm.add_argument("suggestion_id")
    confirm.add_argument("conversation_id", type=uuid.UUID)
    confirm.add_argument("threads", type=int)
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if args.command == "setup":
        output = _setup()
    else:
        results = confirm_concurrently(
            suggestion_id=args.suggestion_id,
            conversation_id=args.conversation_id,
            threads=args.threads,
        )
        output = {"results": results, "counts": counts(suggestion_id=args.suggestion_id)}
    json.dump(output, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
