"""Numbers written in words, scale words and other digit forms: read as their digits."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from grounding.cited import verify_cited
from grounding.guard import GuardedStream
from grounding.notation import Kind, read_numbers
from grounding.numerals import spelled_out, with_digits
from grounding.snippets import Snippet

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
        # The label in both languages: the English answer names the fact's key (rule row 4).
        text=f"## Priser\n- Årsavgift / annual fee: {value} kr per år",
        start_line=1,
        heading="Priser",
        score=1.0,
    )


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("sv", "Årsavgiften är {} kronor per år [kb/prices.md:2]."),
        ("en", "The annual fee is {} kronor a year [kb/prices.md:2]."),
    ],
)
@given(value=st.integers(min_value=2, max_value=1_000_000))
@settings(max_examples=60, deadline=None)
def test_a_value_in_words_passes_where_the_kb_states_it_and_its_neighbours_do_not(
    language, sentence, value
):
    """Through the checker: the KB's value in words is grounded; the value +- 1 is withheld."""
    snippets = [_price_snippet(value)]
    right = sentence.format(words(value, language))
    assert verify_cited(right, snippets).grounded, right
    for wrong_value in (value - 1, value + 1):
        wrong = sentence.format(words(wrong_value, language))
        assert not verify_cited(wrong, snippets).grounded, wrong


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Premium kostar femhundra kronor i månaden.", "sv", [("500", "SEK")]),
        ("har tio TB lagring", "sv", [("10", "TB")]),
        ("tjugofem kronor", "sv", [("25", "SEK")]),
        ("tvåtusen kronor", "sv", [("2000", "SEK")]),
        ("ett tusen kronor", "sv", [("1000", "SEK")]),
        ("ettusen tvåhundra kronor", "sv", [("1200", "SEK")]),
        # "hundra" after a space: one number, never digits grouped as "3 100".
        ("tre hundra kilometer", "sv", [("300", "km")]),
        ("två hundra femtio kronor", "sv", [("250", "SEK")]),
        ("ett tusen två hundra kronor", "sv", [("1200", "SEK")]),
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
        ("Vi svarar inom en vardag.", "sv", [("1", "workday")]),
        # After a clock time it says which day: "on a weekday".
        ("Beställ före 11:00 en vardag.", "sv", [("11:00", None)]),
        ("Lämna in före kl. 10 en vardag.", "sv", [("10:00", None)]),
        # After a bound that counts, whatever follows: "at most one loan".
        ("Du kan ha högst ett lån samtidigt.", "sv", [("1", None)]),
        ("Minst en vuxen följer med.", "sv", [("1", None)]),
        ("You can have at most one loan at a time.", "en", [("1", None)]),
        ("Det är en bra fråga.", "sv", []),
    ],
)
def test_en_ett_and_one_are_numbers_only_before_a_quantity_word_or_after_a_bound(
    text, language, expected
):
    assert amounts(text, language) == expected


def test_fixed_phrases_and_ordinals_after_every():
    assert [(r.kind, r.value) for r in read_numbers("Det tar en kvart.", "sv")] == [
        (Kind.DURATION, "15")
    ]
    assert [(r.kind, r.value) for r in read_numbers("Nu till halva priset.", "sv")] == [
        (Kind.PERCENTAGE, "50")
    ]
    # Read as "var 12:e timme" is: the words and the digits meet on one reading.
    assert [(r.value, r.unit) for r in read_numbers("Vi mäter var tolfte timme.", "sv")] == [
        ("12", None)
    ]
    assert read("Vi mäter var tolfte timme.", "sv") == read("Vi mäter var 12:e timme.", "sv")
    assert read_numbers("Den tolfte gången.", "sv") == []  # an ordinal alone is no value


@pytest.mark.parametrize("text", ["²⁹⁹ kr", "⑵⑨⑨ kr", "２９９ kr", "٢٩٩ kr", "𝟐𝟗𝟗 kr"])
def test_every_digit_form_reads_as_its_digits(text):
    assert amounts(text, "sv") == [("299", "SEK")]


def test_a_numeric_character_with_no_single_digit_is_refused():
    """ "½" or "⑩" is read as the code "00": not 0, which a KB's "0 kr" would back."""
    assert read("Det kostar ½ kr.", "sv") == [(Kind.CODE, "00")]
    assert read("Det kostar ⑩ kr.", "sv") == [(Kind.CODE, "00")]
    kb = [Snippet(file="kb/a.md", text="## Avgifter\nStartavgift: 0 kr", start_line=1)]
    answer = "Startavgiften är ⑩ kr [kb/a.md:2]."
    assert not verify_cited(answer, kb, question="Startavgift?").grounded
    assert verify_cited("Startavgiften är 0 kr [kb/a.md:2].", kb, question="Startavgift?").grounded


