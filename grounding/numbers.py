"""Numbers in text, their canonical forms, and when one number supports another.

Pure: no ORM, no I/O. Every digit of a text belongs to exactly one ``Number``.
Forms that can't be read one way only (``1,000`` is a thousand or one) are
``ambiguous``: only the same written form supports them, so doubt rejects.

Extraction runs in passes from the most specific form to the least (phones,
dates, times, codes, then plain numbers); each pass masks what it took so a
later pass never re-reads those digits.
"""

import re
from datetime import date
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

from grounding.phones import PhoneMatch, find_phones
from grounding.text import aligned_lower


class NumberKind(StrEnum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    PERCENT = "percent"
    PHONE = "phone"
    DATE = "date"
    TIME = "time"
    CODE = "code"


_VALUE_KINDS = frozenset({NumberKind.INTEGER, NumberKind.DECIMAL, NumberKind.PERCENT})


# A NamedTuple, not a frozen dataclass: one is made for every number of every
# sentence checked, and a tuple is several times cheaper to build.
class Number(NamedTuple):
    """One number as written in a text, with its canonical form.

    ``canonical``: ``"12.5"``, ``"20%"``, ``"+4681234567"``, ``"2025-12-31"``,
    ``"08:00"``, or the literal written form for codes and ambiguous numbers.
    ``unit``: ``"SEK"``, ``"TB"``, ``"SEK/month"``, ``"/month"`` or None.
    """

    text: str
    start: int
    end: int
    kind: NumberKind
    canonical: str
    unit: str | None = None
    ambiguous: bool = False

    @property
    def lookup_key(self) -> str:
        """Shared by every number that could support this one (and by this one)."""
        if self.ambiguous or self.kind is NumberKind.CODE:
            return "literal:" + self.canonical.removesuffix("%")
        if self.kind in _VALUE_KINDS:
            return "value:" + self.canonical.removesuffix("%")
        return f"{self.kind}:{self.canonical}"


def supports(answer: Number, kb: Number) -> bool:
    """Whether ``kb`` (a number in a snippet) backs ``answer`` (a number in an answer)."""
    return answer.lookup_key == kb.lookup_key and supports_same_key(answer, kb)


def supports_same_key(answer: Number, kb: Number) -> bool:
    """``supports`` for two numbers already known to share their ``lookup_key``."""
    if answer.ambiguous or kb.ambiguous or answer.kind is NumberKind.CODE:
        same_form = answer.kind == kb.kind and answer.canonical == kb.canonical
        return same_form and _unit_supported(answer.unit, kb.unit)
    if answer.kind is NumberKind.PERCENT:
        return kb.kind is NumberKind.PERCENT
    if answer.kind in _VALUE_KINDS:
        return kb.kind in _VALUE_KINDS and _unit_supported(answer.unit, kb.unit)
    return answer.kind == kb.kind


def _unit_supported(answer_unit: str | None, kb_unit: str | None) -> bool:
    # A unit the answer gives must be the KB's; a unit the answer leaves out may be anything.
    if answer_unit is None:
        return True
    if kb_unit is None:
        return False
    answer_main, _, answer_per = answer_unit.partition("/")
    kb_main, _, kb_per = kb_unit.partition("/")
    if answer_main and answer_main != kb_main:
        return False
    return not answer_per or answer_per == kb_per


_DIGIT = re.compile(r"\d")


def contains_digit(text: str) -> bool:
    """Whether ``text`` has any decimal digit (any script, as ``\\d`` reads it)."""
    return _DIGIT.search(text) is not None


# --- units -----------------------------------------------------------------

_UNIT_ALIASES: dict[str, tuple[str, ...]] = {
    "SEK": ("kr", "kronor", "krona", "sek", ":-"),
    "EUR": ("eur", "euro", "euros", "€"),
    "USD": ("usd", "dollar", "dollars", "$"),
    "TB": ("tb", "terabyte", "terabytes"),
    "GB": ("gb", "gigabyte", "gigabytes"),
    "MB": ("mb", "megabyte", "megabytes"),
    "KB": ("kb", "kilobyte", "kilobytes"),
    # Canonical names hold no "/": a "/" in a unit separates the period ("SEK/month").
    "Mbps": ("mbit/s", "mbps", "mbit", "mb/s"),
    "Gbps": ("gbit/s", "gbps", "gbit", "gb/s"),
    "s": ("sekunder", "sekund", "seconds", "second", "sec"),
    "min": ("minuter", "minut", "minutes", "minute", "mins", "min"),
    "h": ("timmar", "timme", "tim", "hours", "hour", "hrs", "hr", "h"),
    "workday": (
        "arbetsdagar",
        "arbetsdag",
        "vardagar",
        "vardag",
        "bankdagar",
        "bankdag",
        "business days",
        "business day",
        "working days",
        "working day",
    ),
    "day": ("dagar", "dag", "dygn", "days", "day"),
    "week": ("veckor", "vecka", "weeks", "week"),
    "month": ("månader", "månad", "mån", "mnd", "months", "month"),
    "year": ("år", "years", "year", "yrs"),
    "pcs": ("stycken", "styck", "st", "pcs"),
    "pp": ("procentenheter", "procentenhet", "percentage points"),
    "km": ("km", "kilometer"),
    "kg": ("kg", "kilo"),
}
_UNIT_BY_ALIAS = {alias: unit for unit, aliases in _UNIT_ALIASES.items() for alias in aliases}

_PERIOD_BARE: dict[str, str] = {
    "månad": "month",
    "mån": "month",
    "mnd": "month",
    "month": "month",
    "mo": "month",
    "år": "year",
    "year": "year",
    "yr": "year",
    "dag": "day",
    "dygn": "day",
    "day": "day",
    "vecka": "week",
    "week": "week",
    "timme": "hour",
    "tim": "hour",
    "hour": "hour",
    "h": "hour",
    "minut": "minute",
    "min": "minute",
    "minute": "minute",
    "st": "pcs",
    "styck": "pcs",
}
# "i år" is "this year", so after "i"/"om" only the definite forms mean "per".
_PERIOD_DEFINITE: dict[str, str] = {
    "månaden": "month",
    "året": "year",
    "dagen": "day",
    "dygnet": "day",
    "veckan": "week",
    "timmen": "hour",
    "minuten": "minute",
}


_SP = "[ \u00a0\u202f\u2009]"  # spaces that may sit inside or after a number (never a newline)
_DASH_CHARS = "-\u2010\u2011\u2012\u2013\u2014"
_DASH = f"[{_DASH_CHARS}]"


def _alternation(words) -> str:
    ordered = sorted(words, key=len, reverse=True)  # longest first: "kronor" before "kr"
    return "|".join(re.escape(word).replace(r"\ ", _SP) for word in ordered)


# Units and periods are matched in lowercased text (``aligned_lower``): the regex
# engine tries case-sensitive alternatives many times faster than ignore-case ones.
_SUFFIX = re.compile(
    rf"{_SP}?(?:(?P<percent>%|(?:procent|percent)(?!\w))"
    rf"|(?P<unit>{_alternation(_UNIT_BY_ALIAS)})(?!\w))"
)
_PER = (
    rf"(?:{_SP}?/{_SP}?|{_SP}+(?:per|à|a|an|each|every){_SP}+)"
    rf"(?P<bare>{_alternation(_PERIOD_BARE)})(?!\w)"
    rf"|{_SP}+(?:i|om|per){_SP}+(?P<definite>{_alternation(_PERIOD_DEFINITE)})(?!\w)"
)
_SPACE_CHARS = " \u00a0\u202f\u2009"
_PER_WORDS = ("per", "à", "a", "an", "each", "every", "i", "om")
# What may start a suffix, for a cheap test before matching one (``_times``).
_SUFFIX_STARTS = frozenset(
    [alias[:2] for alias in (*_UNIT_BY_ALIAS, "procent", "percent") if len(alias) > 1]
    + [word + " " if len(word) == 1 else word[:2] for word in _PER_WORDS]
)
_SUFFIX_SINGLE = frozenset(
    [alias for alias in (*_UNIT_BY_ALIAS, "%", "/") if len(alias) == 1] + ["à"]
)


def _may_have_suffix(masked: str, end: int) -> bool:
    if end < len(masked) and masked[end] in _SPACE_CHARS:
        end += 1
    if end >= len(masked):
        return False
    head = masked[end : end + 2].lower()
    return head[0] in _SUFFIX_SINGLE or head in _SUFFIX_STARTS


# --- forms -----------------------------------------------------------------

# Patterns start with a character (their lookbehinds come after it): the regex
# engine then jumps from candidate to candidate instead of trying every position.

# Only "+digit" or a trunk "0" followed by at least 6 more digits can be a phone,
# which keeps the (slow) phonenumbers matcher off ordinary sentences.
_PHONE_CANDIDATE = re.compile(
    r"(?:\+|0(?<![0-9]0))[0-9](?:[ \u00a0\u202f\u2009()./\-\u2010-\u2014]{0,3}[0-9]){5,}"
)
_PLUS_RUN = re.compile(rf"\+(?<![0-9]\+)[0-9]+(?:(?:{_SP}|{_DASH}|[()]){{1,2}}[0-9]+)*")
_NOT_GLUED = r"(?<![0-9][0-9])(?<![0-9][-/.,:][0-9])"  # after a first digit: none before it
_NOT_FOLLOWED = r"(?![0-9])(?![-/.,:][0-9])"
# A time may sit on either side of a dash: "08:00-17:00".
_TIME_NOT_GLUED = r"(?<![0-9][0-9])(?<![0-9][.,:][0-9])"
_TIME_NOT_FOLLOWED = r"(?![0-9])(?![.,:][0-9])"
_DATE = re.compile(
    rf"([0-9]{_NOT_GLUED}[0-9]{{3}})([-/])([0-9]{{1,2}})\2([0-9]{{1,2}}){_NOT_FOLLOWED}"
)
_TIME = re.compile(
    rf"([0-9]{_TIME_NOT_GLUED}[0-9]?):([0-9]{{2}})(?::([0-9]{{2}}))?{_TIME_NOT_FOLLOWED}"
)
# Swedish writes times with a dot ("08.00"); read that as a time only where it
# can't be a decimal: after "kl." or as both ends of a range.
_KL_TIME = re.compile(
    rf"[kK](?<![\w][kK])[lL]\.?[ \u00a0]?([0-9]{{1,2}})[.:]([0-9]{{2}}){_TIME_NOT_FOLLOWED}"
)
_DOTTED_TIME_RANGE = re.compile(
    rf"([0-9]{_TIME_NOT_GLUED}[0-9]?)\.([0-9]{{2}})({_SP}?{_DASH}{_SP}?)"
    rf"([0-9]{{1,2}})\.([0-9]{{2}}){_TIME_NOT_FOLLOWED}"
)
_HYPHEN_GROUP = re.compile(rf"[0-9](?<![0-9][0-9])[0-9]*(?:{_DASH}[0-9]+)+(?![0-9])")
_SLASH_GROUP = re.compile(r"[0-9](?<![0-9][0-9])[0-9]*(?:/[0-9]+)+(?![0-9])")
# "1 000" (a space-grouped number starts with 1-9) or plain digits, with any
# decimal or group marks; it starts with \d so the engine can skip to digits.
_PLAIN_BODY = rf"\d(?:(?<=[1-9])\d{{0,2}}(?:{_SP}\d{{3}}(?!\d))+|\d*)(?:[.,]\d+)*"
# A plain number with what may follow it, in one match: a percent sign, or a
# unit and then a period ("99 kr/månad"), or a period alone ("5 per år"). The
# suffixes are optional, so the body never gives digits back for them.
_PLAIN_WITH_SUFFIX = re.compile(
    rf"(?P<body>{_PLAIN_BODY})"
    rf"(?:{_SP}?(?P<percent>%|(?:procent|percent)(?!\w))"
    rf"|(?:{_SP}?(?P<unit>{_alternation(_UNIT_BY_ALIAS)})(?!\w))?(?:{_PER})?)"
)
_SIGN_CHARS = "-\u2212"
_BEFORE_DIGITS = ".," + _SIGN_CHARS  # what may join a plain number as a decimal mark or sign
_RANGE_GAP = re.compile(rf"{_SP}?{_DASH}{_SP}?")
_DASHES = re.compile(_DASH)
_SPACES = re.compile(_SP)
_MASK = "\x00"


def extract_numbers(text: str) -> list[Number]:
    """Every number in ``text``, in order, non-overlapping, covering every digit once."""
    if not contains_digit(text):
        return []
    found: list[Number] = []
    masked = text
    if _MAY_HAVE_FORMS.search(text):
        for finder in _FORM_FINDERS:
            numbers = finder(text, masked)
            if numbers:
                found.extend(numbers)
                masked = _mask(masked, numbers)
    plain = _plain_numbers(text, masked)
    if found:
        found.extend(plain)
        found.sort(key=lambda number: number.start)
    else:
        found = plain
    return _spread_range_units(text, found)


# Where any of the passes before the plain one could match, a piece of it is
# found here; most sentences have none and skip those passes. Every such form
# has "+4…" or "0…" (phones), or digits around "-", "/", ":", "." or a dash
# (dates, times, "kl. 8.00" too, codes).
_MAY_HAVE_FORMS = re.compile(  # one character class first: the engine skips to those
    rf"[+0-9](?:(?<=[+0])(?<![0-9]0)[0-9]|(?<=[0-9])[-/:.{_DASH_CHARS[1:]}][0-9])"
)


def _mask(masked: str, numbers: list[Number]) -> str:
    pieces, position = [], 0
    for number in sorted(numbers, key=lambda n: n.start):
        pieces.append(masked[position : number.start])
        pieces.append(_MASK * (number.end - number.start))
        position = number.end
    pieces.append(masked[position:])
    return "".join(pieces)


def _is_digit(text: str, index: int) -> bool:
    return 0 <= index < len(text) and text[index].isdecimal()


def _glued_to_digits(text: str, start: int, end: int) -> bool:
    """Whether the span continues a digit group on either side (``1-08...``, ``...67-9``)."""
    if _is_digit(text, start - 1) or _is_digit(text, end):
        return True
    before = start >= 2 and text[start - 1] in "-/.,:+" and _is_digit(text, start - 2)
    after = end < len(text) and text[end] in "-/.,:" and _is_digit(text, end + 1)
    return before or after


def _phones(text: str, masked: str) -> list[Number]:
    numbers = []
    for candidate in _PHONE_CANDIDATE.finditer(masked):
        offset = candidate.start()
        for phone in _phones_in(candidate.group()):
            start, end = offset + phone.start, offset + phone.end
            if ":" in phone.text or _DOTTED_TIME_RANGE.fullmatch(phone.text):
                continue  # "08.00-17.00" is opening hours, not a phone number
            if _glued_to_digits(text, start, end):
                continue
            numbers.append(Number(text[start:end], start, end, NumberKind.PHONE, phone.e164))
    return numbers


@lru_cache(maxsize=2048)
def _phones_in(candidate: str) -> tuple[PhoneMatch, ...]:
    # The phonenumbers matcher costs ~0.1 ms a call; the same candidates recur
    # (a streamed sentence is verified again in the whole answer, KB lines reindexed).
    return tuple(find_phones(candidate))


def _plus_runs(text: str, masked: str) -> list[Number]:
    # "+46 ..." that is no valid phone is still no ordinary number: exact form only.
    numbers = []
    for match in _PLUS_RUN.finditer(masked):
        if sum(ch.isdecimal() for ch in match.group()) >= 7:
            numbers.append(_literal(text, match.start(), match.end(), NumberKind.CODE))
    return numbers


def _literal(text: str, start: int, end: int, kind: NumberKind) -> Number:
    written = text[start:end]
    canonical = _SPACES.sub(" ", _DASHES.sub("-", written))
    return Number(written, start, end, kind, canonical, ambiguous=True)


def _dates(text: str, masked: str) -> list[Number]:
    if "-" not in masked and "/" not in masked:
        return []
    numbers = []
    for match in _DATE.finditer(masked):
        year, _, month, day = match.groups()
        try:
            canonical = date(int(year), int(month), int(day)).isoformat()
        except ValueError:
            numbers.append(_literal(text, match.start(), match.end(), NumberKind.CODE))
            continue
        numbers.append(
            Number(match.group(), match.start(), match.end(), NumberKind.DATE, canonical)
        )
    return numbers


def _time(text: str, start: int, end: int, hour: str, minute: str, second: str | None) -> Number:
    h, m, s = int(hour), int(minute), int(second or 0)
    valid = (h < 24 and m < 60 and s < 60) or (h == 24 and m == 0 and s == 0)
    if not valid:
        return _literal(text, start, end, NumberKind.CODE)
    canonical = f"{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")
    return Number(text[start:end], start, end, NumberKind.TIME, canonical)


