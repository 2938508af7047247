"""Number extraction, canonical forms and support between numbers."""

import re
from datetime import date
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding import numbers
from grounding.numbers import Number, NumberKind, contains_digit, extract_numbers, supports


def only_number(text: str) -> Number:
    numbers = extract_numbers(text)
    assert len(numbers) == 1, numbers
    return numbers[0]


def supported(answer: str, kb: str) -> bool:
    """Whether some number of ``kb`` supports the single number of ``answer``."""
    wanted = only_number(answer)
    return any(supports(wanted, found) for found in extract_numbers(kb))


# (text, kind, canonical, unit, ambiguous): one number each.
FORMS = [
    ("99", NumberKind.INTEGER, "99", None, False),
    ("12.5", NumberKind.DECIMAL, "12.5", None, False),
    ("12,5", NumberKind.DECIMAL, "12.5", None, False),
    ("12,50", NumberKind.DECIMAL, "12.5", None, False),
    ("0,500", NumberKind.DECIMAL, "0.5", None, False),
    ("1234.567", NumberKind.DECIMAL, "1234.567", None, False),
    ("20%", NumberKind.PERCENT, "20%", None, False),
    ("20 %", NumberKind.PERCENT, "20%", None, False),
    ("20 procent", NumberKind.PERCENT, "20%", None, False),
    ("20 percent", NumberKind.PERCENT, "20%", None, False),
    ("8,5 %", NumberKind.PERCENT, "8.5%", None, False),
    ("+46 8 123 45 67", NumberKind.PHONE, "+4681234567", None, False),
    ("+46-8-123-45-67", NumberKind.PHONE, "+4681234567", None, False),
    ("08-123 45 67", NumberKind.PHONE, "+4681234567", None, False),
    ("0812345678", NumberKind.PHONE, "+46812345678", None, False),
    ("070-123 45 67", NumberKind.PHONE, "+46701234567", None, False),
    ("2025-12-31", NumberKind.DATE, "2025-12-31", None, False),
    ("2025/12/31", NumberKind.DATE, "2025-12-31", None, False),
    ("08:00", NumberKind.TIME, "08:00", None, False),
    ("8:00", NumberKind.TIME, "08:00", None, False),
    ("kl. 8.30", NumberKind.TIME, "08:30", None, False),
    ("10 000", NumberKind.INTEGER, "10000", None, False),
    ("10\u00a0000", NumberKind.INTEGER, "10000", None, False),
    ("10\u202f000", NumberKind.INTEGER, "10000", None, False),
    ("1 000 000", NumberKind.INTEGER, "1000000", None, False),
    ("10 000,50", NumberKind.DECIMAL, "10000.5", None, False),
    ("1.000.000", NumberKind.INTEGER, "1000000", None, False),
    ("1,000.50", NumberKind.DECIMAL, "1000.5", None, False),
    ("1.000,50", NumberKind.DECIMAL, "1000.5", None, False),
    ("399 kr", NumberKind.INTEGER, "399", "SEK", False),
    ("399 kronor", NumberKind.INTEGER, "399", "SEK", False),
    ("399 SEK", NumberKind.INTEGER, "399", "SEK", False),
    ("399:-", NumberKind.INTEGER, "399", "SEK", False),
    ("99 kr/månad", NumberKind.INTEGER, "99", "SEK/month", False),
    ("399 kronor i månaden", NumberKind.INTEGER, "399", "SEK/month", False),
    ("399 kr per år", NumberKind.INTEGER, "399", "SEK/year", False),
    ("1 TB", NumberKind.INTEGER, "1", "TB", False),
    ("500 GB", NumberKind.INTEGER, "500", "GB", False),
    ("30 minuter", NumberKind.INTEGER, "30", "min", False),
    ("30 min", NumberKind.INTEGER, "30", "min", False),
    ("14 dagar", NumberKind.INTEGER, "14", "day", False),
    ("14 days", NumberKind.INTEGER, "14", "day", False),
    ("3 arbetsdagar", NumberKind.INTEGER, "3", "workday", False),
    ("24 timmar", NumberKind.INTEGER, "24", "h", False),
    ("12 månader", NumberKind.INTEGER, "12", "month", False),
    ("2 år", NumberKind.INTEGER, "2", "year", False),
    ("556677-8899", NumberKind.CODE, "556677-8899", None, False),
    ("1,000", NumberKind.DECIMAL, "1,000", None, True),
    ("1.000", NumberKind.DECIMAL, "1.000", None, True),
    ("12.500", NumberKind.DECIMAL, "12.500", None, True),
    ("1.2.3", NumberKind.DECIMAL, "1.2.3", None, True),
    ("24/7", NumberKind.CODE, "24/7", None, True),
    ("2025-13-45", NumberKind.CODE, "2025-13-45", None, True),
    ("-5", NumberKind.INTEGER, "-5", None, False),
]


