"""Every number of an answer as a claim: its value, kind, unit, period and subject.

Pure: no ORM, no I/O. Claims are read with the same notation and clause
rules as facts (:mod:`grounding.notation`, :mod:`grounding.clauses`), so the
two sides meet on canonical values and on the same terms. A number that
opens a markdown list item ("2. Kontrollera ...") is an ordinal claim.
"""

import re
from dataclasses import dataclass

from grounding.clauses import clauses_of
from grounding.facts import value_keys
from grounding.notation import Kind, read_numbers
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
    sentence_terms = terms(text, language) | {f"n:{r.value}" for r in readings}
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
                subject=sentence_terms - {f"n:{reading.value}"},
                qualifiers=clause.terms,
                lead=lead,
                language=language,
            )
        )
    return claims