def _times(text: str, masked: str) -> list[Number]:
    if ":" not in masked and "." not in masked:
        return []
    numbers: list[Number] = []
    kl = "kl" in aligned_lower(masked)
    for match in _KL_TIME.finditer(masked) if kl else ():
        numbers.append(_time(text, match.start(), match.end(), *match.groups(), None))
    if numbers:
        masked = _mask(masked, numbers)
    dotted = _DOTTED_TIME_RANGE.finditer(masked) if "." in masked else ()
    for match in dotted:
        h1, m1, _, h2, m2 = match.groups()
        end = match.end()
        if _may_have_suffix(masked, end) and _SUFFIX.match(aligned_lower(masked), end):
            continue  # "1.50-2.50 kr" is a price range
        if int(h1) <= 24 and int(h2) <= 24:
            numbers.append(_time(text, match.start(1), match.end(2), h1, m1, None))
            numbers.append(_time(text, match.start(4), match.end(5), h2, m2, None))
    if numbers:
        masked = _mask(masked, numbers)
    if ":" not in masked:
        return numbers
    for match in _TIME.finditer(masked):
        numbers.append(_time(text, match.start(), match.end(), *match.groups()))
    return numbers


def _codes(text: str, masked: str) -> list[Number]:
    # A hyphenated digit group with a 5+ digit part ("556677-8899") is an identifier;
    # any other ("8-17") is a range of separate numbers, left to the plain pass.
    if not any(dash in masked for dash in _DASH_CHARS):
        return []
    numbers = []
    for match in _HYPHEN_GROUP.finditer(masked):
        if any(len(part) >= 5 for part in _DASHES.split(match.group())):
            written = match.group()
            canonical = _DASHES.sub("-", written)
            numbers.append(Number(written, match.start(), match.end(), NumberKind.CODE, canonical))
    return numbers