@pytest.mark.parametrize(("text", "kind", "canonical", "unit", "ambiguous"), FORMS)
def test_form_is_read_as_one_number(text, kind, canonical, unit, ambiguous):
    """Each written form is one number with the expected kind, canonical form and unit."""
    number = only_number(f"Det är {text} enligt listan")
    assert (number.kind, number.canonical, number.unit, number.ambiguous) == (
        kind,
        canonical,
        unit,
        ambiguous,
    )
    assert number.text == text


# SPEC section 5 equality rows and the rules: (answer, kb, supported).
SUPPORT_TABLE = [
    ("12,5", "12.5", True),
    ("12.5", "12,5", True),
    ("10 000", "10000", True),
    ("10000", "10\u00a0000", True),
    ("+46 8 123 45 67", "08-123 45 67", True),
    ("+46-8-123-45-67", "+46 8 123 45 67", True),
    ("08-123 45 67", "+46-8-123-45-67", True),
    ("2025/12/31", "2025-12-31", True),
    ("2025-12-31", "2025/12/31", True),
    ("20%", "20 %", True),
    ("20%", "20 procent", True),
    ("20%", "20", False),
    ("20", "20%", True),
    ("20", "20", True),
    ("20", "21", False),
    ("12.5", "125", False),
    ("1,25", "12,5", False),
    ("08:00", "8:00", True),
    ("08:00", "08.00-17.00", True),
    ("08:00", "09:00", False),
    ("2025-12-31", "2025-12-30", False),
    ("+46 8 123 45 67", "+46 8 123 45 68", False),
    ("399 kr", "399 kr/månad", True),
    ("399 kronor i månaden", "399 kr/månad", True),
    ("399 kr/år", "399 kr/månad", False),
    ("399 kr/månad", "399 kr", False),
    ("399", "399 kr", True),
    ("399 kr", "399", False),
    ("399 kr", "399 SEK", True),
    ("1 TB", "1 TB", True),
    ("1 TB", "1 GB", False),
    ("30 minuter", "30 min", True),
    ("3 dagar", "3 arbetsdagar", False),
    ("1,000", "1,000", True),
    ("1,000", "1000", False),
    ("1000", "1,000", False),
    ("1", "1,000", False),
    ("1,000", "1.000", False),
    ("556677-8899", "556677-8899", True),
    ("556677-8899", "5566778899", False),
    ("5566778899", "556677-8899", False),
    ("24/7", "24/7", True),
    ("-5", "5", False),
    ("10 %", "10-20 %", True),
    ("1 dag", "1–3 dagar", True),
]


