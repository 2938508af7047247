"""The chat messages a real LLM gets for one turn.

Pure: no settings, no I/O. The caller passes the token budget and the number
of exchanges of history to keep (``LLM_PROMPT_TOKEN_BUDGET``,
``HISTORY_EXCHANGES``). The prompt is documented in ``docs/prompt.md``.

Layout: one system message (instructions in the conversation's language and
the retrieved snippets best first, each under its file and heading with every
non-empty line prefixed by its reference ``[PATH:LINE]``), then the last
exchanges of the conversation as user/assistant pairs, then the question.
When the estimate exceeds the budget, the oldest exchanges go first, then the
lowest-ranked snippets. The instructions, the best snippet and the question
always stay: without them there is nothing to answer from, and the grounding
guard rejects whatever an empty context would produce anyway.
"""

import math
from collections.abc import Sequence

from chat.llm.base import Exchange, LLMRequest
from grounding.snippets import Snippet

# One token per four characters, rounded up: close to what OpenAI's tokenizers
# give for English and Swedish prose, and needs no tokenizer download.
CHARS_PER_TOKEN = 4
# Role markers and separators that every chat message costs on top of its text.
MESSAGE_OVERHEAD_TOKENS = 4
# The tokens that prime the assistant's reply.
REPLY_PRIMING_TOKENS = 3

# The "don't know" sentences are the product's no-support messages, so an
# answer the model gives up on reads the same as one retrieval gave up on.
# Every number of an answer is checked against the KB line its reference
# names (docs/prompt.md): the model cites, the guard checks and strips.
INSTRUCTIONS = {
    "sv": (
        "Du är kundtjänstassistent för företaget. Svara på svenska.\n"
        "Regler:\n"
        "- Svara endast utifrån kontexten nedan, aldrig utifrån annan kunskap.\n"
        "- Varje rad i kontexten börjar med sin referens, till exempel [kb/priser.md:12].\n"
        "- Skriv varje tal (priser, telefonnummer, datum, tider, procentsatser, antal, även "
        "tal i ord) exakt som kontexten skriver det, och skriv direkt efter talet, efter dess "
        "enhet och period men före skiljetecknet, referensen till raden du tog det från: "
        "Premium kostar 399 kr/månad [kb/priser.md:12].\n"
        "- Två tal från samma rad får var sin referens.\n"
        "- Upprepar du ett tal ur frågan, skriv [Q] efter det.\n"
        "- Ett tal som är en del av ett namn som kontexten använder (Zon 2, SE4) får "
        "ingen referens.\n"
        "- Skriv aldrig ett tal som inte står i kontexten. Räkna inte om och avrunda inte.\n"
        "- Om kontexten inte besvarar frågan, svara exakt: "
        "Jag hittar inget stöd i kunskapsbasen.\n"
        "- Skriv inga webbadresser eller länkar.\n"
        "- Svara kort och vänligt."
    ),
    "en": (
        "You are the company's customer support assistant. Answer in English.\n"
        "Rules:\n"
        "- Answer only from the context below, never from other knowledge.\n"
        "- Every line of the context starts with its reference, for example "
        "[kb/prices.md:12].\n"
        "- Write every number (prices, phone numbers, dates, times, percentages, counts, also "
        "numbers in words) exactly as the context writes it, and right after the number, after "
        "its unit and period but before the punctuation, write the reference of the line you "
        "took it from: Premium costs 399 SEK/month [kb/prices.md:12].\n"
        "- Two numbers from the same line each get the reference.\n"
        "- When you repeat a number from the question, write [Q] after it.\n"
        "- A number that is part of a name the context uses (Zone 2, SE4) gets no reference.\n"
        "- Never write a number that is not in the context. Do not convert or round numbers.\n"
        "- If the context does not answer the question, answer exactly: "
        "I couldn't find any references to this in the knowledge base.\n"
        "- Do not write URLs or links.\n"
        "- Keep the answer short and friendly."
    ),
}
# One repair round trip (``build_repair_messages``): the guard's reason for withholding the
# draft, and the rules again in short. The reason is the guard's own words, cut to this length.
# When the customer already saw the beginning of the draft (the guard released it before the
# sentence that failed), ``REPAIR_SHOWN`` quotes it: the new answer must begin with exactly
# that text, since the pipeline releases only what comes after it (docs/prompt.md).
REPAIR_REASON_LIMIT = 300
REPAIR = {
    "sv": (
        "Ditt svar kunde inte kontrolleras mot kunskapsbasen: {reason}\n"
        "Skriv svaret igen. Varje tal ska stå exakt som i kontexten, direkt följt av "
        "referensen till raden som anger det. Tar du bort ett tal du inte kan belägga, "
        "skriv inget annat tal i stället. Om kontexten inte besvarar frågan, svara exakt: "
        "Jag hittar inget stöd i kunskapsbasen."
    ),
    "en": (
        "Your answer could not be checked against the knowledge base: {reason}\n"
        "Write the answer again. Every number must be written exactly as in the context, "
        "right after it the reference of the line that states it. If you remove a number you "
        "cannot support, write no other number instead. If the context does not answer the "
        "question, answer exactly: I couldn't find any references to this in the knowledge base."
    ),
}
REPAIR_SHOWN = {
    "sv": (
        "\nKunden har redan sett början av ditt svar (utan referenser): «{shown}»\n"
        "Börja ditt nya svar med exakt den texten och skriv sedan resten."
    ),
    "en": (
        "\nThe customer has already seen the beginning of your answer (without references): "
        "«{shown}»\nBegin your new answer with exactly that text, then write the rest."
    ),
}
CONTEXT_HEADING = {"sv": "Kontext:", "en": "Context:"}
NO_CONTEXT = {"sv": "(ingen kontext)", "en": "(no context)"}
DEFAULT_LANGUAGE = "sv"


