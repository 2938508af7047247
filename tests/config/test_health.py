"""GET /healthz: 200 with the KB index version when every check passes, 503 otherwise."""

import asyncio

import pytest
from django.db import OperationalError

from config import health
from grounding.models import KBIndexState

# The checks run through database_sync_to_async, which closes the connection it
# finds: the test data must be committed, not held in a test transaction.
pytestmark = pytest.mark.django_db(transaction=True)


def test_healthy_process_answers_200_with_the_index_version(client):
    """Database, channel layer and KB index all pass; the body names the index version."""
    KBIndexState.objects.create(version=7)
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "channel_layer", "kb_index"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["kb_index"]["version"] == 7
    assert "no-cache" in response["Cache-Control"]


def test_database_failure_answers_503_without_the_error_text(client, monkeypatch):
    """A failed SELECT 1 makes the process unavailable; the body names only the error type."""

    def broken_database():
        raise OperationalError("could not connect: password=hunter2")

    monkeypatch.setattr(health, "database_check", broken_database)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == {
        "ok": False,
        "ms": body["checks"]["database"]["ms"],
        "error": "OperationalError",
    }
    assert body["checks"]["channel_layer"]["ok"] is True
    assert b"hunter2" not in response.content


class HangingLayer:
    """A channel layer whose Redis never answers."""

    async def group_send(self, group, message):
        await asyncio.Event().wait()


def test_channel_layer_that_hangs_answers_503_quickly(client, monkeypatch, settings):
    """The layer's round trip times out after the short limit instead of hanging the probe."""
    monkeypatch.setattr(health, "get_channel_layer", lambda: HangingLayer())
    settings.READINESS_CHECK_TIMEOUT_SECONDS = 0.05
    response = client.get("/healthz")
    assert response.status_code == 503
    check = response.json()["checks"]["channel_layer"]
    assert check["ok"] is False and check["error"] == "TimeoutError"
    assert check["ms"] < 1000


def test_missing_channel_layer_answers_503(client, monkeypatch):
    """A process without a configured layer cannot serve other processes' events."""
    monkeypatch.setattr(health, "get_channel_layer", lambda: None)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["channel_layer"]["ok"] is False


def test_only_get_is_allowed(client):
    """A probe reads; anything else is refused."""
    assert client.post("/healthz").status_code == 405


def test_liveness_answers_200_while_the_database_is_down(client, monkeypatch):
    """/livez depends on nothing slow: a broken database does not make it fail."""

    def broken_database():
        raise OperationalError("down")

    monkeypatch.setattr(health, "database_check", broken_database)
    assert client.get("/readyz").status_code == 503
    response = client.get("/livez")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.parametrize("path", ["/livez", "/readyz", "/healthz"])
def test_probes_by_ip_answer_whatever_allowed_hosts_says(client, settings, path):
    """A load balancer probes by IP over plain HTTP: no 400 for the host, no redirect."""
    settings.ALLOWED_HOSTS = ["chat.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    KBIndexState.objects.create(version=1)
    response = client.get(path, HTTP_HOST="10.0.0.7:8787")
    assert response.status_code == 200
    # Other paths still refuse the unknown host.
    assert client.get("/", HTTP_HOST="10.0.0.7:8787").status_code == 400


def test_readiness_does_not_queue_behind_the_shared_sync_thread(client):
    """The database check runs on a thread of its own, so a busy consumer thread cannot fail it.

    The shared sync thread (every consumer's connect and disconnect) is held
    for longer than the readiness limit while the probe runs.
    """
    import threading

    from asgiref.sync import async_to_sync, sync_to_async

    KBIndexState.objects.create(version=3)
    started, release = threading.Event(), threading.Event()

    def hold_the_shared_thread():
        started.set()
        release.wait(5)

    async def busy_then_probe():
        import asyncio

        hold = asyncio.ensure_future(sync_to_async(hold_the_shared_thread)())
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        try:
            return await health.run_checks()
        finally:
            release.set()
            await hold

    results = async_to_sync(busy_then_probe)()
    assert all(result["ok"] for result in results.values()), results
    assert results["database"]["ms"] < 1000
