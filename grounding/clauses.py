"""Which words of a line or sentence belong to which of its numbers.

Pure: no ORM, no I/O. A line that states several numbers splits into clauses
at a conjunction, ";", a line break or a sentence's end between two numbers ("... 45 dagar för plan A
och 60 dagar för plan B"); numbers with no such word between
them share a clause ("kostar 450 kr per tillfälle, högst 10 kilo"). The
same split serves KB lines (facts) and answer sentences (claims), so both
sides bind words to numbers the same way.

| part | terms |
|---|---|
| the clause of a number | every term of it, plus ``n:<value>`` of the clause's other numbers; a line break ends a clause like ";" (each line of a paragraph is its own statement); the "and" of a range opened by "between"/"mellan" ("between January 7 and January 31") ends none |
| a conjunction between two weekdays or months ("telefontid måndag, tisdag och fredag kl. 8–9.30", "SEK 295 (Friday and Saturday SEK 325)") | the clause ends where the list of days begins: the list is the later number's |
| a number's own words in a clause of several (``near``) | the words before the clause's first number are its; between two numbers, the words before a comma are the earlier number's and those after it the later one's, and with no comma neither's; the words after the last number are its ("7 980 kr före RUT, alltså 3 990 kr efter avdraget") |
| an enumeration ("58.5% hydropower, 34.0% wind power and 7.5% solar power": commas, then a conjunction) | each item is a clause; the words before its first item are the lead of every item |
| items without a conjunction: a comma right before a number of the same kind as the one before it ("495 kr in Stockholm, 395 kr in Gothenburg") | each item is a clause, led by the line's opening words |
| the lead (the paragraph's opening lines without a number, and the words before the first number of the number's own line) | its terms, without weekdays, letters and numbers (those qualify only their own clause); none for a later sentence of the line that restates a word of it before its number ("Uppsägningstiden för rörligt pris är 1 månad. Uppsägningstiden för fjärrvärme är 3 månader.") |
| a compound before an amount ("dygnspriset 75 kr", "timpriset") | its head's period, when the amount states none and the compound's tail is a rate ("pris", "avgift", "hyra"; not "dagpass", "årskort") |
| a line's "<items>: <what holds for them>" ("Christmas Eve (December 24) and Christmas Day (December 25): all offices closed") | the words after the colon qualify every number before it when none follows it; the words before it qualify a number after it when they join several items and state no number of its kind |
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from grounding.lexicon import LEXICONS, merged
from grounding.notation import (
    Kind,
    Reading,
    between_and,
    find_period,
    period_of_compound,
    unit_word,
)
from grounding.terms import terms

_CONJUNCTIONS = merged("conjunctions")
_CONJUNCTION = r"\b(?:" + "|".join(sorted(_CONJUNCTIONS, key=len, reverse=True)) + r")\b"
# A clause ends at ";", a line break, a sentence's end (a mark, a space, a capital) or a conjunction.
_SPLIT = re.compile(r";|\n|(?<=[.!?])\s+(?-i:[A-ZÅÄÖ])|" + _CONJUNCTION, re.IGNORECASE)
_SENTENCE_START = re.compile(r"\n|(?<=[.!?])\s+(?-i:[A-ZÅÄÖ])")
_SENTENCE_END = re.compile(r"[.!?]\s*\Z")
_ENUMERATION_END = re.compile(_CONJUNCTION, re.IGNORECASE)
_COMMA = re.compile(r",\s")
_ITEM_GAP = re.compile(r",\s+")  # a comma right before the next number: a new item
_WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass(frozen=True, slots=True)
class Clause:
    reading: Reading
    text: str
    terms: frozenset[str]
    lead: frozenset[str]
    period: str | None  # a period its words state outside "per ..." (a compound's head)
    conditions: frozenset[str] = frozenset()  # "bound:min", "incl:no": see ``conditions_of``
    # The number's own words when its clause states several (``_near_words``): in "kostar
    # 320 kr per m², med ett minsta pris på 795 kr" the "minsta pris" is the 795's.
    near: frozenset[str] = frozenset()


def is_marker(term: str) -> bool:
    """Weekdays, months, letters and numbers: terms that qualify one clause, never a topic."""
    return term.startswith(("weekday:", "month:", "#", "n:", "bound:", "incl:", "counts:"))


def clause_spans(text: str, readings: list[Reading]) -> list[tuple[int, int]]:
    """(start, end) of the clause of each reading."""
    return _clause_spans(text, readings)[0]


def _clause_spans(
    text: str, readings: list[Reading]
) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """The clause spans, and for each reading of an enumeration where its first item starts.

    An enumeration is a run of numbers separated by commas and closed by a conjunction
    ("58.5% hydropower, 34.0% wind power and 7.5% solar power"): each item is a clause of
    its own, and the words before the first item lead them all.
    """
    # The first clause starts with its own sentence: earlier sentences and lines are its lead.
    starts = list(_SENTENCE_START.finditer(text, 0, readings[0].start))
    cuts = [starts[-1].start() if starts else 0]
    commas: list[int] = []  # per gap: the last comma's position, or -1
    conjunction: list[bool] = []
    for before, after in pairwise(readings):
        gap = [
            _days_list(text, before.end, m) for m in _SPLIT.finditer(text, before.end, after.start)
        ]
        if between_and(text, before, after):
            gap = []  # "between January 7 and January 31": one range, one clause
        cuts.append(_cut(text, gap))
        comma = list(_COMMA.finditer(text, before.end, after.start))
        commas.append(comma[-1].start() if comma and not gap else -1)
        if (
            commas[-1] != -1
            and before.kind is after.kind
            and _ITEM_GAP.fullmatch(text, comma[-1].start(), after.start)
        ):
            cuts[-1] = commas[-1]  # "495 kr in Stockholm, 395 kr in Gothenburg": two items
        conjunction.append(bool(gap) and bool(_ENUMERATION_END.fullmatch(gap[-1].mark)))
    cuts.append(len(text))
    first_item: dict[int, int] = {}
    gap = 0
    while gap < len(commas):
        if commas[gap] == -1:
            gap += 1
            continue
        end = gap
        while end < len(commas) and commas[end] != -1:
            end += 1
        if end < len(commas) and conjunction[end]:  # commas, then "and": an enumeration
            for index in range(gap, end):
                cuts[index + 1] = commas[index]
            if cuts[gap] == -1:  # the first item starts a clause of its own
                cuts[gap] = readings[gap].start
            for index in range(gap, end + 2):
                first_item[index] = readings[gap].start
        gap = end + 1
    spans = []
    for index in range(len(readings)):
        start = index
        while cuts[start] == -1:
            start -= 1
        end = index + 1
        while cuts[end] == -1:
            end += 1
        spans.append((cuts[start], cuts[end]))
    return spans, first_item


class _Split(NamedTuple):
    """Where a clause may end in the gap between two numbers, and the word or mark there."""

    position: int
    mark: str


_CALENDAR_WORDS = "|".join(
    sorted(map(re.escape, {*merged("weekdays"), *merged("months")}), key=len, reverse=True)
)
_CALENDAR_WORD = re.compile(rf"\s*(?:{_CALENDAR_WORDS})\b", re.IGNORECASE)
_DAYS_BEFORE = re.compile(rf"(?:\b(?:{_CALENDAR_WORDS})\.?,?\s*)+\Z", re.IGNORECASE)


def _days_list(text: str, start: int, split: re.Match) -> _Split:
    """A conjunction joining two weekdays or months ("onsdag och fredag") ends a clause
    where their list begins (a mark, so a strong end); any other split ends it where it is."""
    if split.group()[0].isalpha() and _CALENDAR_WORD.match(text, split.end()):
        days = _DAYS_BEFORE.search(text, start, split.start())
        if days is not None:
            return _Split(days.start(), ",")
    return _Split(split.start(), split.group())


def _cut(text: str, gap: list[_Split]) -> int:
    """Where a clause ends in the gap between two numbers (-1: no end there): at its last
    ";", line break, sentence end or conjunction after a comma, else at its last conjunction.

    "Behållaren har 10 års garanti, medan elpatron och termostat har 3 år": the 3 years are
    the heating element's and the thermostat's; the "och" joins the two, it ends no clause.
    """
    if not gap:
        return -1
    strong = [
        s for s in gap if not s.mark[0].isalpha() or text[: s.position].rstrip().endswith(",")
    ]
    return (strong or gap)[-1].position


def clauses_of(text: str, readings: list[Reading], language: str) -> list[Clause]:
    """One ``Clause`` per reading (see the module table)."""
    if not readings:
        return []
    head_end = text.rfind("\n", 0, readings[0].start) + 1  # the opening lines with no number
    leads: dict[int, frozenset[str]] = {}
    found = []
    spans, first_item = _clause_spans(text, readings)
    colons = _LABEL_COLON.search(text) is not None  # most lines have none: skip the look per number
    for index, (reading, (start, end)) in enumerate(zip(readings, spans, strict=True)):
        line_start = text.rfind("\n", 0, reading.start) + 1
        key = first_item.get(index, line_start)
        lead = leads.get(key)
        if lead is None:
            first = first_item.get(index) or next(
                r.start for r in readings if r.start >= line_start
            )
            opening = (
                text[:first] if line_start <= head_end else text[:head_end] + text[line_start:first]
            )
            lead = leads[key] = frozenset(t for t in terms(opening, language) if not is_marker(t))
        clause_text = text[start:end]
        if start > line_start and _SENTENCE_END.search(text, line_start, start):
            # A sentence that restates the line's subject word names its own subject:
            # "Uppsägningstiden för rörligt pris är 1 månad. Uppsägningstiden för fjärrvärme
            # är 3 månader." (the second has no part of the first's "rörligt pris").
            opening = terms(text[start : reading.start], language)
            if opening & lead:
                lead = frozenset()
        numbers = {
            number_term(text, r) for r in readings if r is not reading and start <= r.start < end
        }
        period = None
        if reading.kind is Kind.AMOUNT and reading.period is None:
            # Not the unit of another number ("mer än 4 timmar ... 3 000 kr" is no hourly price).
            free_text = clause_text
            for other in readings:
                if start <= other.start < end:
                    begin, stop = other.start - start, min(other.end, end) - start
                    free_text = free_text[:begin] + " " * (stop - begin) + free_text[stop:]
            for word in _WORD.findall(free_text):
                if (period := period_of_compound(word)) is not None:
                    break
        words = _without_dates(clause_text, readings, start)
        found.append(
            Clause(
                reading,
                clause_text,
                terms(words, language)
                | numbers
                | (_shared_across_colon(text, readings, index, language) if colons else _NONE),
                lead,
                period,
                conditions_of(text, reading),
                terms(_near_words(text, readings, reading, start, end), language),
            )
        )
    return found


def _near_words(text: str, readings: list[Reading], reading: Reading, start: int, end: int) -> str:
    """The words of a clause that are its number's own, when the clause states several.

    | where | whose |
    |---|---|
    | before the clause's first number | the first number's |
    | between two numbers, before a comma | the earlier number's ("7 980 kr före RUT, alltså 3 990 kr efter avdraget") |
    | between two numbers, after the comma | the later number's ("320 kr per m², med ett minsta pris på 795 kr") |
    | between two numbers with no comma | neither's: it may be either's label ("SEK 29.90 per litre of missing fuel plus a refuelling fee of SEK 250") |
    | after the clause's last number | the last number's |
    """
    inside = [r for r in readings if start <= r.start < end]
    index = inside.index(reading)
    parts = []
    if index == 0:
        parts.append(text[start : reading.start])
    else:
        gap = text[inside[index - 1].end : reading.start]
        comma = gap.rfind(", ")
        parts.append(gap[comma + 1 :] if comma != -1 else "")
    if index == len(inside) - 1:
        parts.append(text[reading.end : end])
    else:
        gap = text[reading.end : inside[index + 1].start]
        comma = gap.find(", ")
        parts.append(gap[:comma] if comma != -1 else "")
    return " ".join(parts)


def _shared_across_colon(
    text: str, readings: list[Reading], index: int, language: str
) -> frozenset[str]:
    """What a line's "<items>: <what holds for them>" shares across its colon.

    "Christmas Eve (December 24) and Christmas Day (December 25): all offices closed": both
    dates are closed days, not only the last; "Good Friday (April 3) and Easter Monday (April
    6): open 09:00–15:00": the hours are both days'. Words after the colon qualify every number
    before it when no number follows the colon; the words before it qualify a number after it
    when they join several items ("och", "and") and state no number of its kind.
    """
    reading = readings[index]
    line_start = text.rfind("\n", 0, reading.start) + 1
    line_end = text.find("\n", reading.end)
    line_end = len(text) if line_end == -1 else line_end
    colon = _LABEL_COLON.search(text, line_start, line_end)
    if colon is None:
        return frozenset()
    on_line = [r for r in readings if line_start <= r.start < line_end]
    before = [r for r in on_line if r.end <= colon.start()]
    after = [r for r in on_line if r.start >= colon.end()]
    if reading in before and not after:
        tail = text[colon.end() : line_end]
        return frozenset(t for t in terms(tail, language) if not is_marker(t))
    if reading in after and len(before) >= 2:
        head = text[line_start : colon.start()]
        if _ENUMERATION_END.search(head) and all(r.kind is not reading.kind for r in before):
            head = _without_dates(head, readings, line_start)
            return frozenset(t for t in terms(head, language) if not t.startswith("n:"))
    return frozenset()


_NONE: frozenset[str] = frozenset()
_LABEL_COLON = re.compile(r"(?<!\d):(?=[ \u00a0])")


def _without_dates(clause_text: str, readings: list[Reading], offset: int) -> str:
    """The clause with its dates blanked: a date's month is its value, not its subject."""
    for reading in readings:
        if reading.kind is Kind.DATE and offset <= reading.start < offset + len(clause_text):
            begin, stop = reading.start - offset, reading.end - offset
            clause_text = clause_text[:begin] + " " * (stop - begin) + clause_text[stop:]
    return clause_text


