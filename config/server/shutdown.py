"""Graceful shutdown of a daphne process on SIGTERM.

Daphne's own shutdown cancels every application instance at once, which
cuts streams without a word to the client. Here SIGTERM first awaits the
project's ``SERVER_SHUTDOWN_HOOK`` (the chat ends its connections: turns
recorded as interrupted, the client told, close 1001, audit written; see
``chat.shutdown``), at most ``GRACE_SECONDS``, and only then stops the
reactor as daphne would have. Twisted's public API only (``callWhenRunning``,
``callFromThread``, ``stop``). A project without the setting (the bench's
floor) keeps daphne's own shutdown.
"""

import asyncio
import logging
import signal

import daphne.server  # noqa: F401  (installs Twisted's asyncio reactor before we import it)
from django.conf import settings
from django.utils.module_loading import import_string
from twisted.internet import reactor

logger = logging.getLogger(__name__)
GRACE_SECONDS = 10


def install() -> bool:
    hook = getattr(settings, "SERVER_SHUTDOWN_HOOK", "")
    if not hook:
        return False
    drain = import_string(hook)
    # Twisted installs its own SIGTERM handler when the reactor starts: ours goes after it.
    reactor.callWhenRunning(_take_sigterm, drain)
    return True


def _take_sigterm(drain) -> None:
    loop = asyncio.get_event_loop()

    def on_sigterm(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM stops at once
        reactor.callFromThread(lambda: asyncio.ensure_future(_drain_then_stop(drain), loop=loop))

    signal.signal(signal.SIGTERM, on_sigterm)


async def _drain_then_stop(drain) -> None:
    try:
        await asyncio.wait_for(drain(), GRACE_SECONDS)
    except Exception:
        logger.exception("Shutdown: the drain did not finish in time")
    finally:
        reactor.stop()
