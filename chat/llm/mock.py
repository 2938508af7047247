"""The default backend: short cited answers from the retrieved facts, no network.

It reads every snippet's facts (:func:`grounding.facts.extract_facts`),
picks the ones that best answer the question and writes each fact's line
as a sentence, every number followed by its reference ``[PATH:LINE]``
(``docs/prompt.md``), the way the prompt asks a real model to write; every
number the chosen line states gets the reference, a number that is no fact
of it (a name: "Windows 10") none. A fact answers when it names the
question's subject: more than half of the question's subject words (its
words without the asking words of ``ASKING_TERMS``; a word named by any of
its terms: lemma, compound part) are among the fact's subject terms or its
snippet's headings, or half when the named words are rare among the
retrieved facts ("Max" in "Hur snabbt är Max?"). So "Vad kostar en
hamburgare?" finds no fact about hamburgers and gets the product's
no-support sentence instead of the nearest price. A period the question
names ("per år") keeps only the facts of that period when there are any,
and the kind of number the question asks for ("telefonnummer", "when") is
preferred. A question that names no subject of its own ("Och per år?")
takes the previous question's. Facts that answer equally well (the opening
hours of each day, every plan's price) are listed together, up to
``MAX_FACTS``. A question no fact answers gets a line without numbers that
names its subject, if there is one.

The answer streams word by word on a provider's clock: token ``i`` is due
the configured delays after the start, whatever the event loop is doing.
Tokens that fell due while the loop was busy come out together, as one
chunk, the way a real provider's stream is read from its socket after a
stall; they never drift later and later. When the question contains
``hallucinate`` it changes every digit of its answer outside the
references, so the number guard can be seen withholding it.

``request.cite`` says whether the references are streamed; without it the
mock writes the same answer without them (for a guard that does not read
references).
"""

import asyncio
import random
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from django.conf import settings

from chat import texts
from chat.llm.base import LLMBackend, LLMRequest
from chat.llm.prompt import prompt_language
from grounding.facts import Fact, Kind, extract_facts, table_header_line
from grounding.notation import find_period, read_numbers
from grounding.snippets import Snippet
from grounding.terms import terms

