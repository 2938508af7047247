"""Re-imports from the admin (grounding/kbimport/runs.py, ImportSourceAdmin)."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import formats, timezone

from grounding.kbimport.runs import ImportAlreadyRunning, start_import_run
from grounding.models import ImportRun, ImportSource, KBDocument


@pytest.fixture
def source(site, import_settings, tmp_path):
    _, url = site
    import_settings.KB_DIR = tmp_path
    return ImportSource.objects.create(name="Fjällby", url=url + "/", max_pages=50, max_depth=2)


def _action(client, source):
    return client.post(
        reverse("admin:grounding_importsource_changelist"),
        {"action": "start_import", "_selected_action": [source.pk]},
        follow=True,
    )


@pytest.mark.django_db(transaction=True)
def test_staff_with_the_permission_start_a_reimport_and_see_its_run(
    client, django_user_model, source, import_settings
):
    import_settings.KB_IMPORT_IN_BACKGROUND = False  # the run's work at commit, here
    staff = django_user_model.objects.create_user("editor", password="pw", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_importsource", "view_importrun"])
    )
    client.force_login(staff)
    assert (
        b"start_import"
        not in client.get(reverse("admin:grounding_importsource_changelist")).content
    ), "no action without grounding.run_import"

    staff.user_permissions.add(Permission.objects.get(codename="run_import"))
    client.force_login(django_user_model.objects.get(pk=staff.pk))
    response = _action(client, source)
    assert "Import of Fjällby started" in response.content.decode()
    run = ImportRun.objects.get(source=source)
    assert (run.status, run.started_by, run.added) == ("finished", "editor", 8)
    assert {f["source"].rsplit("/", 1)[-1] for f in run.failures} >= {"loop-a", "saknas", "stor"}
    assert KBDocument.objects.filter(path__startswith="kb/imported/").count() == 8
    listing = client.get(reverse("admin:grounding_importsource_changelist")).content.decode()
    assert "Finished" in listing and "8 added" in listing
    runs_page = client.get(reverse("admin:grounding_importrun_changelist"))
    assert runs_page.status_code == 200 and "editor" in runs_page.content.decode()


@pytest.mark.django_db
def test_one_run_per_source_at_a_time(source):
    ImportRun.objects.create(source=source, started_at="2027-01-01T00:00:00Z")
    with pytest.raises(ImportAlreadyRunning):
        start_import_run(source=source, started_by="x")


@pytest.mark.django_db
def test_a_run_left_running_by_a_dead_process_fails_at_the_next_start(source, import_settings):
    import_settings.KB_IMPORT_IN_BACKGROUND = False
    stale = ImportRun.objects.create(source=source, started_at="2020-01-01T00:00:00Z")
    start_import_run(source=source, started_by="x")
    stale.refresh_from_db()
    assert (stale.status, stale.error) == ("failed", "interrupted (stale)")


@pytest.mark.django_db
def test_import_sources_and_import_runs_show_a_runs_start_in_the_same_local_time(
    admin_client, settings
):
    """Both lists in the current time zone (``TIME_ZONE``), as the admin shows datetimes."""
    settings.TIME_ZONE = "Europe/Stockholm"
    source = ImportSource.objects.create(name="Fjällby", url="https://fjallby.example/")
    ImportRun.objects.create(
        source=source, status=ImportRun.Status.FINISHED, started_at="2026-06-01T21:30:00Z"
    )
    sources = admin_client.get(reverse("admin:grounding_importsource_changelist"))
    runs = admin_client.get(reverse("admin:grounding_importrun_changelist"))
    # 21:30 UTC is 23:30 in Stockholm (summer time); the stored UTC time appears in neither.
    for page in (sources.content.decode(), runs.content.decode()):
        assert "23:30" in page
        assert "21:30" not in page
    run_started = formats.localize(timezone.template_localtime(ImportRun.objects.get().started_at))
    assert run_started in runs.content.decode() and run_started in sources.content.decode()


@pytest.mark.django_db(transaction=True)
def test_an_import_from_the_command_line_appears_among_the_admins_runs(
    client, admin_user, site, import_settings, tmp_path
):
    """``import_kb`` records a run of origin "command line" with its counts, failures and log."""
    from io import StringIO

    from django.core.management import call_command

    _, url = site
    call_command("import_kb", url + "/", "--kb-dir", str(tmp_path), "--json", stdout=StringIO())
    run = ImportRun.objects.get()
    assert (run.origin, run.status, run.source, run.sources) == (
        "command",
        "finished",
        None,
        [url + "/"],
    )
    assert run.added == 8 and run.worker and run.finished_at is not None
    assert {f["source"].rsplit("/", 1)[-1] for f in run.failures} >= {"loop-a", "saknas", "stor"}
    assert run.log.startswith("8 added, 0 updated") and "failed: " in run.log
    client.force_login(admin_user)
    listing = client.get(reverse("admin:grounding_importrun_changelist")).content.decode()
    assert "Command line" in listing and url in listing


@pytest.mark.django_db
def test_a_run_whose_process_is_gone_is_failed_by_the_next_worker(source):
    """A run of a process of this host that no longer exists (kill -9) fails at once."""
    from grounding.kbimport.runs import fail_interrupted_runs, this_process

    host = this_process().rsplit(":", 1)[0]
    dead = ImportRun.objects.create(
        source=source, started_at="2026-01-01T00:00:00Z", worker=f"{host}:999999999"
    )
    alive = ImportRun.objects.create(
        origin="command", started_at="2026-01-01T00:00:00Z", worker=this_process()
    )
    elsewhere = ImportRun.objects.create(
        origin="command", started_at="2026-01-01T00:00:00Z", worker="another-host:1"
    )
    assert fail_interrupted_runs() == 1
    dead.refresh_from_db()
    assert dead.status == "failed" and "stopped before the run ended" in dead.error
    assert ImportRun.objects.filter(pk__in=[alive.pk, elsewhere.pk], status="running").count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_reimport_from_the_admin_is_a_job_on_the_task_queue(source, import_settings):
    """Queued in the database (django-tasks-db) for the import worker, not run in a thread."""
    from django_tasks_db.models import DBTaskResult

    import_settings.KB_IMPORT_IN_BACKGROUND = True
    run = start_import_run(source=source, started_by="editor")
    job = DBTaskResult.objects.get()
    assert job.queue_name == "kb-import" and job.args_kwargs["args"] == [run.pk]
    run.refresh_from_db()
    assert run.status == "running" and run.worker == ""
