"""The mock LLM's answers on the shipped ``kb/``: on topic, every number cited to its line."""

import re
from pathlib import Path

import pytest
from django.conf import settings

from chat.llm.base import Exchange, LLMRequest
from chat.llm.mock import REFERENCE, MockBackend, compose
from chat.texts import NO_SUPPORT, localized
from grounding.index import KBIndex
from grounding.retrieval import retrieve
from grounding.services import read_kb_dir, source_records
from grounding.snippets import Snippet

SHIPPED_KB = Path(settings.BASE_DIR) / "kb"
_CITED = re.compile(r"\[([^\[\]\s]+):(\d+)\]")

# (question, language, a KB value the answer must state, the reference right after it)
TYPICAL = [
    ("Vad kostar Premium per månad?", "sv", "399 kr/månad", "kb/pricing.md:18"),
    ("Vad kostar Basic?", "sv", "99 kr/månad", "kb/pricing.md:16"),
    ("Vad kostar Standard per år?", "sv", "1 990 kr/år", "kb/pricing.md:33"),
    ("Vad kostar extra lagring?", "sv", "49 kr/månad", "kb/pricing.md:43"),
    ("Hur mycket lagring ingår i Standard?", "sv", "1 TB", "kb/pricing.md:24"),
    ("Hur mycket lagring får jag med Premium?", "sv", "5 TB", "kb/pricing.md:25"),
    ("Vad är telefonnumret till kundtjänst?", "sv", "+46 8 123 45 67", "kb/contact.md:13"),
    ("Vilket nummer har jouren?", "sv", "+46 8 123 45 99", "kb/contact.md:30"),
    ("Vad är fakturatelefonen?", "sv", "08-123 45 68", "kb/billing.md:34"),
    ("När har kundtjänst öppet?", "sv", "08:00–17:00", "kb/contact.md:19"),
    ("När har ni öppet på lördagar?", "sv", "10:00–14:00", "kb/contact.md:20"),
    ("Hur mycket är påminnelseavgiften?", "sv", "60 kr", "kb/billing.md:24"),
    ("What does Premium cost per month?", "en", "399 SEK/month", "kb/en/pricing.md:17"),
    ("What does the Standard plan cost per year?", "en", "1 990 SEK/year", "kb/en/pricing.md:32"),
    ("How much does extra storage cost?", "en", "49 SEK/month", "kb/en/pricing.md:41"),
    ("How much storage does Business get?", "en", "2 TB", "kb/en/pricing.md:25"),
    (
        "What is the phone number of customer service?",
        "en",
        "+46 8 123 45 67",
        "kb/en/contact.md:11",
    ),
    ("What is the emergency phone number?", "en", "+46 8 123 45 99", "kb/en/contact.md:25"),
    ("When is customer service open?", "en", "08:00–17:00", "kb/en/contact.md:17"),
    ("What are the opening hours on Saturday?", "en", "10:00–14:00", "kb/en/contact.md:18"),
]

UNANSWERABLE = [
    ("Vad kostar en hamburgare?", "sv"),
    ("Hur många anställda har Molnia?", "sv"),
    ("Vad kostar en flygbiljett till Paris?", "sv"),
    ("What is the price of a pizza?", "en"),
    ("How much is a train ticket?", "en"),
]


@pytest.fixture(scope="module")
def shipped_index() -> KBIndex:
    records = [
        record for source in read_kb_dir(SHIPPED_KB).values() for record in source_records(source)
    ]
    return KBIndex(records, version=1)


def ask(index: KBIndex, question: str, language: str) -> str:
    snippets = retrieve(index, question).snippets
    return compose(LLMRequest(question=question, snippets=snippets, language=language))


def kb_line(reference: str) -> str:
    file, line = reference.rsplit(":", 1)
    return (Path(settings.BASE_DIR) / file).read_text(encoding="utf-8").split("\n")[int(line) - 1]


@pytest.mark.parametrize(("question", "language", "value", "reference"), TYPICAL)
def test_a_typical_question_gets_the_kb_value_cited_to_its_line(
    shipped_index, question, language, value, reference
):
    """The answer states the asked value, followed by the reference of the line stating it."""
    answer = ask(shipped_index, question, language)

    assert f"{value} [{reference}]" in answer
    assert value in kb_line(reference)


