"""Cases made from a KB's own facts: wrong answers the guard must withhold, restatements it
must let through.

Pure: no ORM, no I/O. ``mutation_cases(facts)`` turns every fact into an answer sentence
(its own line, or for a table cell "<row> <column>: <cell>") asked about its subject, and
from that sentence makes the cases below, in the cited form a generator writes
(``grounding.references``): `` [PATH:LINE]`` right after the number, its unit and period.
Every other number of the sentence cites the line the sentence is from. ``grounding_eval
--mutate`` runs them through the chat's checker (``grounding.evaluation``).

| kind | expect | the answer (the reference it carries) |
|---|---|---|
| ``restate_exact`` | grounded | the fact's sentence as the KB writes it (the fact's line) |
| ``restate_words`` | grounded | the value written in words (num2words, the line's language; whole amounts, counts and durations up to 1,000,000) |
| ``restate_decimal`` | grounded | a decimal comma written as a point ("12,5" -> "12.5"; not the other way: in English "2,500" is 2500) |
| ``restate_grouping`` | grounded | digit grouping removed ("1 545" -> "1545") |
| ``restate_percent`` | grounded | "%" as a word ("procent", "percent") |
| ``wrong_sibling_cited_source`` | withheld | this fact's words with a sibling's value, citing the sibling's line (where that value is stated) |
| ``wrong_sibling_cited_true`` | withheld | the same answer citing this fact's line |
| ``wrong_subject`` | withheld | this fact's value and line with a sibling's words (its row key, column header or label; led by its heading where only the heading tells it apart) |
| ``wrong_digit`` | withheld | one digit of the value changed (the fact's line; so are the rows below) |
| ``wrong_unit`` | withheld | the currency or unit changed ("kr" -> "öre", "EUR" -> "kr", "dagar" -> "veckor") |
| ``wrong_period`` | withheld | the period changed ("/mån" -> "/år", "per månad" -> "per år") |
| ``wrong_bound`` | withheld | the bound before the value reversed ("under" <-> "över", "minst" <-> "högst", "at least" <-> "at most") |
| ``wrong_condition`` | withheld | the fact's condition reversed ("inkl." <-> "exkl.", "including" <-> "excluding"; where the fact states one, the word after its number first) |
| ``wrong_words`` | withheld | the value + 1 written in words |
| ``no_reference`` | withheld | the fact's sentence with no reference (not made when the number is part of a name the KB uses, "Windows 10": a name carries none) |

A sibling is a member of the fact's group (``FactTable.siblings``: the other rows of its
column, the other columns of its row, the other labelled lines under its heading) of the
same language, kind, unit and period with another value; at most ``MAX_SIBLINGS`` per fact.
Two facts with the same kind, unit and period whose distinguishing terms (qualifiers) are the
same cannot be told apart by anyone reading the KB: they are listed (``indistinguishable``)
for the editor, and a swap between them is not made.
"""

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace

from num2words import num2words

from grounding.evaluation import Case, Expect
from grounding.facts import Fact
from grounding.lookup import FactTable
from grounding.notation import Kind, Reading, read_numbers
from grounding.terms import terms

