"""Acceptance in Chromium (issue 43): two staff members and three customers, each in a
browser context of its own, against one daphne process with no opening hours set.

A customer asks for a person; Eva is notified, takes it, writes a private note (never seen
by the customer), uses a saved reply, has a made-up price flagged before it is sent, sends it
over the flag, and assigns the conversation to Bo, who resolves it; search finds it by a word
of the customer's message, and reopening it shows every step on its timeline. A customer who
closes the tab shows as gone (the time it took is printed: ``-s``) and the next customer's
place counts only customers who are there. axe-core finds nothing on the console at
1280x800 and 390x844.
"""

import re
import time

import pytest

from tests.chat.browser import (
    DESKTOP,
    PHONE,
    axe_violations,
    launch,
    needs_chromium,
    new_page,
)
from tests.live import daphne_server, manage, prepare_database, product_env

TIMEOUT_MS = 20000
STAFF = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from staff.models import SavedReply
handle = Permission.objects.get(codename="handle_handoff")
for name, first in (("eva", "Eva"), ("bo", "Bo")):
    user = get_user_model().objects.create_user(
        name, password=f"pw-{name}-12345", first_name=first, is_staff=True
    )
    user.user_permissions.add(handle)
SavedReply.objects.create(title="Hälsning", text="Hej! Jag hjälper dig gärna med det.")
get_user_model().objects.create_superuser("root", password="pw-root-12345")
"""

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("staff-inbox") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="5")
    env.pop("HANDOFF_OPENING_HOURS", None)  # the default: a person whenever a console is open
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


def console(browser, server_url: str, name: str, viewport=DESKTOP):
    """``name``'s staff console in a browser context of its own, logged in and live."""
    from playwright.sync_api import expect

    phone = viewport["width"] < 600
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.goto(server_url + "/staff/")
    page.get_by_label(re.compile("Användarnamn|Username")).fill(name)
    page.get_by_label(re.compile("Lösenord|Password")).fill(f"pw-{name}-12345")
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.get_by_role("status", name="Connection")).to_have_text("live", timeout=TIMEOUT_MS)
    return page


def say(page, text: str) -> None:
    page.get_by_role("textbox", name="Meddelande").fill(text)
    page.get_by_role("button", name="Skicka").click()


def chat_log(page):
    return page.get_by_role("log", name="Samtal")


