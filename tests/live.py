"""Real daphne processes for end-to-end tests (browser, several processes).

Each server runs the product as ``make run`` does (migrate, index the KB,
daphne), against a database given by URL, on a free loopback port.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
# How long a server may take to listen: generous, for a 2-core machine busy with other work
# (a cold start imports Django, the app and the KB index, and may wait for the audit writer).
START_TIMEOUT_SECONDS = 90.0
# How long a child has to exit after SIGTERM (or after its input closed) before SIGKILL.
STOP_TIMEOUT_SECONDS = 15.0
# A management command (migrate, reindex_kb) beside a test: killed past this.
MANAGE_TIMEOUT_SECONDS = 180.0


def stop_process(
    proc: subprocess.Popen,
    *,
    timeout: float = STOP_TIMEOUT_SECONDS,
    sig: int | None = signal.SIGTERM,
) -> int:
    """Stop ``proc`` and the children it started; return its exit status. Never hangs.

    ``sig`` (SIGTERM by default; ``None`` when the caller already asked it to exit, e.g. by
    closing its input), then at most ``timeout`` seconds' wait, then SIGKILL. Its children
    (a server's audit writer) get the same bounded wait after it, then SIGKILL, so none
    outlives the test.
    """
    import psutil

    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    if proc.poll() is None and sig is not None:
        proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)
    _, alive = psutil.wait_procs(children, timeout=timeout)
    for child in alive:
        with suppress(psutil.NoSuchProcess):
            child.kill()
    psutil.wait_procs(alive, timeout=timeout)
    return proc.returncode


@contextmanager
def throwaway_postgres_database(server_url: str, name: str):
    """A fresh database ``name`` on the server of ``server_url``; yields its URL, drops it."""
    import psycopg

    def admin_execute(sql: str) -> None:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql)

    # A crashed earlier run may have left one of the same name behind.
    admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin_execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def product_env(**overrides: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "WS_RATE_LIMIT": "0"})
    env.update(overrides)
    return env


def manage(*args: str, env: dict) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=MANAGE_TIMEOUT_SECONDS,
    )


def prepare_database(env: dict) -> None:
    manage("migrate", "--no-input", env=env)
    manage("reindex_kb", "--if-empty", env=env)


def wait_for_port(
    port: int,
    proc: subprocess.Popen,
    timeout: float = START_TIMEOUT_SECONDS,
    log: Path | None = None,
) -> None:
    """Return once something listens on ``port``; fail if ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log else ""
            raise RuntimeError(f"server exited early with {proc.returncode}\n{tail}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"server did not listen on {port} within {timeout:.0f} s")


APPLICATION = "config.asgi:application"
# How each server is started on 127.0.0.1:{port}: ``make run``'s (daphne with the
# server patches), plain daphne, and uvicorn.
SERVER_COMMANDS = {
    "config.serve": ["-m", "config.serve", "-b", "127.0.0.1", "-p", "{port}", APPLICATION],
    "daphne": ["-m", "daphne", "-b", "127.0.0.1", "-p", "{port}", APPLICATION],
    "uvicorn": ["-m", "uvicorn", "--host", "127.0.0.1", "--port", "{port}", APPLICATION],
}


def daphne_server(
    env: dict,
    port: int | None = None,
    *,
    log_path: Path | None = None,
    extra_args: tuple[str, ...] = (),
    start_timeout: float = START_TIMEOUT_SECONDS,
):
    """Run the product on 127.0.0.1 as ``make run`` does; yields ``(port, process)``.

    Daphne with the server patches (``config.serve``); stopped afterwards.
    ``extra_args`` go to the server before the application (e.g. the Makefile's flags).
    """
    return asgi_server(
        env,
        port,
        log_path=log_path,
        server="config.serve",
        extra_args=extra_args,
        start_timeout=start_timeout,
    )


@contextmanager
def asgi_server(
    env: dict,
    port: int | None = None,
    *,
    log_path: Path | None = None,
    server: str = "config.serve",
    extra_args: tuple[str, ...] = (),
    start_timeout: float = START_TIMEOUT_SECONDS,
):
    """Run the product under ``server`` (a key of ``SERVER_COMMANDS``); yields ``(port, process)``.

    With ``log_path`` the product's log (the server's stderr) is appended to that
    file, so a failing test can show it and a chatty server never fills a pipe.
    """
    port = port or free_port()
    log = open(log_path, "ab") if log_path is not None else None  # noqa: SIM115
    arguments = [part.format(port=port) for part in SERVER_COMMANDS[server]]
    arguments[-1:-1] = extra_args
    proc = subprocess.Popen(
        [sys.executable, *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log if log is not None else subprocess.PIPE,
    )
    try:
        wait_for_port(port, proc, timeout=start_timeout)
        yield port, proc
    finally:
        stop_process(proc)
        if log is not None:
            log.close()


def run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter of the project (for process-wide effects); its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def module_process(module: str, *args: str, database_url: str, **settings: str) -> subprocess.Popen:
    """``python -m module args`` in a fresh process that reaches the database by URL.

    No channel layer of the test run's (``REDIS_URL``) and none of pytest's variables;
    ``settings`` are more environment variables for it.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="config.settings", **settings)
    env.pop("REDIS_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def process_outputs(*processes: subprocess.Popen, timeout: float = 180) -> list:
    """The JSON each process printed, after all of them finished successfully."""
    results = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=timeout)
            assert process.returncode == 0, err
            results.append(json.loads(out))
    finally:
        for process in processes:  # none outlives a failure or a timeout
            if process.poll() is None:
                stop_process(process)
    return results