MAX_FACTS = 400  # per KB: the first facts in file and line order
MAX_SIBLINGS = 3  # wrong_sibling cases per fact
MAX_WORDS = 1_000_000
_IN_WORDS = (Kind.AMOUNT, Kind.COUNT, Kind.DURATION, Kind.QUANTITY)
_DIGIT_RUN = re.compile(r"\d+")
_GROUPED = re.compile(r"(?<=\d)[ \u00a0\u202f](?=\d{3}(?!\d))")
_PERCENT = {"sv": "procent", "en": "percent"}
_ORDINAL = re.compile(r"\d(?:st|nd|rd|th|:e|:a)\b", re.IGNORECASE)
UNIT_SWAPS = (
    (r"\b(kr|kronor|SEK)\b", "öre"),
    (r"\böre\b", "kr"),
    (r"\b(EUR|euro|€)\b", "kr"),
    (r"\b(dagar|dagars|dag)\b", "veckor"),
    (r"\b(days?)\b", "weeks"),
    (r"\b(veckor|veckors|vecka)\b", "månader"),
    (r"\b(weeks?)\b", "months"),
    (r"\b(månader|månaders|månad)\b", "år"),
    (r"\b(months?)\b", "years"),
    (r"\b(timmar|timme)\b", "minuter"),
    (r"\b(hours?)\b", "minutes"),
    (r"\b(GB)\b", "TB"),
    (r"\b(TB)\b", "GB"),
    (r"\b(kg)\b", "g"),
    (r"\b(km)\b", "mil"),
)
PERIOD_SWAPS = (
    (r"/\s?mån(ad)?\b", "/år"),
    (r"/\s?år\b", "/mån"),
    (r"\bper månad\b", "per år"),
    (r"\bper år\b", "per månad"),
    (r"\bi månaden\b", "om året"),
    (r"\bper month\b", "per year"),
    (r"\bper year\b", "per month"),
    (r"\ba month\b", "a year"),
    (r"\ba year\b", "a month"),
    (r"/\s?month\b", "/year"),
    (r"/\s?year\b", "/month"),
)
BOUND_SWAPS = {
    "under": "över", "över": "under", "minst": "högst", "högst": "minst", "före": "efter",
    "efter": "före", "senast": "tidigast", "tidigast": "senast", "at least": "at most",
    "at most": "at least", "more than": "less than", "less than": "more than", "before": "after",
    "after": "before", "over": "under", "up to": "at least",
}  # fmt: skip
_BOUND = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, BOUND_SWAPS), key=len, reverse=True)) + r")\s+$",
    re.IGNORECASE,
)

CONDITION_SWAPS = {
    "inkl.": "exkl.", "exkl.": "inkl.", "inklusive": "exklusive", "exklusive": "inklusive",
    "incl.": "excl.", "excl.": "incl.", "including": "excluding", "excluding": "including",
}  # fmt: skip
_CONDITION = re.compile(
    r"(?<![^\W\d_])("
    + "|".join(sorted(map(re.escape, CONDITION_SWAPS), key=len, reverse=True))
    + r")(?![^\W\d_])",
    re.IGNORECASE,
)
# The period words right after a number's unit: the reference comes after them.
_PERIOD_AFTER = re.compile(
    r"\s?/\s?[^\W\d_]+|\s+(?:per|i|om|a|an|each|every)\s+[^\W\d_]+", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Statement:
    """A fact said as an answer: the sentence, where its value stands in it, the question."""

    fact: Fact
    sentence: str
    reading: Reading
    question: str
    # The values the facts of its line state: its sentence's other numbers cite that line too.
    line_values: frozenset[str] = frozenset()


def statement_of(fact: Fact) -> Statement | None:
    """The fact as an answer sentence, or None when its value cannot be found in one."""
    parts = [p.strip() for p in fact.subject_text.split(" > ")]
    if "-" in fact.value:
        return None  # a range: its two ends are facts of their own
    if fact.cell is not None:
        if fact.cell[0] == 0 or fact.cell[1] == 0 or len(parts) < 2:
            return None  # a header cell names a column, a first cell its row
        cell = _cell_text(fact)
        if cell is None or read_numbers(parts[-2], fact.language):
            return None  # a row label with numbers of its own reads as a second value
        sentence = f"{parts[-1]} {parts[-2][:1].lower()}{parts[-2][1:]}: {cell}."
        question = f"{parts[-1]} {parts[-2]}?"
    else:
        sentence = _sentence_with_value(fact)
        if sentence is None:
            return None
        question = " ".join(parts[-2:-1] or parts[:1])
    # In "<row> <column>: <cell>" the value is the cell's, not a number of the labels.
    reading = _reading_of(fact, sentence, start=sentence.rfind(": ") + 1)
    if reading is None:
        return None
    return Statement(fact, sentence, reading, question or sentence)


def _cell_text(fact: Fact) -> str | None:
    cells = [c.strip() for c in fact.text.strip().strip("|").split("|")]
    column = fact.cell[1]
    return cells[column] if column < len(cells) and cells[column] else None


def _sentence_with_value(fact: Fact) -> str | None:
    line = re.sub(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+", "", fact.text.strip())
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-ZÅÄÖ])", line):
        if _reading_of(fact, sentence) is not None:
            return sentence if sentence.endswith((".", "!", "?")) else sentence + "."
    return None


