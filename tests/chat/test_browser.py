"""The chat page in a real browser (Playwright driving Debian's Chromium) against daphne.

One server for the module (SQLite file, mock LLM with a token delay so a
stream can be watched); each test gets its own browser context, so its own
session and conversation. Elements are found by role and label.
"""

import re

import pytest

from tests.chat.browser import (
    DESKTOP,
    PHONE,
    VIEWPORTS,
    answers,
    ask,
    axe_violations,
    launch,
    needs_chromium,
    new_page,
    visible_in_viewport,
)
from tests.live import daphne_server, prepare_database, product_env

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("browser") / "db.sqlite3"
    env = product_env(DATABASE_URL=f"sqlite:///{db}", LLM_TOKEN_DELAY_MS="100,150")
    prepare_database(env)
    with daphne_server(env) as (port, _):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


def open_page(context_factory, server_url, viewport=DESKTOP, locale="sv-SE"):
    return new_page(None, server_url, context=context_factory(viewport=viewport, locale=locale))


def assert_no_axe_violations(page):
    violations = axe_violations(page)
    assert violations == [], violations


# -- empty state, language ------------------------------------------------------


@VIEWPORTS
def test_empty_page_greets_in_swedish_with_chips_and_passes_axe(
    context_factory, server_url, viewport
):
    """Greeting and scope in Swedish, configured chips, no debug chip; axe finds nothing."""
    page = open_page(context_factory, server_url, viewport)
    assert page.get_by_role("heading", name=re.compile("Hej! Jag svarar")).is_visible()
    chips = page.get_by_role("list", name="Förslag").get_by_role("button")
    assert chips.first.inner_text() == "Vad kostar premium?"
    assert "hallucinate" not in page.content()
    assert page.get_by_role("log", name="Samtal").get_attribute("aria-busy") == "false"
    assert_no_axe_violations(page)


def test_page_follows_the_browsers_language_and_the_switch(context_factory, server_url):
    """An English browser gets the English page; the header switch turns it Swedish."""
    page = open_page(context_factory, server_url, locale="en-GB")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.get_by_role("heading", name=re.compile("Hi! I answer")).is_visible()
    assert page.get_by_role("button", name="Send").is_visible()
    page.get_by_role("button", name="Svenska").click()
    page.wait_for_function("document.documentElement.lang === 'sv'")
    assert page.get_by_role("button", name="Skicka").is_visible()
    assert page.get_by_role("button", name="Svenska").get_attribute("aria-pressed") == "true"


def test_favicon_is_served(context_factory, server_url):
    page = open_page(context_factory, server_url)
    href = page.locator("link[rel=icon]").get_attribute("href")
    assert page.request.get(server_url + href).status == 200


# -- layout -----------------------------------------------------------------------


def test_ten_turns_on_a_phone_keep_input_and_latest_answer_in_view(context_factory, server_url):
    """Acceptance: after 10 turns at 390x844 the input and the latest answer's end are visible."""
    page = open_page(context_factory, server_url, PHONE)
    questions = ["Vad kostar premium?", "Och standard?", "Vad kostar basic?", "Och business?"]
    for i in range(10):
        ask(page, questions[i % len(questions)])
    latest = answers(page).last
    textbox = page.get_by_role("textbox", name="Meddelande")
    header = page.get_by_role("banner")
    assert visible_in_viewport(page, textbox) and visible_in_viewport(page, header)
    end = latest.bounding_box()["y"] + latest.bounding_box()["height"]
    assert header.bounding_box()["height"] < end <= textbox.bounding_box()["y"]
    assert page.evaluate("document.scrollingElement.scrollTop") == 0, "the page never scrolls"

    # Scrolled up while an answer streams: a "jump to latest" control brings it back.
    textbox.fill("Vad kostar premium?")
    textbox.press("Enter")
    page.get_by_role("button", name="Stoppa").wait_for()
    page.locator("#scroller").evaluate("el => el.scrollTop = 0")
    jump = page.get_by_role("button", name="Till senaste")
    jump.wait_for()
    page.wait_for_selector(".msg.assistant:last-of-type[data-status]")
    jump.click()
    assert visible_in_viewport(page, answers(page).last)
    assert jump.is_hidden()

    # A reload opens at the latest message.
    page.reload()
    page.wait_for_selector(".msg.assistant[data-status]")
    page.wait_for_timeout(200)
    assert visible_in_viewport(page, answers(page).last)
    assert page.locator(".msg").count() >= 22


# -- input ------------------------------------------------------------------------------


