from django.core.management.base import BaseCommand

from chat.audit import DATABASE_AWAY, audit_write_batch
from chat.audit_process import serve


class Command(BaseCommand):
    help = (
        "The audit writer process (chat/audit_process.py): the server starts it with one end "
        "of a socket pair and it writes the audit batches sent there. Not for a terminal."
    )
    requires_system_checks = []  # the server that spawns it has run them

    def add_arguments(self, parser) -> None:
        parser.add_argument("fd", type=int, help="The socket's file descriptor.")

    def handle(self, *args, fd: int, **options) -> None:
        serve(fd, write_batch=audit_write_batch, database_away=DATABASE_AWAY)