def _reading_of(fact: Fact, sentence: str, start: int = 0) -> Reading | None:
    for reading in read_numbers(sentence, fact.language):
        if reading.start >= start and reading.kind == fact.kind and reading.value == fact.value:
            return reading
    return None


def _replaced(statement: Statement, text: str) -> tuple[str, int, int]:
    """The sentence with its value written as ``text``, and where ``text`` stands in it."""
    r = statement.reading
    return statement.sentence[: r.start] + text + statement.sentence[r.end :], r.start, len(text)


def _number_part(reading: Reading) -> tuple[int, int] | None:
    """Where the digits of a reading stand in its text (first to last ASCII digit: the "²" of
    "1,800 m²" is the unit's)."""
    digits = [i for i, ch in enumerate(reading.text) if ch in "0123456789"]
    return (digits[0], digits[-1] + 1) if digits else None


def _words_for(statement: Statement, value: int) -> tuple[str, int, int] | None:
    reading = statement.reading
    span = _number_part(reading)
    if span is None or not 0 <= value <= MAX_WORDS:
        return None
    words = num2words(value, lang=statement.fact.language)
    return _replaced(statement, reading.text[: span[0]] + words + reading.text[span[1] :])


def _whole(value: str) -> int | None:
    return int(value) if value.isdigit() else None


# A variant of a statement: its sentence, where its number starts and how long it is written.
Variant = tuple[str, int, int]


def cite(
    sentence: str,
    start: int,
    length: int,
    reference: str,
    language: str,
    others: tuple[str, frozenset[str]] = ("", frozenset()),
) -> str:
    """``sentence`` with `` [reference]`` after the number at ``start`` (its unit and period
    included, before the punctuation that ends the clause), as a generator that cites writes it.

    ``others`` is (a locator, the values its line states): every other number of the sentence
    with one of those values cites that locator too (a line's other numbers are its facts).
    """
    readings = read_numbers(sentence, language)
    end = start + length
    for reading in readings:
        if reading.start <= start < reading.end:
            end = max(end, reading.end)
            break
    marks = [(_mark_end(sentence, start, end), reference)]
    locator, values = others
    for reading in readings:
        outside = reading.end <= start or reading.start >= end
        if outside and locator and reading.value in values:
            marks.append((_mark_end(sentence, reading.start, reading.end), locator))
    for position, target in sorted(marks, reverse=True):
        sentence = f"{sentence[:position]} [{target}]{sentence[position:]}"
    return sentence


def _mark_end(sentence: str, start: int, end: int) -> int:
    while end > start and sentence[end - 1] in ".,;:!?":
        end -= 1  # "3 pm." read with the sentence's final mark
    period = _PERIOD_AFTER.match(sentence, end)
    return period.end() if period is not None else end


def _cited(
    statement: Statement, variant: Variant, fact: Fact | None = None, owner: Statement | None = None
) -> str:
    """The variant with its number citing ``fact`` (the statement's own by default); the other
    numbers of its sentence cite the line the sentence is from (``owner``'s)."""
    fact = fact or statement.fact
    owner = owner or statement
    sentence, start, length = variant
    others = (owner.fact.locator, owner.line_values)
    return cite(sentence, start, length, fact.locator, statement.fact.language, others)