@VIEWPORTS
def test_keyboard_enter_sends_shift_enter_adds_a_line_escape_stops(
    context_factory, server_url, viewport
):
    """Shift+Enter is a new line, Enter sends, Send becomes Stop while streaming, Esc stops."""
    page = open_page(context_factory, server_url, viewport)
    box = page.get_by_role("textbox", name="Meddelande")
    box.type("Vad kostar")
    box.press("Shift+Enter")
    box.type("premium?")
    assert box.input_value() == "Vad kostar\npremium?"
    box.press("Enter")
    page.get_by_role("button", name="Stoppa").wait_for()
    assert page.get_by_role("log").get_attribute("aria-busy") == "true"
    page.keyboard.press("Escape")
    page.wait_for_selector('.msg.assistant[data-status="cancelled"]')
    assert page.get_by_role("button", name="Skicka").is_visible()
    assert answers(page).last.get_by_text("Stoppat.").is_visible()
    assert page.evaluate("document.activeElement.id") == "input"
    assert page.get_by_role("log").get_attribute("aria-busy") == "false"


def test_stop_button_stops_and_focus_returns_to_the_input(context_factory, server_url):
    page = open_page(context_factory, server_url)
    page.get_by_role("button", name="Vad kostar premium?").click()
    assert page.evaluate("document.activeElement.id") == "input", "focus after a chip"
    page.get_by_role("button", name="Stoppa").click()
    page.wait_for_selector('.msg.assistant[data-status="cancelled"]')
    assert page.evaluate("document.activeElement.id") == "input"


def test_sending_during_a_stream_marks_the_interrupted_answer(context_factory, server_url):
    """A new message while an answer streams: the old one is marked, the new one answered."""
    page = open_page(context_factory, server_url)
    box = page.get_by_role("textbox", name="Meddelande")
    box.fill("Vad kostar premium?")
    box.press("Enter")
    page.get_by_role("button", name="Stoppa").wait_for()
    box.fill("Vad kostar basic?")
    box.press("Enter")
    page.wait_for_selector('.msg.assistant[data-status="done"]', timeout=20000)
    first, second = answers(page).nth(0), answers(page).nth(1)
    assert first.get_attribute("data-status") == "interrupted"
    assert first.get_by_text("Avbrutet: du skickade ett nytt meddelande.").is_visible()
    assert "99 kr/månad" in second.inner_text()


# -- answers --------------------------------------------------------------------------


@VIEWPORTS
def test_answer_has_citations_by_title_copy_and_is_announced_once(
    context_factory, server_url, viewport
):
    """A grounded answer: a numbered source by document title that opens its lines."""
    page = open_page(context_factory, server_url, viewport)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    answer = ask(page, "Vad kostar premium?")
    assert answer.get_attribute("data-status") == "done"
    assert "Premium: 399 kr/månad" in answer.locator(".text").inner_text()
    assert "kb/" not in answer.inner_text(), "no repository path as a label"
    source = answer.locator("summary").first
    assert re.sub(r"\s+", " ", source.inner_text()).strip().endswith("Priser och abonnemang")
    source.click()
    assert answer.get_by_label("rader ur Priser och abonnemang").inner_text() == (
        "Premium: 399 kr/månad"
    )
    status = page.get_by_role("status").filter(has_text="Nytt svar")
    assert "399 kr/månad" in status.inner_text()
    answer.get_by_role("button", name="Kopiera").click()
    answer.get_by_role("button", name="Kopierat").wait_for()
    assert "399 kr/månad" in page.evaluate("navigator.clipboard.readText()")
    assert_no_axe_violations(page)


def test_follow_up_stays_on_the_previous_topic(context_factory, server_url):
    page = open_page(context_factory, server_url)
    ask(page, "Vad kostar premium?")
    answer = ask(page, "Och standard?")
    assert answer.get_attribute("data-status") == "done"
    assert "Standard: 199 kr/månad" in answer.inner_text()


@VIEWPORTS
def test_withheld_answer_is_explained_with_next_steps_and_no_snippet(
    context_factory, server_url, viewport
):
    """The guard's refusal in plain words, next steps, no citation, no digit at all."""
    page = open_page(context_factory, server_url, viewport)
    answer = ask(page, "hallucinate: Vad kostar premium?")
    assert answer.get_attribute("data-status") == "withheld"
    text = answer.inner_text()
    assert "Jag kunde inte kontrollera svaret" in text
    assert "Verification failed" not in text
    assert not re.search(r"\d", text), "no number under a refusal"
    assert answer.locator(".sources").count() == 0
    for step in ("Fråga på ett annat sätt", "Ring upp mig", "Skapa ett ärende"):
        assert answer.get_by_role("button", name=step).is_visible()
    assert_no_axe_violations(page)
    # The callback step asks for a callback: a card follows.
    answer.get_by_role("button", name="Ring upp mig").click()
    page.get_by_role("heading", name=re.compile("Uppringning")).wait_for()


