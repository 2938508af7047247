"""Which words of a line or sentence belong to which of its numbers.

Pure: no ORM, no I/O. A line that states several numbers splits into clauses
at a conjunction or ";" between two numbers ("... 45 dagar för plan A
och 60 dagar för plan B"); numbers with no such word between
them share a clause ("kostar 450 kr per tillfälle, högst 10 kilo"). The
same split serves KB lines (facts) and answer sentences (claims), so both
sides bind words to numbers the same way.

| part | terms |
|---|---|
| the clause of a number | every term of it, plus ``n:<value>`` of the clause's other numbers; a line break ends a clause like ";" (each line of a paragraph is its own statement) |
| the lead (the paragraph's opening lines without a number, and the words before the first number of the number's own line) | its terms, without weekdays, letters and numbers (those qualify only their own clause) |
| a compound before an amount ("dygnspriset 75 kr", "timpriset") | its head's period, when the amount states none |
"""

import re
from dataclasses import dataclass
from itertools import pairwise

from grounding.lexicon import merged
from grounding.notation import Kind, Reading, period_of_compound
from grounding.terms import terms

_CONJUNCTIONS = merged("conjunctions")
_SPLIT = re.compile(
    r";|\n|\b(?:" + "|".join(sorted(_CONJUNCTIONS, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
_WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass(frozen=True, slots=True)
class Clause:
    reading: Reading
    text: str
    terms: frozenset[str]
    lead: frozenset[str]
    period: str | None  # a period its words state outside "per ..." (a compound's head)


def is_marker(term: str) -> bool:
    """Weekdays, letters and numbers: terms that qualify one clause, never a whole topic."""
    return term.startswith(("weekday:", "#", "n:"))


def clause_spans(text: str, readings: list[Reading]) -> list[tuple[int, int]]:
    """(start, end) of the clause of each reading."""
    cuts = [0]
    for before, after in pairwise(readings):
        gap = list(_SPLIT.finditer(text, before.end, after.start))
        cuts.append(gap[-1].start() if gap else -1)
    cuts.append(len(text))
    spans = []
    for index in range(len(readings)):
        start = index
        while cuts[start] == -1:
            start -= 1
        end = index + 1
        while cuts[end] == -1:
            end += 1
        spans.append((cuts[start], cuts[end]))
    return spans


def clauses_of(text: str, readings: list[Reading], language: str) -> list[Clause]:
    """One ``Clause`` per reading (see the module table)."""
    if not readings:
        return []
    head_end = text.rfind("\n", 0, readings[0].start) + 1  # the opening lines with no number
    leads: dict[int, frozenset[str]] = {}
    found = []
    for reading, (start, end) in zip(readings, clause_spans(text, readings), strict=True):
        line_start = text.rfind("\n", 0, reading.start) + 1
        lead = leads.get(line_start)
        if lead is None:
            first = next(r.start for r in readings if r.start >= line_start)
            opening = (
                text[:first] if line_start <= head_end else text[:head_end] + text[line_start:first]
            )
            lead = leads[line_start] = frozenset(
                t for t in terms(opening, language) if not is_marker(t)
            )
        clause_text = text[start:end]
        numbers = {f"n:{r.value}" for r in readings if r is not reading and start <= r.start < end}
        period = None
        if reading.kind is Kind.AMOUNT and reading.period is None:
            for word in _WORD.findall(clause_text):
                if (period := period_of_compound(word)) is not None:
                    break
        found.append(
            Clause(reading, clause_text, terms(clause_text, language) | numbers, lead, period)
        )
    return found
