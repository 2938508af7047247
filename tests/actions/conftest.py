import datetime as dt

import pytest

from actions import sms
from chat.models import Conversation

T0 = dt.datetime(2025, 6, 2, 10, 0, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def sms_outbox():
    """The locmem SMS outbox, emptied for every test."""
    sms.outbox.clear()
    yield sms.outbox
    sms.outbox.clear()


@pytest.fixture
def window(settings):
    """A 2-second confirm window, as in the acceptance criteria."""
    settings.ACTION_WINDOW_SECONDS = 2
    return dt.timedelta(seconds=2)


@pytest.fixture
def conversation(db):
    return Conversation.objects.create()


@pytest.fixture
def other_conversation(db):
    return Conversation.objects.create()