def test_no_support_answer_is_explained_with_next_steps(context_factory, server_url):
    page = open_page(context_factory, server_url)
    answer = ask(page, "hallucinate")
    assert answer.get_attribute("data-status") == "no_support"
    assert "Det här tar våra hjälpartiklar inte upp" in answer.inner_text()
    assert answer.get_by_role("button", name="Skapa ett ärende").is_visible()
    answer.get_by_role("button", name="Fråga på ett annat sätt").click()
    assert page.evaluate("document.activeElement.id") == "input"


def test_markdown_is_rendered_progressively_and_sanitised(context_factory, server_url):
    """A real model's markdown: rendered while streaming; scripts and unsafe links removed."""
    import json

    page = open_page(context_factory, server_url)
    first = "**Basic** kostar *lite*. "
    rest = (
        "Se [vår prissida](https://example.com/priser) eller [ring](tel:+46812345678).\n\n"
        '- ett\n- `två`\n\n<img src=x onerror="window.__pwned=1"> [klick](javascript:alert(1))'
    )
    sockets, asked = [], []

    def fake_server(ws):  # frames as the server sends them; no real server behind
        sockets.append(ws)
        ws.on_message(lambda message: asked.append(json.loads(message)))

    page.route_web_socket(re.compile(r".*/ws/chat/$"), fake_server)
    page.reload()
    page.get_by_role("textbox", name="Meddelande").fill("Vad kostar basic?")
    page.keyboard.press("Enter")
    page.wait_for_function("() => true")
    for _ in range(50):
        if asked:
            break
        page.wait_for_timeout(50)
    mid = asked[0]["id"]
    ws = sockets[-1]
    ws.send(json.dumps({"type": "stream", "delta": first, "messageId": mid}))
    page.wait_for_selector(".msg.assistant.streaming strong")  # rendered while streaming
    assert page.get_by_role("log").get_attribute("aria-busy") == "true"
    assert page.get_by_role("button", name="Stoppa").is_visible()
    assert_no_axe_violations(page)  # during a stream (it lasts until the fake server ends it)
    ws.send(json.dumps({"type": "stream", "delta": rest, "messageId": mid}))
    ws.send(json.dumps({"type": "stream_end", "reason": "done", "messageId": mid}))
    response = {"type": "response", "text": first + rest, "citations": [], "messageId": mid}
    ws.send(json.dumps(response | {"grounded": True, "status": "done"}))
    page.wait_for_selector('.msg.assistant[data-status="done"]')
    answer = answers(page).last
    assert answer.locator("strong").inner_text() == "Basic"
    assert answer.locator("em").inner_text() == "lite"
    assert answer.locator("code").inner_text() == "två"
    assert answer.locator("li").count() == 2
    link = answer.get_by_role("link", name="vår prissida")
    assert link.get_attribute("href") == "https://example.com/priser"
    assert link.get_attribute("target") == "_blank"
    assert link.get_attribute("rel") == "noopener noreferrer"
    assert answer.get_by_role("link", name="ring").get_attribute("href") == "tel:+46812345678"
    assert answer.locator("img").count() == 0
    assert answer.get_by_role("link", name="klick").count() == 0
    assert answer.get_by_text("klick").count() == 1, "the text stays, the javascript: link goes"
    assert page.evaluate("window.__pwned") is None


# -- action cards -------------------------------------------------------------------


def card_named(page, name: str):
    return page.locator(".card").filter(has=page.get_by_role("heading", name=re.compile(name)))