def restatements(statement: Statement) -> list[tuple[str, str]]:
    """(kind, answer) pairs the guard must let through: each cites the fact's own line."""
    return [(kind, _cited(statement, variant)) for kind, variant in _restated(statement)]


def _restated(statement: Statement) -> list[tuple[str, Variant]]:
    fact, reading = statement.fact, statement.reading
    found = [("restate_exact", (statement.sentence, reading.start, len(reading.text)))]
    whole = _whole(fact.value)
    if (
        fact.kind in _IN_WORDS
        and whole is not None
        and whole > 1
        and not _ORDINAL.search(statement.sentence[reading.start : reading.end + 3])
    ):
        words = _words_for(statement, whole)
        if words:
            found.append(("restate_words", words))
    # A decimal comma may be written as a point; in English a comma groups thousands.
    decimal = fact.kind in (Kind.AMOUNT, Kind.PERCENTAGE, Kind.QUANTITY) and "." in fact.value
    if decimal and reading.text.count(",") == 1 and "." not in reading.text:
        found.append(("restate_decimal", _replaced(statement, reading.text.replace(",", "."))))
    if _GROUPED.search(reading.text) and fact.kind in (Kind.AMOUNT, Kind.QUANTITY, Kind.COUNT):
        found.append(("restate_grouping", _replaced(statement, _GROUPED.sub("", reading.text))))
    if fact.kind is Kind.PERCENTAGE and "%" in reading.text:
        word = _PERCENT.get(fact.language, "procent")
        found.append(
            (
                "restate_percent",
                _replaced(statement, reading.text.replace("%", f" {word}").replace("  ", " ")),
            )
        )
    return found


def wrong_answers(
    statement: Statement,
    siblings: Iterable[tuple[Statement, Statement]],
    *,
    name: bool = False,
) -> list[tuple[str, str]]:
    """(kind, answer) pairs the guard must withhold (the module table). ``siblings``: each
    sibling's statement and a statement of it that names its subject (``naming_statement``);
    ``name``: the number is part of a name the KB uses ("Windows 10"), which carries no
    reference, so no case drops it."""
    reading, sentence = statement.reading, statement.sentence
    found: list[tuple[str, str]] = []
    for sibling, naming in siblings:
        swapped = _replaced(statement, sibling.reading.text)
        found.append(("wrong_sibling_cited_source", _cited(statement, swapped, sibling.fact)))
        found.append(("wrong_sibling_cited_true", _cited(statement, swapped)))
        named = _replaced(naming, reading.text)
        found.append(("wrong_subject", _cited(statement, named, owner=sibling)))
    for kind, variant in _changed(statement):
        found.append((kind, _cited(statement, variant)))
    if not name:
        found.append(("no_reference", sentence))
    return found


