"""Issue 25, finding 2, in Chromium: staff A takes a conversation and closes the browser;
within the grace period plus 5 s the customer sees that the person left, and staff B can
take the conversation."""

import re
import time

import pytest

from tests.chat.browser import launch, needs_chromium, staff_console, wait_connected
from tests.live import daphne_server, manage, prepare_database, product_env

TIMEOUT_MS = 10000
GRACE_SECONDS = 2
STAFF = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
handle = Permission.objects.get(codename="handle_handoff")
for name, first in (("eva", "Eva"), ("bo", "Bo")):
    user = get_user_model().objects.create_user(
        name, password="pw-" + name + "-12345", first_name=first, is_staff=True
    )
    user.user_permissions.add(handle)
"""

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("handoff-release") / "db.sqlite3"
    env = product_env(
        DATABASE_URL=f"sqlite:///{db}",
        LLM_TOKEN_DELAY_MS="5",
        HANDOFF_OPENING_HOURS="always",
        HANDOFF_RELEASE_SECONDS=str(GRACE_SECONDS),
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


def test_a_person_who_closes_the_browser_gives_the_customer_back_to_the_queue(server_url, browser):
    from playwright.sync_api import expect

    customer = browser.new_context(locale="sv-SE").new_page()
    customer.goto(server_url + "/")
    wait_connected(customer)
    customer.get_by_role("textbox", name="Meddelande").fill("hallucinate: Vad kostar premium?")
    customer.get_by_role("button", name="Skicka").click()
    ask = customer.get_by_role("button", name="Prata med en person")
    expect(ask.first).to_be_visible(timeout=TIMEOUT_MS)

    eva = staff_console(browser, server_url, "eva", "pw-eva-12345")
    bo = staff_console(browser, server_url, "bo", "pw-bo-12345")
    conversation = customer.get_by_role("log", name="Samtal")
    ask.first.click()
    expect(conversation.get_by_text("Du står på plats 1 i kön")).to_be_visible(timeout=TIMEOUT_MS)
    eva_queue = eva.get_by_role("list", name="Handoff queue")
    expect(eva_queue).to_contain_text("hallucinate: Vad kostar premium?", timeout=TIMEOUT_MS)
    eva_queue.get_by_role("button", name=re.compile("^Take conversation")).click()
    expect(conversation.get_by_text("Eva har anslutit till chatten.")).to_be_visible(
        timeout=TIMEOUT_MS
    )

    eva.context.close()  # Eva closes the browser
    closed_at = time.monotonic()
    expect(conversation.get_by_text("Eva har lämnat chatten.", exact=False)).to_be_visible(
        timeout=(GRACE_SECONDS + 5) * 1000
    )
    assert time.monotonic() - closed_at <= GRACE_SECONDS + 5

    bo_queue = bo.get_by_role("list", name="Handoff queue")
    take = bo_queue.get_by_role("button", name=re.compile("^Take conversation"))
    expect(take).to_be_visible(timeout=TIMEOUT_MS)
    take.click()
    expect(conversation.get_by_text("Bo har anslutit till chatten.")).to_be_visible(
        timeout=TIMEOUT_MS
    )
