import io
import threading

import pytest

from actions import sms


def test_get_backend_follows_setting(settings):
    """The backend class comes from settings.SMS_BACKEND, read at call time."""
    settings.SMS_BACKEND = "actions.sms.ConsoleBackend"
    assert isinstance(sms.get_backend(), sms.ConsoleBackend)
    settings.SMS_BACKEND = "actions.sms.LocmemBackend"
    assert isinstance(sms.get_backend(), sms.LocmemBackend)


def test_console_backend_writes_message(caplog):
    """The console backend prints recipient and text, and logs them."""
    stream = io.StringIO()
    with caplog.at_level("INFO", logger="actions.sms"):
        sms.ConsoleBackend(stream=stream).send(to="+46701234567", body="Hej")
    assert "SMS to +46701234567\nHej\n" in stream.getvalue()
    assert "+46701234567" in caplog.text


def test_locmem_backend_collects_outbox(sms_outbox):
    """The locmem backend appends to the module-level outbox, safely from many threads."""
    backend = sms.LocmemBackend()
    threads = [
        threading.Thread(target=backend.send, kwargs={"to": f"+4670{i:07d}", "body": str(i)})
        for i in range(20)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(m.body for m in sms_outbox) == sorted(str(i) for i in range(20))


def test_base_backend_cannot_be_used_directly():
    """A backend must implement send(); the base class is abstract."""
    with pytest.raises(TypeError):
        sms.BaseSmsBackend()
