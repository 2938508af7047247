"""Tell every server process that the KB index has a new version.

Sent over the channel layer (Redis in production) to the group every chat
connection joins; each process then reloads its in-memory index at once.
The version check on every query stays as the fallback when no layer is
reachable, so a failed announcement is logged, never raised.
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

KB_GROUP = "kb.index"
REINDEXED = "kb.reindexed"


def index_version_announce(*, version: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(KB_GROUP, {"type": REINDEXED, "version": version})
    except Exception:
        logger.warning("Could not announce KB index version %s", version, exc_info=True)
