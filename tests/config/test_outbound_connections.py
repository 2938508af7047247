"""The product connects only to the hosts it is told to use: the site it imports, the LLM and its
database (SQLite here, a file), nothing of its libraries' own (telemetry, update checks, models).

Every child process runs under ``strace -f -e trace=connect``, which sees each connection attempt
of Python code and of native libraries alike (onnxruntime's own HTTP client, a DNS lookup), and
with ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` pointing at a recording proxy that refuses all,
which names the host a proxy-aware library wanted (``CONNECT mobile.events.data.microsoft.com``).
The configured hosts are on loopback and in ``NO_PROXY``: they are reached directly.
"""

import asyncio
import json
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import websockets.sync.client

from tests.fake_openai import FakeOpenAI, Reply
from tests.kbimport.site import FixtureSite, serve
from tests.live import ROOT, free_port, product_env, wait_for_port

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None, reason="needs strace")

# connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("10.0.0.1")}, 16)
# connect(3, {sa_family=AF_INET6, sin6_port=htons(443), ..., inet_pton(AF_INET6, "::1", ...
_CONNECT = re.compile(
    r"connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\((\d+)\),"
    r'.*?(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")'
)
_PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")


class RecordingProxy:
    """An HTTP proxy on loopback that writes down every target asked of it and refuses it."""

    def __init__(self) -> None:
        self.port = free_port()
        self.targets: list[str] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def seen(self) -> list[str]:
        with self._lock:
            return list(self.targets)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=30)
            method, target, *_ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            if method != "CONNECT":  # absolute form: http://host:port/path
                target = target.split("://", 1)[-1].split("/", 1)[0]
            with self._lock:
                self.targets.append(target)
            writer.write(
                b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            await writer.drain()
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    @contextmanager
    def running(self) -> Iterator["RecordingProxy"]:
        loop = asyncio.new_event_loop()
        server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.port))
        thread = threading.Thread(target=loop.run_forever, name="recording-proxy", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            server.close()
            loop.run_until_complete(server.wait_closed())
            loop.close()


def traced(command: list[str], trace: Path) -> list[str]:
    return [STRACE, "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *command]


def connected_to(trace: Path) -> set[str]:
    """``host:port`` of every IPv4/IPv6 connection attempt in an strace log."""
    found = set()
    for match in _CONNECT.finditer(trace.read_text(errors="replace")):
        port, ipv4, ipv6 = match.groups()
        found.add(f"{ipv4 or ipv6}:{port}")
    return found


def proxied_env(proxy: RecordingProxy, **overrides: str) -> dict:
    env = product_env(**overrides)
    for name in _PROXY_VARIABLES:
        env[name] = env[name.lower()] = proxy.url
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    # The fixture site listens on loopback: an operator names such an internal host.
    env["KB_IMPORT_INTERNAL_HOSTS"] = "127.0.0.1"
    env.pop("REDIS_URL", None)  # one process: the in-memory channel layer
    return env


def run_traced(command: list[str], *, env: dict, trace: Path, timeout: float = 300) -> str:
    done = subprocess.run(
        traced([sys.executable, *command], trace),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done.stdout


@pytest.fixture
def proxy() -> Iterator[RecordingProxy]:
    with RecordingProxy().running() as running:
        yield running


def test_the_recorders_catch_a_librarys_own_connection_attempts(proxy, tmp_path):
    """A proxy-aware client shows up at the proxy by name; a raw socket's connect in strace."""
    trace = tmp_path / "control.trace"
    code = (
        "import socket, httpx\n"
        "try: httpx.get('https://telemetry.example.invalid/v1', timeout=5)\n"
        "except httpx.HTTPError: pass\n"
        "s = socket.socket(); s.settimeout(0.2)\n"
        "try: s.connect(('192.0.2.7', 9))\n"
        "except OSError: pass\n"
    )
    run_traced(["-c", code], env=proxied_env(proxy), trace=trace)
    assert proxy.seen() == ["telemetry.example.invalid:443"]
    assert {f"127.0.0.1:{proxy.port}", "192.0.2.7:9"} <= connected_to(trace)


def import_the_site(site_url: str, *, env: dict, tmp_path: Path) -> list[Path]:
    """``make import``'s commands after ``make migrate``'s; the strace logs of each."""
    traces = []
    for step, command in enumerate(
        (
            ["manage.py", "migrate", "--no-input"],
            ["manage.py", "import_kb", site_url + "/", "--json"],
            ["manage.py", "reindex_kb"],
        )
    ):
        traces.append(tmp_path / f"step{step}.trace")
        out = run_traced(command, env=env, trace=traces[-1])
        if command[1] == "import_kb":
            added = {url.removeprefix(site_url) for url in json.loads(out)["added"]}
            # The PDF and the DOCX went through markitdown (and so magika and onnxruntime).
            assert {"/dokument/villkor.pdf", "/dokument/avbokning.docx"} <= added, added
    return traces


def one_chat_turn(*, env: dict, trace: Path) -> dict:
    """``make run``'s server under strace, asked one question; the turn's last frame."""
    port = free_port()
    command = [sys.executable, "-m", "config.serve", "-b", "127.0.0.1", "-p", str(port)]
    server = subprocess.Popen(
        traced([*command, "config.asgi:application"], trace),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server, timeout=120)
        question = {"type": "message", "id": "m1", "text": "Vad kostar en liten stuga per natt?"}
        with websockets.sync.client.connect(f"ws://127.0.0.1:{port}/ws/chat/") as ws:
            ws.send(json.dumps(question))
            while True:
                frame = json.loads(ws.recv(timeout=60))
                if frame["type"] in ("response", "error"):
                    return frame
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_an_import_and_a_chat_turn_reach_only_the_site_and_the_configured_services(proxy, tmp_path):
    """import_kb of the fixture site (HTML, PDF, DOCX: markitdown, magika, onnxruntime), the
    index, and a chat turn with the OpenAI backend connect to the site and the LLM alone."""
    site, site_url = serve(FixtureSite())
    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()
    # No number: the answer is not withheld, so the turn makes one request (no repair round trip).
    reply = Reply.from_text("Vi har små och stora stugor att hyra.")
    with FakeOpenAI(default_reply=reply).in_thread() as llm:
        env = proxied_env(
            proxy,
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            KB_DIR=str(kb_dir),
            KB_IMPORT_DELAY="0",
            LLM_BACKEND="openai",
            LLM_BASE_URL=llm.base_url,
            LLM_API_KEY="test-key",
            LLM_MODEL="fake-model",
            LLM_TOKEN_DELAY_MS="0",
        )
        try:
            traces = import_the_site(site_url, env=env, tmp_path=tmp_path)
        finally:
            site.shutdown()
            site.server_close()
        traces.append(tmp_path / "server.trace")
        last = one_chat_turn(env=env, trace=traces[-1])
        assert last["type"] == "response", last
        assert len(llm.requests) == 1

    configured = {f"127.0.0.1:{site_url.rsplit(':', 1)[1]}", f"127.0.0.1:{llm.port}"}
    reached = set().union(*(connected_to(trace) for trace in traces))
    assert proxy.seen() == []
    assert reached == configured
