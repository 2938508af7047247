"""The boundary between async code and the sync ORM."""

from channels.db import database_sync_to_async


def off_loop(func):
    """Run the sync ORM function ``func`` in a worker thread.

    Not ``thread_sensitive``: channels would run every such call of the
    process on one shared thread, so concurrent turns would queue behind each
    other. Each call is self-contained (its own transaction), which is what
    makes that safe.
    """
    return database_sync_to_async(func, thread_sensitive=False)
