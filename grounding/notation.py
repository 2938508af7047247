"""Numbers as written in text, read into canonical values.

Pure: no ORM, no I/O. ``read_numbers(text, language)`` returns one ``Reading``
per number, in order, and every digit of the text belongs to exactly one
reading (what no form below explains becomes a ``code`` read literally).

| written | kind | value | how |
|---|---|---|---|
| ``0571-48 20 00``, ``+46 18 420 55 00`` | phone | ``+46571482000`` | phonenumbers (region SE) |
| ``2026-06-19``, ``2026/06/19``, ``19 juni 2026``, ``June 19, 2026``, ``December 24th, 2026``, ``24/12 2026``, ``den 19/6`` | date | ``2026-06-19``, ``--06-19`` | month names from babel (sv, en); a yearless ``19/6`` only after "den", "on" or a weekday, or opening a range to a dated one (``13/7–2/8 2026``; "24/7" is no date); a yearless date opening a range takes the closing date's year ("från 1 maj till 30 september 2027"); bare days listed or ranged beside a written date share its month and year (``24, 25 och 26 december 2026``, ``14–25 september``, ``September 14–25, 2026``; a list or one range, never both: "9-17, 24 December" is hours, then a date) |
| ``08.00–16.30``, ``8:00 am to 4:30 pm``, ``kl. 8–15``, ``9 am – 5 pm``, ``mellan kl. 2 och 5``, ``mellan 16.00 och 21.00`` | time_range | ``08:00-16:30`` | 12-hour clock read; a bare hour only after a clock word or with am/pm |
| ``14:00``, ``2 pm``, ``klockan 06.00``, ``till 21.00`` | time | ``14:00`` | ``hh.mm`` is a time unless a currency, unit or percent sign, or what it is counted by ("0.49 per minute"), makes it a decimal |
| ``3 290 kr``, ``SEK 3,950``, ``EUR 52.90``, ``27500 SEK`` | amount | ``3290``, ``3950``, ``52.9`` | digit grouping and decimal mark by the text's locale (babel): ``1,500`` is 1500 in English, 1.5 in Swedish; a comma before one or two digits is a decimal comma in any language (``39,50 kr`` on an English page) |
| ``4,5 procent``, ``15 per cent``, ``60%`` | percentage | ``4.5`` | percent words from the lexicon |
| ``14 dagars``, ``3-year``, ``2 timmar``, ``5 working weeks`` | duration | ``14`` | unit from the lexicon (lemma, or a compound's head: "3-årsgaranti"; one word between that is no function word: "5 working weeks", "10 svenska kronor") |
| ``15,2 kg``, ``10-literskanna``, ``80 km``, ``17"`` | quantity | ``15.2`` | unit from the lexicon; a double prime right after the number is the inch |
| ``1–3 år``, ``6 to 9``, ``mellan 18 och 29 år``, ``från 0 till och med 17 år``, ``between 2 and 5 days``, ``from 2 to 5 days`` | the kind of its unit | ``1-3`` | a range of two plain numbers (openers and joiners from the lexicon) |
| ``671 80`` before a capitalised word | code | ``67180`` | a Swedish-style postcode |
| ``SE4``, ``B2``, ``A1`` (letters written together with digits) | code | ``se4`` | an identifier: a name, not a quantity (no unit or currency word) |
| anything else with digits (``24``, ``007``) | count / code | ``24``, ``007`` | a leading zero makes a code, read literally |

A reading also carries its ``period`` ("per år", "i månaden", "an hour",
"/mån", "årligen"), found after the number within its clause.
"""

import re
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from babel.numbers import get_decimal_symbol, get_group_symbol

from grounding.lexicon import LEXICONS, merged
from grounding.numerals import with_digits
from grounding.phones import find_phones
from grounding.terms import first_part, split_compound
from grounding.text import STOPWORDS


class Kind(StrEnum):
    AMOUNT = "amount"
    PERCENTAGE = "percentage"
    PHONE = "phone"
    DATE = "date"
    TIME = "time"
    TIME_RANGE = "time_range"
    DURATION = "duration"
    QUANTITY = "quantity"
    COUNT = "count"
    CODE = "code"
    ORDINAL = "ordinal"


TIME_UNITS = frozenset({"second", "minute", "hour", "day", "workday", "week", "month", "year"})


