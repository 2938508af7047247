"""The chat page across a server restart (Playwright with Debian's Chromium, real daphne).

The server is stopped and started again on the same port and database while
the page stays open, as a deploy would do it.
"""

import re
import shutil

import pytest

from tests.chat.browser import DESKTOP, PHONE, answers, launch, needs_chromium, new_page
from tests.live import daphne_server, free_port, prepare_database, product_env, stop_process

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def prepared_db(tmp_path_factory):
    """A migrated, indexed SQLite database, copied for each test (migrating takes seconds)."""
    db = tmp_path_factory.mktemp("connection") / "template.sqlite3"
    prepare_database(product_env(DATABASE_URL=f"sqlite:///{db}"))
    return db


@pytest.fixture
def restartable(tmp_path, prepared_db):
    """``start()`` runs the product on one port and database; ``stop()`` sends SIGTERM."""
    db = tmp_path / "db.sqlite3"
    shutil.copyfile(prepared_db, db)
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="200,250")
    port = free_port()
    running = []

    class Server:
        url = f"http://127.0.0.1:{port}"

        def start(self):
            manager = daphne_server(env, port, log_path=tmp_path / "daphne.log")
            running.append((manager, manager.__enter__()))

        def stop(self):
            manager, (_, proc) = running.pop()
            stop_process(proc)  # SIGTERM, graceful: streams end, turns recorded
            manager.__exit__(None, None, None)

    server = Server()
    server.start()
    yield server
    while running:
        server.stop()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_message_sent_while_the_server_is_down_is_delivered_and_answered(restartable, viewport):
    """Acceptance: a banner while down; the message typed then waits, is sent on reconnect
    and answered; the answer that was streaming when the server stopped says why it ended."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        phone = viewport["width"] < 600
        context = browser.new_context(viewport=viewport, locale="sv-SE", is_mobile=phone)
        page = new_page(None, restartable.url, context=context)
        box = page.get_by_role("textbox", name="Meddelande")
        box.fill("Vad kostar premium?")
        box.press("Enter")
        page.get_by_role("button", name="Stoppa").wait_for()

        restartable.stop()
        banner = page.get_by_role("status").filter(has_text=re.compile("Tjänsten startar om|Ingen"))
        banner.wait_for()
        assert page.get_by_role("button", name="Försök nu").is_visible()
        box.fill("Vad kostar basic?")
        box.press("Enter")
        queued = page.locator(".msg.user").last
        assert queued.get_by_text("Väntar på att skickas").is_visible()

        restartable.start()
        page.wait_for_selector('.msg.assistant[data-status="done"]', timeout=30000)
        answer = answers(page).last
        assert "Basic: 99 kr/månad" in answer.inner_text()
        assert queued.get_by_text("Väntar på att skickas").count() == 0
        assert page.locator(".msg.user").count() == 2, "sent once"
        interrupted = answers(page).first
        interrupted.get_by_text(
            "Tjänsten startade om medan svaret skrevs, så det avbröts."
        ).wait_for()
        assert interrupted.get_by_role("button", name="Fråga igen").is_visible()
        assert page.locator("#banner").is_hidden()
        browser.close()