def _slash_codes(text: str, masked: str) -> list[Number]:
    # "24/7", "1/2", "31/12/2025": no one reading is certain, so exact form only.
    if "/" not in masked:
        return []
    return [
        _literal(text, match.start(), match.end(), NumberKind.CODE)
        for match in _SLASH_GROUP.finditer(masked)
    ]


# Most specific first: each pass masks what it took from the later ones.
_FORM_FINDERS = (_phones, _plus_runs, _dates, _times, _codes, _slash_codes)


def _plain_numbers(text: str, masked: str) -> list[Number]:
    numbers = []
    for match in _PLAIN_WITH_SUFFIX.finditer(aligned_lower(masked)):
        start, end = match.span()
        body, percent, unit_alias, bare, definite = match.groups()
        lead, negative = "", False
        if start and masked[start - 1] in _BEFORE_DIGITS:  # rare: look closer
            lead = _leading_separator(masked, start)
            start -= len(lead)
            negative = _signed(masked, start)
            if negative:
                start -= 1
        if not (lead or negative) and body.isdigit() and body.isascii():  # most numbers: "399"
            kind, canonical, ambiguous = NumberKind.INTEGER, body.lstrip("0") or "0", False
        else:
            kind, canonical, ambiguous = _read_plain(body, negative, bool(lead))
        if ambiguous:
            canonical = ("-" if negative else "") + lead + _normal(body)
        unit = None
        if percent:
            kind, canonical = NumberKind.PERCENT, canonical + "%"
        else:
            if unit_alias:
                unit = _UNIT_BY_ALIAS.get(unit_alias) or _UNIT_BY_ALIAS[_normal(unit_alias)]
            period = bare or definite
            if period:
                unit = f"{unit or ''}/{_PERIOD_BARE.get(period) or _PERIOD_DEFINITE[period]}"
        numbers.append(Number(text[start:end], start, end, kind, canonical, unit, ambiguous))
    return numbers