class Reading(NamedTuple):
    text: str
    start: int
    end: int
    kind: Kind
    value: str
    unit: str | None = None  # "SEK", "kg", "day", ...
    period: str | None = None  # "year", "month", "hour", ...


_SP = "[ \u00a0\u202f\u2009]"
_DASH = "[-\u2010\u2011\u2012\u2013\u2014]"
_CURRENCIES = merged("currencies")
_UNITS = merged("units")
_PERIODS = merged("periods")
_PERIOD_ADVERBS = merged("period_adverbs")
_RATE_WORDS = merged("rate_words")
_PER_MARKERS = merged("per_markers")
_CLOCK_MARKERS = frozenset(w.rstrip(".") for w in merged("clock_markers"))
_RANGE_WORDS = "|".join(re.escape(w) for w in ("to", "till", "until", "through"))
_MONTHS = merged("months")
_MONTH_ALT = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_ORDINAL_SUFFIX = "(?:st|nd|rd|th|:e|:a)?"

_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_ISO_SLASH_DATE = re.compile(r"(?<![\d/])(\d{4})/(\d{1,2})/(\d{1,2})(?![\d/])")
_SLASH_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?:/|" + _SP + r")(\d{4})(?!\d)")
# "den 19/6", "on 24/12", "fredag 19/6": a yearless slash date only after a word that names a
# day, so "24/7" (always open) and "1/2" (a half) stay numbers.
_DAY_WORDS = "|".join(
    sorted(
        {"den", "on", *(w for lex in LEXICONS.values() for w in lex.weekdays)},
        key=len,
        reverse=True,
    )
)
_YEARLESS_SLASH_DATE = re.compile(
    rf"(?<![\w])(?:{_DAY_WORDS}){_SP}+(?:the{_SP}+)?(\d{{1,2}})/(\d{{1,2}})(?![\d/.,]\d)(?!/)",
    re.IGNORECASE,
)
_DAY_MONTH = re.compile(
    rf"(?<![\d.])(\d{{1,2}}){_ORDINAL_SUFFIX}\.?{_SP}+(?:of{_SP}+)?({_MONTH_ALT})\.?(?:,?{_SP}+(\d{{4}}))?(?![\w])",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    rf"\b({_MONTH_ALT})\.?{_SP}+(\d{{1,2}}){_ORDINAL_SUFFIX}(?:,?{_SP}+(\d{{4}}))?(?![\w])",
    re.IGNORECASE,
)
# Days before or after a written date that share its month: a list ("24, 25 och 26 december")
# or one range ("14–25 september", "September 14–25, 2026"), never both ("9-17, 24 December").
_LIST_WORDS = "|".join(re.escape(word) for word in merged("list_joiners"))
# The words of a range of dates ("1 maj till 30 september", "May 1 through 30 September").
_RANGE_WORDS_OF_DATES = "|".join(
    re.escape(word)
    for word in sorted(
        {w for w in merged("range_words") if w.isalpha()} | {"till och med", "t.o.m.", "through"},
        key=len,
        reverse=True,
    )
)
_LIST_SEPARATOR = rf"(?:{_SP}*,{_SP}*|{_SP}+(?:{_LIST_WORDS}){_SP}+)"
_RANGE_SEPARATOR = rf"(?:{_SP}*{_DASH}{_SP}*|{_SP}+(?:{_RANGE_WORDS_OF_DATES}){_SP}+)"
_DAY = rf"\d{{1,2}}{_ORDINAL_SUFFIX}"
# "13/7–2/8 2026", "från 13/1 till 12/3 2026": a yearless slash date opening a range whose
# closing date is a dated slash date is a date too (it takes that year: ``_range_years``).
_SLASH_RANGE_OPENER = re.compile(
    rf"(?<![\d/.,])(\d{{1,2}})/(\d{{1,2}})"
    rf"(?={_RANGE_SEPARATOR}\d{{1,2}}/\d{{1,2}}(?:/|{_SP})\d{{4}}(?!\d))",
    re.IGNORECASE,
)
_LEADING_DAYS = re.compile(
    rf"(?<![\w.,:/\u2010-\u2014-])((?:{_DAY}{_LIST_SEPARATOR})+|{_DAY}{_RANGE_SEPARATOR})\Z",
    re.IGNORECASE,
)
_TRAILING_DAYS = re.compile(
    rf"((?:{_LIST_SEPARATOR}{_DAY})+|{_RANGE_SEPARATOR}{_DAY})(?![\d.:,]\d)"
    rf"(?:,?{_SP}+(\d{{4}}))?(?![\w])",
    re.IGNORECASE,
)
_AMPM = r"(?:{sp}?(?P<{name}>[ap]\.?m\.?)(?![\w]))"
_CLOCK = r"(?P<{h}>\d{{1,2}})(?:(?P<{sep}>[:.])(?P<{m}>\d{{2}}))?"


