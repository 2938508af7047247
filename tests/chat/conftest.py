import pytest
from channels.testing import WebsocketCommunicator

from chat.llm import _backend
from config.asgi import application
from tests.chat.browser import DESKTOP
from tests.fake_openai import FakeOpenAI


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
async def provider(settings):
    """A fake OpenAI-compatible server (tests/fake_openai.py); the product pointed at it,
    without retry delays."""
    async with FakeOpenAI() as server:
        settings.LLM_BACKEND = "openai"
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_MODEL = "fake-model"
        # Generous: a first request on a busy machine (connection set-up) must not time out.
        settings.LLM_FIRST_TOKEN_TIMEOUT = 2.0
        settings.LLM_MAX_RETRIES = 0
        _backend.cache_clear()
        yield server
        await _backend("openai", server.base_url, "fake-model").aclose()
        _backend.cache_clear()


@pytest.fixture
def handoff_open_all_day(settings):
    """A person is on duty whenever a handoff test asks for one."""
    settings.HANDOFF_OPENING_HOURS = "always"


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


@pytest.fixture
def context_factory(browser):  # the browser tests' own `browser` fixture
    """Fresh browser contexts (each its own session); any script error fails the test."""
    contexts, errors = [], []

    def make(viewport=DESKTOP, locale="sv-SE"):
        phone = viewport["width"] < 600
        context = browser.new_context(
            viewport=viewport, locale=locale, is_mobile=phone, has_touch=phone
        )
        context.on("page", lambda page: page.on("pageerror", lambda e: errors.append(str(e))))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert errors == [], "script errors in the page"
