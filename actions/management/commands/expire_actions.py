from django.core.management.base import BaseCommand

from actions.services import suggestions_expire


class Command(BaseCommand):
    help = (
        "Mark pending action suggestions whose confirm window has passed as expired. "
        "Safe to run at any time and any number of times; nothing depends on it running, "
        "since confirms and reads treat stale suggestions as expired anyway."
    )

    def handle(self, *args, **options) -> None:
        count = suggestions_expire()
        noun = "suggestion" if count == 1 else "suggestions"
        self.stdout.write(self.style.SUCCESS(f"Expired {count} {noun}."))