def _changed(statement: Statement) -> list[tuple[str, Variant]]:
    """The fact's sentence with its value, unit, period, bound or condition changed."""
    fact, reading, sentence = statement.fact, statement.reading, statement.sentence
    length = len(reading.text)
    found: list[tuple[str, Variant]] = []
    span = _number_part(reading)
    if span is not None and fact.kind is not Kind.CODE:
        last = span[1] - 1
        digit = int(reading.text[last])
        changed = (
            reading.text[:last]
            + str((digit + 1) % 10 if digit != 8 else 7)
            + reading.text[last + 1 :]
        )
        if (
            read_numbers(changed, fact.language)
            and read_numbers(changed, fact.language)[0].value != fact.value
        ):
            found.append(("wrong_digit", _replaced(statement, changed)))
    if fact.kind in (Kind.AMOUNT, Kind.DURATION, Kind.QUANTITY):
        for pattern, other in UNIT_SWAPS:
            window = sentence[reading.start : reading.start + length + 12]
            if re.search(pattern, window, re.IGNORECASE):
                swapped = re.sub(pattern, other, window, count=1, flags=re.IGNORECASE)
                variant = (
                    sentence[: reading.start] + swapped + sentence[reading.start + len(window) :]
                )
                grown = max(length + len(swapped) - len(window), 1)
                found.append(("wrong_unit", (variant, reading.start, grown)))
                break
    if fact.period is not None:
        for pattern, other in PERIOD_SWAPS:
            head, tail = sentence[: reading.start], sentence[reading.start :]
            if re.search(pattern, tail, re.IGNORECASE):
                variant = head + re.sub(pattern, other, tail, count=1, flags=re.IGNORECASE)
                found.append(("wrong_period", (variant, reading.start, length)))
                break
    bound = _BOUND.search(sentence[: reading.start])
    if bound is not None:
        other = _same_case(BOUND_SWAPS[bound[1].lower()], bound[1])
        head = sentence[: bound.start(1)] + other + sentence[bound.end(1) : reading.start]
        found.append(("wrong_bound", (head + sentence[reading.start :], len(head), length)))
    # The fact's own condition ("incl:yes"): the first such word after the number, else before.
    condition = _CONDITION.search(sentence, reading.end) or _CONDITION.search(sentence)
    if condition is not None and _has_condition(fact):
        other = _same_case(CONDITION_SWAPS[condition[1].lower()], condition[1])
        variant = sentence[: condition.start(1)] + other + sentence[condition.end(1) :]
        shift = len(other) - len(condition[1]) if condition.start(1) < reading.start else 0
        found.append(("wrong_condition", (variant, reading.start + shift, length)))
    whole = _whole(fact.value)
    ordinal = _ORDINAL.search(sentence[reading.start : reading.end + 3])
    if fact.kind in _IN_WORDS and whole is not None and not ordinal:
        words = _words_for(statement, whole + 1)
        if words:
            found.append(("wrong_words", words))
    return found


def _has_condition(fact: Fact) -> bool:
    """Whether the fact states a condition ("inkl. moms": ``incl:`` among its terms)."""
    return any(t.startswith("incl:") for t in fact.qualifiers | fact.context | fact.subject)


def _same_case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _group_keys(fact: Fact) -> list[tuple]:
    """What makes two facts siblings: the same table row or column, or the same heading."""
    measure = (fact.kind, fact.unit, fact.period, fact.file)
    if fact.cell is not None:
        heading = fact.subject_text.rsplit(" > ", 2)[0]
        return [
            (*measure, heading, "row", fact.cell[0], fact.line),
            (*measure, heading, "column", fact.cell[1]),
        ]
    return [(*measure, fact.subject_text.rsplit(" > ", 1)[0])]


@dataclass(frozen=True, slots=True)
class MutationSet:
    cases: list[Case]
    facts: int  # facts made into statements
    indistinguishable: list[tuple[Fact, Fact]]

    @property
    def indistinguishable_share(self) -> float:
        involved = {id(f) for pair in self.indistinguishable for f in pair}
        return len(involved) / self.facts if self.facts else 0.0


def mutation_cases(facts: Iterable[Fact], *, max_facts: int = MAX_FACTS) -> MutationSet:
    """Every fact's restatements and wrong answers as cases (the module table)."""
    chosen = sorted(facts, key=_place)
    table = FactTable(chosen)
    statements = [
        replace(s, line_values=frozenset(f.value for f in table.on_line(s.fact.file, s.fact.line)))
        for s in map(statement_of, chosen)
        if s is not None
    ][:max_facts]
    by_fact = {id(s.fact): s for s in statements}
    groups: dict[tuple, list[Statement]] = defaultdict(list)
    for statement in statements:
        for key in _group_keys(statement.fact):
            groups[key].append(statement)
    cases: list[Case] = []
    indistinguishable: list[tuple[Fact, Fact]] = []
    seen_pairs: set[tuple[int, int]] = set()
    for statement in statements:
        fact = statement.fact
        alike: set[int] = set()
        for key in _group_keys(fact):
            for other in groups[key]:
                if other is statement or other.fact.value == fact.value:
                    continue
                if fact.kind is not Kind.CODE and other.fact.qualifiers == fact.qualifiers:
                    alike.add(id(other.fact))
                    pair = tuple(sorted((id(fact), id(other.fact))))
                    if pair not in seen_pairs:
                        seen_pairs.add(pair)
                        indistinguishable.append((fact, other.fact))
        siblings = [] if fact.kind is Kind.CODE else _siblings(statement, table, by_fact, alike)
        for kind, answer in restatements(statement):
            cases.append(_case(statement, answer, Expect.GROUNDED, kind))
        name = _is_name(statement, table)
        for kind, answer in wrong_answers(statement, siblings[:MAX_SIBLINGS], name=name):
            cases.append(_case(statement, answer, Expect.WITHHELD, kind))
    return MutationSet(cases, len(statements), indistinguishable)


