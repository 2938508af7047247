"""Fault injection: real daphne processes killed with SIGKILL, a Redis of our own stopped
and restarted, database connections dropped.

Each test gets a PostgreSQL database of its own (on the server of
``TEST_POSTGRES_URL``); the Redis tests start ``redis-server`` on a free
port. Without either, the tests skip (and ``CI=true`` fails the run).
"""

import json
import os
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.live import (
    ROOT,
    START_TIMEOUT_SECONDS,
    daphne_server,
    free_port,
    manage,
    prepare_database,
    product_env,
    stop_process,
    throwaway_postgres_database,
)
from tests.scaleout.conftest import postgres_server_url  # noqa: F401 (fixture)

HTTP_TIMEOUT_SECONDS = 10.0
RECV_TIMEOUT_SECONDS = 15.0


@pytest.fixture(scope="session")
def template_database(postgres_server_url, tmp_path_factory) -> Iterator[str]:  # noqa: F811
    """Migrated and indexed once per session; each test's database is a copy of it."""
    name = f"agent_faults_template_{os.getpid()}"
    with throwaway_postgres_database(postgres_server_url, name) as url:
        prepare_database(fault_env(url, tmp_path_factory.mktemp("template")))
        yield name


@pytest.fixture
def database_url(postgres_server_url, template_database) -> Iterator[str]:  # noqa: F811
    import psycopg

    name = f"agent_faults_{uuid.uuid4().hex[:12]}"
    with throwaway_postgres_database(postgres_server_url, name) as url:
        with psycopg.connect(postgres_server_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}"')
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_database}"')
        yield url


@dataclass
class Product:
    """The product as ``make run`` runs it, start-up commands included, on a free port."""

    env: dict
    database_url: str
    log_path: Path
    port: int | None = None
    proc: subprocess.Popen | None = None
    stack: ExitStack = field(default_factory=ExitStack)

    def start(self) -> None:
        """The start-up commands of ``make run`` (this is the only process), then daphne."""
        manage("mark_interrupted_turns", "--older-than", "0", env=self.env)
        manage("recover_executions", env=self.env)
        self.port, self.proc = self.stack.enter_context(
            daphne_server(
                self.env,
                port=self.port,
                log_path=self.log_path,
                start_timeout=START_TIMEOUT_SECONDS,
            )
        )

    def kill_9(self) -> None:
        """SIGKILL: no shutdown handler, no audit drain, no transaction commits."""
        assert self.proc is not None
        stop_process(self.proc, sig=signal.SIGKILL)
        self.stack.close()
        self.stack = ExitStack()
        self.proc = None

    def stop(self) -> None:
        self.stack.close()
        self.proc = None

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/chat/"

    def session(self) -> str:
        response = httpx.get(self.http_url + "/", timeout=HTTP_TIMEOUT_SECONDS)
        response.raise_for_status()
        return response.cookies["sessionid"]

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.database_url) as conn:
            return conn.execute(sql, params).fetchall()

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def fault_env(database_url: str, tmp_path: Path, **overrides: str) -> dict:
    kb_dir = tmp_path / "kb"
    if not kb_dir.exists():
        shutil.copytree(ROOT / "kb", kb_dir)
    env = product_env(
        DATABASE_URL=database_url,
        KB_DIR=str(kb_dir),
        WS_RATE_LIMIT="0",
        LLM_BACKEND="mock",
        LLM_TOKEN_DELAY_MS="0",
        SMS_BACKEND="tests.faults.sms_log.FileBackend",
        SMS_LOG_PATH=str(tmp_path / "sms.jsonl"),
        ACTION_QUOTA_PER_CONVERSATION="0",
        ACTION_QUOTA_PER_NUMBER="0",
        ACTION_QUOTA_PER_ADDRESS="0",
        ACTION_QUOTA_PER_MINUTE="0",
        WS_MAX_CONNECTIONS_PER_IP="500",
    )
    env.pop("REDIS_URL", None)
    env.update(overrides)
    return env


@pytest.fixture
def product_factory(database_url, tmp_path) -> Iterator:
    started: list[Product] = []

    def make(name: str = "a", **overrides: str) -> Product:
        env = fault_env(database_url, tmp_path, **overrides)
        product = Product(env=env, database_url=database_url, log_path=tmp_path / f"{name}.log")
        started.append(product)
        return product

    yield make
    for product in started:
        product.stop()
        print(f"--- daphne log tail ({product.log_path.name}) ---\n{product.log_tail()}")


def sms_log(tmp_path: Path) -> list[dict]:
    path = tmp_path / "sms.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class RedisServer:
    """``redis-server`` of our own on a free port, stopped and started at will."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                redis.Redis(port=self.port, socket_connect_timeout=0.2).ping()
                return
            except redis.RedisError:
                time.sleep(0.05)
        raise TimeoutError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, sig=signal.SIGKILL)
        self.proc = None


@pytest.fixture
def own_redis(tmp_path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()
