"""The import worker (``manage.py import_worker``) as ``make run`` starts it, killed mid-import.

A re-import is a job in the database; the worker that ran it is killed with SIGKILL while it
reads a page that drips a byte at a time. When a worker starts again the run is failed at
once ("interrupted"), never left ``running`` for an hour.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from tests.live import ROOT, manage, product_env

WAIT = 120  # generous: a loaded machine starts a Django process slowly


def worker(env: dict, log) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "import_worker", "--interval", "0.2"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def run_row(db) -> tuple[str, str, str]:
    with sqlite3.connect(db, timeout=30) as connection:
        return connection.execute(
            "SELECT status, worker, error FROM grounding_importrun"
        ).fetchone()


def wait_for(predicate, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {WAIT} s: {what}")


def test_a_worker_killed_mid_import_leaves_its_run_failed_when_a_worker_returns(site, tmp_path):
    _, url = site
    db, kb = tmp_path / "db.sqlite3", tmp_path / "kb"
    kb.mkdir()
    env = product_env(
        DATABASE_URL=f"sqlite:///{db}",
        KB_DIR=str(kb),
        KB_IMPORT_INTERNAL_HOSTS="127.0.0.1",
        KB_IMPORT_DELAY="0",
        KB_IMPORT_PAGE_SECONDS="600",
    )
    manage("migrate", "--no-input", env=env)
    manage(
        "shell",
        "-c",
        "from grounding.models import ImportSource\n"
        "from grounding.kbimport.runs import start_import_run\n"
        f"source = ImportSource.objects.create(name='Drip', url='{url}/droppande', max_depth=0)\n"
        "start_import_run(source=source, started_by='editor')\n",
        env=env,
    )
    assert run_row(db)[:2] == ("running", "")  # queued: no process has it yet
    with open(tmp_path / "worker.log", "w") as log:
        first = worker(env, log)
        try:
            process = wait_for(lambda: run_row(db)[1], "the worker takes the job")
            assert process.endswith(f":{first.pid}")
            os.kill(first.pid, signal.SIGKILL)
            first.wait(timeout=WAIT)
        finally:
            if first.poll() is None:
                first.kill()
        assert run_row(db)[0] == "running"  # nobody left to say otherwise
        returned = time.monotonic()
        second = worker(env, log)
        try:
            status, _, error = wait_for(
                lambda: run_row(db)[0] == "failed" and run_row(db), "the run is failed"
            )
            assert status == "failed"
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(timeout=WAIT)
    assert error.startswith("interrupted: its process") and str(first.pid) in error
    assert time.monotonic() - returned < 60, "within a minute of the worker's return"