HALLUCINATE = "hallucinate"
MAX_FACTS = 4
RARE = 2  # a term at most this many retrieved facts are about tells them apart
_TOKEN = re.compile(r"\S+\s*|\s+")
_MARKUP = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)|\*\*|__|`")
_INVENTED = {"sv": " Det kostar 1234 kr.", "en": " It costs 1234 kr."}
# A reference as the prompt asks for it: [kb/pricing.md:18], [Q], [F:0a1b2c3d].
REFERENCE = re.compile(r" ?\[(?:[^\[\]\s]+:\d+|Q|F:[0-9a-f]{8})\]")
# A unit or period written right after a number's reading ("49 kr/månad", "99 SEK per month").
_PERIOD_TAIL = re.compile(r"^(?:/[^\W\d_]+|\s+(?:per|i|om|a|an|each|every)\s+[^\W\d_]+)")

# The words that ask for a number rather than name what it is about, by language: they
# count towards a fact's score but not as the question's subject.
ASKING_TERMS = {
    "sv": frozenset(
        {"kosta", "kostnad", "pris", "många", "mycket", "stor", "lång", "länge", "nummer"}
    ),
    "en": frozenset({"cost", "price", "much", "many", "big", "long", "get", "number"}),
}
# The kind of number a question's words ask for, by language.
ASKED_KINDS = {
    "sv": {
        "kosta": {Kind.AMOUNT},
        "pris": {Kind.AMOUNT},
        "kostnad": {Kind.AMOUNT},
        "avgift": {Kind.AMOUNT},
        "telefon": {Kind.PHONE},
        "ring": {Kind.PHONE},
        "ringa": {Kind.PHONE},
        "nummer": {Kind.PHONE},
        "öppet": {Kind.TIME, Kind.TIME_RANGE},
        "öppettid": {Kind.TIME, Kind.TIME_RANGE},
        "lagring": {Kind.QUANTITY},
        "lagringsutrymme": {Kind.QUANTITY},
    },
    "en": {
        "cost": {Kind.AMOUNT},
        "price": {Kind.AMOUNT},
        "fee": {Kind.AMOUNT},
        "phone": {Kind.PHONE},
        "call": {Kind.PHONE},
        "number": {Kind.PHONE},
        "open": {Kind.TIME, Kind.TIME_RANGE},
        "storage": {Kind.QUANTITY},
    },
}


def parse_delay(value: str) -> tuple[float, float]:
    """``"20,80"`` -> (0.020, 0.080) seconds; ``"0"`` -> no delay."""
    parts = [float(p) for p in str(value).replace(" ", "").split(",") if p] or [0.0]
    low, high = parts[0], parts[-1]
    return low / 1000, max(low, high) / 1000


@dataclass(frozen=True, slots=True)
class Found:
    """A line of a snippet that answers the question, and the facts it is cited for."""

    file: str
    line: int
    text: str  # the line as the file writes it
    values: frozenset[str]  # the values of the line's facts: these numbers carry a reference
    language: str = "sv"  # the line's own language: how its numbers are read
    header: str = ""  # a table row's header row: its cells name the row's cells


def question_period(question: str) -> str | None:
    """The period a question names ("per år", "a month"), if any."""
    words = question.split()
    for start in range(len(words)):
        period = find_period(" ".join(words[start:]))
        if period:
            return period
    return None


def _snippet_facts(
    snippets: Sequence[Snippet], language: str
) -> list[tuple[int, Fact, str, frozenset[str], str]]:
    """(snippet rank, fact, its line as written, what it is about, its table's header row)
    for every fact.

    What a fact is about: its subject terms and its snippet's heading path (the document's
    title: "Prices and plans" names the plan of "Standard yearly: 1 990 SEK/year").
    """
    found = []
    for rank, snippet in enumerate(snippets):
        lines = dict(snippet.lines())
        heading = terms(snippet.heading, language)
        facts = extract_facts(snippet.text, file=snippet.file, first_line=snippet.start_line)
        for fact in facts:
            header = lines.get(table_header_line(fact) or 0, "") if fact.cell else ""
            found.append(
                (rank, fact, lines.get(fact.line, fact.text), fact.subject | heading, header)
            )
    return found


def subject_words(question: str, language: str) -> list[frozenset[str]]:
    """The terms of each word of ``question`` that names what it is about (not an asking
    word: "kostar", "how much"), one group per word, so a compound counts once."""
    asked = terms(question, language) - ASKING_TERMS[language]
    groups = []
    for word in question.split():
        group = terms(word, language) & asked
        if group and group not in groups:
            groups.append(group)
    # A term only the whole question has (a name of two words: "Hem Mellan") is a word too.
    left = asked.difference(*groups)
    return groups + [frozenset({term}) for term in sorted(left)]


def names_subject(
    words: list[frozenset[str]], about: frozenset[str], rare: Callable[[str], bool]
) -> bool:
    """Whether a line about ``about`` names the question's subject: more than half of its
    words, or half when the named words' terms are rare in the context ("Max" of "Hur
    snabbt är Max?"; not the company name every page says)."""
    named = [word & about for word in words if word & about]
    if not named or len(named) * 2 < len(words):
        return False
    return len(named) * 2 > len(words) or all(rare(term) for word in named for term in word)


def choose_facts(question: str, language: str, snippets: Sequence[Snippet]) -> list[Found]:
    """The lines whose facts best answer ``question``, in file order; [] when none does."""
    asked = terms(question, language)
    words = subject_words(question, language)
    if not words:
        return []
    kinds = set().union(*(ASKED_KINDS[language].get(term, set()) for term in asked))
    candidates = _snippet_facts(snippets, language)
    # A term many facts share (the "kosta" of every price) tells them apart less.
    asked |= frozenset().union(*words)
    spread = {term: sum(1 for *_, about, _ in candidates if term in about) for term in asked}
    scored = []
    for rank, fact, text, about, header in candidates:
        named = asked & about
        if not names_subject(words, about, lambda term: spread[term] <= RARE):
            continue
        score = sum(1 + 1 / spread[term] for term in named) + (fact.kind in kinds) - rank / 10
        scored.append((score, rank, fact, (text, header), named))
    period = question_period(question)
    if period and any(fact.period == period for _, _, fact, _, _ in scored):
        scored = [entry for entry in scored if entry[2].period == period]
    if not scored:
        return []
    _, best_rank, best, _, best_named = max(scored, key=lambda entry: entry[0])
    # Every number a chosen line states carries the line's reference ("per 500 GB" too).
    stated: dict[tuple[str, int], set[str]] = {}
    for _, fact, *_ in candidates:
        stated.setdefault((fact.file, fact.line), set()).add(fact.value)
    # The best fact's equals: same snippet, same kind, named by the same words.
    chosen: dict[tuple[str, int], Found] = {}
    for _, rank, fact, (text, header), named in sorted(scored, key=lambda entry: -entry[0]):
        if (rank, fact.kind, named) != (best_rank, best.kind, best_named):
            continue
        key = (fact.file, fact.line)
        if key in chosen or len(chosen) == MAX_FACTS:
            continue
        values = frozenset(stated[key])
        chosen[key] = Found(fact.file, fact.line, text, values, fact.language, header)
    return sorted(chosen.values(), key=lambda found: found.line)


def choose_line(question: str, language: str, snippets: Sequence[Snippet]) -> Found | None:
    """A line without numbers that names the question's subject (the best-ranked), or None."""
    words = subject_words(question, language)
    best, best_named = None, 0
    for snippet in snippets:
        heading = terms(snippet.heading, language)
        for number, line in snippet.lines():
            text = line.strip()
            if not text or text.startswith(("#", "---")) or set(text) <= set("|-: "):
                continue
            if any(ch.isdigit() for ch in text) or text.rstrip().endswith(":"):
                continue
            about = terms(text, language) | heading
            named = sum(1 for word in words if word & about)
            if names_subject(words, about, lambda term: False) and named > best_named:
                best, best_named = Found(snippet.file, number, text, frozenset(), language), named
    return best


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def clean(line: str, header: str = "") -> str:
    """A markdown line as a plain sentence; a table row as "key: Header cell; Header cell"."""
    text = _MARKUP.sub("", line)
    if "|" in text:
        cells, names = _cells(text), _cells(header) if header else []
        if len(names) == len(cells) and len(cells) > 1:
            pairs = zip(names[1:], cells[1:], strict=True)
            named = [f"{name} {cell}".strip() for name, cell in pairs if cell]
            text = f"{cells[0]}: {'; '.join(named)}" if cells[0] else "; ".join(named)
        else:
            # "; " keeps a cell's own number whole ("14,490" is not 14.49 after a comma).
            text = "; ".join(cell for cell in cells if cell)
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def cited(found: Found) -> str:
    """``found``'s line as a sentence, each of its facts' numbers followed by its reference.

    The reference goes after the number's unit and period ("49 kr/månad [kb/pricing.md:43]");
    a number that is no fact of the line (a name: "Windows 10") gets none.
    """
    text = clean(found.text, found.header)
    reference = f" [{found.file}:{found.line}]"
    parts, last = [], 0
    for reading in read_numbers(text, found.language):
        if reading.value not in found.values:
            continue
        end = reading.end
        if tail := _PERIOD_TAIL.match(text[end:]):
            end += tail.end()
        parts += [text[last:end], reference]
        last = end
    parts.append(text[last:])
    return "".join(parts)


def strip_references(text: str) -> str:
    """``text`` without its references."""
    return REFERENCE.sub("", text)


def falsify(text: str, language: str) -> str:
    """Change every digit outside the references, or invent a number if there is none."""
    pieces = re.split(f"({REFERENCE.pattern})", text)
    if not any(ch.isdigit() for piece in pieces[::2] for ch in piece):
        return text + _INVENTED.get(language, _INVENTED["sv"])
    return "".join(
        piece
        if index % 2
        else "".join(("8" if ch == "7" else "7") if ch.isdigit() else ch for ch in piece)
        for index, piece in enumerate(pieces)
    )


def compose(request: LLMRequest) -> str:
    """The answer with its references: the best facts' lines, a plain line, or no support."""
    language = prompt_language(request.language)
    question = re.sub(HALLUCINATE, " ", request.question, flags=re.IGNORECASE)
    if request.history and not terms(question, language) - ASKING_TERMS[language]:
        # "Och per år?": the subject is the previous question's.
        question = f"{request.history[-1].question} {question}"
    found = choose_facts(question, language, request.snippets)
    if not found and (line := choose_line(question, language, request.snippets)):
        found = [line]
    no_support = texts.localized(texts.NO_SUPPORT, language)
    answer = " ".join(map(cited, found)) if found else no_support
    if HALLUCINATE in request.question.lower():
        answer = falsify(answer, language)
    return answer


class MockBackend(LLMBackend):
    name = "mock"

    @property
    def model(self) -> str:
        return "mock"

    async def stream(self, request: LLMRequest) -> AsyncIterator[str]:
        low, high = parse_delay(settings.LLM_TOKEN_DELAY_MS)
        answer = compose(request)
        tokens = _TOKEN.findall(answer if request.cite else strip_references(answer))
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
