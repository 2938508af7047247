"""Graceful shutdown of a daphne process on SIGTERM.

Daphne's own shutdown cancels every application instance at once, which
cuts streams without a word to the client. Here SIGTERM first lets each chat
connection end its turn (recorded as interrupted), tell the client and close
with 1001 (going away), waits for the audit writes, and only then stops
the reactor as daphne would have.
"""

import asyncio
import logging
import signal

logger = logging.getLogger(__name__)
GRACE_SECONDS = 10


def install() -> bool:
    try:
        from twisted.internet import reactor
    except ImportError:
        return False
    # Twisted installs its own SIGTERM handler when the reactor starts: ours goes after it.
    reactor.callWhenRunning(_take_sigterm, reactor)
    return True


def _take_sigterm(reactor) -> None:
    loop = asyncio.get_event_loop()

    def on_sigterm(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM stops at once
        reactor.callFromThread(lambda: asyncio.ensure_future(_drain_then_stop(reactor), loop=loop))

    signal.signal(signal.SIGTERM, on_sigterm)


async def _drain_then_stop(reactor) -> None:
    from chat.composition import live_connections

    try:
        closed = await asyncio.wait_for(live_connections().shut_down(), GRACE_SECONDS)
        logger.info("Shutdown: closed %d chat connections", closed)
    except Exception:
        logger.exception("Shutdown: could not close every chat connection in time")
    finally:
        reactor.stop()
