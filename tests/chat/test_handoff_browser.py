"""Acceptance in Chromium: a withheld customer asks for a person, staff take it and reply.

The customer page and the staff console run in two browser contexts (two
separate browsers' worth of cookies) against one daphne process.
"""

import json
import re

import pytest

from tests.chat.browser import launch, needs_chromium, staff_console, wait_connected
from tests.live import daphne_server, manage, prepare_database, product_env

TIMEOUT_MS = 10000
AGENT_FRAMES = {"stream", "stream_end", "response", "action_suggestion"}
STAFF = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
user = get_user_model().objects.create_user("eva", password="pw-eva-12345", first_name="Eva",
                                            is_staff=True)
user.user_permissions.add(Permission.objects.get(codename="handle_handoff"))
"""

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("handoff-browser") / "db.sqlite3"
    env = product_env(
        DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="5", HANDOFF_OPENING_HOURS="always"
    )
    prepare_database(env)
    manage("shell", "-c", STAFF, env=env)
    with daphne_server(env) as (port, _):
        yield f"http://localhost:{port}"


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


def chat_frames(page) -> list[dict]:
    """Every frame the page's chat socket receives, in order (filled as they arrive)."""
    frames: list[dict] = []

    def watch(ws):
        if ws.url.endswith("/ws/chat/"):
            ws.on("framereceived", lambda payload: frames.append(json.loads(payload)))

    page.on("websocket", watch)
    return frames


def test_withheld_customer_gets_a_person_who_replies(server_url, browser):
    """Customer: withheld, "talk to a person"; Eva takes it in the console and replies."""
    from playwright.sync_api import expect

    customer = browser.new_context(locale="sv-SE").new_page()
    frames = chat_frames(customer)
    customer.goto(server_url + "/")
    wait_connected(customer)
    customer.get_by_role("textbox", name="Meddelande").fill("hallucinate: Vad kostar premium?")
    customer.get_by_role("button", name="Skicka").click()
    ask = customer.get_by_role("button", name="Prata med en person")
    expect(ask.first).to_be_visible(timeout=TIMEOUT_MS)

    staff = staff_console(browser, server_url, "eva", "pw-eva-12345", timeout=TIMEOUT_MS)

    conversation = customer.get_by_role("log", name="Samtal")
    ask.first.click()
    expect(conversation.get_by_text("Du står på plats 1 i kön")).to_be_visible(timeout=TIMEOUT_MS)
    queue = staff.get_by_role("list", name="Handoff queue")
    expect(queue).to_contain_text("hallucinate: Vad kostar premium?", timeout=TIMEOUT_MS)
    queue.get_by_role("button", name=re.compile("^Take conversation")).click()

    messages = staff.get_by_role("log")
    expect(messages).to_contain_text("Jag kan inte verifiera det.", timeout=TIMEOUT_MS)
    expect(conversation.get_by_text("Eva har anslutit till chatten.")).to_be_visible(
        timeout=TIMEOUT_MS
    )
    joined_at = next(i for i, f in enumerate(frames) if f["type"] == "agent_joined")

    customer.get_by_role("textbox", name="Meddelande").fill("Vad kostar premium per månad?")
    expect(staff.get_by_text("The customer is typing…")).to_be_visible(timeout=TIMEOUT_MS)
    customer.get_by_role("button", name="Skicka").click()
    expect(messages).to_contain_text("Customer: Vad kostar premium per månad?", timeout=TIMEOUT_MS)

    staff.get_by_label("Reply").fill("Premium kostar 399 kr i månaden.")
    expect(customer.get_by_text("Eva skriver…")).to_be_visible(timeout=TIMEOUT_MS)
    staff.get_by_role("button", name="Send").click()
    conversation = customer.get_by_role("log", name="Samtal")
    expect(conversation).to_contain_text(
        "Eva: Premium kostar 399 kr i månaden.", timeout=TIMEOUT_MS
    )

    after = [f["type"] for f in frames[joined_at:]]
    assert "agent_message" in after
    assert not AGENT_FRAMES & set(after), after
