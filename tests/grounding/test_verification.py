"""Verifying answers against retrieved snippets: citations, rejections, subjects."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.lookup import FactTable
from grounding.snippets import Snippet
from grounding.verification import (
    _ABBREVIATIONS,
    NO_SUPPORT,
    NUMBER_MISMATCH,
    WRONG_SUBJECT,
    _is_abbreviation,
    _word_start,
    split_sentences,
    verify_answer,
)

PRICING = Snippet(
    file="kb/pricing.md",
    text=(
        "## Priser\n"
        "- Basic: 99 kr/månad\n"
        "- Premium: 399 kr/månad\n"
        "- Premium ingår 1 TB lagring\n"
        "\n"
        "Moms 25 % ingår."
    ),
    start_line=10,
    heading="Priser och abonnemang",
    score=3.0,
)
CONTACT = Snippet(
    file="kb/contact.md",
    text="Telefon: +46 8 123 45 67\nÖppettider: vardagar 08:00-17:00",
    start_line=5,
    heading="Kontakt",
    score=2.0,
)
TERMS = Snippet(
    file="kb/terms.md",
    text="Dröjsmålsränta: 8,5 %\nVillkoren gäller från 2025-01-01",
    start_line=3,
    heading="Villkor",
    score=1.0,
)
SNIPPETS = [PRICING, CONTACT, TERMS]


def verify(answer: str, snippets=SNIPPETS):
    return verify_answer(answer, snippets)


def cited(verdict) -> list[tuple[str, int, str]]:
    return [(c.file, c.line, c.snippet) for c in verdict.citations]


def test_no_snippets_means_no_support():
    """Without retrieved snippets an answer without numbers is not grounded."""
    verdict = verify_answer("Hej! Hur kan jag hjälpa dig?", [])
    assert (verdict.grounded, verdict.citations, verdict.reason) == (False, [], NO_SUPPORT)


def test_a_fact_found_by_value_supports_a_number_retrieval_missed():
    """With no snippet retrieved, the KB's facts found by value still decide each number."""
    kb = FactTable.from_documents(
        {"kb/villkor.md": "- Flyttavgift: 395 kr\n- Startavgift: 0 kr\n- Router: 1 295 kr"}
    )
    right = verify_answer("Flyttavgiften är 395 kr.", [], facts=kb)
    assert right.grounded and cited(right) == [("kb/villkor.md", 1, "- Flyttavgift: 395 kr")]
    assert not verify_answer("Flyttavgiften är 396 kr.", [], facts=kb).grounded
    assert not verify_answer("Flyttavgiften är 1 295 kr.", [], facts=kb).grounded
    assert verify_answer("Det kan jag hjälpa till med.", [], facts=kb).reason == NO_SUPPORT


def test_answer_without_numbers_cites_best_overlapping_line():
    """Prose is grounded when there is a snippet; it cites the line sharing most words."""
    verdict = verify("Premium ingår med lagring för dina filer.")
    assert verdict.grounded and verdict.reason is None and verdict.unsupported == []
    assert cited(verdict) == [("kb/pricing.md", 13, "- Premium ingår 1 TB lagring")]


def test_supported_numbers_cite_exactly_their_lines():
    """Each number cites the line that supports it, once, with the snippet's file and score."""
    verdict = verify(
        "Premium kostar 399 kr/månad och ingår med 1 TB. Ring +46-8-123-45-67 om du undrar."
    )
    assert verdict.grounded
    assert cited(verdict) == [
        ("kb/pricing.md", 12, "- Premium: 399 kr/månad"),
        ("kb/pricing.md", 13, "- Premium ingår 1 TB lagring"),
        ("kb/contact.md", 5, "Telefon: +46 8 123 45 67"),
    ]
    assert [c.score for c in verdict.citations] == [3.0, 3.0, 2.0]


def test_unsupported_number_withholds_the_answer():
    """A number in no snippet: not grounded, listed, with the top snippets as citations."""
    verdict = verify("Premium kostar 499 kr/månad.")
    assert not verdict.grounded
    assert verdict.reason == NUMBER_MISMATCH
    assert [(u.text, u.kind, u.reason) for u in verdict.unsupported] == [
        ("499 kr", "amount", "not in the knowledge base")
    ]
    assert [c.file for c in verdict.citations] == ["kb/pricing.md", "kb/contact.md", "kb/terms.md"]
    assert verdict.citations[0].snippet == "- Premium: 399 kr/månad"
    assert all(u.kb_locations == [] for u in verdict.unsupported)