def _time_pattern(suffix: str) -> str:
    clock = _CLOCK.format(h="h" + suffix, m="m" + suffix, sep="sep" + suffix)
    return clock + _AMPM.format(sp=_SP, name="ampm" + suffix) + "?"


_TIME_RANGE = re.compile(
    r"(?<![\d.,:])"
    + _time_pattern("1")
    + rf"{_SP}*(?:{_DASH}|(?:{_RANGE_WORDS})(?=\s)){_SP}*"
    + _time_pattern("2")
    + r"(?![\d.,:]\d)(?!\d)",
    re.IGNORECASE,
)
_BETWEEN = "|".join(re.escape(w) for w in merged("range_openers"))
_AND = "|".join(re.escape(w) for w in merged("range_joiners"))
_CLOCK_WORDS = "|".join(re.escape(w.rstrip(".")) for w in merged("clock_markers"))
# "mellan kl. 2 och 5", "between 9 and 11 am": a range opened by a word, not a dash.
_BETWEEN_RANGE = re.compile(
    rf"\b(?:{_BETWEEN}){_SP}+(?P<clock>(?:{_CLOCK_WORDS})\.?{_SP}*)?"
    + _time_pattern("1")
    + rf"{_SP}+(?:{_AND}){_SP}+(?:(?:{_CLOCK_WORDS})\.?{_SP}*)?"
    + _time_pattern("2")
    + r"(?![\d.,:]\d)(?!\d)",
    re.IGNORECASE,
)
_TIME = re.compile(r"(?<![\d.,:])" + _time_pattern("1") + r"(?![\d.,:]\d)(?!\d)", re.IGNORECASE)
_POSTCODE = re.compile(rf"(?<![\d,.])(\d{{3}}){_SP}(\d{{2}})(?={_SP}+[A-ZÅÄÖ])")
_NUMBER = (
    rf"\d{{1,3}}(?:{_SP}\d{{3}})+(?![\d])(?:,\d+)?|\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
)
_PLAIN = re.compile(
    rf"(?<![\d.,])(?P<a>{_NUMBER})(?:{_SP}?(?:{_DASH}|{_SP}(?:{_RANGE_WORDS}){_SP}){_SP}?(?P<b>{_NUMBER}))?(?![\d])"
)
_ANY_DIGIT = re.compile(r"\d")
_LEADING_ZERO = re.compile(r"0\d")
_DIGITS = re.compile(r"[\w-]*\d[\w-]*")
_WORD_AFTER = re.compile(
    r"(?:[ \u00a0\u202f\u2009]?([%€$£]|°[cC]?|[^\W\d_][\w/²]*(?:[ ][^\W\d_]+)?)|-([^\W\d_]+))"
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+|[€$£])[ \u00a0\u202f\u2009]?$")
_CLOCK_BEFORE = re.compile(r"([^\W\d_]+)\.?[ \u00a0]+$")
# What a rate is counted by follows it ("0.49 per minute", "12.50/kg"); a clock never has one.
_RATE_AFTER = re.compile(r"[ \u00a0]*(?:/[^\W\d_]|per\b)", re.IGNORECASE)


def read_numbers(text: str, language: str) -> list[Reading]:
    """Every number of ``text`` (see the module table), in order; numbers written in words
    or other digit forms read as their digits (:mod:`grounding.numerals`)."""
    rewritten = with_digits(text, language)
    if not rewritten.spans:
        return list(_read(text, language))
    readings = []
    for reading in _read(rewritten.text, language):
        start = rewritten.original(reading.start)
        end = rewritten.original(reading.end, end=True)
        readings.append(reading._replace(text=text[start:end], start=start, end=end))
    return readings