def estimate_tokens(text: str) -> int:
    """A rough token count for ``text``: one token per four characters, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_messages_tokens(messages: Sequence[dict]) -> int:
    """A rough token count for a list of chat messages, overhead included."""
    return REPLY_PRIMING_TOKENS + sum(
        MESSAGE_OVERHEAD_TOKENS + estimate_tokens(message["content"]) for message in messages
    )


def prompt_language(language: str) -> str:
    """``"en"`` for English conversations (``en``, ``en-GB``), otherwise Swedish."""
    return "en" if language.lower().split("-")[0] == "en" else DEFAULT_LANGUAGE


def reference(snippet: Snippet, line: int) -> str:
    """``[PATH:LINE]``: the file as the snippet names it and the 1-based file line."""
    return f"[{snippet.file}:{line}]"


def format_snippet(snippet: Snippet) -> str:
    """The snippet's file (and heading), then each non-empty line after its reference."""
    label = snippet.file
    if snippet.heading:
        label += f" ({snippet.heading})"
    lines = [f"{reference(snippet, n)} {text}" for n, text in snippet.lines() if text.strip()]
    return "\n".join([label, *lines])


def system_prompt(language: str, snippets: Sequence[Snippet]) -> str:
    """The instructions followed by the context, every line after its reference."""
    language = prompt_language(language)
    context = "\n\n".join(map(format_snippet, snippets)) if snippets else NO_CONTEXT[language]
    return f"{INSTRUCTIONS[language]}\n\n{CONTEXT_HEADING[language]}\n{context}"


def assemble(
    *, language: str, snippets: Sequence[Snippet], history: Sequence[Exchange], question: str
) -> list[dict]:
    """The messages for exactly these snippets and this history, without trimming."""
    messages = [{"role": "system", "content": system_prompt(language, snippets)}]
    for exchange in history:
        messages.append({"role": "user", "content": exchange.question})
        messages.append({"role": "assistant", "content": exchange.answer})
    messages.append({"role": "user", "content": question})
    return messages


def build_messages(
    request: LLMRequest, *, token_budget: int, history_exchanges: int = 5
) -> list[dict]:
    """OpenAI chat messages for ``request``, trimmed to ``token_budget`` estimated tokens.

    Keeps the last ``history_exchanges`` exchanges, then drops the oldest
    exchanges and after them the lowest-ranked snippets while the estimate is
    over the budget. The best snippet and the question are never dropped.
    """
    history = list(request.history)[-history_exchanges:] if history_exchanges > 0 else []
    snippets = list(request.snippets)

    def messages() -> list[dict]:
        return assemble(
            language=request.language,
            snippets=snippets,
            history=history,
            question=request.question,
        )

    result = messages()
    while estimate_messages_tokens(result) > token_budget and (history or len(snippets) > 1):
        if history:
            history.pop(0)
        else:
            snippets.pop()
        result = messages()
    return result


def build_repair_messages(
    request: LLMRequest,
    *,
    draft: str,
    reason: str,
    token_budget: int,
    history_exchanges: int = 5,
    shown: str = "",
) -> list[dict]:
    """The turn's messages, then the withheld ``draft`` and the request to write it again.

    ``reason`` is the guard's (cut to ``REPAIR_REASON_LIMIT`` characters); ``shown`` what the
    customer already saw of the draft, which the new answer must begin with. The draft and the
    repair request stay whatever the budget: the trimming of ``build_messages`` applies to
    the turn's own messages, with the draft and the request counted in.
    """
    language = prompt_language(request.language)
    reason = " ".join(reason.split())[:REPAIR_REASON_LIMIT] or "-"
    ask = REPAIR[language].format(reason=reason)
    if shown.strip():
        ask += REPAIR_SHOWN[language].format(shown=shown)
    tail = [
        {"role": "assistant", "content": draft},
        {"role": "user", "content": ask},
    ]
    spent = estimate_messages_tokens(tail) - REPLY_PRIMING_TOKENS
    messages = build_messages(
        request, token_budget=token_budget - spent, history_exchanges=history_exchanges
    )
    return messages + tail