def test_failure_citations_are_at_most_three():
    """Only the top three retrieved snippets are shown when the answer is withheld."""
    extra = Snippet(file="kb/extra.md", text="Övrigt", start_line=1)
    verdict = verify("Det kostar 5 kr.", [*SNIPPETS, extra])
    assert len(verdict.citations) == 3


def test_basic_at_premiums_price_is_the_wrong_subject():
    """399 kr/månad is Premium's price: said of Basic it is rejected."""
    verdict = verify("Basic kostar 399 kr/månad.")
    assert not verdict.grounded
    assert verdict.reason == WRONG_SUBJECT
    assert [u.reason for u in verdict.unsupported] == ["wrong subject"]


def test_premium_price_in_other_words_passes():
    """The same fact in other words and another unit spelling is supported."""
    verdict = verify("Premium kostar 399 kronor i månaden.")
    assert verdict.grounded
    assert cited(verdict) == [("kb/pricing.md", 12, "- Premium: 399 kr/månad")]


@pytest.mark.parametrize(
    "answer",
    [
        "Premium-planen kostar 399 kr/månad.",
        "Premiums pris är 399 kr per månad.",
        "För 399 kr/månad får du Premium.",
        "Basic kostar 99 kr och Premium 399 kr i månaden.",
        "Dröjsmålsräntan är 8,5 %.",
        "Telefon: 08-123 45 67, vardagar 08:00-17:00.",
    ],
)
def test_subject_is_matched_through_endings_and_word_order(answer):
    """Definite and genitive endings, hyphen compounds and a subject after the number work."""
    assert verify(answer).grounded


@pytest.mark.parametrize(
    "answer",
    [
        "Basic-planen kostar 399 kr/månad.",
        "Basic har 1 TB lagring.",
        "För 399 kr/månad får du Basic.",
        "Dröjsmålsräntan är 25 %.",
        "Premium kostar 399 kr och Basic 399 kr.",
    ],
)
def test_right_number_on_the_wrong_subject_is_rejected(answer):
    """A number that exists in the snippets but belongs to another subject fails."""
    verdict = verify(answer)
    assert not verdict.grounded
    assert verdict.reason == WRONG_SUBJECT


def test_subject_from_a_heading_is_cited_with_the_fact_line():
    """When only the heading names the subject, it still binds; the fact's line is cited."""
    snippet = Snippet(
        file="kb/plans.md",
        text="## Premium\n- Lagring: 5 TB\n## Basic\n- Lagring: 100 GB",
        start_line=1,
    )
    verdict = verify_answer("Premium har 5 TB lagring.", [snippet])
    assert verdict.grounded
    assert cited(verdict) == [("kb/plans.md", 2, "- Lagring: 5 TB")]
    wrong = verify_answer("Basic har 5 TB lagring.", [snippet])
    assert wrong.reason == WRONG_SUBJECT


def test_heading_path_above_the_chunk_counts_for_its_lines():
    """``Snippet.heading`` names the subject for every line of the chunk."""
    snippet = Snippet(file="kb/plans.md", text="- Lagring: 5 TB", start_line=7, heading="Premium")
    verdict = verify_answer("Premium har 5 TB.", [snippet])
    assert verdict.grounded
    assert cited(verdict) == [("kb/plans.md", 7, "- Lagring: 5 TB")]
    wrong = verify_answer("Basic har 5 TB.", [snippet])
    assert not wrong.grounded


def test_kb_wide_subject_missing_from_the_snippets_still_rejects():
    """A subject whose own fact was not retrieved can't borrow another plan's number."""
    only_premium = Snippet(file="kb/pricing.md", text="- Premium: 399 kr/månad", start_line=3)
    kb = FactTable.from_documents(
        {"kb/pricing.md": "- Basic: 99 kr/månad\n- Premium: 399 kr/månad"}
    )
    verdict = verify_answer("Basic kostar 399 kr/månad.", [only_premium], facts=kb)
    assert verdict.reason == WRONG_SUBJECT


GROUNDED = (
    "Premium kostar 399 kr/månad och ger 1 TB lagring. "
    "Ring +46 8 123 45 67 vardagar 08:00-17:00. "
    "Dröjsmålsräntan är 8,5 % och villkoren gäller från 2025-01-01."
)


def test_reference_answer_is_grounded():
    """The answer the mutation tests start from passes."""
    assert verify(GROUNDED).grounded


@pytest.mark.parametrize("index", [i for i, char in enumerate(GROUNDED) if char.isdigit()])
def test_changing_any_digit_fails(index):
    """Every single-digit change of a grounded answer is caught."""
    for digit in "0123456789":
        if digit == GROUNDED[index]:
            continue
        mutated = GROUNDED[:index] + digit + GROUNDED[index + 1 :]
        assert not verify(mutated).grounded, mutated