@lru_cache(maxsize=8192)
def _read(text: str, language: str) -> tuple[Reading, ...]:
    if not _ANY_DIGIT.search(text):
        return ()
    taken: list[Reading] = []
    masked = text
    finders = (
        _dates,
        _time_ranges,
        _phones,
        _times,
        _postcodes,
        _identifiers,
        _between_numbers,
        _plain,
        _leftovers,
    )
    for finder in finders:
        found = finder(text, masked, language)
        for reading in found:
            masked = (
                masked[: reading.start]
                + "\x00" * (reading.end - reading.start)
                + masked[reading.end :]
            )
        taken.extend(found)
    taken.sort(key=lambda r: r.start)
    return tuple(_with_period(text, r, language, taken) for r in taken)


def _free(masked: str, start: int, end: int) -> bool:
    return "\x00" not in masked[start:end]


# Only text with a run like a phone number's (a "+" or "0", then seven digits or more with
# separators) goes to phonenumbers' matcher, which costs far more than this scan.
_PHONE_HINT = re.compile(r"(?<!\d)\(?[+0]\d[\d \u00a0()\-]{5,}\d")


def _phones(text: str, masked: str, language: str) -> list[Reading]:
    if not _PHONE_HINT.search(masked):
        return []
    return [
        Reading(p.text, p.start, p.end, Kind.PHONE, p.e164)
        for p in find_phones(text)
        if _free(masked, p.start, p.end)
    ]


def _dates(text: str, masked: str, language: str) -> list[Reading]:
    found = []
    for m in _ISO_DATE.finditer(masked):
        found.append(_date(m, int(m[1]), int(m[2]), int(m[3])))
    for m in _ISO_SLASH_DATE.finditer(masked):
        found.append(_date(m, int(m[1]), int(m[2]), int(m[3])))
    for m in _SLASH_DATE.finditer(masked):
        found.append(_date(m, int(m[3]), *_month_day(int(m[1]), int(m[2]))))
    for m in _YEARLESS_SLASH_DATE.finditer(masked):
        month, day = _month_day(int(m[1]), int(m[2]))
        found.append(_date_at(m.start(1), m.end(2), masked, None, month, day))
    for m in _SLASH_RANGE_OPENER.finditer(masked):
        month, day = _month_day(int(m[1]), int(m[2]))
        found.append(_date_at(m.start(1), m.end(2), masked, None, month, day))
    for m in _DAY_MONTH.finditer(masked):
        year, month = int(m[3]) if m[3] else None, _MONTHS[m[2].lower()]
        found.append(_date(m, year, month, int(m[1])))
        found.extend(_days_sharing(masked, _LEADING_DAYS.search(masked, 0, m.start()), year, month))
    for m in _MONTH_DAY.finditer(masked):
        month = _MONTHS[m[1].lower()]
        more = None if m[3] else _TRAILING_DAYS.match(masked, m.end())
        year = int(m[3]) if m[3] else int(more[2]) if more and more[2] else None
        found.append(_date_at(m.start(), m.end(), masked, year, month, int(m[2])))
        found.extend(_days_sharing(masked, more, year, month))
    return _range_years(masked, _non_overlapping([r for r in found if r is not None]))


def _days_sharing(
    masked: str, days: re.Match | None, year: int | None, month: int
) -> list[Reading | None]:
    """The bare days of a list or range that share a written date's month (and year):
    "24, 25, 26 och 31 december 2026", "14–25 september", "December 24, 25 and 26, 2026"."""
    if days is None:
        return []
    found = [
        _date_at(day.start(), day.end(), masked, year, month, int(day.group()))
        for day in re.finditer(r"\d{1,2}", masked[: days.end(1)])
        if day.start() >= days.start(1)
    ]
    if days.lastindex == 2 and days[2] and found[-1] is not None:  # ", 2026" is the last day's
        found[-1] = found[-1]._replace(text=masked[found[-1].start : days.end()], end=days.end())
    return found


def _month_day(first: int, second: int) -> tuple[int, int]:
    """A slash date's (month, day): day first ("24/12"), unless the second can't be a month."""
    return (second, first) if second <= 12 else (first, second)


def _range_years(masked: str, dates: list[Reading]) -> list[Reading]:
    """A yearless date that opens a range takes the year of the date that closes it:
    "från 1 maj till 30 september 2027" is 2027-05-01 to 2027-09-30, and so is "between
    January 7 and January 31, 2026" ("mellan ... och"); so does one that a list's next date
    follows: "On 23 December and 30 December 2026 we close at 13.00"."""
    for index, (first, second) in enumerate(pairwise(dates)):
        gap = masked[first.end : second.start]
        if (
            first.value.startswith("--")
            and not second.value.startswith("--")
            and (
                _DATE_RANGE_GAP.fullmatch(gap)
                or _DATE_LIST_GAP.fullmatch(gap)
                or between_and(masked, first, second)
            )
            and first.value[2:] <= second.value[5:]  # May to September, not December to March
        ):
            dates[index] = first._replace(value=second.value[:4] + first.value[1:])
    return dates