@pytest.mark.parametrize(("answer", "kb", "expected"), SUPPORT_TABLE)
def test_support_table(answer, kb, expected):
    """A KB number supports an answer number exactly as the canonical-equality rules say."""
    assert supported(answer, kb) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("vardagar 8-17", [("8", "8"), ("17", "17")]),
        ("lördag 9–16", [("9", "9"), ("16", "16")]),
        ("Öppet 08:00-17:00", [("08:00", "08:00"), ("17:00", "17:00")]),
        ("Org.nr 556677-8899", [("556677-8899", "556677-8899")]),
        (
            "Ring 08-123 45 67 eller 070-123 45 67",
            [("08-123 45 67", "+4681234567"), ("070-123 45 67", "+46701234567")],
        ),
        ("Ca. 12.5 kr. Sedan 3.", [("12.5 kr", "12.5"), ("3", "3")]),
    ],
)
def test_ranges_codes_and_sequences(text, expected):
    """Ranges are two numbers; an org number is one code; sentence dots are not decimals."""
    assert [(n.text, n.canonical) for n in extract_numbers(text)] == expected


def test_org_number_is_not_a_phone():
    """``556677-8899`` is a code compared literally, never a phone number."""
    number = only_number("Organisationsnummer 556677-8899.")
    assert number.kind is NumberKind.CODE
    assert number.lookup_key == "literal:556677-8899"


def test_range_unit_applies_to_both_ends():
    """``10-20 %`` is two percentages, ``1–3 dagar`` two numbers of days."""
    low, high = extract_numbers("10-20 %")
    assert (low.kind, high.kind) == (NumberKind.PERCENT, NumberKind.PERCENT)
    first, last = extract_numbers("1–3 dagar")
    assert (first.unit, last.unit) == ("day", "day")


def test_lookup_key_groups_numbers_that_can_support_each_other():
    """A bare number and a percentage of the same value share a key; a date and a phone don't."""
    assert only_number("20").lookup_key == only_number("20 %").lookup_key == "value:20"
    assert only_number("2025/12/31").lookup_key == "date:2025-12-31"
    assert only_number("08-123 45 67").lookup_key == "phone:+4681234567"
    assert only_number("8:00").lookup_key == "time:08:00"
    assert only_number("1,000").lookup_key == "literal:1,000"


def test_contains_digit():
    """Any decimal digit counts, in any script; letters and punctuation don't."""
    assert contains_digit("pris 9")
    assert contains_digit("\uff19")  # fullwidth nine
    assert not contains_digit("inga siffror här, bara ord.")


# --- properties -----------------------------------------------------------------

prose = st.sampled_from(["Priset är", "Det blir", "Vi har", "Totalt", "Svaret:"])
spaces = st.sampled_from([" ", "\u00a0", "\u202f"])


def _grouped(value: int, space: str) -> str:
    return f"{value:,}".replace(",", space)


@st.composite
def written_numbers(draw) -> tuple[str, NumberKind, str]:
    """(written form, kind, canonical) for a number in any supported form."""
    form = draw(
        st.sampled_from(["int", "grouped", "decimal", "percent", "date", "time", "phone", "code"])
    )
    if form == "int":
        value = draw(st.integers(0, 10**9))
        return str(value), NumberKind.INTEGER, str(value)
    if form == "grouped":
        value = draw(st.integers(1000, 10**9))
        return _grouped(value, draw(spaces)), NumberKind.INTEGER, str(value)
    if form in ("decimal", "percent"):
        integer = draw(st.integers(0, 9999))
        # Never three fraction digits: "1.234" could be a thousand and more.
        fraction = draw(st.sampled_from(["5", "25", "75", "05", "1234"]))
        mark = draw(st.sampled_from([".", ","]))
        written = f"{integer}{mark}{fraction}"
        canonical = f"{integer}.{fraction.rstrip('0')}"
        if form == "decimal":
            return written, NumberKind.DECIMAL, canonical
        suffix = draw(st.sampled_from(["%", " %", " procent", " percent"]))
        return written + suffix, NumberKind.PERCENT, canonical + "%"
    if form == "date":
        day = draw(st.dates(date(1900, 1, 1), date(2200, 12, 31)))
        mark = draw(st.sampled_from(["-", "/"]))
        return day.strftime(f"%Y{mark}%m{mark}%d"), NumberKind.DATE, day.isoformat()
    if form == "time":
        hour, minute = draw(st.integers(0, 23)), draw(st.integers(0, 59))
        written = f"{hour:02d}:{minute:02d}" if draw(st.booleans()) else f"{hour}:{minute:02d}"
        return written, NumberKind.TIME, f"{hour:02d}:{minute:02d}"
    if form == "phone":
        operator = draw(st.sampled_from(["70", "72", "73", "76"]))
        subscriber = draw(st.integers(1_000_000, 9_999_999))
        s = str(subscriber)
        written = draw(
            st.sampled_from(
                [
                    f"+46 {operator} {s[:3]} {s[3:5]} {s[5:]}",
                    f"+46-{operator}-{s[:3]}-{s[3:5]}-{s[5:]}",
                    f"0{operator}-{s[:3]} {s[3:5]} {s[5:]}",
                    f"0{operator}{s}",
                ]
            )
        )
        return written, NumberKind.PHONE, f"+46{operator}{s}"
    head = draw(st.integers(100_000, 999_999))
    tail = draw(st.integers(1000, 9999))
    return f"{head}-{tail}", NumberKind.CODE, f"{head}-{tail}"


