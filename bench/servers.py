"""Start the servers under test: the product and the two floors, on loopback.

The product runs as ``make run`` runs it (daphne on uvloop through
``config.serve``, ``config.asgi``) against a copy of a throwaway SQLite
database that was migrated and indexed once (or, with ``--postgres URL``, a
PostgreSQL database created from a migrated and indexed template database on
that server, dropped at the end); the Channels floor runs on the
same command line; the ``websockets`` floor is its own small script on the
standard asyncio loop. Each server logs to a file in the work directory.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.live import ROOT, free_port, prepare_database, product_env, wait_for_port

PRODUCT, CHANNELS_FLOOR, WEBSOCKETS_FLOOR = "product", "channels floor", "websockets floor"
# The product again, on PostgreSQL (``--postgres``): served from a workspace whose
# databases are created on that server.
PRODUCT_PG = "product on PostgreSQL"


@dataclass(frozen=True)
class Server:
    kind: str
    port: int
    pid: int
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/chat/"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


@dataclass
class Workspace:
    """The run's temporary directory, the indexed template database, the recorded turn.

    ``postgres``: a PostgreSQL server URL; the product's databases are then
    created there (``bench_<pid>_template``, a copy per run) instead of SQLite
    files, and ``close`` drops them.
    """

    root: Path
    postgres: str | None = None
    frames: list[str] | None = None
    response: dict | None = None
    _runs: int = 0
    _created: list[str] = field(default_factory=list)

    @property
    def template_db(self) -> Path:
        return self.root / "template.sqlite3"

    @property
    def _template_name(self) -> str:
        return f"bench_{os.getpid()}_template"

    def prepare(self) -> None:
        """Migrate and index ``kb/`` once; every product server starts from a copy."""
        if self.postgres:
            prepare_database(product_env(DATABASE_URL=self._create(self._template_name)))
        else:
            prepare_database(product_env(DATABASE_URL=f"sqlite:///{self.template_db}"))

    def fresh_db(self) -> str:
        """A copy of the template database for one server run; its URL."""
        self._runs += 1
        if self.postgres:
            return self._create(f"bench_{os.getpid()}_run{self._runs}", self._template_name)
        target = self.root / f"run{self._runs}.sqlite3"
        shutil.copyfile(self.template_db, target)
        return f"sqlite:///{target}"

    def close(self) -> None:
        """Drop the PostgreSQL databases this workspace created."""
        for name in reversed(self._created):
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._created.clear()

    def _create(self, name: str, template: str | None = None) -> str:
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._admin(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        self._created.append(name)
        return urlunsplit(urlsplit(self.postgres)._replace(path=f"/{name}"))

    def _admin(self, sql: str) -> None:
        with psycopg.connect(self.postgres, autocommit=True) as admin:
            admin.execute(sql)


def make_run_daphne_options() -> list[str]:
    """The daphne options ``make run`` passes (read from the Makefile, so they stay in step)."""
    makefile = (ROOT / "Makefile").read_text()
    size = re.search(r"^WS_TRANSPORT_MAX_BYTES \?= (\d+)", makefile, re.MULTILINE)
    if size is None:
        return []
    return ["--websocket-max-message-size", size[1], "--websocket-max-frame-size", size[1]]


def _daphne(application: str, port: int, profile_to: Path | None) -> list[str]:
    module = ["bench.profiled_daphne"] if profile_to else ["config.serve"]
    return [
        sys.executable,
        "-m",
        *module,
        "-b",
        "127.0.0.1",
        "-p",
        str(port),
        *make_run_daphne_options(),
        application,
    ]


def _command_and_env(kind: str, ws: Workspace, port: int, delay_ms: int, profile_to, settings):
    if kind in (PRODUCT, PRODUCT_PG):
        env = product_env(
            **settings,
            DATABASE_URL=ws.fresh_db(),
            LLM_TOKEN_DELAY_MS=str(delay_ms),
            # Every per-connection and per-address limit off: one address, many clients.
            WS_RATE_LIMIT="0",
            WS_FLOOD_LIMIT="0",
            WS_MAX_CONNECTIONS_PER_IP="0",
            # Scenario 4 confirms 200 callbacks to one number from one address: the action
            # quotas (tested in tests/actions) would refuse all but the first 3.
            ACTION_QUOTA_PER_CONVERSATION="0",
            ACTION_QUOTA_PER_NUMBER="0",
            ACTION_QUOTA_PER_ADDRESS="0",
            ACTION_QUOTA_PER_MINUTE="0",
        )
        command = _daphne("config.asgi:application", port, profile_to)
    else:
        if ws.frames is None or ws.response is None:
            raise RuntimeError("record a product turn before starting a floor")
        env = product_env(
            BENCH_FRAMES=json.dumps(ws.frames),
            BENCH_RESPONSE=json.dumps(ws.response),
            BENCH_TOKEN_DELAY_MS=str(delay_ms),
        )
        if kind == CHANNELS_FLOOR:
            env["DJANGO_SETTINGS_MODULE"] = "bench.floors.channels_settings"
            command = _daphne("bench.floors.channels_asgi:application", port, profile_to)
        else:
            command = [sys.executable, "-m", "bench.floors.websockets_server", "--port", str(port)]
    if profile_to:
        env["BENCH_PROFILE_OUT"] = str(profile_to)
    return command, env


@contextmanager
def serve(
    kind: str,
    ws: Workspace,
    *,
    delay_ms: int,
    profile_to: Path | None = None,
    settings: dict[str, str] | None = None,
):
    """Run one server on a free loopback port; yields a ``Server``, stops it afterwards.

    ``settings``: environment variables for the product (e.g. ``GC_TUNING="0"``).
    """
    port = free_port()
    command, env = _command_and_env(kind, ws, port, delay_ms, profile_to, settings or {})
    log = ws.root / f"{kind.replace(' ', '-')}-{port}.log"
    with log.open("wb") as log_file:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT
        )
        try:
            # Generous: on a busy shared machine a server has taken more than 30 s to start.
            wait_for_port(port, proc, timeout=120.0, log=log)
            yield Server(kind=kind, port=port, pid=proc.pid, log=log)
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
