"""Many staff taking one waiting conversation at the same instant, in this process or others.

Used by ``test_handoff_race.py`` in-process (threads against the test
database) and as a script in separate processes that reach one database
through ``DATABASE_URL``::

    python -m tests.chat.handoff_race setup STAFF
    python -m tests.chat.handoff_race take CONVERSATION_ID START_AT USERNAME...

Each prints one JSON document: ``setup`` the conversation and the staff
usernames, ``take`` each thread's outcome once all were in.
"""

import argparse
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

BARRIER_TIMEOUT_SECONDS = 60


def take_concurrently(*, conversation_id: str, usernames: list[str], start_at: float = 0) -> list:
    """Each user takes the conversation from a thread of their own, all released together."""
    from django.contrib.auth import get_user_model
    from django.db import connections

    from staff.handoff import AlreadyTaken, handoff_take

    users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    start = threading.Barrier(len(usernames))

    def take(username: str) -> dict:
        try:
            start.wait(timeout=BARRIER_TIMEOUT_SECONDS)
            time.sleep(max(0.0, start_at - time.time()))  # line up with the other process
            try:
                handoff_take(conversation_id=conversation_id, staff=users[username])
            except AlreadyTaken as exc:
                return {"user": username, "won": False, "owner": exc.owner}
            return {"user": username, "won": True, "owner": username}
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(usernames)) as pool:
        return list(pool.map(take, usernames))


def outcome(*, conversation_id: str) -> dict:
    """What the takes left in the database."""
    from chat.models import Handoff, HandoffEvent

    handoffs = Handoff.objects.filter(conversation_id=conversation_id).select_related("taken_by")
    return {
        "handoffs": [(h.status, h.taken_by.username if h.taken_by else None) for h in handoffs],
        "joined_events": HandoffEvent.objects.filter(
            conversation_id=conversation_id, kind=HandoffEvent.Kind.JOINED
        ).count(),
    }


def setup(*, staff: int) -> dict:
    """A conversation waiting for a person, and ``staff`` staff users named race-0..."""
    import uuid

    from django.contrib.auth import get_user_model
    from django.test import override_settings

    from chat.handoff import handoff_request

    usernames = [f"race-{n}" for n in range(staff)]
    for username in usernames:
        get_user_model().objects.create_user(username, is_staff=True)
    conversation_id = uuid.uuid4()
    with override_settings(HANDOFF_OPENING_HOURS="always"):
        handoff_request(conversation_id=conversation_id, text="prata med en människa")
    return {"conversation_id": str(conversation_id), "usernames": usernames}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    setup_parser = commands.add_parser("setup")
    setup_parser.add_argument("staff", type=int)
    take = commands.add_parser("take")
    take.add_argument("conversation_id")
    take.add_argument("start_at", type=float)
    take.add_argument("usernames", nargs="+")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if args.command == "setup":
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        output = setup(staff=args.staff)
    else:
        results = take_concurrently(
            conversation_id=args.conversation_id, usernames=args.usernames, start_at=args.start_at
        )
        output = {"results": results, "outcome": outcome(conversation_id=args.conversation_id)}
    json.dump(output, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
