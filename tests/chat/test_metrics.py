"""GET /metrics and the hooks that move its numbers."""

import datetime as dt

import pytest
from django.conf import settings
from prometheus_client import REGISTRY

from actions.services import suggestion_confirm, suggestion_create, suggestion_reject
from chat import metrics
from chat.models import Conversation

METRIC_NAMES = (
    "chat_connections_open",
    "chat_connections_opened_total",
    "chat_turns_total",
    "chat_withheld_answers_total",
    "chat_action_confirmations_total",
    "chat_time_to_first_token_seconds_bucket",
    "chat_turn_duration_seconds_bucket",
)


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics_endpoint_serves_every_metric_in_text_format(client):
    """The Prometheus text format, with every product metric and its label values."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    body = response.content.decode()
    for name in METRIC_NAMES:
        assert f"\n{name}" in body, name
    assert 'chat_turns_total{outcome="withheld"}' in body
    assert 'chat_action_confirmations_total{result="already_executed"}' in body


def test_metrics_endpoint_speaks_openmetrics_to_a_scraper_that_asks():
    """Content negotiation comes from the client library: OpenMetrics when accepted."""
    from django.test import Client

    response = Client(headers={"accept": "application/openmetrics-text; version=1.0.0"}).get(
        "/metrics"
    )
    assert response["Content-Type"].startswith("application/openmetrics-text")
    assert response.content.decode().rstrip().endswith("# EOF")


def test_connection_hooks_move_the_gauge_and_the_counter():
    """Open raises the gauge and the total; close lowers only the gauge."""
    open_before = sample("chat_connections_open")
    opened_before = sample("chat_connections_opened_total")
    metrics.connection_opened()
    metrics.connection_opened()
    metrics.connection_closed()
    assert sample("chat_connections_open") == open_before + 1
    assert sample("chat_connections_opened_total") == opened_before + 2
    metrics.connection_closed()
    assert sample("chat_connections_open") == open_before


def test_withheld_turn_counts_its_outcome_the_withheld_answer_and_both_times():
    """A withheld turn moves the outcome counter, the withheld counter and both histograms."""
    turns = sample("chat_turns_total", outcome="withheld")
    withheld = sample("chat_withheld_answers_total")
    ttft_count = sample("chat_time_to_first_token_seconds_count")
    ttft_fast = sample("chat_time_to_first_token_seconds_bucket", le="0.25")
    duration_sum = sample("chat_turn_duration_seconds_sum")

    metrics.turn_finished("withheld", 120.0, 900.0)

    assert sample("chat_turns_total", outcome="withheld") == turns + 1
    assert sample("chat_withheld_answers_total") == withheld + 1
    assert sample("chat_time_to_first_token_seconds_count") == ttft_count + 1
    assert sample("chat_time_to_first_token_seconds_bucket", le="0.25") == ttft_fast + 1
    assert sample("chat_turn_duration_seconds_sum") == pytest.approx(duration_sum + 0.9)


def test_turn_without_a_first_token_records_only_its_duration():
    """A turn answered without the LLM (no support, cancelled early) has no time to first token."""
    ttft_count = sample("chat_time_to_first_token_seconds_count")
    duration_count = sample("chat_turn_duration_seconds_count")
    withheld = sample("chat_withheld_answers_total")
    no_support = sample("chat_turns_total", outcome="no_support")

    metrics.turn_finished("no_support", None, 15.0)

    assert sample("chat_time_to_first_token_seconds_count") == ttft_count
    assert sample("chat_turn_duration_seconds_count") == duration_count + 1
    assert sample("chat_withheld_answers_total") == withheld
    assert sample("chat_turns_total", outcome="no_support") == no_support + 1


@pytest.mark.django_db
def test_confirm_results_from_the_service_are_counted_under_their_labels():
    """Real confirm answers land under executed, already_executed, rejected and expired."""
    conversation = Conversation.objects.create()
    now = dt.datetime(2025, 1, 1, 12, tzinfo=dt.UTC)
    later = now + dt.timedelta(seconds=settings.ACTION_WINDOW_SECONDS + 1)

    def suggestion():
        return suggestion_create(
            conversation_id=conversation.pk, action="create_ticket", payload={}, now=now
        ).suggestion_id

    def confirm(suggestion_id, at=now):
        return suggestion_confirm(
            suggestion_id=suggestion_id, conversation_id=conversation.pk, now=at
        ).as_dict()

    first = suggestion()
    refused = suggestion()
    suggestion_reject(suggestion_id=refused, conversation_id=conversation.pk, now=now)
    late = suggestion()
    answers = [confirm(first), confirm(first), confirm(refused), confirm(late, at=later)]

    before = {
        r: sample("chat_action_confirmations_total", result=r) for r in metrics.CONFIRM_RESULTS
    }
    labels = [metrics.action_confirmed(answer) for answer in answers]

    assert labels == ["executed", "already_executed", "rejected", "expired"]
    for label in labels:
        assert sample("chat_action_confirmations_total", result=label) == before[label] + 1
    assert sample("chat_action_confirmations_total", result="failed") == before["failed"]


def test_failed_execution_and_its_repeat_are_told_apart():
    """An executor failure counts as failed; a later confirm of it as already executed."""
    failed = {"success": False, "ignored": False, "message": "Ticket failed"}
    repeat = {"success": False, "ignored": True, "message": "Already executed"}
    assert metrics.confirm_result_label(failed) == "failed"
    assert metrics.confirm_result_label(repeat) == "already_executed"


def test_metrics_answer_only_configured_addresses_or_the_token(client, settings):
    """Another address gets 403; the scraper's bearer token opens it from anywhere."""
    settings.METRICS_TOKEN = "s3cret"
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.7").status_code == 403
    wrong = client.get("/metrics", REMOTE_ADDR="203.0.113.7", HTTP_AUTHORIZATION="Bearer nope")
    assert wrong.status_code == 403
    right = client.get("/metrics", REMOTE_ADDR="203.0.113.7", HTTP_AUTHORIZATION="Bearer s3cret")
    assert right.status_code == 200
    assert client.get("/metrics").status_code == 200  # loopback, the default allowed address
