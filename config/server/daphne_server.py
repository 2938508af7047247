"""Daphne with the server patches the settings ask for (``python -m config.serve`` only).

Import this module only once the event loop policy is set: importing daphne
creates the loop under its Twisted reactor.
"""

import sys

import daphne.server  # noqa: F401  (installs Twisted's asyncio reactor before we import it)
from daphne.cli import CommandLineInterface
from twisted.internet import reactor

from chat.audit_process import spawn_early
from config.server import daphne_close_codes, daphne_edge_limits, gc_tuning, shutdown, switch


def run(argv: list[str], *, installed: list[str]) -> None:
    """Install the patches, say which, and run daphne's command line with ``argv``."""
    installed = installed + install()
    print(f"Server patches: {', '.join(installed) or 'none'}", file=sys.stderr, flush=True)
    CommandLineInterface().run(argv)


def install() -> list[str]:
    """Install every patch whose setting is on; the names of those installed."""
    installed = []
    if switch("SERVER_CLOSE_CODES"):
        daphne_close_codes.install()
        installed.append("SERVER_CLOSE_CODES")
    if switch("GC_TUNING"):
        # Once the reactor runs, the application is loaded: its objects can be frozen.
        reactor.callWhenRunning(gc_tuning.tune_from_settings)
        installed.append("GC_TUNING")
    if switch("AUDIT_WRITER_PROCESS", default=False):
        spawn_early()  # the audit writer starts beside the server (chat.audit_process)
    shutdown.install()
    daphne_edge_limits.install()  # security limits: always
    return installed
