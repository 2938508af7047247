"""Jobs on Django's task queue (the django-tasks backport, its database backend).

``import_run``: an import recorded as an ``ImportRun``, run by the import worker
(``manage.py import_worker``) instead of a thread of the chat server.
"""

from django_tasks import task

from grounding.kbimport.runs import execute_import_run


@task(queue_name="kb-import")
def import_run(run_id: int) -> None:
    """Import the run's source and reindex (``grounding.kbimport.runs.execute_import_run``)."""
    execute_import_run(run_id)
