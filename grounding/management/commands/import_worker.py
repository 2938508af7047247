"""``manage.py import_worker``: the worker of import jobs, beside the server (``make run``)."""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from grounding.kbimport.bounds import limit_memory
from grounding.kbimport.runs import fail_interrupted_runs


class Command(BaseCommand):
    help = (
        "Run the import jobs the admin queues (django-tasks' database worker on the import "
        "queue), with the import's memory bound. At start, every run whose process on this "
        "host is gone (a worker killed mid-import) is marked failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch", action="store_true", help="run the queued jobs, then exit")
        parser.add_argument("--interval", type=float, default=1.0, help="seconds between polls")

    def handle(self, *args, batch: bool, interval: float, **options):
        limit_memory(settings.KB_IMPORT_MAX_MEMORY_BYTES)
        failed = fail_interrupted_runs()
        if failed:
            self.stderr.write(f"{failed} interrupted import run(s) marked failed")
        call_command(
            "db_worker",
            queue_name=settings.KB_IMPORT_QUEUE,
            interval=interval,
            batch=batch,
            reload=False,
            startup_delay=False,
            verbosity=options["verbosity"],
        )