def _alternatives(words) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_SPACE = r"[\s\u00a0]+"
_BOUND_BEFORE = re.compile(
    rf"(?<![\w.])(?:(?P<min>{_alternatives(merged('lower_bounds'))})|"
    rf"(?P<max>{_alternatives(merged('upper_bounds'))})){_SPACE}"
    rf"(?:(?:{_alternatives(merged('clock_markers'))})\.?{_SPACE})?$",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    rf"(?<![\w.])(?:{_alternatives(merged('negations'))}){_SPACE}$",
    re.IGNORECASE,
)
_DEADLINE_BEFORE = re.compile(
    rf"(?<![\w.])(?:(?P<latest>{_alternatives(merged('deadline_latest'))})|"
    rf"(?P<earliest>{_alternatives(merged('deadline_earliest'))})){_SPACE}$",
    re.IGNORECASE,
)
_INCLUSION_AFTER = re.compile(
    rf"^[^,;:()\n]{{0,24}}?(?<![\w])(?:(?P<yes>{_alternatives(merged('included'))})|"
    rf"(?P<no>{_alternatives(merged('excluded'))}))\.?(?!\w)",
    re.IGNORECASE,
)
_UNBOUNDED = frozenset({Kind.PHONE, Kind.TIME_RANGE, Kind.CODE, Kind.ORDINAL})
_COUNTED_BY = frozenset({Kind.AMOUNT, Kind.QUANTITY, Kind.COUNT})
_PER_AFTER = re.compile(
    r"[ \u00a0]*(?:per[ \u00a0]+|à[ \u00a0]+|/)(?P<words>[^,;:()\n|.!?]{1,40})", re.IGNORECASE
)
_PER_WORDS = 3  # "per påbörjad 10 kg"
_COUNT = re.compile(r"\d+(?:,\d+)?")


