"""What a customer reads is what the guard checked: no bidi or invisible character in an answer.

The model (a scripted OpenAI-compatible server) wraps the KB's verified price in each
bidirectional control or invisible format character; Chromium renders the answer and the
test reads its digits in visual order, left to right by their boxes on the screen, not in
the DOM's order. ``U+202E 399 U+202C`` is shown as "993" when the character reaches the page.
"""

import json

import pytest

from tests.chat.browser import ask, launch, needs_chromium, wait_connected
from tests.fake_openai import FakeOpenAI, Reply
from tests.live import daphne_server, prepare_database, product_env

pytestmark = needs_chromium

# Each opening character with what closes it (a pop or the end of the answer).
ATTACKS = {
    "U+202E RLO": ("\u202e", "\u202c"),
    "U+202D LRO": ("\u202d", "\u202c"),
    "U+202B RLE": ("\u202b", "\u202c"),
    "U+202A LRE": ("\u202a", "\u202c"),
    "U+2067 RLI": ("\u2067", "\u2069"),
    "U+2066 LRI": ("\u2066", "\u2069"),
    "U+2068 FSI": ("\u2068", "\u2069"),
    "U+200F RLM": ("\u200f", "\u200f"),
    "U+200E LRM": ("\u200e", "\u200e"),
    "U+061C ALM": ("\u061c", "\u061c"),
    "U+200B ZWSP": ("\u200b", "\u200b"),
    "U+2060 WJ": ("\u2060", "\u2060"),
    "U+00AD SHY": ("\u00ad", "\u00ad"),
}
INVISIBLE = "".join(a + b for a, b in ATTACKS.values())

# The digits of the answer's text, ordered by where Chromium draws each one.
VISUAL_DIGITS = """(bubble) => {
    const text = bubble.querySelector(".text");
    const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
            if (!/[0-9]/.test(node.data[i])) continue;
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const box = range.getClientRects()[0];
            found.push([box.top, box.left, node.data[i]]);
        }
    }
    found.sort((a, b) => (Math.abs(a[0] - b[0]) > 2 ? a[0] - b[0] : a[1] - b[1]));
    return found.map(f => f[2]).join("");
}"""


@pytest.fixture(scope="module")
def llm():
    with FakeOpenAI().in_thread() as server:
        yield server


@pytest.fixture(scope="module")
def server_url(tmp_path_factory, llm):
    db = tmp_path_factory.mktemp("invisible") / "db.sqlite3"
    env = product_env(
        DATABASE_URL=f"sqlite:///{db}",
        LLM_BACKEND="openai",
        LLM_BASE_URL=llm.base_url,
        LLM_API_KEY="test-key",
        LLM_MODEL="fake-model",
    )
    prepare_database(env)
    with daphne_server(env, start_timeout=120) as (port, _):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


@pytest.mark.parametrize(("opening", "closing"), ATTACKS.values(), ids=ATTACKS.keys())
def test_a_price_wrapped_in_an_invisible_character_is_read_as_the_price_the_guard_checked(
    browser, server_url, llm, opening, closing
):
    """Chromium shows "399" in its visual order, and neither the page nor a stream frame
    carries the character."""
    llm.enqueue(
        Reply(deltas=("Premium kostar ", f"{opening}399{closing}", " kr/månad [kb/pricing.md:18]."))
    )
    context = browser.new_context(locale="sv-SE")
    frames: list[str] = []
    try:
        page = context.new_page()
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
        page.goto(server_url + "/")
        wait_connected(page)
        bubble = ask(page, "Vad kostar Premium?", timeout=60000)
        assert bubble.get_attribute("data-status") == "done"
        assert page.evaluate(VISUAL_DIGITS, bubble.element_handle()) == "399"
        shown = bubble.locator(".text").text_content()
        assert "399 kr/månad" in shown
        assert not set(shown) & set(INVISIBLE)
        streamed = [json.loads(f) for f in frames if isinstance(f, str)]
        texts = "".join(f.get("delta", "") + f.get("text", "") for f in streamed)
        assert "399" in texts and not set(texts) & set(INVISIBLE)
    finally:
        context.close()
