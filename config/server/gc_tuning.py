"""Garbage-collector settings for a long-running server process.

Python's cyclic collector stops the event loop while it runs, and a full
collection walks every tracked object. With 500 connections open the
product holds about 100,000 of them beyond start-up (protocol, consumer and
task state per connection); a full collection then pauses every stream for
70-120 ms on this machine, several times a minute under connection churn:
the largest single delay a frame saw under load (``make bench``). So:

- ``GC_FREEZE``: after start-up, every object alive (Django, the app's
  modules) moves to the permanent generation and is never walked again.
- ``GC_FULL_COLLECTION_SECONDS``: full collections run on this clock, in a
  background thread, instead of whenever a quarter more objects have
  survived; young collections still run as usual and catch most garbage
  cycles while they are young. 0 keeps Python's own schedule.
- ``GC_YOUNG_THRESHOLD``: allocations between young collections (Python's
  default is 700). Every streamed frame allocates a few short-lived objects;
  at 10,000 far fewer of them live long enough to be walked, and under load
  the loop spent about a tenth less CPU (``make bench``, 500 clients).
"""

import gc
import logging
import threading
import time

from django.conf import settings

logger = logging.getLogger(__name__)
AUTOMATIC_FULL_OFF = 1_000_000  # gen1 collections between full ones: never, in practice


def tune(*, freeze: bool, full_collection_seconds: float, young_threshold: int = 0) -> None:
    """Apply the settings once the application is loaded."""
    if young_threshold > 0:
        _, middle, oldest = gc.get_threshold()
        gc.set_threshold(young_threshold, middle, oldest)
    if freeze:
        gc.collect()
        gc.freeze()
    if full_collection_seconds > 0:
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, AUTOMATIC_FULL_OFF)
        threading.Thread(
            target=_collect_every,
            args=(full_collection_seconds,),
            name="gc-full-collection",
            daemon=True,
        ).start()


def _collect_every(seconds: float) -> None:
    while True:
        time.sleep(seconds)
        started = time.perf_counter()
        found = gc.collect()
        logger.debug(
            "Full GC: %d unreachable, %.1f ms", found, (time.perf_counter() - started) * 1000
        )


def tune_from_settings() -> None:
    """``tune`` with the served project's settings (a project without them is left alone)."""
    if not settings.configured:
        return
    tune(
        freeze=getattr(settings, "GC_FREEZE", False),
        full_collection_seconds=getattr(settings, "GC_FULL_COLLECTION_SECONDS", 0),
        young_threshold=getattr(settings, "GC_YOUNG_THRESHOLD", 0),
    )
