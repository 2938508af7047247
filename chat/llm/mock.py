"""The default backend: answers from the retrieved snippets, no network.

It builds one sentence from the snippet line that best matches the
question and streams it word by word on a provider's clock: token ``i`` is
due the configured delays after the start, whatever the event loop is
doing. Tokens that fell due while the loop was busy come out together, as
one chunk, the way a real provider's stream is read from its socket after a
stall; they never drift later and later. When the
question contains ``hallucinate`` it changes every digit of its answer, so
the number guard can be seen withholding it.
"""

import asyncio
import random
import re
from collections.abc import AsyncIterator
from functools import lru_cache
from itertools import accumulate

from django.conf import settings

from chat.llm.base import LLMBackend, LLMRequest
from grounding.text import content_terms

HALLUCINATE = "hallucinate"
_TOKEN = re.compile(r"\S+\s*|\s+")
_MARKUP = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)|\*\*|__|`")
_LEADS = {"sv": "Enligt kunskapsbasen: ", "en": "According to the knowledge base: "}
_INVENTED = {"sv": " Det kostar 1234 kr.", "en": " It costs 1234 kr."}


def parse_delay(value: str) -> tuple[float, float]:
    """``"20,80"`` -> (0.020, 0.080) seconds; ``"0"`` -> no delay."""
    parts = [float(p) for p in str(value).replace(" ", "").split(",") if p] or [0.0]
    low, high = parts[0], parts[-1]
    return low / 1000, max(low, high) / 1000


def best_line(question: str, request: LLMRequest) -> str:
    """The snippet line that best answers the question.

    Lines sharing more terms with the question win; a line that states a
    fact (has a digit) beats a lead-in sentence with the same overlap, and
    earlier (better-ranked) snippets win ties.
    """
    # One group of stems per question word, so a word counts once whatever its forms.
    wanted = [group for group in map(_word_terms, question.split()) if group]
    best, best_score = "", 0.0
    for rank, snippet in enumerate(request.snippets):
        for text, terms, states_fact in _candidate_lines(snippet):
            overlap = sum(1 for group in wanted if not group.isdisjoint(terms))
            if not overlap:
                continue
            score = overlap + 0.5 * states_fact - rank * 0.1
            if score > best_score:
                best, best_score = text, score
    return best or _first_line(request)


@lru_cache(maxsize=4096)
def _word_terms(word: str) -> frozenset[str]:
    return frozenset(content_terms(word))


@lru_cache(maxsize=1024)
def _candidate_lines(snippet) -> tuple[tuple[str, frozenset[str], bool], ...]:
    """The snippet's lines that could answer: (text, terms, whether it states a fact)."""
    found = []
    for _, line in snippet.lines():
        text = line.strip()
        if not text or text.startswith("#") or set(text) <= set("|-: "):
            continue
        found.append((text, frozenset(content_terms(text)), any(ch.isdigit() for ch in text)))
    return tuple(found)


def _first_line(request: LLMRequest) -> str:
    for snippet in request.snippets:
        for _, line in snippet.lines():
            if line.strip() and not line.lstrip().startswith("#"):
                return line.strip()
    return ""


def clean(line: str) -> str:
    """A markdown line as a plain sentence."""
    text = _MARKUP.sub("", line)
    if "|" in text:
        text = ", ".join(cell.strip() for cell in text.strip("| ").split("|") if cell.strip())
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def falsify(text: str, language: str) -> str:
    """Change every digit, or invent a number if there is none."""
    if not any(ch.isdigit() for ch in text):
        return text + _INVENTED.get(language, _INVENTED["sv"])
    return "".join(("8" if ch == "7" else "7") if ch.isdigit() else ch for ch in text)


def compose(request: LLMRequest) -> str:
    line = best_line(request.question, request)
    answer = _LEADS.get(request.language, _LEADS["sv"]) + clean(line) if line else ""
    if HALLUCINATE in request.question.lower():
        answer = falsify(answer, request.language)
    return answer


class MockBackend(LLMBackend):
    name = "mock"

    @property
    def model(self) -> str:
        return "mock"

    async def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        low, high = parse_delay(settings.LLM_TOKEN_DELAY_MS)
        tokens = _TOKEN.findall(compose(request))
        request.usage_tokens = len(tokens)
        if not high:
            for token in tokens:
                # sleep(0) still yields to the loop, so a cancel lands between tokens.
                await asyncio.sleep(0)
                yield token
            return
        async for chunk in paced(tokens, [random.uniform(low, high) for _ in tokens]):
            yield chunk


async def paced(tokens: list[str], delays: list[float]) -> AsyncIterator[str]:
    """``tokens`` on a fixed clock: token ``i`` is due ``sum(delays[: i + 1])`` after the start.

    Every token already due when the loop gets round to it is joined into
    one chunk, so a busy loop sends fewer, fuller frames instead of falling
    further behind.
    """
    loop = asyncio.get_running_loop()
    start = loop.time()
    due = list(accumulate(delays))
    i = 0
    while i < len(tokens):
        await asyncio.sleep(max(0.0, start + due[i] - loop.time()))
        elapsed = loop.time() - start
        j = i + 1
        while j < len(tokens) and due[j] <= elapsed:
            j += 1
        yield "".join(tokens[i:j])
        i = j
