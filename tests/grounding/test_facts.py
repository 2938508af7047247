"""Facts from markdown: tables as rows and cells, lists with their lead-in, prose by clause."""

import pytest

from grounding.claims import extract_claims
from grounding.facts import Fact, Kind, extract_facts, label_terms

TABLE = """# Avgifter

Beloppen gäller per år.

| Kärlstorlek | Årsavgift | Pris (EUR) |
|---|---|---|
| 140 liter | 1 240 kr | 120 |
| 190 liter | 1 680 kr | 160 |
"""

LIST = """# Kontakt

Telefontider:

- Växel: 0571-48 20 00
- Måndag–torsdag: 08.00–16.30
"""

PROSE = """# Barngrupper

Riktmärket är högst 12 barn per grupp för barn i åldern 1–3 år och högst 16 barn per grupp \
för barn i åldern 4–5 år.
"""


def by_value(facts: list[Fact], value: str) -> Fact:
    return next(fact for fact in facts if fact.value == value)


def test_table_cells_are_facts_with_row_column_and_line():
    facts = extract_facts(TABLE, file="kb/avfall.md")
    fee = by_value(facts, "1680")
    assert (fee.kind, fee.unit, fee.line, fee.cell) == (Kind.AMOUNT, "SEK", 8, (2, 1))
    assert fee.text == "| 190 liter | 1 680 kr | 160 |"


def test_table_row_key_and_column_header_are_the_subject():
    fee = by_value(extract_facts(TABLE, file="kb/avfall.md"), "1680")
    assert {"n:190", "årsavgift"} <= fee.qualifiers
    assert "n:140" not in fee.subject
    assert "avgift" in fee.subject  # the heading path


def test_a_rows_description_before_a_number_and_its_key_columns_header_are_its_subject():
    """The number-less cells between a row's key and a number describe the row; a cell after
    the number is a value of its own ("Free of charge" is the fee, not what 14 days are)."""
    facts = extract_facts(
        "| Step | What happens | Typical time |\n|---|---|---|\n"
        "| Meter change | Your grid operator installs a meter | 1–3 weeks |\n\n"
        "| Loan amount | 15 years |\n|---|---|\n| 110 000 kr | 867 kr |\n\n"
        "| Cancellation | Fee |\n|---|---|\n| More than 14 days before | Free of charge |\n",
        file="kb/x.md",
        language="en",
    )
    weeks, _, _, monthly, days = facts
    assert {"grid", "operator", "install", "step"} <= weeks.subject
    assert monthly.value == "867" and "loan" in monthly.subject
    assert days.value == "14" and not {"free", "charge"} & days.subject


def test_header_states_currency_and_period_for_its_cells():
    facts = extract_facts(TABLE, file="kb/avfall.md")
    euro = by_value(facts, "160")
    assert (euro.kind, euro.unit) == (Kind.AMOUNT, "EUR")
    assert by_value(facts, "1240").period == "year"  # "Årsavgift": a compound's head


def test_lead_in_period_flows_to_the_table():
    facts = extract_facts(
        "Priserna gäller per månad.\n\n| Plan | Pris |\n|---|---|\n| A | 99 kr |\n", file="x"
    )
    assert by_value(facts, "99").period == "month"


def test_list_items_with_a_label():
    facts = extract_facts(LIST, file="kb/kontakt.md")
    phone = by_value(facts, "+46571482000")
    assert (phone.kind, phone.line) == (Kind.PHONE, 5)
    assert "växel" in phone.qualifiers
    hours = by_value(facts, "08:00-16:30")
    assert hours.kind is Kind.TIME_RANGE
    assert {"weekday:1", "weekday:4"} <= hours.qualifiers
    assert "telefontid" in hours.subject  # the list's lead-in


def test_prose_with_several_values_binds_each_to_its_clause():
    facts = extract_facts(PROSE, file="kb/forskola.md")
    twelve, sixteen = by_value(facts, "12"), by_value(facts, "16")
    assert "n:1-3" in twelve.qualifiers and "n:4-5" not in twelve.qualifiers
    assert "n:4-5" in sixteen.qualifiers and "n:1-3" not in sixteen.qualifiers
    assert "riktmärke" in sixteen.subject  # the line's opening words hold for both


def test_front_matter_keeps_line_numbers():
    text = "---\ntitle: X\n---\n# Priser\n\n- Basic: 99 kr/månad\n"
    (fact,) = extract_facts(text, file="kb/x.md")
    assert (fact.value, fact.line, fact.period) == ("99", 6, "month")


def test_first_line_offsets_a_chunk():
    (fact,) = extract_facts("- Basic: 99 kr", file="kb/x.md", first_line=10)
    assert fact.line == 10


def test_ordered_list_items_are_ordinal_facts():
    facts = extract_facts("1. Öppna appen\n2. Välj Inställningar\n", file="kb/x.md")
    assert [(f.kind, f.value, f.line) for f in facts] == [
        (Kind.ORDINAL, "1", 1),
        (Kind.ORDINAL, "2", 2),
    ]


def test_keys_find_a_range_by_its_ends_and_a_date_by_its_day():
    facts = extract_facts("- Måndag: 10.00–19.00\n- Stängt 2026-06-19\n", file="x")
    assert set(by_value(facts, "10:00-19:00").keys()) >= {"time:10:00", "time:19:00"}
    assert "date:--06-19" in by_value(facts, "2026-06-19").keys()  # noqa: SIM118 (a Fact)