def _date(match: re.Match, year: int | None, month: int, day: int) -> Reading | None:
    return _date_at(match.start(), match.end(), match.string, year, month, day)


def _date_at(start: int, end: int, text: str, year: int | None, month: int, day: int):
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    value = f"{year:04d}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"
    return Reading(text[start:end], start, end, Kind.DATE, value)


def _non_overlapping(readings: list[Reading]) -> list[Reading]:
    kept: list[Reading] = []
    for r in sorted(readings, key=lambda r: (r.start, -(r.end - r.start))):
        if not kept or r.start >= kept[-1].end:
            kept.append(r)
    return kept


def _hour(h: str, m: str | None, ampm: str | None) -> str | None:
    hour, minute = int(h), int(m) if m else 0
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower().startswith("p") else 0)
    if hour > 24 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


def _after_clock_word(masked: str, start: int) -> bool:
    before = _CLOCK_BEFORE.search(masked[max(0, start - 12) : start])
    return before is not None and before.group(1).lower() in _CLOCK_MARKERS


def _decimal_context(masked: str, start: int, end: int) -> bool:
    """A currency, unit or percent sign next to it makes ``12.50`` a decimal, not a time."""
    if _unit_after(masked, end)[0] is not None:
        return True
    before = _WORD_BEFORE.search(masked[max(0, start - 8) : start])
    return before is not None and before.group(1).lower() in _CURRENCIES


def _decimal_or_rate(masked: str, start: int, end: int) -> bool:
    """``_decimal_context``, or what it is counted by follows it ("0.49 per minute", "12.50/kg"):
    a clock written with a dot is neither."""
    return _decimal_context(masked, start, end) or _RATE_AFTER.match(masked, end) is not None


def _time_ranges(text: str, masked: str, language: str) -> list[Reading]:
    found = []
    for m in _BETWEEN_RANGE.finditer(masked):
        clocked = m["clock"] or m["sep1"] == ":" or m["sep2"] == ":" or m["ampm1"] or m["ampm2"]
        if not clocked and not (  # "mellan 16.00 och 21.00" too, not "mellan 1.50 och 2.50 kr"
            m["sep1"] and m["sep2"] and not _decimal_or_rate(masked, m.start("h1"), m.end())
        ):
            continue
        first = _hour(m["h1"], m["m1"], m["ampm1"] or _shared_ampm(m["h1"], m["h2"], m["ampm2"]))
        last = _hour(m["h2"], m["m2"], m["ampm2"])
        if first is not None and last is not None:
            start = m.start("h1") - (len(m["clock"]) if m["clock"] else 0)
            found.append(
                Reading(text[start : m.end()], start, m.end(), Kind.TIME_RANGE, f"{first}-{last}")
            )
    for m in _TIME_RANGE.finditer(masked):
        if any(r.start <= m.start() < r.end for r in found):
            continue
        ampm1, ampm2 = m["ampm1"], m["ampm2"]
        clocked = (m["sep1"] == ":" or m["sep2"] == ":") or (m["sep1"] and m["sep2"])
        if not (clocked or ampm1 or ampm2 or _after_clock_word(masked, m.start())):
            continue
        if (m["sep1"] == "." or m["sep2"] == ".") and _decimal_context(masked, m.start(), m.end()):
            continue
        first = _hour(m["h1"], m["m1"], ampm1 or _shared_ampm(m["h1"], m["h2"], ampm2))
        last = _hour(m["h2"], m["m2"], ampm2)
        if first is None or last is None:
            continue
        found.append(Reading(m.group(), m.start(), m.end(), Kind.TIME_RANGE, f"{first}-{last}"))
    return found


def _shared_ampm(h1: str, h2: str, ampm2: str | None) -> str | None:
    """In "9–11 am" the first end shares the second's am/pm when it is not later."""
    if ampm2 and int(h1) <= int(h2):
        return ampm2
    return None


