"""The chat page in a real browser (Playwright driving Debian's Chromium) against daphne."""

import shutil
from pathlib import Path

import pytest

from tests.live import daphne_server, prepare_database, product_env

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() or shutil.which("chromium") is None,
        reason="Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
    ),
]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("browser") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="150,200")
    prepare_database(env)
    with daphne_server(env) as (port, _):
        yield f"http://localhost:{port}"


@pytest.fixture
def page(server_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context()
        page = context.new_page()
        page.goto(server_url + "/")
        page.wait_for_selector('#status[data-state="open"]', timeout=10000)
        yield page
        browser.close()


def test_chip_streams_tokens_then_shows_the_grounded_answer(page):
    """The premium chip: tokens arrive, then the final answer with its citation."""
    page.click('.chip[data-text="Vad kostar premium?"]')
    page.wait_for_selector(".msg.assistant.streaming", timeout=5000)
    answer = page.locator(".msg.assistant").last
    page.wait_for_function(
        "() => { const b = document.querySelector('.msg.assistant');"
        " return b && b.dataset.status === 'done'; }",
        timeout=10000,
    )
    assert "399 kr/månad" in answer.locator(".text").inner_text()
    assert "kb/pricing.md" in answer.locator(".citations").inner_text()


def test_cancel_button_stops_the_stream(page):
    """Cancel while streaming marks the answer cancelled and hides the button."""
    page.fill("#input", "Vad kostar premium?")
    page.click("#send")
    page.wait_for_selector("#cancel:not([hidden])", timeout=5000)
    page.click("#cancel")
    page.wait_for_selector('.msg.assistant[data-status="cancelled"]', timeout=5000)
    assert page.locator("#cancel").is_hidden()


def test_hallucinate_chip_is_withheld_and_reload_keeps_history(page):
    """The hallucinate chip shows the withheld state; a reload shows the conversation."""
    page.click('.chip[data-text="hallucinate: Vad kostar premium?"]')
    page.wait_for_selector('.msg.assistant[data-status="withheld"]', timeout=10000)
    withheld = page.locator('.msg.assistant[data-status="withheld"]').last
    assert withheld.locator(".text").inner_text() == "Jag kan inte verifiera det."
    page.reload()
    page.wait_for_selector('.msg.assistant[data-status="withheld"]', timeout=10000)
    assert page.locator(".msg.user").count() >= 1