@pytest.mark.parametrize(
    ("original", "changed"),
    [
        ("8,5 %", "85 %"),
        ("8,5 %", "0,85 %"),
        ("399 kr", "39,9 kr"),
        ("8,5 %", "5,8 %"),
        ("är 8,5 %", "är 25 %"),
        ("2025-01-01", "2025-10-01"),
        ("2025-01-01", "2025-01-10"),
        ("+46 8 123 45 67", "+46 8 123 54 67"),
        ("+46 8 123 45 67", "+46 8 213 45 67"),
        ("08:00-17:00", "08:00-18:00"),
        ("1 TB", "1 GB"),
        ("399 kr/månad", "399 kr/år"),
    ],
)
def test_moving_swapping_or_relabelling_numbers_fails(original, changed):
    """A moved decimal point, swapped digits or another unit is not the KB's number."""
    mutated = GROUNDED.replace(original, changed)
    assert mutated != GROUNDED
    assert not verify(mutated).grounded, mutated


def test_percentage_in_answer_needs_percentage_in_snippet():
    """ "25 %" is supported by "25 %" in the KB; "99 %" is not supported by "99 kr"."""
    assert verify("Momsen är 25 %.").grounded
    assert not verify("Basic har 99 % nöjda kunder.").grounded


def test_digit_grouping_is_read_by_the_answers_language():
    """ "1,000" is a thousand in English and one in Swedish (babel's locale data)."""
    thousand = Snippet(file="kb/x.md", text="Maxgräns: 1000 filer", start_line=1)
    assert verify_answer(
        "The limit is 1,000 files.", [thousand], question="What is the limit?"
    ).grounded
    verdict = verify_answer("Gränsen är 1,000 filer.", [thousand], question="Vad är gränsen?")
    assert not verdict.grounded
    assert verdict.unsupported[0].reason == "not in the knowledge base"
    one = Snippet(file="kb/x.md", text="Maxgräns: 1 fil", start_line=1)
    assert verify_answer("Gränsen är 1,000 fil.", [one], question="Vad är gränsen?").grounded


def test_all_unsupported_numbers_are_listed_in_order():
    """Every failing number is reported, in answer order, the first one giving the reason."""
    verdict = verify("Basic kostar 399 kr. Ring 08-999 99 99.")
    assert [u.text for u in verdict.unsupported] == ["399 kr", "08-999 99 99"]
    assert verdict.reason == WRONG_SUBJECT


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Det kostar 12.5 kr. Ring oss!", ["Det kostar 12.5 kr.", " Ring oss!"]),
        ("Ca. 5 kr per st.\nNästa rad", ["Ca. 5 kr per st.\n", "Nästa rad"]),
        ("Slut.", ["Slut."]),
        ("Vad kostar det? 99 kr", ["Vad kostar det?", " 99 kr"]),
    ],
)
def test_split_sentences(text, sentences):
    """Sentences end at .!? before whitespace or at a newline, not in 12.5 or after "ca."."""
    assert split_sentences(text) == sentences


@given(st.text(alphabet="ab .\n\t(1", max_size=60), st.integers(0, 60))
def test_word_start_is_where_the_run_of_non_spaces_starts(text, end):
    """``_word_start`` agrees with walking back one character at a time."""
    end = min(end, len(text))
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    assert _word_start(text, end) == start


@given(
    st.lists(
        st.sampled_from(["ca", "Ca", ".", " ", "\n", "t.ex", "2", "12", "kl", "org.nr", "(", "x"]),
        max_size=10,
    ).map("".join)
)
def test_is_abbreviation_by_its_definition(text):
    """A dot ends an abbreviation when the word it ends is one, or a list item's number."""
    for dot in (index for index, char in enumerate(text) if char == "."):
        word = text[_word_start(text, dot) : dot + 1]
        list_item = word[:-1].isdigit() and text[: dot - len(word) + 1][-1:] in ("", "\n")
        expected = list_item or word.lstrip("([\"'“”‘’").lower() in _ABBREVIATIONS
        assert _is_abbreviation(text, dot) == expected


