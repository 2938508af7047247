"""The chat messages a real LLM gets for one turn.

Pure: no settings, no I/O. The caller passes the token budget and the number
of exchanges of history to keep (``LLM_PROMPT_TOKEN_BUDGET``,
``HISTORY_EXCHANGES``).

Layout: one system message (instructions in the conversation's language and
the retrieved snippets, numbered best first with their file), then the last
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
# The model must not echo the context numbers ("[1]"): every digit of an
# answer is checked against the snippets.
INSTRUCTIONS = {
    "sv": (
        "Du är kundtjänstassistent för företaget. Svara på svenska.\n"
        "Regler:\n"
        "- Svara endast utifrån den numrerade kontexten nedan, aldrig utifrån annan kunskap.\n"
        "- Skriv varje tal (priser, telefonnummer, datum, tider, procentsatser) exakt som "
        "kontexten skriver det. Räkna inte om, avrunda inte och hitta aldrig på tal.\n"
        "- Om kontexten inte besvarar frågan, svara exakt: "
        "Jag hittar inget stöd i kunskapsbasen.\n"
        "- Skriv inga webbadresser eller länkar.\n"
        "- Hänvisa inte till kontextens nummer, som [1].\n"
        "- Svara kort och vänligt."
    ),
    "en": (
        "You are the company's customer support assistant. Answer in English.\n"
        "Rules:\n"
        "- Answer only from the numbered context below, never from other knowledge.\n"
        "- Write every number (prices, phone numbers, dates, times, percentages) exactly as "
        "the context writes it. Do not convert, round or invent numbers.\n"
        "- If the context does not answer the question, answer exactly: "
        "I couldn't find any references to this in the knowledge base.\n"
        "- Do not write URLs or links.\n"
        "- Do not refer to the context numbers, such as [1].\n"
        "- Keep the answer short and friendly."
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


def format_snippet(number: int, snippet: Snippet) -> str:
    """``[n] file (heading)`` and the snippet's text below it."""
    label = f"[{number}] {snippet.file}"
    if snippet.heading:
        label += f" ({snippet.heading})"
    return f"{label}\n{snippet.text.strip()}"


def system_prompt(language: str, snippets: Sequence[Snippet]) -> str:
    """The instructions followed by the numbered context."""
    language = prompt_language(language)
    if snippets:
        context = "\n\n".join(format_snippet(n, s) for n, s in enumerate(snippets, start=1))
    else:
        context = NO_CONTEXT[language]
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
