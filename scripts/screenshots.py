"""The README's two screenshots (desktop 1280x800, phone 390x844) from the current code.

Starts the product on a free loopback port with a throwaway SQLite database,
asks a price question, a follow-up and for a callback without a number in
Debian's Chromium, and writes ``docs/screenshot-desktop.png`` and
``docs/screenshot-phone.png``. Run: ``make screenshots``.
"""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live import daphne_server, prepare_database, product_env  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def converse(page) -> None:
    box = page.get_by_role("textbox", name="Meddelande")
    for text in ("Vad kostar premium?", "Och standard?", "Ring mig imorgon"):
        if text.startswith("Ring"):
            page.locator(".source summary").last.click()
        box.fill(text)
        box.press("Enter")
        page.wait_for_function(
            "n => document.querySelectorAll('.msg.assistant[data-status]').length >= n",
            arg=page.locator(".msg.user").count(),
            timeout=15000,
        )
    page.get_by_role("button", name="Bekräfta").wait_for()
    page.wait_for_timeout(300)


def main() -> None:
    from playwright.sync_api import sync_playwright

    out = ROOT / "docs"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = product_env(DATABASE_URL=f"sqlite:///{tmp}/db.sqlite3", LLM_TOKEN_DELAY_MS="0")
        prepare_database(env)
        with daphne_server(env) as (port, _), sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            for name, (width, height) in SIZES.items():
                context = browser.new_context(
                    viewport={"width": width, "height": height},
                    locale="sv-SE",
                    device_scale_factor=1,
                    is_mobile=name == "phone",
                    has_touch=name == "phone",
                )
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector('#status[data-state="open"]', state="attached")
                converse(page)
                path = out / f"screenshot-{name}.png"
                page.screenshot(path=str(path))
                print(path.relative_to(ROOT), f"{path.stat().st_size // 1024} KB")
                context.close()
            browser.close()


if __name__ == "__main__":
    main()
