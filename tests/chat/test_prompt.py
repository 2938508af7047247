import math

from hypothesis import given, settings
from hypothesis import strategies as st

from chat.llm.base import Exchange, LLMRequest
from chat.llm.prompt import (
    INSTRUCTIONS,
    assemble,
    build_messages,
    build_repair_messages,
    estimate_messages_tokens,
    estimate_tokens,
    prompt_language,
)
from chat.texts import NO_SUPPORT, localized
from grounding.snippets import Snippet

PRICING = Snippet("kb/pricing.md", "## Priser\nBasic: 99 kr/månad\n", 3, heading="Priser")
CONTACT = Snippet("kb/contact.md", "Ring 08-123 45 67.", 1)

# The rules are the prompt module's own (INSTRUCTIONS); what is pinned here is the layout:
# every non-empty line after its reference [PATH:LINE], the file line counted from start_line.
SWEDISH_SYSTEM = (
    INSTRUCTIONS["sv"] + "\n\n"
    "Kontext:\n"
    "kb/pricing.md (Priser)\n"
    "[kb/pricing.md:3] ## Priser\n"
    "[kb/pricing.md:4] Basic: 99 kr/månad\n"
    "\n"
    "kb/contact.md\n"
    "[kb/contact.md:1] Ring 08-123 45 67."
)

ENGLISH_SYSTEM = (
    INSTRUCTIONS["en"] + "\n\nContext:\nkb/contact.md\n[kb/contact.md:1] Ring 08-123 45 67."
)


def test_the_rules_answer_no_support_with_the_chats_own_sentence():
    """The sentence the LLM is told to use is the one the chat shows without support."""
    for language in ("sv", "en"):
        assert localized(NO_SUPPORT, language) in INSTRUCTIONS[language]
    assert "Svara på svenska" in INSTRUCTIONS["sv"] and "Answer in English" in INSTRUCTIONS["en"]


def test_the_rules_ask_for_a_reference_after_every_number_in_both_languages():
    """Cite each number right after it, [Q] for the question's, none for a name's; no chunk
    numbers to avoid any more (the old "[1]" rule is gone: the context has no [1])."""
    swedish, english = INSTRUCTIONS["sv"], INSTRUCTIONS["en"]
    assert "399 kr/månad [kb/priser.md:12]." in swedish
    assert "399 SEK/month [kb/prices.md:12]." in english
    assert "[Q]" in swedish and "[Q]" in english
    assert "Zon 2" in swedish and "Zone 2" in english
    assert "Skriv aldrig ett tal som inte står i kontexten" in swedish
    assert "Never write a number that is not in the context" in english
    assert "[1]" not in swedish and "[1]" not in english


def test_a_snippet_of_an_indexed_directory_is_cited_as_the_index_names_its_file():
    """The reference is ``Snippet.file`` as it is (``priser.md`` for a ``--kb-dir``), and a
    blank line of the chunk gets no reference of its own."""
    snippet = Snippet("priser.md", "Basic: 99 kr\n\nPremium: 399 kr", 11)

    system = build_messages(LLMRequest(question="Pris?", snippets=[snippet]), token_budget=6000)

    context = system[0]["content"].split("Kontext:\n", 1)[1]
    assert context == "priser.md\n[priser.md:11] Basic: 99 kr\n[priser.md:13] Premium: 399 kr"


def exchanges(count: int) -> list[Exchange]:
    return [Exchange(f"Fråga {n}?", f"Svar {n}.") for n in range(1, count + 1)]


def test_swedish_prompt_is_pinned():
    """A Swedish turn: instructions, snippets with their references, history, then the question."""
    request = LLMRequest(
        question="Och Premium?",
        snippets=[PRICING, CONTACT],
        language="sv",
        history=[Exchange("Vad kostar Basic?", "Basic kostar 99 kr/månad.")],
    )

    assert build_messages(request, token_budget=6000) == [
        {"role": "system", "content": SWEDISH_SYSTEM},
        {"role": "user", "content": "Vad kostar Basic?"},
        {"role": "assistant", "content": "Basic kostar 99 kr/månad."},
        {"role": "user", "content": "Och Premium?"},
    ]


