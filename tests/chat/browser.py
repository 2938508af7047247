"""Helpers for the chat page's browser tests: Chromium, viewports, axe-core, turns."""

import shutil
from pathlib import Path

import pytest

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
AXE = Path(__file__).resolve().parent.parent / "vendor" / "axe-core" / "axe.min.js"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])

needs_chromium = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() or shutil.which("chromium") is None,
        reason="Chromium is not installed at /usr/bin/chromium (apt-get install chromium)",
    ),
]


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def new_page(browser, url: str, *, viewport=DESKTOP, locale: str = "sv-SE", context=None):
    """A page of a fresh browser context (its own session), opened and connected."""
    if context is None:
        phone = viewport["width"] < 600
        context = browser.new_context(
            viewport=viewport, locale=locale, is_mobile=phone, has_touch=phone
        )
    page = context.new_page()
    page.goto(url + "/")
    wait_connected(page)
    return page


def wait_connected(page, timeout: float = 10000) -> None:
    page.wait_for_selector('#status[data-state="open"]', state="attached", timeout=timeout)


def axe_violations(page) -> list[dict]:
    """axe-core's violations on the page as it is now (injected by the test, not served)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ["violations"]});
            return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(" ") + " :: " + n.failureSummary),
            }));
        }"""
    )


def answers(page):
    return page.locator(".msg.assistant")


def ask(page, text: str, *, timeout: float = 20000):
    """Type ``text`` in the input, press Enter, wait for its final answer; return the bubble."""
    before = page.locator(".msg.assistant[data-status]").count()
    box = page.get_by_role("textbox", name=input_label(page))
    box.fill(text)
    box.press("Enter")
    page.wait_for_function(
        "n => document.querySelectorAll('.msg.assistant[data-status]').length > n",
        arg=before,
        timeout=timeout,
    )
    return page.locator(".msg.assistant[data-status]").last


def input_label(page) -> str:
    return "Message" if page.evaluate("document.documentElement.lang") == "en" else "Meddelande"


def visible_in_viewport(page, locator) -> bool:
    """Whether the element's box lies inside the window (no scrolling needed to see it)."""
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= size["height"] + 0.5
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
    )


def staff_console(browser, server_url: str, username: str, password: str, *, timeout=10000):
    """A staff member's console in a browser context of its own, logged in and live."""
    import re

    from playwright.sync_api import expect

    page = browser.new_context(locale="sv-SE").new_page()
    page.goto(server_url + "/staff/")
    page.get_by_label(re.compile("Användarnamn|Username")).fill(username)
    page.get_by_label(re.compile("Lösenord|Password")).fill(password)
    page.get_by_role("button", name=re.compile("Logga in|Log in")).click()
    expect(page.get_by_role("status", name="Connection")).to_have_text("live", timeout=timeout)
    return page
