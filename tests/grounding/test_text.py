import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.text import (
    ENGLISH,
    STOPWORDS,
    SWEDISH,
    content_terms,
    detect_language,
    document_terms,
    normalize_word,
    query_terms,
    remove_invisible,
    split_compound,
    words,
)


@pytest.mark.parametrize(
    "text",
    ["Vad kostar premium?", "ja", "Ring mig imorgon", "gärna", "tack", "okej", "ok", "Hej!"],
)
def test_short_swedish_texts_are_swedish(text):
    """Short Swedish questions and acknowledgements are detected as Swedish."""
    assert detect_language(text) == SWEDISH


@pytest.mark.parametrize(
    "text",
    ["What does premium cost?", "call me", "yes", "ok thanks", "How do I cancel my plan?"],
)
def test_english_texts_are_english(text):
    """English questions and acknowledgements are detected as English."""
    assert detect_language(text) == ENGLISH


@pytest.mark.parametrize("text", ["", "   ", "12345", "premium", "?!"])
def test_undecided_texts_default_to_swedish(text):
    """Without evidence either way the language is Swedish."""
    assert detect_language(text) == SWEDISH


def test_swedish_letters_tip_a_tie_towards_swedish():
    """å, ä or ö count as Swedish evidence."""
    assert detect_language("Molnia öppettider") == SWEDISH


@pytest.mark.parametrize(
    "forms",
    [
        ("faktura", "fakturan", "fakturor", "fakturorna"),
        ("ränta", "räntan", "räntor"),
        ("dröjsmålsränta", "dröjsmålsräntan"),
        ("konto", "kontot"),
        ("abonnemang", "abonnemanget", "abonnemangen"),
        ("nummer", "numret"),
        ("telefonnummer", "telefonnumret"),
        ("månad", "månaden"),
        ("villkor", "villkoren"),
        ("betala", "betalning", "betalningen", "betalas"),
        ("kryptering", "krypterade"),
    ],
)
def test_swedish_inflections_share_one_term(forms):
    """Definite, plural and verbal-noun forms of a Swedish word normalise to the same term."""
    assert len({normalize_word(form, SWEDISH) for form in forms}) == 1


def test_short_words_keep_their_ending():
    """Words too short to carry a definite ending are not cut (plan, paket)."""
    assert normalize_word("plan", SWEDISH) != normalize_word("pla", SWEDISH)
    assert normalize_word("paket", SWEDISH) == normalize_word("paketet", SWEDISH)


def test_english_words_are_stemmed_as_english():
    """English inflections meet in the English stemmer."""
    assert normalize_word("invoices", ENGLISH) == normalize_word("invoice", ENGLISH)
    assert normalize_word("costs", ENGLISH) == normalize_word("cost", ENGLISH)


def test_compound_splits_into_parts_known_to_the_vocabulary():
    """telefonnummer splits into telefon + nummer when both are known."""
    vocabulary = {normalize_word(w) for w in ("telefon", "nummer")}
    assert split_compound("telefonnummer", vocabulary) == (
        normalize_word("telefon"),
        normalize_word("nummer"),
    )


def test_compound_split_drops_the_linking_s():
    """uppsägningstid is uppsägning + s + tid."""
    vocabulary = {normalize_word(w) for w in ("uppsägning", "tid")}
    assert split_compound("uppsägningstid", vocabulary) == (
        normalize_word("uppsägning"),
        normalize_word("tid"),
    )


def test_compound_with_one_known_long_part_still_splits():
    """telefonnumret finds "Telefon" even when the KB never writes a bare "nummer"."""
    vocabulary = {normalize_word("telefon")}
    assert split_compound("telefonnumret", vocabulary) == (normalize_word("telefon"),)


def test_words_that_are_no_compounds_do_not_split():
    """Without known parts, or when too short, nothing is split."""
    vocabulary = {normalize_word(w) for w in ("telefon", "nummer", "pre")}
    assert split_compound("premium", vocabulary) == ()
    assert split_compound("telefon", vocabulary) == ()
    assert split_compound("telefonnummer", set()) == ()


def test_stopwords_are_dropped_from_terms():
    """Question words of both languages carry no topic."""
    assert query_terms("Vad är det här?") == []
    assert query_terms("What is this about?") == []
    assert document_terms("Det är en faktura", SWEDISH) == [normalize_word("faktura")]


