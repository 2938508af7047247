"""Serve the product: daphne, with this deployment's server patches. ``make run`` starts it.

    python -m config.serve -b 127.0.0.1 -p 8787 config.asgi:application

Daphne's own command line, unchanged. This is the one place the server
patches of ``config.server`` are installed (each behind its setting; the
table and the measured worth of each: ``config.server`` and the README):
the event loop under daphne's Twisted reactor (uvloop), daphne's WebSocket
send and close paths, the garbage collector once the reactor runs (the
application is loaded by then), and the graceful SIGTERM. Plain ``daphne
... config.asgi:application`` and ``uvicorn config.asgi:application`` serve
the same product without any of them.
"""

import asyncio
import os
import sys

import django
import uvloop
from django.conf import settings


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    uvloop_on = getattr(settings, "SERVER_UVLOOP", True)
    if uvloop_on:
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    django.setup()  # (imports daphne's app: after the event loop policy)
    # Imported only now, the one import placed for order: daphne creates the
    # reactor's event loop when it is imported.
    from config.server import daphne_server

    daphne_server.run(
        sys.argv[1:] if argv is None else argv, installed=["SERVER_UVLOOP"] if uvloop_on else []
    )


if __name__ == "__main__":
    main()