LINES = """# Kontakta oss

Kundtjänst nås på telefon 08-555 123 40.
Felanmälan dygnet runt: 020-45 45 45.
Vardagar: 08:00–18:00
Lördagar: 10:00–14:00
"""


def test_each_line_of_a_paragraph_is_its_own_clause():
    facts = extract_facts(LINES, file="kb/kontakt.md")
    fault = by_value(facts, "+4620454545")
    assert "felanmälan" in fault.subject and "kundtjänst" not in fault.subject
    weekdays = by_value(facts, "08:00-18:00")
    assert "weekday:6" not in weekdays.subject
    assert "weekday:6" in by_value(facts, "10:00-14:00").subject


def test_opening_lines_without_a_number_lead_every_line():
    facts = extract_facts(
        "Priser för Plan Max:\nMånadsavgift: 199 kr\nStartavgift: 99 kr\n", file="a.md"
    )
    assert {"max", "startavgift"} <= by_value(facts, "99").subject
    assert "månadsavgift" not in by_value(facts, "99").subject


def test_an_enumeration_binds_each_item_to_its_own_words():
    text = "In 2025 our mix was 58.5% hydropower, 34.0% wind power and 7.5% solar power.\n"
    facts = extract_facts(text, file="a.md", language="en")
    hydro, wind = by_value(facts, "58.5"), by_value(facts, "34")
    assert "hydropower" in hydro.subject and "wind" not in hydro.subject
    assert "wind" in wind.subject and "hydropower" not in wind.subject
    assert "mix" in wind.subject  # the words before the first item lead every item


def test_a_sentence_end_ends_a_clause():
    text = "Opening hours: Monday to Friday, 8 am–5 pm. On Thursdays we are open until 7 pm.\n"
    facts = extract_facts(text, file="a.md", language="en")
    assert "until" not in by_value(facts, "08:00-17:00").qualifiers
    assert "until" in by_value(facts, "19:00").qualifiers


def test_a_conjunction_after_a_comma_ends_the_clause_not_a_later_one_joining_two_names():
    text = "Behållaren har 10 års garanti, medan elpatron och termostat har 3 år.\n"
    facts = extract_facts(text, file="a.md")
    ten, three = by_value(facts, "10"), by_value(facts, "3")
    assert "elpatron" not in ten.qualifiers and "behållare" in ten.qualifiers
    assert {"elpatron", "termostat"} <= three.qualifiers


def _days(fact: Fact) -> set[str]:
    return {term for term in fact.qualifiers if term.startswith("weekday:")}


@pytest.mark.parametrize(
    ("line", "value", "days", "other", "other_days"),
    [
        (
            "- Alvesta: 0472-305 60, telefontid måndag, tisdag, onsdag och fredag kl. 8.00–9.30",
            "08:00-09:30",
            {1, 2, 3, 5},
            "+4647230560",
            set(),
        ),
        (
            "- Studio productions: unreserved seating, SEK 295 (Friday and Saturday SEK 325)",
            "325",
            {5, 6},
            "295",
            set(),
        ),
    ],
)
def test_a_list_of_days_joined_by_a_conjunction_is_the_later_numbers(
    line, value, days, other, other_days
):
    """The "och" of "onsdag och fredag" ends no clause there: the list is the later number's."""
    facts = extract_facts(f"# Kontakt\n\n{line}\n", file="a.md")
    assert _days(by_value(facts, value)) == {f"weekday:{day}" for day in days}
    assert _days(by_value(facts, other)) == other_days


@pytest.mark.parametrize(
    ("sentence", "near"),
    [
        (
            "Mattan kostar 320 kr per kvadratmeter, med ett minsta pris på 795 kr.",
            {"320": {"matta", "kosta"}, "795": {"liten", "pris"}},
        ),
        (
            "Flyttstädningen kostar 7 980 kr före RUT, alltså 3 990 kr efter avdraget.",
            {"7980": {"flyttstädning", "rut"}, "3990": {"avdrag"}},
        ),
        (
            # No comma between them: the words between are either number's label.
            "We charge SEK 29.90 per litre of missing fuel plus a refuelling fee of SEK 250.",
            {"29.9": {"charge"}, "250": set()},
        ),
    ],
)
def test_a_numbers_own_words_in_a_clause_of_several_end_at_a_comma(sentence, near):
    claims = {claim.value: claim for claim in extract_claims(sentence)}
    for value, words in near.items():
        assert words <= claims[value].near, claims[value].near
        others = set().union(*near.values()) - words
        assert not others & claims[value].near


def test_months_are_markers_of_their_clause_and_a_dates_month_is_its_value():
    facts = extract_facts(
        "| Season | Price |\n|---|---|\n| Energy price, November–March | 78.40 öre/kWh |\n",
        file="a.md",
    )
    assert {"month:11", "month:12", "month:1", "month:3"} <= by_value(facts, "78.4").subject
    dated = extract_facts("Premien höjs med 2,5 % den 1 april 2026.\n", file="a.md")
    assert "month:4" not in by_value(dated, "2.5").subject


def test_a_bold_lead_of_a_list_item_is_its_label():
    (fact,) = extract_facts("- **Premium** includes 2 guest passes a month\n", file="a.md")
    assert label_terms(fact) == {"premium"}
    (plain,) = extract_facts("- Premium includes 2 guest passes a month\n", file="a.md")
    assert label_terms(plain) == frozenset()