def _times(text: str, masked: str, language: str) -> list[Reading]:
    found = []
    for m in _TIME.finditer(masked):
        if m["ampm1"] or m["sep1"] == ":":
            pass
        elif m["sep1"] == ".":
            if _decimal_or_rate(masked, m.start(), m.end()) or int(m["h1"]) > 23:
                continue
        elif not _after_clock_word(masked, m.start()):
            continue
        value = _hour(m["h1"], m["m1"], m["ampm1"])
        if value is not None:
            found.append(Reading(m.group(), m.start(), m.end(), Kind.TIME, value))
    return found


def _postcodes(text: str, masked: str, language: str) -> list[Reading]:
    return [
        Reading(m.group(), m.start(), m.end(), Kind.CODE, m[1] + m[2])
        for m in _POSTCODE.finditer(masked)
    ]


@lru_cache(maxsize=4)
def _symbols(language: str) -> tuple[str, str]:
    """(decimal mark, group mark) of the language's locale, from babel's CLDR data."""
    return get_decimal_symbol(language), get_group_symbol(language)


_NOT_GROUPED = re.compile(r"\d+,\d{1,2}")


def parse_number(written: str, language: str) -> Decimal | None:
    """``written`` as the locale reads it: "1,500" is 1500 in English, 1.5 in Swedish."""
    decimal_mark, group_mark = _symbols(language)
    body = re.sub(_SP, "", written)
    if decimal_mark == ",":
        # Swedish: "," is the decimal mark; a "." is one too ("3.50 kr" in a Swedish answer).
        body = body.replace(",", ".") if "," in body else body
    elif group_mark == "," and _NOT_GROUPED.fullmatch(body):
        body = body.replace(",", ".")  # "39,50 kr" on an English page: a group has 3 digits
    else:
        body = body.replace(group_mark, "")
    try:
        return Decimal(body)
    except InvalidOperation:
        return None


def canonical(number: Decimal) -> str:
    text = format(number.normalize(), "f")
    return text


_IDENTIFIER = re.compile(
    r"(?<![\w.,-])(?P<letters>[^\W\d_]{1,4})(?P<digits>\d{1,6})(?![\w]|[.,]\d)"
)


def _identifiers(text: str, masked: str, language: str) -> list[Reading]:
    """Letters written together with digits ("SE4", "B2", "A1"): a name, read as a code."""
    found = []
    for m in _IDENTIFIER.finditer(masked):
        written = m.group().lower()
        if written in _UNITS or m["letters"].lower() in _CURRENCIES:
            continue  # "m2" is a unit, "kr5" an amount
        found.append(Reading(m.group(), m.start(), m.end(), Kind.CODE, written))
    return found


_BETWEEN_NUMBERS = re.compile(
    rf"\b(?:{_BETWEEN}){_SP}+(?P<a>{_NUMBER}){_SP}+(?:{_AND}){_SP}+(?P<b>{_NUMBER})(?![\d])",
    re.IGNORECASE,
)


def _between_numbers(text: str, masked: str, language: str) -> list[Reading]:
    """ "mellan 18 och 29 år", "between 2 and 5 days": a range, as "18–29 år" is."""
    found = []
    for m in _BETWEEN_NUMBERS.finditer(masked):
        if _LEADING_ZERO.match(m["a"]) or _LEADING_ZERO.match(m["b"]):
            continue
        reading = _number_reading(text, masked, language, m.start("a"), m.end(), m["a"], m["b"])
        if reading is not None:
            found.append(reading)
    return found


def _plain(text: str, masked: str, language: str) -> list[Reading]:
    found: list[Reading] = []
    for m in _PLAIN.finditer(masked):
        if found and m.start() < found[-1].end:
            continue  # inside the unit of the number before ("0 m2")
        if _LEADING_ZERO.match(m["a"]):
            continue  # "00", "0123": an identifier, read literally as a code
        reading = _number_reading(text, masked, language, m.start(), m.end(), m["a"], m["b"])
        if reading is not None:
            found.append(reading)
    return found


