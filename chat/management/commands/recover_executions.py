from django.conf import settings
from django.core.management.base import BaseCommand

from actions.services import executions_recover
from chat.selectors import user_message_text


class Command(BaseCommand):
    # In chat, not actions: a ticket re-run needs the asking message's text (the chat's).
    help = (
        "Run again (same idempotency key) every action execution a crash left pending or "
        "running, or mark it failed after EXECUTION_MAX_ATTEMPTS. `make run` runs it at "
        "start-up; safe beside running processes and any number of times."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--older-than",
            type=float,
            default=None,
            help="Seconds an execution must have been unfinished "
            f"(default EXECUTION_RECOVERY_SECONDS, {settings.EXECUTION_RECOVERY_SECONDS:g}). "
            "0 when no server process is running.",
        )

    def handle(self, *args, older_than: float | None = None, **options) -> None:
        counts = executions_recover(
            older_than=older_than,
            source_text=lambda conversation_id, message_id: user_message_text(
                conversation_id=conversation_id, message_id=message_id
            ),
        )
        self.stdout.write(
            self.style.SUCCESS(
                "Recovered executions: {succeeded} succeeded, {failed} failed, "
                "{skipped} finished meanwhile.".format(**counts)
            )
        )
