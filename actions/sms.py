"""Pluggable SMS backends, in the style of Django's email backends.

``settings.SMS_BACKEND`` names the class: ``actions.sms.ConsoleBackend`` (the
default: prints and logs, sends nothing), ``actions.sms.LocmemBackend`` (tests:
keeps messages in ``outbox``), or any subclass of ``BaseSmsBackend`` that talks
to a real provider. A backend raises when it could not send; the executor
records that as a failed execution.
"""

import abc
import logging
import sys
import threading
from dataclasses import dataclass
from typing import TextIO

from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class OutgoingSms:
    to: str
    body: str
    idempotency_key: str = ""


class BaseSmsBackend(abc.ABC):
    """Send one SMS; raise if it could not be sent."""

    @abc.abstractmethod
    def send(self, *, to: str, body: str, idempotency_key: str = "") -> None:
        """Hand the message to the provider; return only once it accepted it.

        ``idempotency_key`` is the same for every attempt of one execution: pass
        it to a provider that deduplicates (most SMS APIs take one) so a re-run
        after a crash sends nothing twice.
        """


class ConsoleBackend(BaseSmsBackend):
    """Writes the message to a stream (stdout by default) and the log instead of sending it."""

    def __init__(self, *, stream: TextIO | None = None) -> None:
        self.stream = stream

    def send(self, *, to: str, body: str, idempotency_key: str = "") -> None:
        stream = self.stream or sys.stdout
        stream.write(f"SMS to {to}\n{body}\n{'-' * 40}\n")
        stream.flush()
        logger.info("SMS (console backend) to %s: %s", to, body)


# Module level, like django.core.mail.outbox, so tests can read what was "sent".
outbox: list[OutgoingSms] = []
_outbox_lock = threading.Lock()


class LocmemBackend(BaseSmsBackend):
    """Keeps sent messages in ``actions.sms.outbox`` (for tests)."""

    def send(self, *, to: str, body: str, idempotency_key: str = "") -> None:
        with _outbox_lock:
            outbox.append(OutgoingSms(to=to, body=body, idempotency_key=idempotency_key))


def backend_path() -> str:
    """The dotted path of the configured backend (recorded with each SMS)."""
    return settings.SMS_BACKEND


def get_backend(path: str | None = None, **kwargs) -> BaseSmsBackend:
    """An instance of the backend named by ``path`` or ``settings.SMS_BACKEND``."""
    backend_class = import_string(path or backend_path())
    return backend_class(**kwargs)