@VIEWPORTS
def test_callback_card_asks_for_a_number_validates_it_and_shows_one_outcome(
    context_factory, server_url, viewport
):
    """'Ring mig imorgon' has no number: the card asks; a bad one is refused; a double click
    shows the one outcome, in Swedish, with the number."""
    page = open_page(context_factory, server_url, viewport)
    ask(page, "Ring mig imorgon")
    card = card_named(page, "Uppringning")
    card.wait_for()
    assert card.get_by_text("Vi ringer upp dig på numret du anger nedan.").is_visible()
    assert card.get_by_text("Inget händer förrän du bekräftar.").is_visible()
    assert re.search(r"Går ut om \d+ s", card.inner_text())
    assert "schedule_callback" not in card.inner_text()
    assert_no_axe_violations(page)  # a pending card asking for a number
    card.get_by_role("button", name="Bekräfta").click()
    card.get_by_text("Skriv det telefonnummer vi ska använda.").wait_for()
    card.get_by_label("Ditt telefonnummer").fill("12345")
    card.get_by_role("button", name="Bekräfta").click()
    card.get_by_text("Det ser inte ut som ett giltigt telefonnummer.").wait_for()
    assert card.get_attribute("data-state") == "pending"
    card.get_by_label("Ditt telefonnummer").fill("070-123 45 67")
    card.get_by_role("button", name="Bekräfta").dblclick()
    page.wait_for_selector('.card[data-state="done"]')
    page.wait_for_timeout(300)  # a second outcome would have arrived by now
    assert card.locator(".result").inner_text() == "Vi ringer upp dig på 070-123 45 67."
    assert card.locator(".badge").inner_text() == "Klart"
    assert "Already executed" not in page.content()
    assert card.get_by_role("button", name="Bekräfta").is_hidden()


def test_every_card_keeps_its_final_state_after_a_reload(context_factory, server_url):
    """Acceptance: done (with its ticket number), rejected and pending cards after a reload."""
    page = open_page(context_factory, server_url)
    ask(page, "Skapa ett ärende om min faktura")
    ticket = card_named(page, "Supportärende")
    ticket.get_by_role("button", name="Bekräfta").click()
    page.wait_for_selector('.card[data-state="done"]')
    reference = re.search(r"T-\d{6}", ticket.locator(".result").inner_text()).group(0)
    ask(page, "Ring mig på 070-123 45 67")
    card_named(page, "Uppringning").get_by_role("button", name="Nej tack").click()
    page.wait_for_selector('.card[data-state="rejected"]')
    ask(page, "Skicka ett sms till 070-765 43 21")
    card_named(page, "Sms").wait_for()

    page.reload()
    page.wait_for_selector('.card[data-state="done"]')
    states = page.locator(".card").evaluate_all("cards => cards.map(c => c.dataset.state)")
    assert states == ["done", "rejected", "pending"]
    assert card_named(page, "Supportärende").locator(".result").inner_text() == (
        f"Ärende {reference} skapat."
    )
    assert card_named(page, "Uppringning").locator(".badge").inner_text() == "Avböjt"
    assert card_named(page, "Sms").get_by_text("Vi skickar ett sms till 070-765 43 21.").count()
    assert_no_axe_violations(page)  # done, rejected and pending cards


def test_rejection_in_one_tab_shows_in_the_other(context_factory, server_url):
    """Acceptance: two tabs of one browser session; a rejection in one reaches the other."""
    context = context_factory()
    first = new_page(None, server_url, context=context)
    ask(first, "Ring mig på 070-123 45 67")
    second = new_page(None, server_url, context=context)  # opened after: same conversation
    card_named(second, "Uppringning").wait_for()
    ask(first, "Skapa ett ärende")
    card_named(second, "Supportärende").wait_for(timeout=5000)  # a new card shows live
    card_named(first, "Uppringning").get_by_role("button", name="Nej tack").click()
    second.wait_for_selector('.card[data-state="rejected"]', timeout=5000)
    assert card_named(second, "Uppringning").locator(".result").inner_text() == "Du tackade nej."
    card_named(second, "Supportärende").get_by_role("button", name="Bekräfta").click()
    first.wait_for_selector('.card[data-state="done"]', timeout=5000)
    assert card_named(first, "Supportärende").locator(".result").inner_text() == (
        card_named(second, "Supportärende").locator(".result").inner_text()
    )


def test_card_counts_down_and_expires(context_factory, server_url):
    """The countdown reaches zero: the card says it expired and can no longer be confirmed.

    The browser's clock is an hour behind the server's: the countdown still shows the
    window's 30 seconds (it counts from the server's ``secondsLeft``).
    """
    import datetime as dt

    page = open_page(context_factory, server_url)
    page.clock.install(time=dt.datetime.now() - dt.timedelta(hours=1))
    ask(page, "Ring mig på 070-123 45 67")
    card = card_named(page, "Uppringning")
    countdown = card.get_by_text(re.compile(r"Går ut om \d+ s"))
    countdown.wait_for()
    assert 25 <= int(re.search(r"\d+", countdown.inner_text()).group(0)) <= 30
    page.clock.run_for(31_000)
    page.wait_for_selector('.card[data-state="expired"]')
    assert card.locator(".result").inner_text() == "Utgånget"
    assert card.get_by_role("button", name="Bekräfta").is_hidden()