def _normal(written: str) -> str:
    return _SPACES.sub(" ", written)


def _leading_separator(masked: str, start: int) -> str:
    """``.5`` or ``,5`` after a space: a decimal without its integer part."""
    if start == 0 or masked[start - 1] not in ".,":
        return ""
    if start >= 2 and not (masked[start - 2].isspace() or masked[start - 2] == "("):
        return ""
    return masked[start - 1]


def _signed(masked: str, start: int) -> bool:
    """A minus right before the digits, not a range dash (``8 -17``) nor a hyphen."""
    if start == 0 or masked[start - 1] not in _SIGN_CHARS:
        return False
    index = start - 2
    if index >= 0 and not (masked[index].isspace() or masked[index] == "("):
        return False
    while index >= 0 and masked[index] in " \t\u00a0":
        index -= 1
    return not _is_digit(masked, index)


def _read_plain(body: str, negative: bool, leading_separator: bool) -> tuple[NumberKind, str, bool]:
    """(kind, canonical value, ambiguous) of digits with ``.``/``,`` and space groups."""
    if not leading_separator and body.isdigit() and body.isascii():
        return NumberKind.INTEGER, _value(body, "", negative), False
    decimal_mark = leading_separator or "." in body or "," in body
    shape = NumberKind.DECIMAL if decimal_mark else NumberKind.INTEGER
    groups = _SPACES.split(body)
    if leading_separator or not all(group.isascii() for group in groups):
        return shape, "", True
    if len(groups) > 1:  # "10 000" or "10 000,50": spaces group thousands, so one mark is decimal
        last = re.split(r"[.,]", groups[-1])
        if len(last) > 2:
            return shape, "", True
        fraction = last[1] if len(last) == 2 else ""
        return shape, _value("".join(groups[:-1]) + last[0], fraction, negative), False
    parts = re.split(r"([.,])", body)
    digits, marks = parts[0::2], parts[1::2]
    if not marks:
        return shape, _value(body, "", negative), False
    head = digits[0]
    could_group = 1 <= len(head) <= 3 and head[0] != "0"
    if len(marks) == 1:
        if could_group and len(digits[1]) == 3:  # "1,000" / "1.000": a thousand or one?
            return shape, "", True
        return shape, _value(head, digits[1], negative), False
    middle_grouped = could_group and all(len(group) == 3 for group in digits[1:-1])
    if middle_grouped and len(set(marks)) == 1 and len(digits[-1]) == 3:  # "1.000.000"
        return NumberKind.INTEGER, _value("".join(digits), "", negative), False
    if middle_grouped and len(set(marks[:-1])) == 1 and marks[-1] != marks[0]:  # "1,000.50"
        return shape, _value("".join(digits[:-1]), digits[-1], negative), False
    return shape, "", True


def _value(integer: str, fraction: str, negative: bool) -> str:
    integer = integer.lstrip("0") or "0"
    fraction = fraction.rstrip("0")
    canonical = f"{integer}.{fraction}" if fraction else integer
    return "-" + canonical if negative and canonical != "0" else canonical


def _spread_range_units(text: str, numbers: list[Number]) -> list[Number]:
    """``10-20 %`` and ``1–3 dagar``: the unit written after a range belongs to both ends."""
    for index in range(len(numbers) - 2, -1, -1):
        first, second = numbers[index], numbers[index + 1]
        if first.kind not in (NumberKind.INTEGER, NumberKind.DECIMAL) or first.unit is not None:
            continue
        if second.kind is not NumberKind.PERCENT and (
            second.kind not in _VALUE_KINDS or second.unit is None
        ):
            continue
        if not _RANGE_GAP.fullmatch(text, first.end, second.start):
            continue
        if second.kind is NumberKind.PERCENT:
            numbers[index] = first._replace(
                kind=NumberKind.PERCENT, canonical=first.canonical + "%"
            )
        else:
            numbers[index] = first._replace(unit=second.unit)
    return numbers
