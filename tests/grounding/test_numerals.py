"""Numbers written in words, scale words and other digit forms: read as their digits."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from grounding.notation import Kind, read_numbers
from grounding.numerals import spelled_out, with_digits
from grounding.snippets import Snippet
from grounding.verification import verify_answer

VALUES = st.integers(min_value=0, max_value=1_000_000)


def words(value: int, language: str) -> str:
    return num2words(value, lang=language)


def amounts(text: str, language: str) -> list[tuple[str, str | None]]:
    return [(r.value, r.unit) for r in read_numbers(text, language)]


@given(VALUES)
@settings(max_examples=300)
def test_every_swedish_cardinal_num2words_writes_reads_back(value):
    text = f"Det kostar {words(value, 'sv')} kronor."
    assert amounts(text, "sv") == [(str(value), "SEK")], text


@given(VALUES)
@settings(max_examples=300)
def test_every_english_cardinal_num2words_writes_reads_back(value):
    text = f"It costs {words(value, 'en')} kronor."
    assert amounts(text, "en") == [(str(value), "SEK")], text


def _price_snippet(value: int) -> Snippet:
    return Snippet(
        file="kb/prices.md",
        text=f"## Priser\n- Årsavgift: {value} kr per år",
        start_line=1,
        heading="Priser",
        score=1.0,
    )


@pytest.mark.parametrize(
    ("language", "sentence"),
    [("sv", "Årsavgiften är {} kronor per år."), ("en", "The annual fee is {} kronor a year.")],
)
@given(value=st.integers(min_value=2, max_value=1_000_000))
@settings(max_examples=60, deadline=None)
def test_a_value_in_words_passes_where_the_kb_states_it_and_its_neighbours_do_not(
    language, sentence, value
):
    """Through the checker: the KB's value in words is grounded; the value +- 1 is withheld."""
    snippets = [_price_snippet(value)]
    right = sentence.format(words(value, language))
    assert verify_answer(right, snippets).grounded, right
    for wrong_value in (value - 1, value + 1):
        wrong = sentence.format(words(wrong_value, language))
        assert not verify_answer(wrong, snippets).grounded, wrong


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Premium kostar femhundra kronor i månaden.", "sv", [("500", "SEK")]),
        ("har tio TB lagring", "sv", [("10", "TB")]),
        ("tjugofem kronor", "sv", [("25", "SEK")]),
        ("tvåtusen kronor", "sv", [("2000", "SEK")]),
        ("ett tusen kronor", "sv", [("1000", "SEK")]),
        ("ettusen tvåhundra kronor", "sv", [("1200", "SEK")]),
        ("en halv miljon kronor", "sv", [("500000", "SEK")]),
        ("399 tusen kr", "sv", [("399000", "SEK")]),
        ("399 miljoner kr", "sv", [("399000000", "SEK")]),
        ("1,5 miljoner kr", "sv", [("1500000", "SEK")]),
        ("5 million kronor", "en", [("5000000", "SEK")]),
        ("half a million kronor", "en", [("500000", "SEK")]),
        ("twenty-four hours", "en", [("24", "hour")]),
        ("two thousand kronor", "en", [("2000", "SEK")]),
        ("inom tre dagar", "sv", [("3", "day")]),
        ("399 öre", "sv", [("399", "öre")]),
    ],
)
def test_cardinals_and_scale_words(text, language, expected):
    assert amounts(text, language) == expected


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Vi svarar inom ett dygn.", "sv", [("1", "day")]),
        ("Det tar en timme.", "sv", [("1", "hour")]),
        ("It takes one hour.", "en", [("1", "hour")]),
        ("Det är en ny router med ett bra pris.", "sv", []),
        ("Pick the right one.", "en", []),
        ("One of our staff calls you.", "en", []),
    ],
)
def test_en_ett_and_one_are_numbers_only_before_a_quantity_word(text, language, expected):
    assert amounts(text, language) == expected


def test_fixed_phrases_and_ordinals_after_every():
    assert [(r.kind, r.value) for r in read_numbers("Det tar en kvart.", "sv")] == [
        (Kind.DURATION, "15")
    ]
    assert [(r.kind, r.value) for r in read_numbers("Nu till halva priset.", "sv")] == [
        (Kind.PERCENTAGE, "50")
    ]
    assert [(r.value, r.unit) for r in read_numbers("Vi mäter var tolfte timme.", "sv")] == [
        ("12", "hour")
    ]
    assert read_numbers("Den tolfte gången.", "sv") == []  # an ordinal alone is no value


@pytest.mark.parametrize("text", ["²⁹⁹ kr", "⑵⑨⑨ kr", "２９９ kr", "٢٩٩ kr", "𝟐𝟗𝟗 kr"])
def test_every_digit_form_reads_as_its_digits(text):
    assert amounts(text, "sv") == [("299", "SEK")]


def test_a_numeric_character_with_no_single_digit_is_refused():
    """ "½" or "⑩" is read as 0: a number no KB line supports, so the answer is withheld."""
    assert amounts("Det kostar ½ kr.", "sv") == [("0", "SEK")]
    assert amounts("Det kostar ⑩ kr.", "sv") == [("0", "SEK")]


def test_readings_point_at_the_words_in_the_original_text():
    text = "Premium kostar femhundra kronor och Basic 99 kr."
    readings = read_numbers(text, "sv")
    assert [text[r.start : r.end] for r in readings] == ["femhundra kronor", "99 kr"]
    assert [r.text for r in readings] == ["femhundra kronor", "99 kr"]


def test_with_digits_rewrites_only_the_numbers():
    rewritten = with_digits("Premium kostar femhundra kronor, en ny tjänst.", "sv")
    assert rewritten.text == "Premium kostar 500 kronor, en ny tjänst."
    assert spelled_out("Inga siffror här.", "sv") == ()


SHIPPED = [
    Snippet(
        file="kb/pricing.md",
        text="## Priser\n- Premium: 399 kr/månad\n- Premium: 5 TB lagring",
        start_line=1,
        heading="Priser",
        score=1.0,
    )
]


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Premium kostar femhundra kronor i månaden och har tio TB lagring.", False),
        ("Premium costs two hundred kronor a month.", False),
        ("Premium kostar trehundranittionio kronor i månaden.", True),
        ("Premium kostar 399 tusen kr i månaden.", False),
        ("Premium kostar 399 miljoner kr i månaden.", False),
        ("Premium kostar 399 öre i månaden.", False),
        ("Premium kostar ²⁹⁹ kr i månaden.", False),
        ("Premium kostar ³⁹⁹ kr i månaden.", True),
        ("Premium har fem TB lagring.", True),
    ],
)
def test_the_issues_examples_against_the_shipped_kbs_lines(answer, grounded):
    assert verify_answer(answer, SHIPPED).grounded is grounded, answer
