import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from actions.models import Suggestion
from actions.services import suggestion_create

pytestmark = pytest.mark.django_db


def run() -> str:
    out = StringIO()
    call_command("expire_actions", stdout=out)
    return out.getvalue()


def test_expires_stale_and_is_idempotent(conversation, other_conversation):
    """The command expires stale pending suggestions once; running it again changes nothing."""
    long_ago = timezone.now() - dt.timedelta(hours=1)
    stale = suggestion_create(
        conversation_id=conversation.pk, action="send_sms", payload={}, now=long_ago
    )
    fresh = suggestion_create(conversation_id=other_conversation.pk, action="send_sms", payload={})
    assert "Expired 1 suggestion." in run()
    assert "Expired 0 suggestions." in run()
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert stale.status == Suggestion.Status.EXPIRED
    assert fresh.status == Suggestion.Status.PENDING
