"""ASGI app of the bare Channels floor, served by daphne like ``config.asgi``.

    DJANGO_SETTINGS_MODULE=bench.floors.channels_settings \
        daphne -b 127.0.0.1 -p PORT bench.floors.channels_asgi:application
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.floors.channels_settings")

import django

django.setup()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from bench.floors.channels_consumer import FloorConsumer  # noqa: E402

application = ProtocolTypeRouter(
    {
        "websocket": URLRouter(
            [path("ws/chat/", FloorConsumer.as_asgi()), path("", FloorConsumer.as_asgi())]
        )
    }
)