@given(lead=prose, number=written_numbers())
def test_any_written_form_is_recognised_as_itself(lead, number):
    """A number written in any supported form is one number with the expected canonical form."""
    written, kind, canonical = number
    found = only_number(f"{lead} {written} enligt avtalet.")
    assert (found.text, found.kind, found.canonical) == (written, kind, canonical)
    assert supports(found, found)


@given(st.text().filter(lambda text: not contains_digit(text)))
def test_text_without_digits_has_no_numbers(text):
    """No digit, no number."""
    assert extract_numbers(text) == []


# Digits, separators and unit words in any order: the hard cases for span bookkeeping.
number_soup = st.lists(
    st.sampled_from(
        list("0123456789") * 3
        + list(" \u00a0.,:;-–/+%()\n")
        + ["kr", "TB", "procent", "kl.", "år", "a", "B", "é", "\uff11", "\u0663"]
    ),
    max_size=40,
).map("".join)


@given(st.one_of(number_soup, st.text(max_size=80)))
def test_spans_cover_every_digit_exactly_once(text):
    """Extraction never raises; spans are ordered, disjoint, and hold every digit once."""
    numbers = extract_numbers(text)
    covered = [0] * len(text)
    previous_end = 0
    for number in numbers:
        assert previous_end <= number.start < number.end <= len(text)
        assert number.text == text[number.start : number.end]
        assert contains_digit(number.text)
        previous_end = number.end
        for index in range(number.start, number.end):
            covered[index] += 1
    for index, char in enumerate(text):
        if char.isdecimal():
            assert covered[index] == 1, (index, numbers)


@given(number_soup)
def test_every_number_supports_itself(text):
    """Whatever is extracted, the same number in the KB supports it (the same form)."""
    for number in extract_numbers(text):
        assert supports(number, number)


@given(st.one_of(number_soup, st.text(max_size=80)))
def test_the_shortcut_past_the_special_forms_changes_nothing(text):
    """Skipping the phone/date/time/code passes when no form can start loses no number."""
    with mock.patch.object(numbers, "_MAY_HAVE_FORMS", re.compile("")):  # every pass runs
        every_pass = extract_numbers(text)
    assert extract_numbers(text) == every_pass


def test_a_unit_and_its_period_may_be_apart_by_several_spaces():
    """ "99 kr\u00a0 per månad" is per month like "99 kr per månad"; case does not matter."""
    assert only_number("99 kr\u00a0 per månad").unit == "SEK/month"
    assert only_number("99 KR/Månad").unit == "SEK/month"
    assert only_number("5 Procent").kind is NumberKind.PERCENT
