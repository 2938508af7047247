"""When a fact of the KB states a number of an answer: row 3 ("stated") of the cited rule.

Pure: no ORM, no I/O. :mod:`grounding.cited` checks each number (a claim,
:mod:`grounding.claims`) against the facts of the line it cites (:mod:`grounding.facts`);
a fact states the claim when every row holds:

| # | check | holds when | else (reason) |
|---|---|---|---|
| 1 | value | the claim's canonical value is the fact's, an end of the fact's range ("08:00–16:30", "1–3 år"), or the fact's date without its year | ``not in the knowledge base`` |
| 2 | kind | the kinds are equal; or the claim is a plain count and the fact an amount, quantity, duration or count; or the claim is a time and the fact a time range | ``different kind of number`` |
| 3 | unit | the claim states none, or the fact's (a header's "Price (SEK)" counts); the checker reads a claim again in each other unit of its dimension ("0,886 kr/kWh" is "88,60 öre/kWh") | ``different unit`` |
| 4 | period | the claim states none, or the fact's ("per år", "an hour", "Årsavgift") | ``different period`` |
| 5 | condition | each family the claim and the fact both state agrees: a bound ("över", "upp till"), a deadline ("senast", "tidigast"), an inclusion ("inkl.", "exkl."), what it counts by ("per elev", one language only; never against a fact stating a period instead) | ``different bound or condition`` |
| 6 | days | the claim's clause names no weekday (no month), or the fact none, or one they share: "07:00–20:00 on Saturdays" is not "Staffed hours (Mon–Fri): 07:00–20:00" | ``different days`` |

Values are canonical (:mod:`grounding.notation`); everything language-specific
is in :mod:`grounding.lexicon`. ``could_be_stated_from`` says which of a fact's
siblings could have been written instead (the cited rule's row 5, "group").
"""

from functools import lru_cache

from grounding.claims import Claim, other_dimensions
from grounding.facts import Fact
from grounding.notation import Kind

NOT_IN_KB = "not in the knowledge base"
KIND_MISMATCH = "different kind of number"
UNIT_MISMATCH = "different unit"
PERIOD_MISMATCH = "different period"
CONDITION_MISMATCH = "different bound or condition"
SUBJECT_MISMATCH = "wrong subject"
DAYS_MISMATCH = "different days"

_UNIT_LEFT_OUT = frozenset({Kind.AMOUNT, Kind.QUANTITY, Kind.DURATION, Kind.COUNT})


def is_identifier(claim: Claim) -> bool:
    """A name written with digits ("SE4", "B2"): it passes where the KB uses it (the cited
    rule's row 1, "reference")."""
    return claim.kind is Kind.CODE and any(ch.isalpha() for ch in claim.value)


def value_matches(claim: Claim, fact: Fact) -> bool:
    """Row 1: the fact's value, an end of its range, or its date without the year."""
    if claim.value == fact.value:
        return True
    if claim.kind is Kind.DATE and fact.kind is Kind.DATE and claim.value.startswith("--"):
        return fact.value[4:] == claim.value[1:]  # "January 6" states less than "2026-01-06"
    return (
        "-" in fact.value.lstrip("-")
        and "-" not in claim.value
        and claim.value in fact.value.split("-")
    )


def kind_matches(claim: Claim, fact: Fact) -> bool:
    """Row 2: the same kind, or one the claim's leaves a unit out of."""
    if claim.kind == fact.kind:
        return True
    if claim.kind is Kind.COUNT:
        return fact.kind in _UNIT_LEFT_OUT
    return claim.kind is Kind.TIME and fact.kind is Kind.TIME_RANGE


def could_be_stated_from(claim: Claim, fact: Fact) -> bool:
    """Whether the claim, with its value changed, could come from ``fact``.

    Same kind, period and unit; a measure in another unit of its dimension still competes
    ("100 GB" for "5 TB"), not one of another ("150 km" for "51.3 MWp").
    """
    if not kind_matches(claim, fact) or (claim.period and claim.period != fact.period):
        return False
    if claim.kind is Kind.QUANTITY:
        return not other_dimensions(claim.unit, fact.unit)
    return claim.unit is None or claim.unit == fact.unit


def stated_alike(claim: Claim, fact: Fact) -> str | None:
    """Rows 2-6: None when kind, unit, period, conditions and days fit, else the reason."""
    if not kind_matches(claim, fact):
        return KIND_MISMATCH
    if claim.unit is not None and claim.unit != fact.unit:
        return UNIT_MISMATCH
    if claim.period is not None and claim.period != fact.period:
        return PERIOD_MISMATCH
    if not conditions_agree(claim, fact):
        return CONDITION_MISMATCH
    if not days_agree(claim, fact):
        return DAYS_MISMATCH
    return None


CALENDAR = ("weekday:", "month:")  # the term prefixes of weekdays and months


def days_agree(claim: Claim, fact: Fact) -> bool:
    """Row 6: the weekdays (and the months) the claim's own clause names meet the fact's.

    Only where both name some: a clause without a day ("öppet 9–17") or a fact without one
    (a price) says nothing here. The fact's days are its key's and its qualifiers' (a column
    header's "(Mon–Fri)", a heading's "Lördagar", a cell's own "lör").
    """
    for family in CALENDAR:
        said = _calendar(claim.qualifiers, family)
        if not said:
            continue
        stated = _calendar(fact.key, family) | _calendar(fact.qualifiers, family)
        if stated and not said & stated:
            return False
    return True


@lru_cache(maxsize=65536)
def _calendar(found: frozenset[str], family: str) -> frozenset[str]:
    return frozenset(term for term in found if term.startswith(family))


_CONDITION_FAMILIES = ("bound:", "deadline:", "incl:", "per:")
_PER_PERSON = frozenset({"per:person"})


def conditions_agree(claim: Claim, fact: Fact) -> bool:
    """Row 5: a bound or inclusion both state is the same ("över 24 år" is not "under 24 år").

    What a price counts by ("per elev", "per 10 kg") is compared in one language only (its
    words are lemmas); against a fact that states a period instead ("SEK 50 per day") it never
    holds: "SEK 50 per rental" is not that. A fact counted per person whose own subject names
    what the claim counts by holds: "Julbord, adults: SEK 695 per person" is "SEK 695 per
    adult".
    """
    if not claim.conditions:
        return True
    stated_all = _conditions(fact.qualifiers)
    for family in _CONDITION_FAMILIES:
        said = {c for c in claim.conditions if c.startswith(family)}
        stated = {q for q in stated_all if q.startswith(family)}
        if family == "per:" and said:
            if not stated:
                if fact.period is not None and claim.period is None:
                    return False
                continue
            if claim.language != fact.language:
                continue
            if stated == _PER_PERSON and all(c[4:] in fact.qualifiers for c in said):
                continue  # "Julbord, adults: SEK 695 per person" is "SEK 695 per adult"
        if said and stated and not said & stated:
            return False
    return True


@lru_cache(maxsize=65536)
def _conditions(qualifiers: frozenset[str]) -> frozenset[str]:
    return frozenset(q for q in qualifiers if q.startswith(_CONDITION_FAMILIES))
