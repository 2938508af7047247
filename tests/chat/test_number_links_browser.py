"""Each number of an answer links to its KB line, on the chat page and in the widget.

The product runs under daphne with the mock; the test's proxy between page and server adds
the ``numbers`` a guard that reads references sends with a response (``docs/protocol.md``),
so the page is driven by the real server's frames plus the one field under test.
"""

import json
import re

import pytest

from tests.chat.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORTS,
    axe_violations,
    needs_chromium,
    new_page,
)
from tests.chat.test_widget_browser import Site, host_page
from tests.live import daphne_server, prepare_database, product_env

pytestmark = needs_chromium

HOURS = "När har kundtjänst öppet?"
PRICE = "Vad kostar premium per månad?"
# What the mock answers (references stripped) and where each number of it comes from.
LINES = {
    "08:00–17:00": ("kb/contact.md", 19, "Kontakta Molnia"),
    "10:00–14:00": ("kb/contact.md", 20, "Kontakta Molnia"),
    "399 kr/månad": ("kb/pricing.md", 18, "Priser och abonnemang"),
}
IMPORTED_PAGE = "https://example.com/priser"


def with_numbers(raw: str, *, imported: bool = False) -> str:
    """The server's frame, a done response given the ``numbers`` of the numbers it states."""
    frame = json.loads(raw)
    if frame.get("type") != "response" or frame.get("status") != "done":
        return raw
    numbers = []
    for text, (file, line, title) in LINES.items():
        start = frame["text"].find(text)
        if start < 0:
            continue
        number = {"start": start, "end": start + len(text), "text": text, "file": file}
        number |= {"line": line, "fact": f"{line:08x}", "title": title}
        if imported:
            number["url"] = IMPORTED_PAGE
        numbers.append(number)
    # A number the rendered text does not have (markup split it) is skipped, and the later
    # ones still link.
    numbers.insert(0, {"start": 0, "end": 3, "text": "4 711", "file": "kb/x.md", "line": 1})
    return json.dumps(frame | {"numbers": numbers})


def proxy(*, imported: bool = False):
    def handler(ws):
        server = ws.connect_to_server()
        server.on_message(lambda message: ws.send(with_numbers(message, imported=imported)))

    return handler


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """(product URL, a site allowed to embed the widget)."""
    site = Site("127.0.0.2")
    db = tmp_path_factory.mktemp("numbers") / "db.sqlite3"
    env = product_env(
        DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="20,40", WIDGET_ALLOWED_ORIGINS=site.url
    )
    prepare_database(env)
    with daphne_server(env) as (port, _):
        product = f"http://127.0.0.1:{port}"
        site.pages["/"] = host_page(product)
        yield product, site
    site.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


def ask(scope, text: str):
    """Ask in ``scope`` (a page or the widget's frame); the final answer's bubble."""
    before = scope.locator(".msg.assistant[data-status]").count()
    box = scope.get_by_role("textbox", name="Meddelande")
    box.fill(text)
    box.press("Enter")
    answer = scope.locator(".msg.assistant[data-status]").nth(before)
    answer.wait_for(timeout=20000)
    return answer


def tab_until(page, locator, *, presses: int = 40) -> bool:
    """Press Tab until ``locator`` has the focus; whether it got there."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if locator.evaluate("node => node === node.ownerDocument.activeElement"):
            return True
    return False


@VIEWPORTS
def test_each_number_on_the_chat_page_links_to_its_line(context_factory, sites, viewport):
    """Two numbers from two lines: each a link named by its document and line, reached by
    Tab; Enter opens that line's source, highlighted; no reference shows; axe finds nothing."""
    product, _ = sites
    context = context_factory(viewport=viewport)
    context.route_web_socket(re.compile(r".*/ws/chat/$"), proxy())
    page = new_page(None, product, context=context)

    answer = ask(page, HOURS)

    assert answer.get_attribute("data-status") == "done"
    text = answer.locator(".text")
    assert "[" not in text.inner_text() and "kb/" not in answer.inner_text()
    weekdays = text.get_by_role("link", name="08:00–17:00: källa Kontakta Molnia, rad 19")
    saturday = text.get_by_role("link", name="10:00–14:00: källa Kontakta Molnia, rad 20")
    assert weekdays.inner_text() == "08:00–17:00" and saturday.inner_text() == "10:00–14:00"
    assert text.get_by_role("link").count() == 2
    page.get_by_role("textbox", name="Meddelande").focus()
    assert tab_until(page, saturday)
    page.keyboard.press("Enter")
    opened = answer.locator(".source.cited-line")
    opened.wait_for()
    assert opened.get_attribute("open") is not None
    assert opened.get_attribute("data-file") == "kb/contact.md"
    first, count = int(opened.get_attribute("data-line")), int(opened.get_attribute("data-lines"))
    assert first <= 20 < first + count, "the source quoting Saturday's line"
    assert page.evaluate("document.activeElement.tagName") == "SUMMARY"
    violations = axe_violations(page)
    assert violations == [], violations


def test_the_numbers_link_again_when_the_history_is_drawn(context_factory, sites):
    """After a reload the answer comes from ``/history/``: its stored ``numbers`` link the
    same way (the test adds them to the history the server gives, as it does to the frame)."""
    product, _ = sites
    context = context_factory()
    context.route_web_socket(re.compile(r".*/ws/chat/$"), proxy())
    page = new_page(None, product, context=context)
    ask(page, PRICE)

    def history(route):
        body = route.fetch().json()
        for message in body["messages"]:
            if message.get("role") == "assistant" and message.get("status") == "done":
                message["numbers"] = json.loads(
                    with_numbers(json.dumps(message | {"type": "response"}))
                )["numbers"]
        route.fulfill(json=body)

    page.route(re.compile(r".*/history/$"), history)
    page.reload()
    answer = page.locator(".msg.assistant[data-status]").first
    answer.wait_for()

    link = answer.locator(".text").get_by_role(
        "link", name="399 kr/månad: källa Priser och abonnemang, rad 18"
    )
    assert link.inner_text() == "399 kr/månad"
    link.click()
    assert answer.locator(".source.cited-line").get_attribute("data-file") == "kb/pricing.md"


@VIEWPORTS
def test_each_number_in_the_widget_links_to_its_source(context_factory, sites, viewport):
    """In the widget: the number of an imported page's answer links to that page, by name
    and by keyboard; axe finds nothing in the frame."""
    _, site = sites
    context = context_factory(viewport=viewport)
    context.route_web_socket(re.compile(r".*/ws/widget/$"), proxy(imported=True))
    page = context.new_page()
    page.goto(site.url + "/")
    chat = page.frame_locator("iframe[title='Kundtjänstchatt']")
    chat.get_by_role("button", name="Chatta med oss").click()
    chat.locator('#status[data-state="open"]').wait_for(state="attached", timeout=10000)

    answer = ask(chat, PRICE)

    link = answer.locator(".text").get_by_role(
        "link", name="399 kr/månad: källa Priser och abonnemang, rad 18"
    )
    assert link.inner_text() == "399 kr/månad"
    assert link.get_attribute("href") == IMPORTED_PAGE
    assert link.get_attribute("rel") == "noopener noreferrer"
    chat.get_by_role("textbox", name="Meddelande").focus()
    assert tab_until(page, link)
    frame = next(f for f in page.frames if "/widget/" in f.url)
    violations = axe_violations(frame)
    assert violations == [], violations