# -- feedback -------------------------------------------------------------------------


@VIEWPORTS
def test_feedback_with_a_reason_is_thanked_and_restored_after_a_reload(
    context_factory, server_url, viewport
):
    page = open_page(context_factory, server_url, viewport)
    answer = ask(page, "Vad kostar premium?")
    answer.get_by_role("button", name="Inte hjälpsamt").click()
    form = answer.get_by_role("group", name="Vad var fel?")
    for reason in ("Fel", "Inte hjälpsamt", "Svarade inte på min fråga", "Annat"):
        assert form.get_by_role("radio", name=reason).is_visible()
    assert_no_axe_violations(page)  # the open feedback form
    form.get_by_role("radio", name="Svarade inte på min fråga").check()
    answer.get_by_label("Kommentar (valfritt)").fill("Jag ville veta om studentrabatt")
    answer.get_by_role("button", name="Skicka synpunkter").click()
    answer.get_by_text("Tack för dina synpunkter!").wait_for()
    thumb = answer.get_by_role("button", name="Inte hjälpsamt")
    assert thumb.get_attribute("aria-pressed") == "true"
    page.wait_for_timeout(300)
    page.reload()
    restored = page.locator(".msg.assistant[data-status]").last
    restored.get_by_text("Tack för dina synpunkter!").wait_for()
    assert restored.get_by_role("button", name="Inte hjälpsamt").get_attribute("aria-pressed") == (
        "true"
    )
    assert restored.get_by_role("button", name="Hjälpsamt", exact=True).get_attribute(
        "aria-pressed"
    ) == ("false")


# -- accessibility ------------------------------------------------------------------------


def test_phone_touch_targets_are_at_least_44_px(context_factory, server_url):
    """Every visible button, input and source marker on a phone is at least 44 px high."""
    page = open_page(context_factory, server_url, PHONE)
    ask(page, "Vad kostar premium?")
    ask(page, "Ring mig imorgon")
    small = page.evaluate(
        """() => [...document.querySelectorAll('button, input, textarea, summary')]
            .filter(el => el.offsetParent !== null)
            .map(el => [el.textContent.trim() || el.getAttribute('aria-label') || el.id,
                        el.getBoundingClientRect()])
            .filter(([, r]) => r.height < 44 || r.width < 44)
            .map(([name, r]) => `${name}: ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    assert small == []


@VIEWPORTS
def test_axe_finds_nothing_with_every_kind_of_answer_and_card(
    context_factory, server_url, viewport
):
    """Acceptance: grounded, withheld, no-support, stopped answers; pending, done and
    rejected cards; an open source; an English page too."""
    page = open_page(context_factory, server_url, viewport)
    ask(page, "Vad kostar premium?")
    page.locator(".source summary").first.click()
    ask(page, "hallucinate: Vad kostar premium?")
    ask(page, "hallucinate")
    box = page.get_by_role("textbox", name="Meddelande")
    box.fill("Vad kostar business?")
    box.press("Enter")
    page.get_by_role("button", name="Stoppa").click()
    page.wait_for_selector('.msg.assistant[data-status="cancelled"]')
    ask(page, "Skapa ett ärende")
    card_named(page, "Supportärende").get_by_role("button", name="Bekräfta").click()
    ask(page, "Ring mig på 070-123 45 67")
    card_named(page, "Uppringning").get_by_role("button", name="Nej tack").click()
    ask(page, "Skicka ett sms")
    card_named(page, "Sms").wait_for()
    page.wait_for_selector('.card[data-state="rejected"]')
    assert_no_axe_violations(page)

    english = open_page(context_factory, server_url, viewport, locale="en-US")
    ask(english, "What does Premium cost?")
    ask(english, "Call me")
    english.get_by_role("heading", name=re.compile("Callback")).wait_for()
    assert english.get_by_text("We call you on the number you give below.").is_visible()
    assert_no_axe_violations(english)


def test_an_english_question_in_the_swedish_page_is_marked_english(context_factory, server_url):
    """lang on mixed-language text: the English answer (and question) carry lang="en"."""
    page = open_page(context_factory, server_url)
    answer = ask(page, "What does Premium cost?")
    assert answer.get_attribute("lang") == "en"
    assert page.locator(".msg.user").last.get_attribute("lang") == "en"
    assert page.evaluate("document.documentElement.lang") == "sv"