def _number_reading(
    text: str, masked: str, language: str, start: int, end: int, first: str, second: str | None
) -> Reading | None:
    """A plain number or range (``first``–``second``) at ``start``..``end``, with its unit."""
    a = parse_number(first, language)
    if a is None:
        return None
    value = canonical(a)
    if second:
        b = parse_number(second, language)
        if b is None:
            return None
        value = f"{value}-{canonical(b)}"
    currency = None
    before = _WORD_BEFORE.search(masked[max(0, start - 8) : start])
    if before and before.group(1).lower() in _CURRENCIES:
        currency = _CURRENCIES[before.group(1).lower()]
        start -= len(before.group(0))
    unit, end = _unit_after(masked, end)
    if unit == "%":
        kind = Kind.PERCENTAGE
        unit = None
    elif unit in _CURRENCY_CODES:
        kind, currency, unit = Kind.AMOUNT, unit, None
    elif currency:
        kind = Kind.AMOUNT
    elif unit in TIME_UNITS:
        kind = Kind.DURATION
    elif unit:
        kind = Kind.QUANTITY
    else:
        kind = Kind.COUNT
    return Reading(text[start:end], start, end, kind, value, currency or unit)


_CURRENCY_CODES = frozenset(_CURRENCIES.values())
_PERCENT_WORDS = merged("percent_words")


def unit_word(word: str) -> str | None:
    """The canonical unit, currency or "%" a word after a number names, if any.

    A lower-case "a" is the article, not the ampere: "under 18 a parent must sign".
    """
    if word == "a":
        return None
    lowered = word.lower().rstrip(".,")
    if lowered in ("%",) or lowered in _PERCENT_WORDS:
        return "%"
    if lowered in _CURRENCIES:
        return _CURRENCIES[lowered]
    if lowered in _UNITS:
        return _UNITS[lowered]
    return None


def _unit_after(masked: str, end: int) -> tuple[str | None, int]:
    """The unit right after a number and where it ends ("SEK", "kg", "day", "%")."""
    if masked[end : end + 1] in _INCH_MARKS and not _in_quotation(masked, end):
        return "inch", end + 1  # 'Fälg 17"', '15″'; not the end of 'sa "det kostar 50"'
    m = _WORD_AFTER.match(masked, end)
    if not m:
        return None, end
    if m.group(2):  # "3-year", "10-literskanna"
        word = m.group(2)
        unit = unit_word(word)
        if unit is None:
            for language in LEXICONS:
                head = first_part(word, language)
                if head and (unit := unit_word(head) or unit_word(head.rstrip("s"))):
                    break
        return (unit, m.end()) if unit else (None, end)
    words = m.group(1)
    first = words.split(" ")[0]
    if "/" in first.strip("/"):  # "kr/månad": the unit, then its period (read by find_period)
        unit = unit_word(first.split("/")[0])
        if unit is not None:
            return unit, m.start(1) + first.index("/")
    for candidate, stop in ((words, m.end()), (first, m.start(1) + len(first))):
        unit = unit_word(candidate)
        if unit is not None:
            return unit, stop
    between, _, second = words.partition(" ")
    if second and between.lower() not in _NOT_MODIFIERS:  # "5 working weeks", "10 svenska kronor"
        unit = unit_word(second)
        if unit is not None:
            return unit, m.end()
    return None, end


_INCH_MARKS = frozenset('"\u2033')


def _in_quotation(text: str, end: int) -> bool:
    """Whether the '"' at ``end`` closes a quotation: the last '"' before it opens one."""
    opening = text.rfind('"', 0, end)
    return opening != -1 and opening + 1 < end and text[opening + 1].isalpha()


# Words that never qualify a unit after them: "50 per week", "1,190 or EUR 105", "8–17 på vardagar".
_NOT_MODIFIERS = STOPWORDS | frozenset(
    word
    for field in ("per_markers", "range_words", "conjunctions", "clock_markers")
    for word in merged(field)
)


_DATE_LIST_GAP = re.compile(_LIST_SEPARATOR, re.IGNORECASE)
_DATE_RANGE_GAP = re.compile(
    rf"[ \u00a0]*(?:–|-|—|{_RANGE_WORDS_OF_DATES})[ \u00a0]*", re.IGNORECASE
)


_RANGE_OPENERS = merged("range_openers")
_RANGE_JOINERS = merged("range_joiners")
_BETWEEN_BEFORE = re.compile(
    r"\b(?:" + "|".join(map(re.escape, sorted(_RANGE_OPENERS))) + r")[ \u00a0]+\Z", re.IGNORECASE
)
_AND_GAP = re.compile(
    r"[ \u00a0]+(?:" + "|".join(map(re.escape, sorted(_RANGE_JOINERS))) + r")[ \u00a0]+",
    re.IGNORECASE,
)


def between_and(text: str, first: Reading, second: Reading) -> bool:
    """Whether two numbers are the ends of one range written "between X and Y" ("mellan X
    och Y"): the range's year, and one clause, not two joined by "and"."""
    return bool(
        _AND_GAP.fullmatch(text, first.end, second.start)
        and _BETWEEN_BEFORE.search(text, 0, first.start)
    )


