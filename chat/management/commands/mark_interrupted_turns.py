from django.conf import settings
from django.core.management.base import BaseCommand

from chat.services import turns_mark_interrupted


class Command(BaseCommand):
    help = (
        "Mark answers a crash left in progress as interrupted. `make run` runs it at start-up. "
        "By default only rows older than LLM_TOTAL_TIMEOUT plus a margin, so a process "
        "starting beside others never touches their live turns; --older-than 0 when this "
        "is the only process."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--older-than", type=float, default=None, help="Seconds.")

    def handle(self, *args, older_than: float | None = None, **options) -> None:
        if older_than is None:
            older_than = settings.LLM_TOTAL_TIMEOUT + 10
        count = turns_mark_interrupted(older_than_seconds=older_than)
        self.stdout.write(self.style.SUCCESS(f"Marked {count} turns left in progress interrupted."))