@lru_cache(maxsize=8192)  # each clause asks for its neighbours' conditions too (number_term)
def conditions_of(text: str, reading: Reading) -> frozenset[str]:
    """The conditions a number's own words put on its value.

        | written | term |
        |---|---|
        | a lower bound right before it ("över 24 år", "minst", "från", "at least", "after") | ``bound:min`` |
        | an upper bound right before it ("under 24 år", "högst", "upp till", "up to", "before") | ``bound:max`` |
        | either right after a negation ("inte över 25 m", "not longer than", "no longer than") | the other one |
        | "senast"/"no later than" right before it | ``deadline:latest`` |
        | "tidigast"/"no earlier than" right before it | ``deadline:earliest`` |
        | "inkl."/"including" within a few words after it | ``incl:yes`` |
        | "exkl."/"excluding"/"utan" within a few words after it | ``incl:no`` |
        | "per" or "/" right after it with what the number counts by, not a period ("30 kr per elev", "40 kr per påbörjad 10 kg", "SEK 2.50/km"; "per person och år" counts by the person, per year) | ``per:<lemma>`` for each word up to a conjunction (``per:elev``), ``per:<n> <unit>`` for a unit (``per:10 kg``, ``per:1 km``) |
    | a plain count right before a word that is no unit, stopword or conjunction ("23 trucks", "14 djursjukskötare") | ``counts:<lemma>``: what it counts (``counts:truck``) |

        A range, a phone number or an identifier takes none ("från 8 till 17" is a range).
        A period after "per" ("per månad", "per påbörjad timme") is the number's period
        (``notation.find_period``), not a ``per:`` condition.
    """
    found = set()
    is_range = reading.kind is not Kind.DATE and "-" in reading.value.lstrip("-")
    if reading.kind not in _UNBOUNDED and not is_range:
        window = text[max(0, reading.start - 24) : reading.start]
        bound = _BOUND_BEFORE.search(window)
        if bound:
            # "inte över 25 m", "not longer than 25 m": the other way round.
            lower = bool(bound["min"]) != bool(_NEGATED.search(window, 0, bound.start()))
            found.add("bound:min" if lower else "bound:max")
        deadline = _DEADLINE_BEFORE.search(window)
        if deadline:
            found.add("deadline:latest" if deadline["latest"] else "deadline:earliest")
    inclusion = _INCLUSION_AFTER.search(text[reading.end : reading.end + 40])
    if inclusion and reading.kind not in _UNBOUNDED:
        found.add("incl:yes" if inclusion["yes"] else "incl:no")
    if reading.kind in _COUNTED_BY:
        found |= _counted_by(text, reading.end)
    if reading.kind is Kind.COUNT and "-" not in reading.value:
        found |= _counted_noun(text, reading.end)
    return frozenset(found)


