"""Exactly once under concurrency: threads, processes, restarts, SQLite and PostgreSQL."""

import json
import os
import subprocess
import uuid
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

from actions.services import suggestion_confirm, suggestion_create
from tests.actions.confirm_race import confirm_concurrently, counts
from tests.live import module_process, process_outputs, throwaway_postgres_database

BASE_DIR = Path(__file__).resolve().parents[2]
PHONE = {"phone": "+46 70 123 45 67", "phone_e164": "+46701234567"}
CONFIRMS = 50
SUBPROCESS_TIMEOUT_SECONDS = 180

WON = {"success": True, "ignored": False, "message": "Callback scheduled to +46 70 123 45 67"}
IGNORED = {"success": True, "ignored": True, "message": "Already executed"}


def tally(results: list[dict]) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in results)


def expected_tally(total: int) -> Counter:
    return tally([WON] + [IGNORED] * (total - 1))


def race_process(*args: str, database_url: str) -> subprocess.Popen:
    """``tests.actions.confirm_race`` in a fresh Python process that reaches the database by URL."""
    # A repeated confirm waits for the running execution's result up to EXECUTION_WAIT_SECONDS,
    # then says "in progress": on a loaded machine the winner's commit can take longer than the
    # default 5 s, and the tally would count the machine's load, not the confirms.
    return module_process(
        "tests.actions.confirm_race",
        *args,
        database_url=database_url,
        EXECUTION_WAIT_SECONDS=str(SUBPROCESS_TIMEOUT_SECONDS),
    )


def outputs(*processes: subprocess.Popen) -> list:
    return process_outputs(*processes, timeout=SUBPROCESS_TIMEOUT_SECONDS)


def current_database_url() -> str:
    """A DATABASE_URL that reaches the database this test runs against (SQLite or PostgreSQL)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    assert connection.vendor == "postgresql", connection.vendor
    credentials = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST']}:{db['PORT'] or 5432}/{quote(db['NAME'])}"


@pytest.fixture
def suggestion(conversation):
    return suggestion_create(
        conversation_id=conversation.pk, action="schedule_callback", payload=PHONE
    )


@pytest.mark.django_db(transaction=True)
def test_fifty_threads_confirm_once(suggestion):
    """50 simultaneous confirms of one suggestion: one execution, 49 ignored."""
    results = confirm_concurrently(
        suggestion_id=suggestion.suggestion_id,
        conversation_id=suggestion.conversation_id,
        threads=CONFIRMS,
    )
    assert tally(results) == expected_tally(CONFIRMS)
    assert counts(suggestion_id=suggestion.suggestion_id) == {
        "status": "executed",
        "executions": 1,
        "duplicate_confirms": CONFIRMS - 1,
        "callbacks": 1,
    }


@pytest.mark.django_db(transaction=True)
def test_two_processes_confirm_once(suggestion):
    """Two server processes confirming at once (plus threads in each) still run it once."""
    url = current_database_url()
    args = ("confirm", suggestion.suggestion_id, str(suggestion.conversation_id), "10")
    first, second = outputs(
        race_process(*args, database_url=url), race_process(*args, database_url=url)
    )
    assert tally(first["results"] + second["results"]) == expected_tally(20)
    assert counts(suggestion_id=suggestion.suggestion_id)["callbacks"] == 1


@pytest.mark.django_db(transaction=True)
def test_confirm_after_restart_is_ignored(suggestion):
    """After a confirm, a new process (a restarted server) confirming again is ignored."""
    first = suggestion_confirm(
        suggestion_id=suggestion.suggestion_id, conversation_id=suggestion.conversation_id
    )
    assert first.as_dict() == WON
    connection.close()
    args = ("confirm", suggestion.suggestion_id, str(suggestion.conversation_id), "1")
    [after_restart] = outputs(race_process(*args, database_url=current_database_url()))
    assert after_restart["results"] == [IGNORED]
    assert after_restart["counts"]["executions"] == 1


@pytest.fixture
def postgres_database_url():
    """A throwaway database on the server named by TEST_POSTGRES_URL, dropped afterwards."""
    server_url = os.environ.get("TEST_POSTGRES_URL", "")
    if not server_url:
        pytest.skip(
            "TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)"
        )
    with throwaway_postgres_database(server_url, f"actions_race_{uuid.uuid4().hex[:12]}") as url:
        yield url


@pytest.mark.postgres
def test_fifty_confirms_once_on_postgres(postgres_database_url):
    """On PostgreSQL, 50 confirms from two processes of 25 threads give one execution."""
    [created] = outputs(race_process("setup", database_url=postgres_database_url))
    args = ("confirm", created["suggestion_id"], created["conversation_id"], str(CONFIRMS // 2))
    first, second = outputs(
        race_process(*args, database_url=postgres_database_url),
        race_process(*args, database_url=postgres_database_url),
    )
    assert tally(first["results"] + second["results"]) == expected_tally(CONFIRMS)
    # A restarted process confirming once more is ignored too.
    [restarted] = outputs(race_process(*args[:3], "1", database_url=postgres_database_url))
    assert restarted["results"] == [IGNORED]
    assert restarted["counts"] == {
        "status": "executed",
        "executions": 1,
        "duplicate_confirms": CONFIRMS,
        "callbacks": 1,
    }