@pytest.mark.parametrize(("question", "language", "value", "reference"), TYPICAL)
def test_every_reference_of_a_typical_answer_names_a_line_that_states_its_number(
    shipped_index, question, language, value, reference
):
    """No reference points at a line that lacks the number it follows."""
    answer = ask(shipped_index, question, language)

    for match in _CITED.finditer(answer):
        before = answer[: match.start()].rstrip()
        number = re.findall(r"\d[\d :,.–+-]*\d|\d", before)[-1].strip()
        assert number in kb_line(f"{match[1]}:{match[2]}"), (answer, match[0])


@pytest.mark.parametrize(("question", "language"), UNANSWERABLE)
def test_a_question_the_kb_cannot_answer_gets_the_no_support_sentence(
    shipped_index, question, language
):
    """No retrieved line is about the question's subject: the product's no-support sentence."""
    assert ask(shipped_index, question, language) == localized(NO_SUPPORT, language)


def test_the_answers_the_issue_found_off_topic_are_on_topic_now(shipped_index):
    """Premium's price (not its availability), the hours (not the lead-in), the yearly price."""
    assert ask(shipped_index, "Vad kostar Premium per månad?", "sv") == (
        "Premium: 399 kr/månad [kb/pricing.md:18]."
    )
    assert ask(shipped_index, "När har kundtjänst öppet?", "sv") == (
        "Måndag–fredag: 08:00–17:00 [kb/contact.md:19]. Lördag: 10:00–14:00 [kb/contact.md:20]."
    )
    assert ask(shipped_index, "What does the Standard plan cost per year?", "en") == (
        "Standard yearly: 1 990 SEK/year [kb/en/pricing.md:32]."
    )


def test_every_number_of_a_chosen_line_carries_its_reference(shipped_index):
    """ "per 500 GB" is a fact of the price's line too: no number of the answer goes uncited."""
    answer = ask(shipped_index, "Vad kostar extra lagring?", "sv")

    assert answer == "Extra lagring: 49 kr/månad [kb/pricing.md:43] per 500 GB [kb/pricing.md:43]."


def test_a_table_row_is_written_with_its_headers_and_each_cell_cited():
    """A row reads "key: Header cell; Header cell", each number whole ("14,490") and cited."""
    table = (
        "## Bikes\n\n| Model | Weight | Price (SEK) |\n|---|---|---|\n"
        "| Trail | 13.8 kg | 14,490 |\n| Road | 9.1 kg | 21,990 |"
    )
    snippet = Snippet("products.md", table, 5, heading="Bikes")
    request = LLMRequest(question="What does the Trail cost?", snippets=[snippet], language="en")

    assert compose(request) == (
        "Trail: Weight 13.8 kg [products.md:9]; Price (SEK) 14,490 [products.md:9]."
    )


def test_a_question_without_a_number_gets_the_line_that_names_its_subject(shipped_index):
    """A line with no number answers when it names what the question asks about."""
    answer = ask(shipped_index, "Kan jag betala med Swish?", "sv")

    assert "Swish" in answer and not REFERENCE.search(answer)


def test_a_follow_up_without_a_subject_takes_the_previous_questions(shipped_index):
    """ "Och per år?" after Standard's price is Standard's yearly price."""
    snippets = retrieve(shipped_index, "Vad kostar Standard? Och per år?").snippets
    request = LLMRequest(
        question="Och per år?",
        snippets=snippets,
        language="sv",
        history=[Exchange("Vad kostar Standard?", "Standard: 199 kr/månad.")],
    )

    assert compose(request) == "Standard årsvis: 1 990 kr/år [kb/pricing.md:33]."


def test_hallucinate_changes_the_digits_and_keeps_the_references(shipped_index):
    """The demo's wrong answer: every digit changed, the reference still the true line's."""
    answer = ask(shipped_index, "Vad kostar Premium per månad? hallucinate", "sv")

    assert answer == "Premium: 777 kr/månad [kb/pricing.md:18]."


async def test_the_stream_carries_the_references_only_when_the_request_cites(shipped_index):
    """``cite`` asks for the references; without it the same answer streams without them."""
    question = "Vad kostar Premium per månad?"
    snippets = retrieve(shipped_index, question).snippets
    backend = MockBackend()

    async def streamed(cite: bool) -> str:
        request = LLMRequest(question=question, snippets=snippets, language="sv", cite=cite)
        return "".join([delta async for delta in backend.stream(request)])

    assert await streamed(True) == "Premium: 399 kr/månad [kb/pricing.md:18]."
    assert await streamed(False) == "Premium: 399 kr/månad."
