"""Two staff (or twenty) take the same waiting conversation at once: exactly one wins."""

import subprocess
import time

import pytest

from tests.actions import test_concurrency
from tests.chat.handoff_race import outcome, setup, take_concurrently
from tests.live import module_process, process_outputs

# A throwaway database on the server of TEST_POSTGRES_URL (the actions race's fixture).
postgres_database_url = test_concurrency.postgres_database_url
SUBPROCESS_TIMEOUT_SECONDS = 180
TAKERS_PER_PROCESS = 10
START_DELAY_SECONDS = 3.0  # both processes are up and connected by then


def race_process(*args: str, database_url: str) -> subprocess.Popen:
    """``tests.chat.handoff_race`` in a fresh Python process that reaches the database by URL."""
    return module_process("tests.chat.handoff_race", *args, database_url=database_url)


def outputs(*processes: subprocess.Popen) -> list:
    return process_outputs(*processes, timeout=SUBPROCESS_TIMEOUT_SECONDS)


def assert_one_winner(results: list[dict], final: dict) -> None:
    winners = [r["user"] for r in results if r["won"]]
    assert len(winners) == 1, results
    [winner] = winners
    assert all(r["owner"] in (winner, "") for r in results if not r["won"]), results
    assert final == {"handoffs": [("active", winner)], "joined_events": 1}


@pytest.mark.django_db(transaction=True)
def test_threads_taking_at_once_one_wins():
    """Two staff in one process, released together: one owns it, the other is told."""
    created = setup(staff=2)
    results = take_concurrently(
        conversation_id=created["conversation_id"], usernames=created["usernames"]
    )
    assert_one_winner(results, outcome(conversation_id=created["conversation_id"]))


@pytest.mark.postgres
def test_two_processes_take_at_once_one_wins_on_postgres(postgres_database_url):
    """Twenty staff in two server processes take one conversation at the same instant."""
    [created] = outputs(
        race_process("setup", str(2 * TAKERS_PER_PROCESS), database_url=postgres_database_url)
    )
    names = created["usernames"]
    start_at = str(time.time() + START_DELAY_SECONDS)
    first, second = outputs(
        race_process(
            "take",
            created["conversation_id"],
            start_at,
            *names[:TAKERS_PER_PROCESS],
            database_url=postgres_database_url,
        ),
        race_process(
            "take",
            created["conversation_id"],
            start_at,
            *names[TAKERS_PER_PROCESS:],
            database_url=postgres_database_url,
        ),
    )
    assert first["outcome"] == second["outcome"]
    assert_one_winner(
        first["results"] + second["results"],
        {k: [tuple(h) for h in v] if k == "handoffs" else v for k, v in first["outcome"].items()},
    )
