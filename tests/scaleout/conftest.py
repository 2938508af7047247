"""Two real daphne processes sharing one PostgreSQL database and one Redis channel layer.

The session gets a fresh PostgreSQL database on the server of
``TEST_POSTGRES_URL`` (dropped at the end), a Redis database of its own on the
server of ``TEST_REDIS_URL`` (never the one the URL names, flushed before and
after), and a temporary copy of ``kb/`` so a test can add a document. Without
either URL, or when a server does not answer, every test here is skipped with
the reason (and ``CI=true`` turns that skip into a failure).
"""

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from tests.live import (
    ROOT,
    daphne_server,
    prepare_database,
    product_env,
    throwaway_postgres_database,
)

CONNECT_TIMEOUT_SECONDS = 3
HTTP_TIMEOUT_SECONDS = 10.0
COMMAND_TIMEOUT_SECONDS = 60
REDIS_DATABASES = 16  # Redis' default ``databases``
LOG_TAIL_LINES = 40


def _with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=path))


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    url = os.environ.get("TEST_POSTGRES_URL", "")
    if not url:
        pytest.skip(
            "TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)"
        )
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS) as conn:
            conn.execute("SELECT 1")
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL at TEST_POSTGRES_URL is unreachable: {type(exc).__name__}")
    return url


@pytest.fixture(scope="session")
def redis_server_url() -> str:
    url = os.environ.get("TEST_REDIS_URL", "")
    if not url:
        pytest.skip("TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379/0)")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_SECONDS).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at TEST_REDIS_URL is unreachable: {type(exc).__name__}")
    return url


@pytest.fixture(scope="session")
def postgres_database_url(postgres_server_url) -> Iterator[str]:
    """A database of this test session only, dropped afterwards."""
    with throwaway_postgres_database(postgres_server_url, f"agent_scaleout_{os.getpid()}") as url:
        yield url


def isolated_redis_db(server_url: str) -> int:
    """A Redis database number for this run: never the URL's own (it may be in use)."""
    own = int(urlsplit(server_url).path.strip("/") or 0)
    others = [n for n in range(1, REDIS_DATABASES) if n != own]
    return others[os.getpid() % len(others)]


@pytest.fixture(scope="session")
def redis_url(redis_server_url) -> Iterator[str]:
    """The channel layer's Redis URL: a database of this run, empty before and after.

    channels-redis takes no key prefix from a URL, so a separate database
    number is what keeps this run's groups apart from anything else.
    """
    import redis

    url = _with_path(redis_server_url, f"/{isolated_redis_db(redis_server_url)}")
    client = redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_SECONDS)
    client.flushdb()
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


@dataclass
class Server:
    name: str
    log_path: Path
    port: int | None = None
    stack: ExitStack | None = None

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/chat/"

    @property
    def running(self) -> bool:
        return self.stack is not None

    def log_tail(self) -> str:
        if not self.log_path.exists():
            return ""
        lines = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(lines[-LOG_TAIL_LINES:])


@dataclass
class Cluster:
    """Daphne A and B on the same database, channel layer and KB directory."""

    env: dict
    database_url: str
    kb_dir: Path
    servers: dict[str, Server] = field(default_factory=dict)

    @property
    def a(self) -> Server:
        return self.servers["a"]

    @property
    def b(self) -> Server:
        return self.servers["b"]

    def start(self, server: Server) -> None:
        stack = ExitStack()
        server.port, _ = stack.enter_context(daphne_server(self.env, log_path=server.log_path))
        server.stack = stack

    def stop(self, server: Server) -> None:
        """Stop the process and its children (SIGTERM, then SIGKILL after 15 s)."""
        if server.stack is not None:
            server.stack.close()
            server.stack = None

    def start_stopped(self) -> None:
        for server in self.servers.values():
            if not server.running:
                self.start(server)

    def stop_all(self) -> None:
        for server in self.servers.values():
            self.stop(server)

    def session_cookie(self, server: Server | None = None) -> str:
        """A new browser session: the ``sessionid`` the chat page sets."""
        server = server or self.a
        response = httpx.get(server.http_url + "/", timeout=HTTP_TIMEOUT_SECONDS)
        response.raise_for_status()
        return response.cookies["sessionid"]

    def manage(self, *args: str) -> subprocess.CompletedProcess:
        """``manage.py`` as an operator runs it beside the servers (same environment)."""
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_SECONDS,
        )

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows straight from PostgreSQL, not through the product's code."""
        import psycopg

        with psycopg.connect(self.database_url) as conn:
            return conn.execute(sql, params).fetchall()


@pytest.fixture(scope="session")
def cluster(postgres_database_url, redis_url, tmp_path_factory) -> Iterator[Cluster]:
    """Migrate and index once, then run daphne A and B until the session ends."""
    workdir = tmp_path_factory.mktemp("scaleout")
    kb_dir = workdir / "kb"
    shutil.copytree(ROOT / "kb", kb_dir)
    env = product_env(
        DATABASE_URL=postgres_database_url,
        REDIS_URL=redis_url,
        KB_DIR=str(kb_dir),
        WS_RATE_LIMIT="0",
        LLM_BACKEND="mock",
        LLM_TOKEN_DELAY_MS="0",
        SMS_BACKEND="actions.sms.ConsoleBackend",
        DJANGO_DEBUG="0",
        HANDOFF_OPENING_HOURS="always",
        # Plain http on loopback: the production TLS defaults off.
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SESSION_COOKIE_SECURE="0",
        DJANGO_CSRF_COOKIE_SECURE="0",
    )
    prepare_database(env)
    cluster = Cluster(env=env, database_url=postgres_database_url, kb_dir=kb_dir)
    for name in ("a", "b"):
        cluster.servers[name] = Server(name=name, log_path=workdir / f"daphne-{name}.log")
    try:
        cluster.start_stopped()
        yield cluster
    finally:
        cluster.stop_all()


@pytest.fixture
def both_running(cluster) -> Iterator[Cluster]:
    """Both processes up (a test may have stopped one); their log tails on failure."""
    cluster.start_stopped()
    yield cluster
    # Printed in teardown: pytest shows it only for a failing test.
    for server in cluster.servers.values():
        print(f"--- daphne {server.name} (port {server.port}) log tail ---\n{server.log_tail()}")