def _place(fact: Fact) -> tuple:
    return (fact.file, fact.line, fact.cell or (0, 0), fact.value)


def _is_name(statement: Statement, table: FactTable) -> bool:
    """Whether the fact's number is part of a name of the KB's ("Windows 10", "AES-256"), as the
    guard reads a number with no reference (``grounding.cited``, row 1)."""
    fact, reading, sentence = statement.fact, statement.reading, statement.sentence
    if fact.kind is Kind.CODE:
        return True
    digits = re.match(r"\d{1,4}(?![\d.,:])", reading.text.strip())
    if digits is None:
        return False
    before = re.search(r"([^\W\d_][\w]*)[ \u00a0-]$", sentence[: reading.start])
    window = frozenset(
        w.lower()
        for w in re.findall(r"[^\W\d_]+", sentence[max(0, reading.start - 40) : reading.end + 40])
    )
    return table.is_name(before[1] if before else "", str(int(digits[0])), window)


def _siblings(
    statement: Statement, table: FactTable, by_fact: dict[int, Statement], alike: set[int]
) -> list[tuple[Statement, Statement]]:
    """The fact's group (``FactTable.siblings``) said as answers, each with a statement that
    names its subject (``naming_statement``): the parallel facts of the same language, kind,
    unit and period with another value. A generator answers in one language, so a twin's
    siblings in the KB's other language are left out; facts no reader can tell apart are
    listed instead."""
    fact = statement.fact
    found: list[tuple[Statement, Statement]] = []
    ordered = sorted(table.siblings(fact), key=lambda pair: _place(pair[0]))
    for other, names in ordered:
        said = by_fact.get(id(other))
        if (
            said is None
            or id(other) in alike
            or other.value == fact.value
            or other.language != fact.language
            or (other.kind, other.unit, other.period) != (fact.kind, fact.unit, fact.period)
            or any(said is seen for seen, _ in found)
        ):
            continue
        found.append((said, naming_statement(said, names)))
    return found


def naming_statement(statement: Statement, names: frozenset[str]) -> Statement:
    """``statement`` with its subject named: as it is when its sentence has one of ``names``
    (what tells it from its group), else led by its heading ("Plus: hastighet: 250 Mbit/s."),
    where a section's facts are told apart by the heading alone."""
    fact = statement.fact
    if terms(statement.sentence, fact.language) & names:
        return statement
    parts = [p.strip() for p in fact.subject_text.split(" > ")]
    heading = (parts[-2:-1] or parts[:1])[0]
    if not heading:
        return statement
    sentence = statement.sentence
    lead = f"{heading}: "
    shift = len(lead)
    reading = statement.reading._replace(
        start=statement.reading.start + shift, end=statement.reading.end + shift
    )
    return replace(statement, sentence=lead + sentence[:1].lower() + sentence[1:], reading=reading)


def _case(statement: Statement, answer: str, expect: Expect, kind: str) -> Case:
    return Case(
        question=statement.question,
        answer=answer,
        expect=expect,
        kind=kind,
        line=statement.fact.line,
        source=statement.fact.file,
    )
