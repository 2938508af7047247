"""Acceptance in Chromium: with no opening hours set, a person is available exactly when an
agent has the staff console open; with nobody online the customer gets the callback and the
ticket as cards, and is told when staff are back.

One daphne process, ``HANDOFF_OPENING_HOURS`` unset (the default); the customers and the
agent are separate browser contexts. A customer who closes the tab shows as gone in the
console (the time it took is printed: ``-s``).
"""

import re
import time

import pytest

from tests.chat.browser import launch, needs_chromium, new_page, staff_console
from tests.live import daphne_server, manage, prepare_database, product_env

TIMEOUT_MS = 15000
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
    db = tmp_path_factory.mktemp("handoff-availability") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="5")
    env.pop("HANDOFF_OPENING_HOURS", None)  # the default: no hours
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


def card_named(page, name: str):
    return page.locator(".card").filter(has=page.get_by_role("heading", name=re.compile(name)))


def ask_for_person(page) -> None:
    box = page.get_by_role("textbox", name="Meddelande")
    box.fill("Kan jag prata med en människa?")
    page.get_by_role("button", name="Skicka").click()


def test_offline_cards_with_nobody_online_then_queued_once_an_agent_is(server_url, browser):
    """No console open: callback and ticket cards (buttons), "tillbaka"; the ticket runs.
    Eva opens the console: the next customer is queued and Eva sees them."""
    from playwright.sync_api import expect

    first = new_page(browser, server_url)
    ask_for_person(first)
    log = first.get_by_role("log", name="Samtal")
    expect(log.get_by_text("Ingen kan chatta just nu")).to_be_visible(timeout=TIMEOUT_MS)
    expect(log).to_contain_text("tillbaka", timeout=TIMEOUT_MS)
    callback = card_named(first, "Uppringning")
    ticket = card_named(first, "Supportärende")
    expect(callback.get_by_role("button", name="Bekräfta")).to_be_visible(timeout=TIMEOUT_MS)
    expect(callback.get_by_label("Telefonnummer")).to_be_visible()
    ticket.get_by_role("button", name="Bekräfta").click()
    expect(ticket.locator(".result")).to_have_text(re.compile(r"T-\d{6}"), timeout=TIMEOUT_MS)

    staff = staff_console(browser, server_url, "eva", "pw-eva-12345", timeout=TIMEOUT_MS)
    second = new_page(browser, server_url)
    ask_for_person(second)
    queued = second.get_by_role("log", name="Samtal").get_by_text("Du står på plats 1 i kön")
    expect(queued).to_be_visible(timeout=TIMEOUT_MS)
    queue = staff.get_by_role("list", name="Handoff queue")
    expect(queue.get_by_role("button", name=re.compile("^Take conversation"))).to_have_count(
        1, timeout=TIMEOUT_MS
    )
    assert second.locator(".card").count() == 0

    # The customer closes the tab: the console shows them gone at once (measured, printed).
    started = time.monotonic()
    second.close()
    expect(queue).to_contain_text("gone (closed the chat)", timeout=TIMEOUT_MS)
    print(f"gone in the console {time.monotonic() - started:.2f} s after the tab closed")