def test_english_prompt_is_pinned():
    """An English conversation gets the English instructions and no-support sentence."""
    request = LLMRequest(question="What is the phone number?", snippets=[CONTACT], language="en")

    assert build_messages(request, token_budget=6000) == [
        {"role": "system", "content": ENGLISH_SYSTEM},
        {"role": "user", "content": "What is the phone number?"},
    ]


def test_regional_english_is_english_and_anything_else_swedish():
    """``en-GB`` is English; an unknown language falls back to Swedish, the default."""
    assert prompt_language("en-GB") == "en"
    assert prompt_language("EN") == "en"
    assert prompt_language("sv") == "sv"
    assert prompt_language("de") == "sv"


def test_empty_context_is_said_explicitly():
    """Without snippets the context section says so instead of being blank."""
    request = LLMRequest(question="Hej?", snippets=[], language="en")

    system = build_messages(request, token_budget=6000)[0]["content"]

    assert system.endswith("Context:\n(no context)")


def test_only_the_last_exchanges_are_sent():
    """Of seven earlier exchanges only the five most recent go to the model, oldest first."""
    request = LLMRequest(question="Nu?", snippets=[PRICING], history=exchanges(7))

    messages = build_messages(request, token_budget=6000, history_exchanges=5)

    sent = [m["content"] for m in messages[1:-1] if m["role"] == "user"]
    assert sent == ["Fråga 3?", "Fråga 4?", "Fråga 5?", "Fråga 6?", "Fråga 7?"]


def test_zero_history_exchanges_sends_no_history():
    """``history_exchanges=0`` sends the system message and the question only."""
    request = LLMRequest(question="Nu?", snippets=[PRICING], history=exchanges(3))

    messages = build_messages(request, token_budget=6000, history_exchanges=0)

    assert [m["role"] for m in messages] == ["system", "user"]


def test_history_is_trimmed_before_snippets():
    """Over the budget, the oldest exchanges go first and every snippet stays."""
    history = [Exchange("x" * 400, "y" * 400) for _ in range(3)]
    request = LLMRequest(question="Nu?", snippets=[PRICING, CONTACT], history=history)
    full = build_messages(request, token_budget=100_000)
    one_exchange_cost = estimate_tokens("x" * 400) + estimate_tokens("y" * 400) + 8

    messages = build_messages(
        request, token_budget=estimate_messages_tokens(full) - one_exchange_cost
    )

    assert len(messages) == len(full) - 2
    assert messages[0] == full[0]


def test_lowest_ranked_snippets_go_after_all_history():
    """When dropping history is not enough, the last-ranked snippets are dropped."""
    snippets = [Snippet(f"kb/{n}.md", f"Rad {n} " * 40, 1) for n in range(1, 4)]
    request = LLMRequest(question="Nu?", snippets=snippets, history=exchanges(2))
    two_snippets = assemble(language="sv", snippets=snippets[:2], history=[], question="Nu?")

    messages = build_messages(request, token_budget=estimate_messages_tokens(two_snippets))

    assert messages == two_snippets


def test_best_snippet_and_question_survive_any_budget():
    """A budget too small for anything still sends the instructions, best snippet and question."""
    request = LLMRequest(question="Nu?", snippets=[PRICING, CONTACT], history=exchanges(2))

    messages = build_messages(request, token_budget=1)

    assert messages == assemble(language="sv", snippets=[PRICING], history=[], question="Nu?")


def test_token_estimate_is_a_quarter_of_the_characters_rounded_up():
    """Four characters make a token; a partial token counts as a whole one."""
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


@given(st.text(max_size=500))
def test_token_estimate_matches_its_definition(text):
    """For any text the estimate is ceil(characters / 4)."""
    assert estimate_tokens(text) == math.ceil(len(text) / 4)


