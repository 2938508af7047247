"""Reading numbers: every notation of a value reads to one canonical value, kind and unit."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding.notation import Kind, find_period, parse_number, period_of_compound, read_numbers


def read(text: str, language: str = "sv") -> list[tuple[str, str, str | None, str | None]]:
    return [(str(r.kind), r.value, r.unit, r.period) for r in read_numbers(text, language)]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        # phones (phonenumbers)
        ("Växel: 0571-48 20 00", "sv", [("phone", "+46571482000", None, None)]),
        ("Ring 0571-482000.", "sv", [("phone", "+46571482000", None, None)]),
        ("Call +46 18 420 55 00.", "en", [("phone", "+46184205500", None, None)]),
        ("Ring +46-18-420 55 00.", "sv", [("phone", "+46184205500", None, None)]),
        # dates (month names from babel)
        ("från 2026-06-19", "sv", [("date", "2026-06-19", None, None)]),
        ("den 19 juni 2026", "sv", [("date", "2026-06-19", None, None)]),
        ("on June 19, 2026", "en", [("date", "2026-06-19", None, None)]),
        ("on December 24th, 2026", "en", [("date", "2026-12-24", None, None)]),
        ("den 24/12 2026", "sv", [("date", "2026-12-24", None, None)]),
        ("På midsommarafton den 19/6 kör vi", "sv", [("date", "--06-19", None, None)]),
        ("fredag 19/6", "sv", [("date", "--06-19", None, None)]),
        ("on 6/19", "en", [("date", "--06-19", None, None)]),
        # A slash without a word that names a day is no date: always open, a half.
        ("Öppet 24/7", "sv", [("count", "24", None, None), ("count", "7", None, None)]),
        # units
        ("1,800 square metres", "en", [("quantity", "1800", "m2", None)]),
        ("1 800 kvm", "sv", [("quantity", "1800", "m2", None)]),
        # a lower-case "a" after a number is the article; "A" is the ampere
        ("under 18 a parent must sign", "en", [("count", "18", None, None)]),
        ("en säkring på 16 A", "sv", [("quantity", "16", "A", None)]),
        ("från 2025/01/01", "sv", [("date", "2025-01-01", None, None)]),
        # times and ranges
        ("öppet 12.00–19.00", "sv", [("time_range", "12:00-19:00", None, None)]),
        ("öppet 12:00-19:00", "sv", [("time_range", "12:00-19:00", None, None)]),
        ("svarar kl. 8–15", "sv", [("time_range", "08:00-15:00", None, None)]),
        ("from 11 am to 3 pm", "en", [("time_range", "11:00-15:00", None, None)]),
        ("8:00 am to 4:30 pm", "en", [("time_range", "08:00-16:30", None, None)]),
        ("before 2 pm", "en", [("time", "14:00", None, None)]),
        ("mellan kl. 2 och 5", "sv", [("time_range", "02:00-05:00", None, None)]),
        ("between 9 and 11 am", "en", [("time_range", "09:00-11:00", None, None)]),
        ("mellan 2 och 5 barn", "sv", [("count", "2-5", None, None)]),  # a range, not a time
        ("senast klockan 06.00", "sv", [("time", "06:00", None, None)]),
        # amounts: currency before or after, grouping by locale (babel)
        ("kostar 3 290 kr", "sv", [("amount", "3290", "SEK", None)]),
        ("costs SEK 3,950", "en", [("amount", "3950", "SEK", None)]),
        ("kostar 3,50 kr", "sv", [("amount", "3.5", "SEK", None)]),
        ("kostar 3.50 kr", "sv", [("amount", "3.5", "SEK", None)]),
        ("costs EUR 52.90", "en", [("amount", "52.9", "EUR", None)]),
        ("costs 27500 SEK", "en", [("amount", "27500", "SEK", None)]),
        ("399 kr/månad", "sv", [("amount", "399", "SEK", "month")]),
        ("420 kr per månad", "sv", [("amount", "420", "SEK", "month")]),
        ("SEK 690 an hour", "en", [("amount", "690", "SEK", "hour")]),
        ("5 kr per medium och dag", "sv", [("amount", "5", "SEK", "day")]),
        # percentages
        ("4,5 procent", "sv", [("percentage", "4.5", None, None)]),
        ("15 per cent", "en", [("percentage", "15", None, None)]),
        ("60%", "en", [("percentage", "60", None, None)]),
        # durations and measures
        ("14 dagars ångerrätt", "sv", [("duration", "14", "day", None)]),
        ("a 3-year warranty", "en", [("duration", "3", "year", None)]),
        ("15 timmar per vecka", "sv", [("duration", "15", "hour", "week")]),
        ("väger 15,2 kg", "sv", [("quantity", "15.2", "kg", None)]),
        ("ett 370-literskärl", "sv", [("quantity", "370", "l", None)]),
        ("80 km", "en", [("quantity", "80", "km", None)]),
        ("barn i åldern 1–3 år", "sv", [("duration", "1-3", "year", None)]),
        # codes
        ("671 80 Björkvik", "sv", [("code", "67180", None, None)]),
        ("Windows 00", "sv", [("code", "00", None, None)]),
    ],
)
def test_notation_reads_to_the_canonical_value(text, language, expected):
    assert read(text, language) == expected


def test_grouping_is_read_by_locale():
    """ "1,500" is fifteen hundred in English text and one and a half in Swedish text."""
    assert str(parse_number("1,500", "en")) == "1500"
    assert str(parse_number("1,500", "sv")) == "1.500"
    assert read("SEK 3,500", "en") == [("amount", "3500", "SEK", None)]
    assert read("3,500 kr", "sv") == [("amount", "3.5", "SEK", None)]


def test_a_decimal_with_a_unit_is_not_a_time():
    assert read("3.50 kr") == [("amount", "3.5", "SEK", None)]
    assert read("12.50 %") == [("percentage", "12.5", None, None)]
    # A solar system's peak power: "10.40 kWp" is no 10:40.
    assert read("Sol Plus is a 10.40 kWp system", "en") == [("quantity", "10.4", "kWp", None)]
    assert read("en anläggning på 10,4 kWp") == [("quantity", "10.4", "kWp", None)]


def test_in_after_a_number_is_a_preposition_and_procents_a_percentage():
    """ "20 lockers in the foyer" counts lockers; "15 procents rabatt" is 15 %."""
    assert read("20 lockers in the foyer", "en") == [("count", "20", None, None)]
    assert read("two people in the same household", "en")[0][1] == "2"
    assert read("15 procents rabatt", "sv") == [("percentage", "15", None, None)]


def test_a_yearless_slash_date_opening_a_range_to_a_dated_one_takes_its_year():
    assert read("13/7–2/8 2026", "sv") == [
        ("date", "2026-07-13", None, None),
        ("date", "2026-08-02", None, None),
    ]
    assert read("från 13/1 till 12/3 2026", "sv")[0][:2] == ("date", "2026-01-13")
    assert [r[0] for r in read("öppet 24/7 och 1/2 av priset", "sv")] == ["count"] * 4


def test_a_range_of_dotted_clocks_opened_by_a_word_is_a_time_range():
    assert read("mellan 16.00 och 21.00", "sv") == [("time_range", "16:00-21:00", None, None)]
    assert read("mellan 1.50 och 2.50 kr", "sv")[-1][:2] == ("amount", "2.5")


def test_imperial_units_and_swedish_definite_plurals_of_time_are_units():
    """ "41.5 feet" is not "41.5 m"; "de första 3 veckorna" is not "3 månaderna"."""
    assert read("41.5 feet long", "en") == [("quantity", "41.5", "ft", None)]
    assert read("de första 3 veckorna", "sv") == [("duration", "3", "week", None)]
    assert read("de första 3 månaderna", "sv") == [("duration", "3", "month", None)]


def test_a_decimal_counted_by_something_is_not_a_time():
    """ "0.49 per minute" in a price table is a rate; "kl. 8.30" and "8.30–17.00" stay clocks."""
    assert read("| 0.49 per minute |", "en") == [("count", "0.49", None, "minute")]
    assert read("12.50/st", "sv")[0][:2] == ("count", "12.5")
    assert read("kl. 8.30", "sv") == [("time", "08:30", None, None)]
    assert read("8.30–17.00 per dag", "sv")[0][:2] == ("time_range", "08:30-17:00")


@given(st.text(alphabet=st.sampled_from("0123456789 ,.:-–/+kr%SEKam"), max_size=40))
def test_every_digit_belongs_to_exactly_one_reading(text):
    readings = read_numbers(text, "sv")
    covered = [0] * len(text)
    for reading in readings:
        for index in range(reading.start, reading.end):
            covered[index] += 1
    for index, char in enumerate(text):
        if char.isdigit():
            assert covered[index] == 1, (text, readings)


@given(
    value=st.integers(min_value=1, max_value=999_999),
    cents=st.integers(min_value=0, max_value=99),
)
def test_an_amount_reads_the_same_in_every_notation(value, cents):
    """Grouping, decimal mark and currency position do not change the value."""
    grouped_sv = f"{value:,}".replace(",", " ")
    grouped_en = f"{value:,}"
    fraction = f"{cents:02d}"
    forms = [
        (f"{grouped_sv},{fraction} kr", "sv"),
        (f"{value}.{fraction} kr", "sv"),
        (f"SEK {grouped_en}.{fraction}", "en"),
        (f"{value}.{fraction} SEK", "en"),
    ]
    values = {read_numbers(text, language)[0].value for text, language in forms}
    kinds = {read_numbers(text, language)[0].kind for text, language in forms}
    assert len(values) == 1 and kinds == {Kind.AMOUNT}, forms


def test_digits_of_a_plain_number_are_never_dropped():
    text = "Avgiften är 12 345 kr och 6 procent, ring 08-123 45 67 före 18.00."
    digits = "".join(re.findall(r"\d", text))
    read_digits = "".join(
        ch for r in read_numbers(text, "sv") for ch in text[r.start : r.end] if ch.isdigit()
    )
    assert read_digits == digits


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("för dig mellan 18 och 29 år", "sv", ("duration", "18-29", "year")),
        ("between 2 and 5 days", "en", ("duration", "2-5", "day")),
        ("at least 75 degrees Celsius", "en", ("quantity", "75", "degC")),
        ("minst 75 °C", "sv", ("quantity", "75", "degC")),
    ],
)
def test_ranges_in_words_and_degrees_celsius(text, language, expected):
    (reading,) = read_numbers(text, language)
    assert (reading.kind, reading.value, reading.unit) == expected


@pytest.mark.parametrize(
    ("text", "language", "period"),
    [
        ("10 % lägre premie för varje skadefritt år", "sv", "year"),
        ("10 kr per film och dag", "sv", "day"),
        ("99 kr monthly", "en", "month"),
        ("for the first 6 months on the hourly price", "en", None),
        ("a markup of 3.80 öre/kWh on the hourly spot price", "en", None),
        # A day of the month says when, not how many per month.
        ("invoices go out on the 20th of each month", "en", None),
        ("Autogiro: dras den 28:e varje månad", "sv", None),
        ("20 invoices per month", "en", "month"),
    ],
)
def test_a_period_is_read_after_its_marker_and_an_attributive_adverb_is_none(
    text, language, period
):
    assert read_numbers(text, language)[0].period == period


@pytest.mark.parametrize(
    ("text", "value"), [("i SE4", "se4"), ("rad B2", "b2"), ("SE1 to SE4", "se1")]
)
def test_letters_written_with_digits_are_an_identifier(text, value):
    reading = read_numbers(text, "sv")[0]
    assert (reading.kind, reading.value) == (Kind.CODE, value)


def test_a_unit_written_with_digits_is_no_identifier():
    assert read_numbers("80 m2", "sv")[0].unit == "m2"


@pytest.mark.parametrize(
    ("text", "language", "unit", "period"),
    [
        ("We answer within 5 working weeks.", "en", "week", None),
        ("We answer within 5 working days.", "en", "workday", None),
        ("Det kostar 10 svenska kronor.", "sv", "SEK", None),
        # A function word between is no modifier: the unit is not read past it.
        ("We charge SEK 50 per week.", "en", "SEK", "week"),
        ("Öppet 8 på vardagar.", "sv", None, None),
    ],
)
def test_a_word_between_a_number_and_its_unit_is_a_modifier(text, language, unit, period):
    reading = read_numbers(text, language)[0]
    assert (reading.unit, reading.period) == (unit, period)


def test_a_conjunction_ends_a_value_before_the_next_currency():
    (sek, eur) = read_numbers("SEK 1,190 or EUR 105", "en")
    assert (sek.unit, eur.unit) == ("SEK", "EUR")


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Kan tecknas för barn från 0 till och med 17 år.", "sv", [("duration", "0-17", "year")]),
        ("Leverans från 2 till 5 dagar.", "sv", [("duration", "2-5", "day")]),
        ("Delivery takes from 2 to 5 days.", "en", [("duration", "2-5", "day")]),
        # One number after "från" is a bound, not a range; clocks and dates keep their kinds.
        ("Övningskörning från 16 år.", "sv", [("duration", "16", "year")]),
        ("Öppet från kl. 8 till 17.", "sv", [("time_range", "08:00-17:00", None)]),
    ],
)
def test_a_range_from_one_number_to_another(text, language, expected):
    assert [(str(r.kind), r.value, r.unit) for r in read_numbers(text, language)] == expected


@pytest.mark.parametrize(
    ("text", "language", "values"),
    [
        ("Säsongen pågår från 1 maj till 30 september 2027.", "sv", ["2027-05-01", "2027-09-30"]),
        ("Open June 1 to September 30, 2027.", "en", ["2027-06-01", "2027-09-30"]),
        ("Join between January 7 and January 31, 2026.", "en", ["2026-01-07", "2026-01-31"]),
        ("Gäller mellan 7 januari och 31 januari 2026.", "sv", ["2026-01-07", "2026-01-31"]),
        # Across a new year the year is not known: the opening date stays yearless.
        ("Vintersäsong 1 december–31 mars 2027.", "sv", ["--12-01", "2027-03-31"]),
    ],
)
def test_a_yearless_date_opening_a_range_takes_the_closing_dates_year(text, language, values):
    assert [r.value for r in read_numbers(text, language)] == values


@pytest.mark.parametrize(
    ("text", "language", "values"),
    [
        # "and" without "between" joins two dates, not a range; the year is the list's.
        ("Closed January 7 and January 31, 2026.", "en", ["2026-01-07", "2026-01-31"]),
        (
            "On 23 December and 30 December 2026 we close at 13.00.",
            "en",
            ["2026-12-23", "2026-12-30", "13:00"],
        ),
        ("Stängt 23 december och 30 december 2026.", "sv", ["2026-12-23", "2026-12-30"]),
        # A list across a new year: the year of its first date is not known.
        ("Closed December 24 and January 6, 2027.", "en", ["--12-24", "2027-01-06"]),
    ],
)
def test_a_yearless_date_of_a_list_takes_the_year_of_the_next_one(text, language, values):
    assert [r.value for r in read_numbers(text, language)] == values


@pytest.mark.parametrize(
    ("word", "period"),
    [
        ("årsavgiften", "year"),
        ("timpriset", "hour"),
        ("dygnshyra", "day"),
        # The dictionary knows a word "spris" and splits "månad|spris": the rate word decides.
        ("månadspris", "month"),
        ("månadspriset", "month"),
        ("dagsavgiften", "day"),
        ("kampanjpris", None),
        # A thing that lasts a period is no rate: its price is not per day or per year.
        ("dagpass", None),
        ("årskort", None),
    ],
)
def test_a_compound_names_a_period_only_when_its_tail_is_a_rate(word, period):
    assert period_of_compound(word) == period


@pytest.mark.parametrize(
    ("text", "language", "values"),
    [
        (
            "stängt 24, 25, 26 och 31 december 2026",
            "sv",
            ["2026-12-24", "2026-12-25", "2026-12-26", "2026-12-31"],
        ),
        ("Höst: 14–25 september 2026", "sv", ["2026-09-14", "2026-09-25"]),
        ("between 14 and 25 September 2026", "en", ["2026-09-14", "2026-09-25"]),
        ("September 14–25, 2026", "en", ["2026-09-14", "2026-09-25"]),
        ("closed December 24, 25 and 26", "en", ["--12-24", "--12-25", "--12-26"]),
    ],
)
def test_days_listed_or_ranged_before_a_month_share_it(text, language, values):
    assert [r.value for r in read_numbers(text, language) if r.kind is Kind.DATE] == values
    assert all(r.kind is Kind.DATE for r in read_numbers(text, language))


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("open 9-17, 24 December", "en"),  # a range of hours, then a date: not three dates
        ("Buss: linje 4 och 14 till hållplatsen", "sv"),
        ("9 veterinärer, 14 djursjukskötare och 4 receptionister", "sv"),
    ],
)
def test_numbers_before_no_month_or_before_another_range_are_no_dates(text, language):
    readings = read_numbers(text, language)
    assert [r.kind for r in readings].count(Kind.DATE) <= 1
    assert all(r.kind is not Kind.DATE for r in readings if not r.text[-1].isalpha())


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("| Book box | 39,50 kr |", "en", [("amount", "39.5", "SEK", None)]),  # one or two digits
        ("SEK 3,500", "en", [("amount", "3500", "SEK", None)]),  # three: a group
        ("4,2 GWh", "sv", [("quantity", "4.2", "GWh", None)]),
        ("4,2 MWh", "sv", [("quantity", "4.2", "MWh", None)]),
        ("15 minuters fri tid", "sv", [("duration", "15", "minute", None)]),
        ("två timmars väntan", "sv", [("duration", "2", "hour", None)]),
    ],
)
def test_a_decimal_comma_on_an_english_page_energy_units_and_swedish_genitives(
    text, language, expected
):
    assert read(text, language) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('| Tjänst | Fälg t.o.m. 17" | Fälg 18–20" |', [("17", "inch"), ("18-20", "inch")]),
        ("en 15″ skärm", [("15", "inch")]),
        ('han sa "det kostar 50" igår', [("50", None)]),  # a quotation's end, no inch
    ],
)
def test_a_double_prime_after_a_number_is_the_inch(text, expected):
    assert [(r.value, r.unit) for r in read_numbers(text, "sv")] == expected


@pytest.mark.parametrize(
    ("window", "period"),
    [
        (" kr monthly", "month"),
        (" SEK per agent/month", "month"),
        ("Billed yearly (SEK per agent/month)", "month"),
        ("Betalas årligen (kr/månad och användare)", "month"),
        ("Billed yearly (SEK)", "year"),
    ],
)
def test_a_period_stated_with_per_or_a_slash_wins_over_an_adverb(window, period):
    """ "Billed yearly (SEK per agent/month)": the price is per month, billed once a year."""
    assert find_period(window) == period