SLA = Snippet(
    file="kb/sla.md",
    text=(
        "## Tillgänglighet\n"
        "- Premium: 99,9 % tillgänglighet per månad\n"
        "- Basic och Standard: 99,5 % tillgänglighet per månad\n"
        "## Svarstider\n"
        "- Premium: svar inom 4 timmar\n"
        "- Basic: svar inom 48 timmar\n"
        "## Raderade filer\n"
        "- Papperskorg för Premium: raderade filer sparas i 180 dagar\n"
        "- Papperskorg för Basic: raderade filer sparas i 30 dagar"
    ),
    start_line=1,
)


def verify_sla(answer: str):
    return verify_answer(answer, [SLA])


def test_subject_of_an_earlier_clause_carries_over():
    """With no subject in its own clause, a number takes one from the clause before."""
    assert verify_sla("Premium har 99,9 % tillgänglighet och svar inom 4 timmar.").grounded
    wrong = verify_sla("Basic har 99,5 % tillgänglighet och svar inom 4 timmar.")
    assert [u.text for u in wrong.unsupported] == ["4 timmar"]


def test_every_subject_in_the_numbers_clause_must_hold():
    """ "Raderade filer ... för Basic" needs a line about both raderade filer and Basic."""
    assert verify_sla("Raderade filer sparas i 180 dagar för Premium.").grounded
    assert verify_sla("Raderade filer sparas i 180 dagar för Basic.").reason == WRONG_SUBJECT


def test_shared_label_covers_each_of_its_subjects():
    """ "Basic och Standard: 99,5 %" supports 99,5 % said of Basic alone."""
    assert verify_sla("Basic har 99,5 % tillgänglighet per månad.").grounded
    assert verify_sla("Standard har 99,5 % tillgänglighet.").grounded
    assert not verify_sla("Premium har 99,5 % tillgänglighet.").grounded


def test_subject_that_states_only_other_kinds_of_numbers_is_passed_over():
    """The phone's label is not the subject of the opening hours in the same sentence."""
    verdict = verify("Du når oss på telefon 08-123 45 67 vardagar 08:00-17:00.")
    assert verdict.grounded
    assert [c.line for c in verdict.citations] == [5, 6]


HOURS = Snippet(
    file="kb/hours.md",
    text="Måndag–torsdag: 08:00–18:00\nFredag: 08:00–16:00\nTorsdagar öppet till 19.00.",
    start_line=1,
    heading="Öppettider",
    score=1.0,
)


@pytest.mark.parametrize(
    "answer",
    ["Vi har öppet måndag–torsdag 8–18 och fredag 8–16.", "På torsdagar har vi öppet till 19."],
)
def test_a_bare_hour_range_reads_as_the_clock_the_kb_states(answer):
    assert verify(answer, [HOURS]).grounded


@pytest.mark.parametrize(
    "answer",
    ["Vi har öppet fredag 8–18.", "Vi har öppet måndag–torsdag 9–18.", "Vi har 19 butiker."],
)
def test_a_bare_hour_is_no_clock_the_kb_does_not_state_for_it(answer):
    assert not verify(answer, [HOURS]).grounded


@given(st.integers(0, 23), st.integers(1, 24))
def test_a_bare_hour_range_passes_only_as_the_stated_clock(first, last):
    answer = f"Måndag–torsdag har vi öppet {first}–{last}."
    assert verify(answer, [HOURS]).grounded == ((first, last) == (8, 18))


AREAS = Snippet(
    file="kb/prices.md",
    text=(
        "| Price area | Fixed 1 year (öre/kWh) | Fixed 3 years (öre/kWh) |\n"
        "|---|---|---|\n"
        "| SE3 Stockholm | 92.75 | 88.60 |\n"
        "| SE4 Malmö | 108.30 | 99.95 |"
    ),
    start_line=1,
    heading="Electricity prices",
    score=1.0,
)


@pytest.mark.parametrize(
    "answer",
    [
        "In SE4 the 1-year fixed price is 108.30 öre/kWh.",
        "A 3-year fixed price in SE3 costs 88.60 öre/kWh.",
    ],
)
def test_identifiers_name_the_row_and_the_column(answer):
    assert verify(answer, [AREAS]).grounded


@pytest.mark.parametrize(
    "answer",
    [
        "In SE5 the 1-year fixed price is 108.30 öre/kWh.",  # an invented area
        "In SE3 the 1-year fixed price is 108.30 öre/kWh.",  # another row's price
        "In SE4 the 3-year fixed price is 108.30 öre/kWh.",  # another column's price
    ],
)
def test_an_invented_or_swapped_identifier_is_no_support(answer):
    assert not verify(answer, [AREAS]).grounded