def read(text: str, language: str) -> list[tuple[Kind, str]]:
    return [(r.kind, r.value) for r in read_numbers(text, language)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Det tar en och en halv timme.", [(Kind.DURATION, "1.5")]),
        ("It takes two and a half hours.", [(Kind.DURATION, "2.5")]),
        ("Du får en treårsgaranti.", [(Kind.DURATION, "3")]),
        ("Tusen tack för att du väntade!", []),
        ("Försök en gång till.", []),
        ("Tusen kronor", [(Kind.AMOUNT, "1000")]),
    ],
)
def test_halves_compound_heads_and_idioms(text, expected):
    assert read(text, "sv") == expected


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        # not "en" before a unit: 1.5, not 1
        ("Tvätten tar en och en halv timme [kb/a.md:5].", False),
        ("Tvätten tar en timme [kb/a.md:5].", True),
        ("Du får en treårsgaranti [kb/a.md:4].", False),
        ("Du får en tvåårsgaranti [kb/a.md:4].", True),
        ("Tusen tack! Startavgiften är 0 kr [kb/a.md:3].", True),
        ("Byt filtret var tolfte timme [kb/a.md:2].", True),
        ("Byt filtret var elfte timme [kb/a.md:2].", False),
    ],
)
def test_words_meet_the_digits_of_the_kb(answer, grounded):
    kb = [
        Snippet(
            file="kb/a.md",
            text=(
                "## Tvätt\nByt filtret var 12:e timme.\nStartavgift: 0 kr\n"
                "Garanti: 2-årsgaranti\nTvätten tar 1 timme."
            ),
            start_line=1,
        )
    ]
    verdict = verify_cited(answer, kb, question="Hur fungerar tvätten?")
    assert verdict.grounded is grounded, verdict.unsupported


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
        (
            "Premium kostar femhundra kronor i månaden [kb/pricing.md:2] och har tio TB lagring "
            "[kb/pricing.md:3].",
            False,
        ),
        ("Premium costs two hundred kronor a month [kb/pricing.md:2].", False),
        ("Premium kostar trehundranittionio kronor i månaden [kb/pricing.md:2].", True),
        ("Premium kostar 399 tusen kr i månaden [kb/pricing.md:2].", False),
        ("Premium kostar 399 miljoner kr i månaden [kb/pricing.md:2].", False),
        ("Premium kostar 399 öre i månaden [kb/pricing.md:2].", False),
        ("Premium kostar ²⁹⁹ kr i månaden [kb/pricing.md:2].", False),
        ("Premium kostar ³⁹⁹ kr i månaden [kb/pricing.md:2].", True),
        ("Premium har fem TB lagring [kb/pricing.md:3].", True),
    ],
)
def test_the_issues_examples_against_the_shipped_kbs_lines(answer, grounded):
    assert verify_cited(answer, SHIPPED).grounded is grounded, answer


@pytest.mark.parametrize("cut", range(1, 40))
def test_the_guard_holds_a_numeral_heading_a_compound(cut):
    """ "treårsgaranti" against "2-årsgaranti": no frame carries any of it, however cut."""
    kb = [Snippet(file="kb/a.md", text="## Garanti\nGaranti: 2-årsgaranti", start_line=1)]
    answer = "Du får en treårsgaranti på cykeln."
    stream = GuardedStream(kb, question="Vilken garanti får jag?")
    stream.feed(answer[:cut])
    stream.feed(answer[cut:])
    stream.finish()
    assert stream.failed is not None
    assert "tre" not in stream.released


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("Kan tecknas för barn från ett till och med 17 år.", ["1"]),
        ("Leverans tar en till tre dagar.", ["1", "3"]),
        ("Delivery takes one to three days.", ["1", "3"]),
        # No range: an article or "one more" stays a word.
        ("Vill du ha ett till?", []),
        ("Det tar en gång till.", []),
        ("Pick one to go.", []),
    ],
)
def test_an_article_opening_a_range_is_a_number(text, digits):
    assert [s.digits for s in spelled_out(text, "sv")] == digits
