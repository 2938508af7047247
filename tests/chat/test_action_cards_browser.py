"""Action cards in Chromium: in the customer's language, about what went unanswered, said once.

Issue 44's acceptance: on the English page, after a question the agent could not
answer, the "Create a ticket" step gives an English card and an English result, and
the ticket's subject is that question (with the e-mail address typed on the card);
the finished callback card says its sentence once.
"""

import sqlite3

import pytest
from playwright.sync_api import expect

from tests.chat.browser import launch, needs_chromium, new_page
from tests.live import daphne_server, prepare_database, product_env

pytestmark = needs_chromium

UNANSWERED = "hallucinate: What does the premium plan cost?"  # the mock LLM invents a price


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("cards") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="5,10")
    prepare_database(env)
    with daphne_server(env) as (port, _):
        yield f"http://127.0.0.1:{port}", db


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


def ask(page, text: str, label: str) -> None:
    before = page.locator(".msg.assistant[data-status]").count()
    box = page.get_by_role("textbox", name=label)
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(
        "n => document.querySelectorAll('.msg.assistant[data-status]').length > n", arg=before
    )


def test_the_ticket_on_the_english_page_is_english_and_about_the_unanswered_question(
    context_factory, server
):
    """English page: the withheld answer's "Create a ticket" gives an English card and result;
    the ticket's subject is the question, and it has the e-mail address from the card."""
    url, db = server
    page = new_page(None, url, context=context_factory(locale="en-GB"))
    ask(page, UNANSWERED, "Message")
    expect(page.locator(".msg.assistant").last).to_have_attribute("data-status", "withheld")
    page.locator(".msg.assistant").last.get_by_role("button", name="Create a ticket").click()
    card = page.locator(".card").filter(has=page.get_by_role("heading", name="Support ticket"))
    card.wait_for(timeout=20000)
    prompt = page.locator(".msg.assistant").last
    expect(prompt).to_contain_text("Would you like us to create a support ticket?")
    assert "ärende" not in page.locator("#log").inner_text().lower()
    contact = card.get_by_label("E-mail or phone, so we can reach you")
    contact.fill("not-an-address@")
    card.get_by_role("button", name="Confirm").click()
    expect(card.get_by_role("alert")).to_have_text(
        "That is neither a valid e-mail address nor a phone number."
    )
    contact.fill("anna@example.com")
    card.get_by_role("button", name="Confirm").click()
    expect(card).to_have_attribute("data-state", "done", timeout=20000)
    result = card.locator(".result").inner_text()
    assert result.startswith("Ticket T-") and result.endswith(" created.")
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT subject, email, conversation_id FROM actions_supportticket"
        ).fetchall()
    assert len(rows) == 1
    subject, email, conversation = rows[0]
    assert subject == UNANSWERED and email == "anna@example.com" and conversation


def test_the_finished_callback_card_says_its_sentence_once(context_factory, server):
    """Confirmed, the callback card says "Vi ringer upp dig på ..." once, not also what
    it would do."""
    url, _ = server
    page = new_page(None, url, context=context_factory())
    ask(page, "Ring mig på 070-123 45 67", "Meddelande")
    card = page.locator(".card").filter(has=page.get_by_role("heading", name="Uppringning"))
    card.get_by_role("button", name="Bekräfta").click()
    expect(card).to_have_attribute("data-state", "done", timeout=20000)
    shown = card.inner_text()
    assert shown.count("070-123 45 67") == 1, shown
    assert shown.lower().count("ringer") == 1, shown