def test_query_terms_cover_both_languages_and_compound_parts():
    """A query is normalised in both languages, plus compound parts from the vocabulary."""
    vocabulary = {normalize_word(w) for w in ("telefon", "nummer")}
    terms = query_terms("Telefonnumret?", vocabulary)
    assert normalize_word("telefonnumret", SWEDISH) in terms
    assert normalize_word("telefonnumret", ENGLISH) in terms
    assert normalize_word("telefon") in terms
    assert len(terms) == len(set(terms))


def test_content_terms_match_across_inflections():
    """A question and a KB line share terms despite different forms."""
    assert set(content_terms("Hur hög är räntan på fakturan?")) & set(
        content_terms("- Dröjsmålsränta på fakturor: 8 %")
    ) >= {normalize_word("faktura")}


def test_words_keeps_numbers_and_drops_single_letters():
    """Digits are words; single letters are not."""
    assert words("Premium: 399 kr/månad, a 5") == ["premium", "399", "kr", "månad", "5"]


@given(st.text(max_size=200))
def test_query_terms_are_clean(text):
    """Query terms are lowercase, non-empty, distinct and never stopwords."""
    terms = query_terms(text)
    assert len(terms) == len(set(terms))
    for term in terms:
        assert term and term == term.lower() and term not in STOPWORDS


def test_a_word_that_normalises_to_a_stopword_is_no_query_term():
    """Found by hypothesis: "OWNE" stems to the stopword "own"."""
    assert query_terms("OWNE") == []


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzåäö .,:-0123456789", max_size=200))
def test_a_text_matches_its_own_query(text):
    """Every Swedish document term of a text is a query term of the same text."""
    assert set(document_terms(text, SWEDISH)) <= set(query_terms(text))


@given(st.text(max_size=100))
def test_detect_language_always_answers_sv_or_en(text):
    """Language detection never fails and knows two answers."""
    assert detect_language(text) in (SWEDISH, ENGLISH)


# -- invisible characters ---------------------------------------------------------

BIDI_AND_INVISIBLE = [
    *map(chr, range(0x202A, 0x202F)),  # LRE RLE PDF LRO RLO
    *map(chr, range(0x2066, 0x206A)),  # LRI RLI FSI PDI
    "\u200e", "\u200f", "\u061c",  # LRM RLM ALM
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad",  # zero-width, soft hyphen
    "\u2061", "\u2062", "\u2063", "\u2064",  # invisible operators
    "\U000e0031", "\U000e007f",  # tag characters
    "\ufe0f", "\u034f", "\u180e", "\u3164",  # variation selector, CGJ, MVS, Hangul filler
]  # fmt: skip


@pytest.mark.parametrize("char", BIDI_AND_INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_remove_invisible_removes_every_bidi_and_format_character(char):
    """A reordering or invisible character around or inside a number leaves only the number."""
    text = f"Premium kostar {char}3{char}99{char} kr/månad."
    assert remove_invisible(text) == "Premium kostar 399 kr/månad."


def test_remove_invisible_removes_every_format_character():
    """No character of Unicode category Cf survives (the plane-1 and plane-14 ones too)."""
    import sys
    import unicodedata

    every = "".join(
        chr(p) for p in range(sys.maxunicode + 1) if unicodedata.category(chr(p)) == "Cf"
    )
    assert len(every) > 150
    assert remove_invisible(f"a{every}b") == "ab"


# Default-ignorable code points outside Cf (DerivedCoreProperties.txt), removed as well.
_IGNORABLE = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
_VISIBLE = st.characters(exclude_categories=("Cf",)).filter(
    lambda c: not any(low <= ord(c) <= high for low, high in _IGNORABLE)
)


@given(st.text(alphabet=_VISIBLE))
def test_remove_invisible_keeps_every_visible_character(text):
    """Letters, digits, punctuation, whitespace and newlines (line numbers) are kept as they are."""
    assert remove_invisible(text) == text


def test_remove_invisible_keeps_swedish_text_and_lines():
    """Å, ä, ö, non-breaking and thin spaces in numbers (3 990 kr) and line breaks stay."""
    text = "Årsvis: 3\u00a0990 kr/år\nMånad: 3\u2009990\n| Stuga | 650 kr |"
    assert remove_invisible(text) == text


def test_a_question_naming_a_country_or_language_searches_its_name_in_both_languages():
    assert "norway" in query_terms("Kan ni skicka till Norge?")
    assert "tyskland" in query_terms("How do I call you from Germany?")
    assert "engelsk" in query_terms("Do you teach in English?")
