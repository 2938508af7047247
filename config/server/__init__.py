"""Everything specific to one server: daphne (Twisted, Autobahn) as ``make run`` serves it.

Installed only by ``python -m config.serve`` (``install`` below), never by
importing the ASGI application: ``config.asgi:application`` runs unmodified
on plain ``daphne`` and on ``uvicorn``. Each patch has a setting, so ``make
bench`` can measure it on and off:

| setting            | module             | what it changes                          |
|--------------------|--------------------|------------------------------------------|
| SERVER_UVLOOP      | config.serve       | uvloop under daphne's Twisted reactor    |
| SERVER_CLOSE_CODES | daphne_close_codes | 1001/1008/1009 reach the client as sent  |
| GC_TUNING          | gc_tuning          | frozen start-up objects, clocked full GC |

Plus, always: the graceful SIGTERM (``shutdown``, Twisted's signal handling, public
API) and two edge limits (``daphne_edge_limits``: a 1009 close instead of a TCP reset
for oversized frames, a shorter HTTP idle timeout; issue 14's security work).
What each is worth (measured): the README's "Server patches" table. Two
earlier patches were measured and removed (README): the direct text-frame
path past Autobahn, and the slow-reader guard (daphne's ping timeout and the
chat's rate limits bound what a non-reading client can make us buffer).
"""

from django.conf import settings


def switch(name: str, default: bool = True) -> bool:
    """A server setting; a project without it (the bench's floor) gets ``default``."""
    return bool(getattr(settings, name, default))