_CLAUSE_END = re.compile(r"[,;:()\n|]|\.(?:\s|$)|\x00")
_PERIOD_WORD = re.compile(r"/?[^\W\d_]+")


_ORDINAL_AFTER = re.compile(_ORDINAL_SUFFIX.removesuffix("?") + r"\b", re.IGNORECASE)


def _with_period(text: str, reading: Reading, language: str, readings: list[Reading]) -> Reading:
    if reading.kind not in (Kind.AMOUNT, Kind.COUNT, Kind.QUANTITY, Kind.DURATION, Kind.PERCENTAGE):
        return reading
    if reading.kind is Kind.COUNT and _ORDINAL_AFTER.match(text, reading.end):
        # A day of the month, not a count per month: "on the 20th of each month", "den 28:e
        # varje månad" is the day, whatever the line says of how often.
        return reading
    limit = len(text)
    for other in readings:
        if other.start >= reading.end:
            limit = other.start
            break
    window = text[reading.end : limit]
    stop = _CLAUSE_END.search(window)
    window = window[: stop.start()] if stop else window
    period = find_period(window)
    return reading._replace(period=period) if period else reading


def find_period(window: str) -> str | None:
    """The period a text right after a number states: "per år", "i månaden", "/mån", "an hour"."""
    words = [w.lower() for w in _PERIOD_WORD.findall(window)]
    marker = None  # where the last per-marker was
    # "399 kr monthly", "... i månaden årligen"; not "the hourly spot price". A period the
    # window states with "per" or "/" wins: "Billed yearly (SEK per agent/month)" is monthly.
    adverb = None
    for index, word in enumerate(words[:8]):
        if word in _PERIOD_ADVERBS and (index <= 1 or index == len(words) - 1):
            adverb = adverb or _PERIOD_ADVERBS[word]
            continue
        if word.startswith("/") and word[1:] in _PERIODS:
            return _PERIODS[word[1:]]
        if word in _PER_MARKERS:
            marker = index
            continue
        if marker is not None and (word in _PERIODS or _UNITS.get(word) in TIME_UNITS):
            return _PERIODS.get(word) or _UNITS[word]
        if marker is not None and index >= 4 and index - marker >= 2:
            break  # one word may stand between ("för varje skadefritt år")
    return adverb


_MAX_ENDING = 4  # after a compound's rate word: "avgift-erna", "pris-et"


def period_of_compound(word: str) -> str | None:
    """The period a compound's head names when its tail is a rate: "årsavgift" -> year,
    "timpris" -> hour; not "dagpass" or "årskort" (a thing that lasts a day, a year).

    The compound is split as the dictionary splits it, or else before a rate word that ends
    it (with an ending of its own: "månadspriset"): the dictionary knows a word "spris", so
    it splits "månadspris" as "månad" and "spris", not "månad-s-pris".
    """
    word = word.lower()
    for language in LEXICONS:
        parts = split_compound(word, language)
        if parts and parts[-1] in _RATE_WORDS and (period := _period_named(parts[0])):
            return period
    for rate in _RATE_WORDS:
        cut = word.rfind(rate)
        ending = word[cut + len(rate) :]
        if cut > 0 and len(ending) <= _MAX_ENDING and (period := _period_named(word[:cut])):
            return period
    return None


def _period_named(head: str) -> str | None:
    """The period a compound's head names ("års" -> year, "tim" -> hour), or None."""
    for candidate in (head, head.rstrip("s")):
        unit = _UNITS.get(candidate)
        period = _PERIODS.get(candidate) or (unit if unit in TIME_UNITS else None)
        if period:
            return period
    return None


def _leftovers(text: str, masked: str, language: str) -> list[Reading]:
    found = []
    for m in _DIGITS.finditer(masked):
        if "\x00" in m.group():
            for part in re.finditer(r"[^\x00]*\d[^\x00]*", m.group()):
                digits = re.sub(r"\D", "", part.group())
                found.append(
                    Reading(
                        part.group(),
                        m.start() + part.start(),
                        m.start() + part.end(),
                        Kind.CODE,
                        digits,
                    )
                )
            continue
        found.append(Reading(m.group(), m.start(), m.end(), Kind.CODE, m.group().lower()))
    return found