snippet_strategy = st.builds(
    Snippet,
    file=st.sampled_from(["kb/pricing.md", "kb/contact.md", "kb/hours.md"]),
    text=st.text(min_size=1, max_size=300),
    start_line=st.integers(min_value=1, max_value=50),
    heading=st.text(max_size=20),
)
exchange_strategy = st.builds(
    Exchange, question=st.text(max_size=200), answer=st.text(max_size=200)
)


@settings(max_examples=150, deadline=None)
@given(
    question=st.text(min_size=1, max_size=200),
    snippets=st.lists(snippet_strategy, max_size=5),
    history=st.lists(exchange_strategy, max_size=8),
    language=st.sampled_from(["sv", "en"]),
    budget=st.integers(min_value=0, max_value=1500),
    history_exchanges=st.integers(min_value=0, max_value=6),
)
def test_trimming_keeps_a_greedy_prefix_of_snippets_and_suffix_of_history(
    question, snippets, history, language, budget, history_exchanges
):
    """The result is the best snippets and the latest exchanges that fit, dropped in order."""
    request = LLMRequest(question=question, snippets=snippets, language=language, history=history)

    messages = build_messages(request, token_budget=budget, history_exchanges=history_exchanges)

    cap = min(len(history), history_exchanges)
    candidates = [
        (kept_snippets, kept_history)
        for kept_snippets in range(len(snippets) + 1)
        for kept_history in range(cap + 1)
        if messages
        == assemble(
            language=language,
            snippets=snippets[:kept_snippets],
            history=history[len(history) - kept_history :],
            question=question,
        )
    ]
    assert candidates, "the result is not a prefix of the snippets plus a suffix of the history"
    kept_snippets, kept_history = max(candidates)
    assert messages[-1] == {"role": "user", "content": question}
    assert kept_snippets >= min(1, len(snippets))
    if kept_snippets < len(snippets):
        assert kept_history == 0
    fits = estimate_messages_tokens(messages) <= budget
    assert fits or (kept_history == 0 and kept_snippets <= 1)
    if kept_history < cap:
        one_more = assemble(
            language=language,
            snippets=snippets,
            history=history[len(history) - kept_history - 1 :],
            question=question,
        )
        assert estimate_messages_tokens(one_more) > budget
    if kept_snippets < len(snippets):
        one_more = assemble(
            language=language, snippets=snippets[: kept_snippets + 1], history=[], question=question
        )
        assert estimate_messages_tokens(one_more) > budget


# -- the repair request --------------------------------------------------------


def test_a_repair_quotes_what_the_customer_saw_and_asks_to_begin_with_it():
    """The shown part (as the customer read it) is quoted in the repair request, in the
    conversation's language; without one the request does not mention it."""
    request = LLMRequest(question="What does Basic cost?", snippets=[PRICING], language="en")
    draft = "Basic costs 90 SEK/month [kb/pricing.md:4]."

    shown = build_repair_messages(
        request, draft=draft, reason="r", shown="Basic costs ", token_budget=6000
    )
    unshown = build_repair_messages(request, draft=draft, reason="r", token_budget=6000)

    ask = shown[-1]["content"]
    assert "«Basic costs »" in ask and "Begin your new answer with exactly that text" in ask
    assert "«" not in unshown[-1]["content"]
    assert shown[:-1] == unshown[:-1]  # the turn's messages and the draft, unchanged
    assert shown[-2] == {"role": "assistant", "content": draft}


def test_a_repair_stays_within_the_token_budget_with_its_shown_part():
    """The quoted part is counted in: the turn's snippets give way to it, the draft and the
    request stay."""
    snippets = [PRICING, CONTACT, PRICING]
    request = LLMRequest(question="Vad kostar Basic?", snippets=snippets)
    shown = "Basic kostar " * 40
    full = build_repair_messages(request, draft="x", reason="r", shown=shown, token_budget=6000)
    budget = estimate_messages_tokens(full) - 1

    trimmed = build_repair_messages(
        request, draft="x", reason="r", shown=shown, token_budget=budget
    )

    assert estimate_messages_tokens(trimmed) <= budget
    assert trimmed[-1] == full[-1] and trimmed[-2] == full[-2]
