"""Every number of an answer as a claim: its value, kind, unit, period and subject.

Pure: no ORM, no I/O. Claims are read with the same notation and clause
rules as facts (:mod:`grounding.notation`, :mod:`grounding.clauses`), so the
two sides meet on canonical values and on the same terms. A number that
opens a markdown list item ("2. Kontrollera ...") is an ordinal claim. A
bare hour range ("8–18") or an hour after "till"/"until" that the KB does
not state as a count is checked again as a clock (``as_clock``).
"""

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from grounding.clauses import clauses_of, number_term
from grounding.facts import value_keys
from grounding.lexicon import merged
from grounding.notation import Kind, canonical, read_numbers
from grounding.terms import terms, text_language

_LIST_MARKER = re.compile(r"\s*(?:[-*]\s+)?(\d{1,2})[.)]\s")


@dataclass(frozen=True, slots=True)
class Claim:
    text: str  # as written in the answer
    start: int
    end: int
    kind: Kind
    value: str
    unit: str | None
    period: str | None
    subject: frozenset[str]  # every term of its sentence
    qualifiers: frozenset[str]  # the terms of its own clause
    lead: frozenset[str]  # the sentence's opening words, for a clause after the first
    language: str
    conditions: frozenset[str] = frozenset()  # "bound:min" for "över 24 år" (clauses.conditions_of)
    near: frozenset[str] = frozenset()  # its own words in a clause of several numbers (clauses)

    @property
    def key(self) -> str:
        return value_keys(self.kind, self.value)[0]


def extract_claims(text: str, *, language: str | None = None) -> list[Claim]:
    """Every number of ``text`` (one sentence, or more) as a ``Claim``."""
    language = language or text_language(text)
    readings = read_numbers(text, language)
    if not readings:
        return []
    marker = _LIST_MARKER.match(text)
    if marker and readings[0].start == marker.start(1):
        readings[0] = readings[0]._replace(kind=Kind.ORDINAL, unit=None, period=None)
    sentence_terms = terms(text, language) | {number_term(text, r) for r in readings}
    claims = []
    for index, clause in enumerate(clauses_of(text, readings, language)):
        reading = clause.reading
        # A later clause keeps the sentence's opening words as its lead: in "Plan A har 99,5 %
        # och svar inom 4 timmar" the 4 hours are still plan A's.
        lead = clause.lead if index else frozenset()
        if clause.period and reading.period is None:
            reading = reading._replace(period=clause.period)
        claims.append(
            Claim(
                text=reading.text,
                start=reading.start,
                end=reading.end,
                kind=reading.kind,
                value=reading.value,
                unit=reading.unit,
                period=reading.period,
                subject=sentence_terms - {number_term(text, reading)},
                qualifiers=clause.terms,
                lead=lead,
                language=language,
                conditions=clause.conditions,
                near=clause.near,
            )
        )
    return claims


_RANGE_WORD_BEFORE = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w in merged("range_words") if w.isalpha()) + r")\s*$",
    re.IGNORECASE,
)
_LAST_HOUR = 24


def as_clock(claim: Claim, before: str) -> Claim | None:
    """A bare hour range ("8–18") or an hour after "till"/"until" ("till 19") as a clock claim.

    None when the claim is no such count (a unit, a period, a decimal, more than 24).
    """
    if claim.kind is not Kind.COUNT or claim.unit or claim.period:
        return None
    parts = claim.value.split("-")
    if len(parts) > 2 or not all(p.isdigit() and int(p) <= _LAST_HOUR for p in parts):
        return None
    if len(parts) == 1 and not _RANGE_WORD_BEFORE.search(before):
        return None
    if len(parts) == 2 and int(parts[0]) >= int(parts[1]):
        return None
    clock = "-".join(f"{int(p):02d}:00" for p in parts)
    return replace(claim, kind=Kind.TIME_RANGE if len(parts) == 2 else Kind.TIME, value=clock)


def as_bare_hours(claim: Claim) -> Claim | None:
    """A clock range of whole hours ("07:00 to 21:00") as the bare hours a KB may write
    ("every day 7–21", "mån–fre 9–17"): ``as_clock`` the other way round."""
    if claim.kind is not Kind.TIME_RANGE:
        return None
    ends = claim.value.split("-")
    if not all(end.endswith(":00") for end in ends):
        return None
    return replace(claim, kind=Kind.COUNT, value="-".join(str(int(end[:2])) for end in ends))


# One unit in another, exactly: the subunits of money and the metric prefixes, and the
# clock's seconds, minutes and hours. Nothing calendar-bound (a month is no fixed number of days).
_IN_BASE = {
    "SEK": ("money", Decimal(100)), "öre": ("money", Decimal(1)),
    "t": ("mass", Decimal(1_000_000)), "kg": ("mass", Decimal(1000)), "g": ("mass", Decimal(1)),
    "mil": ("length", Decimal(10_000)), "km": ("length", Decimal(1000)), "m": ("length", Decimal(1)),
    "cm": ("length", Decimal("0.01")), "mm": ("length", Decimal("0.001")),
    "l": ("volume", Decimal(1000)), "dl": ("volume", Decimal(100)), "cl": ("volume", Decimal(10)),
    "ml": ("volume", Decimal(1)),
    "TWh": ("energy", Decimal(10**12)), "GWh": ("energy", Decimal(10**9)),
    "MWh": ("energy", Decimal(10**6)), "kWh": ("energy", Decimal(1000)),
    "Wh": ("energy", Decimal(1)), "MW": ("power", Decimal(10**6)), "kW": ("power", Decimal(1000)),
    "W": ("power", Decimal(1)),
    "MWp": ("peak power", Decimal(10**6)), "kWp": ("peak power", Decimal(1000)),
    "hour": ("time", Decimal(3600)), "minute": ("time", Decimal(60)), "second": ("time", Decimal(1)),
}  # fmt: skip


def other_dimensions(unit: str | None, other: str | None) -> bool:
    """Whether two units measure different things (kilometres and megawatts); unknown: no."""
    one, two = _IN_BASE.get(unit or ""), _IN_BASE.get(other or "")
    return one is not None and two is not None and one[0] != two[0]


def in_other_units(claim: Claim) -> list[Claim]:
    """The claim restated in every other unit of its dimension, where the value is exact:
    "0,886 kr" is "88,6 öre", "1,5 timme" is "90 minuter", "2 kg" is "2000 g"."""
    if claim.unit not in _IN_BASE or "-" in claim.value.lstrip("-"):
        return []
    dimension, factor = _IN_BASE[claim.unit]
    try:
        base = Decimal(claim.value) * factor
    except InvalidOperation:
        return []
    if not base:
        return []  # nothing in any unit: a zero says its unit as a choice of words
    restated = []
    for unit, (other_dimension, other_factor) in _IN_BASE.items():
        if other_dimension != dimension or unit == claim.unit:
            continue
        value = base / other_factor
        if value == value.quantize(Decimal("0.001")):  # an exact, readable figure only
            restated.append(replace(claim, value=canonical(value), unit=unit))
    return restated