@given(st.sampled_from(["SE3", "SE4"]), st.sampled_from(["1-year", "3-year"]))
def test_each_cell_is_bound_to_its_row_and_column(area, plan):
    cells = {
        ("SE3", "1-year"): "92.75",
        ("SE3", "3-year"): "88.60",
        ("SE4", "1-year"): "108.30",
        ("SE4", "3-year"): "99.95",
    }
    for (other_area, other_plan), value in cells.items():
        answer = f"In {area} the {plan} fixed price is {value} öre/kWh."
        expected = (other_area, other_plan) == (area, plan)
        assert verify(answer, [AREAS]).grounded == expected, answer


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Säg upp avtalet senast 30 dagar före förnyelsen.", True),
        ("Säg upp avtalet 30 dagar före förnyelsen.", True),
        ("Säg upp avtalet tidigast 30 dagar före förnyelsen.", False),
    ],
)
def test_a_deadline_belongs_to_its_value(answer, grounded):
    """ "senast" and "tidigast" before a number are conditions like "under" and "över"."""
    snippet = Snippet(
        file="kb/terms.md",
        text="## Uppsägning\nSäg upp avtalet senast 30 dagar före förnyelsen.",
        start_line=1,
        heading="Uppsägning",
        score=1.0,
    )
    assert verify_answer(answer, [snippet]).grounded is grounded


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Bas kostar 4 290 kr i månaden exklusive moms.", True),
        ("Bas kostar 5 362,50 kr per månad inklusive moms.", True),
        ("Bas kostar 4 290 kr per år exklusive moms.", False),
    ],
)
def test_a_column_headed_by_a_monthly_price_states_a_price_per_month(answer, grounded):
    """ "Månadspris" is a price per month, though the dictionary's split is "månad|spris"."""
    snippet = Snippet(
        file="kb/kontor.md",
        text=(
            "| Paket | Besök per vecka | Månadspris exkl. moms | Månadspris inkl. moms |\n"
            "|---|---|---|---|\n"
            "| Bas | 1 | 4 290 kr | 5 362,50 kr |\n"
            "| Standard | 2 | 8 390 kr | 10 487,50 kr |"
        ),
        start_line=1,
        heading="Kontorsstädning",
        score=1.0,
    )
    assert verify_answer(answer, [snippet]).grounded is grounded


def test_the_unit_of_another_number_is_no_period_of_an_amount():
    """ "mer än 4 timmar ... 3 000 kr" is not an hourly price."""
    snippet = Snippet(
        file="kb/resa.md",
        text="## Försenat bagage\nEr ersättning är 3 000 kr per person.",
        start_line=1,
        heading="Försenat bagage",
        score=1.0,
    )
    answer = "Kommer bagaget mer än 4 timmar för sent är ersättningen 3 000 kr per person."
    unsupported = verify_answer(answer, [snippet]).unsupported
    assert [u.text for u in unsupported] == ["4 timmar"]


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("Telefon: 08-123 45 67.", True),
        ("Telefon: 08-123 45 68.", False),
        ("Fakturatelefon: 08-123 45 68.", True),
        ("Premium kostar 499 kr.", False),
        ("Premium Plus kostar 499 kr.", True),
    ],
)
def test_the_most_specific_name_wins(answer, grounded):
    """Row 6b: "Telefon" is the line labelled "Telefon", not the one labelled
    "Fakturatelefon"; "Premium" is not "Premium Plus"."""
    snippet = Snippet(
        file="kb/kontakt.md",
        text=(
            "## Kontakt\n- Telefon: 08-123 45 67\n- Fakturatelefon: 08-123 45 68\n"
            "- Premium: 399 kr\n- Premium Plus: 499 kr"
        ),
        start_line=1,
        heading="Kontakt",
        score=1.0,
    )
    assert verify_answer(answer, [snippet]).grounded is grounded, answer


def test_a_line_without_the_bound_does_not_stand_in_for_the_line_with_it():
    """ "tidigast 30 dagar före" is about the line that says "senast 30 dagar före"; another
    line's plain "30 dagar" does not back it."""
    snippet = Snippet(
        file="kb/terms.md",
        text=(
            "## Villkor\n- Uppsägning av årsabonnemang: senast 30 dagar före förnyelsedatum\n"
            "- Dina filer sparas i 30 dagar efter att abonnemanget har upphört."
        ),
        start_line=1,
        heading="Villkor",
        score=1.0,
    )
    wrong = "Uppsägning av årsabonnemang: tidigast 30 dagar före förnyelsedatum."
    right = "Uppsägning av årsabonnemang: senast 30 dagar före förnyelsedatum."
    assert verify_answer(right, [snippet]).grounded
    assert not verify_answer(wrong, [snippet]).grounded
