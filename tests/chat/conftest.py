import json
import os
import subprocess
import sys
import uuid

import pytest
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.live import ROOT, throwaway_postgres_database

ROUNDTRIP_TIMEOUT_SECONDS = 300


@pytest.fixture
def indexed_kb(transactional_db, settings):
    """The shipped KB, indexed into the (file-based) test database."""
    from grounding import selectors
    from grounding.services import kb_reindex

    selectors.clear_index_cache()
    kb_reindex(kb_dir=settings.KB_DIR)
    yield
    selectors.clear_index_cache()


@pytest.fixture
def handoff_open_all_day(settings):
    """A person is on duty whenever a handoff test asks for one."""
    settings.HANDOFF_OPENING_HOURS = "always"


@pytest.fixture(scope="session")
def postgres_insert_report() -> dict:
    """``tests/chat/insert_roundtrip.py``'s report from a throwaway PostgreSQL database.

    Run once per session, in a process of its own that reaches the database
    named by TEST_POSTGRES_URL through DATABASE_URL.
    """
    server_url = os.environ.get("TEST_POSTGRES_URL", "")
    if not server_url:
        pytest.skip(
            "TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)"
        )
    with throwaway_postgres_database(server_url, f"chat_insert_{uuid.uuid4().hex[:12]}") as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env.update(DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings")
        process = subprocess.run(
            [sys.executable, "-m", "tests.chat.insert_roundtrip"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=ROUNDTRIP_TIMEOUT_SECONDS,
        )
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


async def open_socket(path: str = "/ws/chat/", headers=None) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=headers or [])
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def run_turn(communicator, text: str, message_id: str | None = "m1") -> list[dict]:
    """Send a message; return its frames up to the response (and a suggestion, if any)."""
    frame = {"type": "message", "text": text}
    if message_id:
        frame["id"] = message_id
    await communicator.send_json_to(frame)
    frames = []
    while True:
        frames.append(await communicator.receive_json_from(timeout=5))
        if frames[-1]["type"] in ("response", "error"):
            break
    if frames[-1].get("status") == "action":
        frames.append(await communicator.receive_json_from(timeout=5))
    return frames
