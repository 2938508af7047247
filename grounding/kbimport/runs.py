"""Imports as runs: every import, from the admin or the command line, recorded as it goes.

| step | where |
|---|---|
| a staff member with ``grounding.run_import`` starts a run | ``start_import_run``: an ``ImportRun`` row (one running per source: a constraint) |
| after the commit, the run is a job on the task queue | ``import_run`` (django-tasks, database backend), run by the import worker (``manage.py import_worker``, started beside the server by ``make run``): ``execute_import_run`` imports into ``KB_DIR``, then reindexes |
| ``manage.py import_kb`` | ``command_run_start`` / ``import_run_finish``: a run of origin "command line", in the same list |
| the run's counts, failures, skipped URLs, log and end are stored | the admin's "Import runs" page shows them, read-only |
| a process that dies mid-run (``kill -9``, a restart) | the run names its process (``worker``: host:pid); the import worker, when it starts and between jobs, fails every run of a process of its host that is gone (``fail_interrupted_runs``); a run running past ``KB_IMPORT_RUN_STALE_SECONDS`` fails at the next start of its source |
"""

import datetime as dt
import logging
import os
import socket
from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_tasks import task

from grounding.models import ImportRun, ImportSource
from grounding.services import kb_reindex

logger = logging.getLogger(__name__)
INTERRUPTED = "interrupted: its process ({worker}) stopped before the run ended"


class ImportAlreadyRunning(Exception):
    pass


def this_process() -> str:
    """``host:pid`` of this process, as a run records where it runs."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(worker: str) -> bool:
    """Whether the process ``host:pid`` still runs (``True`` when it is another host's)."""
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fail_interrupted_runs(*, now: dt.datetime | None = None) -> int:
    """Fail every run whose process, on this host, is gone; returns how many."""
    now = now or timezone.now()
    failed = 0
    running = ImportRun.objects.filter(status=ImportRun.Status.RUNNING).exclude(worker="")
    for run_id, worker in running.values_list("pk", "worker"):
        if not _alive(worker):
            failed += ImportRun.objects.filter(pk=run_id, status=ImportRun.Status.RUNNING).update(
                status=ImportRun.Status.FAILED,
                finished_at=now,
                error=INTERRUPTED.format(worker=worker),
            )
    if failed:
        logger.warning("%d import run(s) interrupted by a process that stopped: failed", failed)
    return failed


@transaction.atomic
def start_import_run(
    *, source: ImportSource, started_by: str, background: bool = True
) -> ImportRun:
    """Record a run of ``source`` and queue it for the import worker once committed."""
    now = timezone.now()
    fail_interrupted_runs(now=now)
    # A run still "running" long after it began died with its process: it fails now.
    ImportRun.objects.filter(
        source=source,
        status=ImportRun.Status.RUNNING,
        started_at__lt=now - dt.timedelta(seconds=settings.KB_IMPORT_RUN_STALE_SECONDS),
    ).update(status=ImportRun.Status.FAILED, finished_at=now, error="interrupted (stale)")
    try:
        with transaction.atomic():
            run = ImportRun.objects.create(
                source=source,
                origin=ImportRun.Origin.ADMIN,
                sources=[source.url],
                started_by=started_by,
                started_at=timezone.now(),
            )
    except IntegrityError as error:
        raise ImportAlreadyRunning(f"{source} is already being imported") from error
    if settings.KB_IMPORT_IN_BACKGROUND:
        transaction.on_commit(lambda: import_run.enqueue(run.pk))
    else:
        transaction.on_commit(lambda: execute_import_run(run.pk))
    return run


@task(queue_name="kb-import")
def import_run(run_id: int) -> None:
    """The job of a run on Django's task queue (django-tasks, the database backend), run by
    the import worker (``manage.py import_worker``)."""
    execute_import_run(run_id)


def execute_import_run(run_id: int) -> None:
    """Import the run's source into ``KB_DIR``, reindex, and store what happened."""
    # The importer's libraries (markitdown, trafilatura, ...) load here, in the run's thread,
    # never in a chat server that only imports the admin.
    from grounding.kbimport.service import ImportOptions, import_sources

    run = ImportRun.objects.select_related("source").get(pk=run_id)
    if run.status != ImportRun.Status.RUNNING:
        return  # failed as interrupted before the worker took it up again
    ImportRun.objects.filter(pk=run_id).update(worker=this_process())
    source = run.source
    options = ImportOptions.from_settings(max_pages=source.max_pages, max_depth=source.max_depth)
    try:
        report = import_sources([source.url], kb_dir=Path(settings.KB_DIR), options=options)
        kb_reindex(kb_dir=Path(settings.KB_DIR))
    except Exception as error:  # recorded on the run: the admin shows why
        logger.exception("import run %s failed", run_id)
        import_run_fail(run_id=run_id, error=str(error))
        return
    import_run_finish(run_id=run_id, report=report)


def command_run_start(*, sources: Sequence[str], started_by: str) -> ImportRun:
    """The run of an ``import_kb`` on the command line, in the admin's list beside the others."""
    return ImportRun.objects.create(
        origin=ImportRun.Origin.COMMAND,
        sources=[str(s)[:2000] for s in sources][:100],
        started_by=started_by[:150],
        started_at=timezone.now(),
        worker=this_process(),
    )


def import_run_finish(*, run_id: int, report) -> None:
    """Store a finished run's counts, failures, skipped URLs and log."""
    ImportRun.objects.filter(pk=run_id).update(
        status=ImportRun.Status.FINISHED,
        finished_at=timezone.now(),
        added=len(report.added),
        updated=len(report.updated),
        unchanged=len(report.unchanged),
        removed=len(report.removed),
        failures=[{"source": s, "reason": r} for s, r in report.failed],
        skipped=[{"url": u, "reason": r} for u, r in report.skipped],
        log=report_log(report)[:100_000],
    )


def import_run_fail(*, run_id: int, error: str) -> None:
    ImportRun.objects.filter(pk=run_id).update(
        status=ImportRun.Status.FAILED, finished_at=timezone.now(), error=error[:2000]
    )


def report_log(report) -> str:
    """The report as ``import_kb`` prints it: the summary, then a line per source."""
    lines = [report.summary()]
    for label, items in (
        ("added", report.added),
        ("updated", report.updated),
        ("removed", report.removed),
        ("vanished (kept)", report.vanished),
    ):
        lines += [f"{label}: {item}" for item in items]
    lines += [f"failed: {source}: {why}" for source, why in report.failed]
    lines += [f"skipped: {url}: {why}" for url, why in report.skipped]
    return "\n".join(lines)
