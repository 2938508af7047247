"""Re-imports started from the admin: one run per source at a time, recorded as it goes.

| step | where |
|---|---|
| a staff member with ``grounding.run_import`` starts a run | ``start_import_run``: an ``ImportRun`` row (one running per source: a constraint; one running past ``KB_IMPORT_RUN_STALE_SECONDS`` died with its process and fails) |
| after the commit, the import runs in a thread of the server | ``execute_import_run``: ``import_sources`` into ``KB_DIR``, then ``kb_reindex`` (the importer's libraries are imported there, not when the admin loads) |
| the run's counts, failures and end are stored | the admin's "Import runs" page shows them, read-only |
"""

import datetime as dt
import logging
import threading
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from grounding.models import ImportRun, ImportSource
from grounding.services import kb_reindex

logger = logging.getLogger(__name__)


class ImportAlreadyRunning(Exception):
    pass


@transaction.atomic
def start_import_run(
    *, source: ImportSource, started_by: str, background: bool = True
) -> ImportRun:
    """Record a run of ``source`` and start it once the row is committed."""
    now = timezone.now()
    # A run still "running" long after it began died with its server process: it fails now.
    ImportRun.objects.filter(
        source=source,
        status=ImportRun.Status.RUNNING,
        started_at__lt=now - dt.timedelta(seconds=settings.KB_IMPORT_RUN_STALE_SECONDS),
    ).update(status=ImportRun.Status.FAILED, finished_at=now, error="interrupted (stale)")
    try:
        with transaction.atomic():
            run = ImportRun.objects.create(
                source=source, started_by=started_by, started_at=timezone.now()
            )
    except IntegrityError as error:
        raise ImportAlreadyRunning(f"{source} is already being imported") from error
    if settings.KB_IMPORT_IN_BACKGROUND:
        thread = threading.Thread(target=execute_import_run, args=(run.pk,), daemon=True)
        transaction.on_commit(thread.start)
    else:
        transaction.on_commit(lambda: execute_import_run(run.pk))
    return run


def execute_import_run(run_id: int) -> None:
    """Import the run's source into ``KB_DIR``, reindex, and store what happened."""
    # The importer's libraries (markitdown, trafilatura, ...) load here, in the run's thread,
    # never in a chat server that only imports the admin.
    from grounding.kbimport.service import ImportOptions, import_sources

    run = ImportRun.objects.select_related("source").get(pk=run_id)
    source = run.source
    options = ImportOptions.from_settings(max_pages=source.max_pages, max_depth=source.max_depth)
    try:
        report = import_sources([source.url], kb_dir=Path(settings.KB_DIR), options=options)
        kb_reindex(kb_dir=Path(settings.KB_DIR))
    except Exception as error:  # recorded on the run: the admin shows why
        logger.exception("import run %s failed", run_id)
        ImportRun.objects.filter(pk=run_id).update(
            status=ImportRun.Status.FAILED, finished_at=timezone.now(), error=str(error)[:2000]
        )
        return
    ImportRun.objects.filter(pk=run_id).update(
        status=ImportRun.Status.FINISHED,
        finished_at=timezone.now(),
        added=len(report.added),
        updated=len(report.updated),
        unchanged=len(report.unchanged),
        removed=len(report.removed),
        failures=[{"source": s, "reason": r} for s, r in report.failed],
    )