_WORD_AFTER = re.compile(r"[ \u00a0]+([^\W\d_]{2,})(?![\w-])")


def _counted_noun(text: str, end: int) -> frozenset[str]:
    """The ``counts:`` terms of the word right after a plain count: "23 trucks", "9 veterinärer"."""
    word = _WORD_AFTER.match(text, end)
    if word is None or word[1].lower() in _CONJUNCTIONS or unit_word(word[1]) is not None:
        return frozenset()
    return frozenset(f"counts:{term}" for term in _terms_in_each_language(word[1]))


def _counted_by(text: str, end: int) -> frozenset[str]:
    """The ``per:`` terms of "per elev", "per påbörjad 10 kg", "/km" right after a number."""
    per = _PER_AFTER.match(text, end)
    if per is None:
        return frozenset()
    if find_period(per.group()) is not None:
        # "per person och år": what it counts by, then its period; "per påbörjad timme": a period
        first = re.split(_CONJUNCTION, per["words"], maxsplit=1, flags=re.IGNORECASE)[0]
        if len(first) == len(per["words"]) or find_period("per " + first) is not None:
            return frozenset()
    found: set[str] = set()
    count = None
    for word in per["words"].split()[:_PER_WORDS]:
        if word.lower() in _CONJUNCTIONS:
            break
        if _COUNT.fullmatch(word):
            count = word.replace(",", ".")
            continue
        if (unit := unit_word(word)) is not None:
            found.add(f"per:{count or 1} {unit}")
            break
        if count is not None:
            break
        found.update(f"per:{term}" for term in _terms_in_each_language(word, written_out=True))
    return frozenset(found)


def _terms_in_each_language(word: str, *, written_out: bool = False) -> frozenset[str]:
    """The word's terms as each language reads it, without markers; ``written_out``: an
    abbreviation of what a price counts by first written out ("st" -> "styck")."""
    found: set[str] = set()
    for language, lexicon in LEXICONS.items():
        read = lexicon.counted_by.get(word.lower().rstrip("."), word) if written_out else word
        found.update(term for term in terms(read, language) if not is_marker(term))
    return frozenset(found)


def number_term(text: str, reading: Reading) -> str:
    """The term a number gives the words around it: ``n:1``, or ``n:<1`` for "yngre än 1 år"
    (``n:>1`` after a lower bound), so a bounded key is not the plain one ("1 år")."""
    bound = {"bound:max": "<", "bound:min": ">"}
    prefix = next((bound[c] for c in conditions_of(text, reading) if c in bound), "")
    return f"n:{prefix}{reading.value}"
