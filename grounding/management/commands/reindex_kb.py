"""``manage.py reindex_kb``: index the markdown files of the KB into the database."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from grounding.selectors import index_is_empty
from grounding.services import KBDirectoryNotFound, kb_reindex


class Command(BaseCommand):
    help = (
        "Index the markdown files under the KB directory: unchanged files are skipped, "
        "removed files dropped, and the new index replaces the old one atomically."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--kb-dir",
            type=Path,
            default=None,
            help="Directory of markdown files (default: settings.KB_DIR).",
        )
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Index only when the index holds no document yet (for first start).",
        )

    def handle(self, *args, kb_dir: Path | None, if_empty: bool, verbosity: int, **options):
        kb_dir = Path(kb_dir or settings.KB_DIR)
        if if_empty and not index_is_empty():
            self.stdout.write("KB index is not empty; nothing to do (--if-empty).")
            return
        progress = self.stdout.write if verbosity >= 2 else None
        try:
            summary = kb_reindex(kb_dir=kb_dir, progress=progress)
        except KBDirectoryNotFound as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            self.style.SUCCESS(f"Indexed {kb_dir}")
            + f"\n  added:     {summary.added}"
            + f"\n  changed:   {summary.changed}"
            + f"\n  unchanged: {summary.unchanged}"
            + f"\n  removed:   {summary.removed}"
            + f"\n  chunks:    {summary.chunks}"
            + f"\n  facts:     {summary.facts}"
            + f"\n  version:   {summary.version}"
            + f"\n  time:      {summary.seconds:.2f} s"
        )
