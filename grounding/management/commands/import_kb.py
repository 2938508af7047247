"""``manage.py import_kb SOURCE ...``: a site, pages and files into the KB as markdown."""

import getpass
import json
import sys
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from grounding.kbimport.bounds import limit_memory
from grounding.kbimport.runs import command_run_start, import_run_fail, import_run_finish
from grounding.kbimport.service import ImportOptions, import_replacing, import_sources
from grounding.kbimport.writer import ImportReport


class Command(BaseCommand):
    help = (
        "Import a site (its start URL or sitemap: a same-site crawl), single pages, and "
        "local .html, .pdf, .docx and .md files or folders into the KB directory as "
        "markdown with a header (source, title, fetched at, SHA-1, category). Unchanged "
        "pages are not rewritten, pages gone from the site are removed. With --replace the "
        "import becomes the whole KB directory (the example KB's files are removed). Run "
        "reindex_kb after."
    )

    def add_arguments(self, parser):
        parser.add_argument("sources", nargs="+", help="URLs, sitemap URLs, files or folders")
        parser.add_argument("--kb-dir", type=Path, default=None, help="default: settings.KB_DIR")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print the report as JSON"
        )
        parser.add_argument("--max-pages", type=int, default=None)
        parser.add_argument("--depth", type=int, default=None, help="0: only the given pages")
        parser.add_argument("--delay", type=float, default=None, help="seconds between requests")
        parser.add_argument(
            "--replace",
            action="store_true",
            help=(
                "empty the KB directory first (the example KB included): after the import it "
                "holds only what this import brought; left as it was when nothing came in"
            ),
        )
        parser.add_argument(
            "--keep-vanished",
            action="store_true",
            help="report pages gone from the site instead of removing their files",
        )

    def run_from_argv(self, argv):
        """From the command line (not ``call_command``): the process's memory is bounded."""
        limit_memory(settings.KB_IMPORT_MAX_MEMORY_BYTES)
        super().run_from_argv(argv)

    def handle(self, *args, sources, kb_dir, as_json, max_pages, depth, delay, replace, **options):
        kb_dir = Path(kb_dir or settings.KB_DIR)
        import_options = ImportOptions.from_settings(
            max_pages=max_pages,
            max_depth=depth,
            delay=delay,
            keep_vanished=options["keep_vanished"],
        )
        # A run among the admin's import runs, like a re-import started there.
        run = command_run_start(sources=sources, started_by=getpass.getuser())
        importer = import_replacing if replace else import_sources
        try:
            report = importer(
                sources,
                kb_dir=kb_dir,
                options=import_options,
                progress=None if as_json else self._progress,
            )
        except BaseException as error:  # Ctrl-C included: the run is not left running
            import_run_fail(run_id=run.pk, error=str(error) or type(error).__name__)
            if isinstance(error, FileNotFoundError):
                raise CommandError(str(error)) from error
            raise
        import_run_finish(run_id=run.pk, report=report)
        if not as_json:
            sys.stderr.write("\n")
        self._print(report, as_json=as_json)
        if report.imported == 0:
            raise CommandError(
                "nothing could be imported" + (f"; {kb_dir} is unchanged" if replace else "")
            )
        if replace:
            self.stdout.write(f"{kb_dir} now holds this import only (the files it held are gone).")

    def _progress(self, source: str, report: ImportReport) -> None:
        line = (
            f"\r{report.imported + len(report.failed)} pages: {len(report.added)} added, "
            f"{len(report.updated)} updated, {len(report.unchanged)} unchanged, "
            f"{len(report.failed)} failed"
        )
        sys.stderr.write(line[:120].ljust(80))
        sys.stderr.flush()

    def _print(self, report: ImportReport, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False, indent=1))
            return
        self.stdout.write(self.style.SUCCESS("Imported: ") + report.summary())
        for label, items in (
            ("added", report.added),
            ("updated", report.updated),
            ("removed", report.removed),
            ("vanished (kept)", report.vanished),
        ):
            for item in items:
                self.stdout.write(f"  {label}: {item}")
        for source, reason in report.failed:
            self.stdout.write(self.style.WARNING(f"  failed: {source}: {reason}"))
        for url, reason in report.skipped:
            self.stdout.write(f"  skipped: {url}: {reason}")
