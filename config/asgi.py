"""ASGI entry point: HTTP for the page and the admin, WebSocket for the chat.

Any ASGI server runs it unmodified (``daphne``, ``uvicorn``); what is specific
to daphne is installed by ``python -m config.serve`` only (``config.server``).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set up Django before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

from config.websocket import websocket_application  # noqa: E402
from grounding.terms import warm_up  # noqa: E402

warm_up()  # the checker's dictionaries, loaded before the first turn needs them

application = ProtocolTypeRouter({"http": django_asgi_app, "websocket": websocket_application()})
