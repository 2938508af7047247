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


class SilentLayer:
    """A channel layer that accepts messages and never delivers them."""

    async def new_channel(self, prefix="specific."):
        return f"{prefix}.silent"

    async def send(self, channel, message):
        return None

    async def receive(self, channel):
        await asyncio.Event().wait()


def test_channel_layer_that_loses_messages_answers_503_quickly(client, monkeypatch):
    """The round trip times out after the short limit instead of hanging the probe."""
    monkeypatch.setattr(health, "get_channel_layer", lambda: SilentLayer())
    monkeypatch.setattr(health, "CHANNEL_LAYER_TIMEOUT_SECONDS", 0.05)
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