def test_a_shift_two_staff_notify_take_note_saved_reply_flag_assign_resolve_search(
    server_url, browser
):
    from playwright.sync_api import expect

    eva = console(browser, server_url, "eva")
    bo = console(browser, server_url, "bo")
    customer = new_page(browser, server_url)
    say(customer, "Hur säger jag upp abonnemanget?")
    customer.locator(".msg.assistant[data-status]").first.wait_for(timeout=TIMEOUT_MS)
    say(customer, "Kan jag prata med en människa?")
    expect(chat_log(customer).get_by_text("Du står på plats 1 i kön")).to_be_visible(
        timeout=TIMEOUT_MS
    )

    # Notified: the title's badge and the status line.
    expect(eva).to_have_title(re.compile(r"^\(1\) Staff console"), timeout=TIMEOUT_MS)
    expect(eva.locator("#arrivals")).to_have_text(re.compile("A customer started waiting"))
    inbox = eva.get_by_role("list", name="Handoff queue")
    expect(inbox).to_contain_text("Kan jag prata med en människa?", timeout=TIMEOUT_MS)
    expect(inbox).to_contain_text("sv · Chat page")
    inbox.get_by_role("button", name=re.compile("^Take conversation")).click()
    expect(chat_log(customer).get_by_text("Eva har anslutit till chatten.")).to_be_visible(
        timeout=TIMEOUT_MS
    )
    pane = eva.get_by_role("region", name=re.compile("^Conversation "))

    pane.get_by_label("Private note").fill("Kunden vill säga upp, erbjud rabatt")
    pane.get_by_role("button", name="Add note").click()
    expect(pane.get_by_role("log")).to_contain_text("Kunden vill säga upp", timeout=TIMEOUT_MS)

    pane.get_by_label("Saved answer").select_option(label="Hälsning")
    expect(pane.get_by_label("Reply")).to_have_value("Hej! Jag hjälper dig gärna med det.")
    pane.get_by_role("button", name="Send").click()
    expect(chat_log(customer)).to_contain_text(
        "Eva: Hej! Jag hjälper dig gärna med det.", timeout=TIMEOUT_MS
    )

    pane.get_by_label("Reply").fill("Premium kostar 1234 kr/mån.")
    pane.get_by_role("button", name="Send").click()
    flag = pane.get_by_role("alert")
    expect(flag).to_contain_text("Not sent", timeout=TIMEOUT_MS)
    expect(flag).to_contain_text("1234")
    assert "1234" not in chat_log(customer).inner_text()
    flag.get_by_role("button", name="Send anyway").click()
    expect(chat_log(customer)).to_contain_text("Premium kostar 1234 kr/mån.", timeout=TIMEOUT_MS)

    pane.get_by_label("Assign to").select_option(label="Bo")
    pane.get_by_role("button", name="Assign").click()
    expect(chat_log(customer).get_by_text("Bo har anslutit till chatten.")).to_be_visible(
        timeout=TIMEOUT_MS
    )
    bo_pane = bo.get_by_role("region", name=re.compile("^Conversation "))
    expect(bo_pane.get_by_role("log")).to_contain_text("Kunden vill säga upp", timeout=TIMEOUT_MS)
    expect(pane).to_have_count(0, timeout=TIMEOUT_MS)
    bo_pane.get_by_role("button", name="Resolve").click()
    expect(chat_log(customer).get_by_text("Bo har lämnat chatten", exact=False)).to_be_visible(
        timeout=TIMEOUT_MS
    )
    assert "Kunden vill säga upp" not in customer.content()  # the note never reached them

    eva.get_by_role("button", name="Resolved").click()
    eva.get_by_role("searchbox", name="Search conversations").fill("abonnemanget")
    expect(inbox.get_by_role("listitem")).to_have_count(1, timeout=TIMEOUT_MS)
    eva.get_by_role("searchbox", name="Search conversations").fill("fakturaadress")
    expect(inbox.get_by_role("listitem")).to_have_count(0, timeout=TIMEOUT_MS)
    eva.get_by_role("searchbox", name="Search conversations").fill("abonnemanget")
    inbox.get_by_role("button", name=re.compile("^Reopen conversation")).click()
    timeline = eva.get_by_role("region", name=re.compile("^Conversation ")).get_by_role("log")
    for step in (
        "Staff joined",
        "Note: Kunden vill säga upp",
        "Sent over the flag",
        "Assigned to Bo",
        "Resolved",
        "Reopened",
    ):
        expect(timeline).to_contain_text(step, timeout=TIMEOUT_MS)

    # Presence: a customer who closes the tab is gone at once, and holds no place.
    eva.get_by_role("searchbox", name="Search conversations").fill("")
    eva.get_by_role("button", name=re.compile("^Waiting")).click()
    leaving = new_page(browser, server_url)
    say(leaving, "Kan jag prata med en människa?")
    expect(chat_log(leaving).get_by_text("Du står på plats 1 i kön")).to_be_visible(
        timeout=TIMEOUT_MS
    )
    expect(inbox.get_by_role("listitem")).to_have_count(1, timeout=TIMEOUT_MS)
    started = time.monotonic()
    leaving.close()
    expect(inbox).to_contain_text("gone (closed the chat)", timeout=TIMEOUT_MS)
    print(f"gone in the inbox {time.monotonic() - started:.2f} s after the tab closed")
    after = new_page(browser, server_url)
    say(after, "Kan jag prata med en människa?")
    expect(chat_log(after).get_by_text("Du står på plats 1 i kön")).to_be_visible(
        timeout=TIMEOUT_MS
    )

    assert axe_violations(eva) == []


def test_the_console_is_usable_and_axe_clean_on_a_phone(server_url, browser):
    """390x844: no sideways scrolling, the header a small part of the screen, axe-core clean,
    with a conversation open."""
    from playwright.sync_api import expect

    page = console(browser, server_url, "bo", viewport=PHONE)
    customer = new_page(browser, server_url)
    say(customer, "Kan jag prata med en människa?")
    inbox = page.get_by_role("list", name="Handoff queue")
    take = inbox.get_by_role("button", name=re.compile("^Take conversation")).first
    expect(take).to_be_visible(timeout=TIMEOUT_MS)
    take.click()
    pane = page.get_by_role("region", name=re.compile("^Conversation "))
    expect(pane.get_by_label("Reply")).to_be_visible(timeout=TIMEOUT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    header = page.locator("header").bounding_box()
    print(f"console header at 390x844: {header['height']:.0f} px")
    assert header["height"] <= 0.12 * PHONE["height"], header
    assert axe_violations(page) == []


def test_the_admins_conversation_list_names_the_customer_and_fits_1280_px(server_url, browser):
    """The list shows the first question (not a UUID) and needs no sideways scrolling."""
    from playwright.sync_api import expect

    customer = new_page(browser, server_url)
    question = "Vad kostar en extra användare i Premium-abonnemanget per månad?"
    say(customer, question)
    customer.locator(".msg.assistant[data-status]").first.wait_for(timeout=TIMEOUT_MS)
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(server_url + "/admin/chat/conversation/")
    page.get_by_label(re.compile("Användarnamn|Username")).fill("root")
    page.get_by_label(re.compile("Lösenord|Password")).fill("pw-root-12345")
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.get_by_role("link", name=question[:59] + "…")).to_be_visible(timeout=TIMEOUT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
