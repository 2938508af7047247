"""Every number a KB document states, as a fact with its subject, unit and period.

Pure: no ORM, no I/O. ``extract_facts`` walks markdown-it-py's token stream
(headings, paragraphs, lists, tables as rows and cells) and reads each block's
numbers with :mod:`grounding.notation`. What a fact is about:

| where the number is | subject (what the fact is about) | qualifiers (what tells it from its siblings) |
|---|---|---|
| a table cell | the row's key cells (up to the first cell with a word) + its column header + its own weekdays and months ("Sun 15.00") + the key column's header ("Loan amount") + the row's cells without a number between its key and the cell (a description: "Your grid operator installs a meter"; a cell after it is a value of its own: "Free of charge") + headings + the table's lead-in | the key cells + its column header + its own weekdays and months + the nearest heading |
| a list item or paragraph | its clause (a line splits into clauses at conjunctions and ";" between numbers) + the words before the line's first number + headings + the block's lead-in | its clause (the first clause includes the line's opening words) + the nearest heading |
| a table's header cell | its own cell + headings + the table's lead-in | its own cell + the nearest heading |
| a heading | the heading path | the heading |

A number's conditions (``bound:min`` for "över 24 år", ``incl:no`` for "exkl.
moms": :func:`grounding.clauses.conditions_of`) join its qualifiers.
Numbers next to a number in its row key or clause join both as ``n:<value>``
(the 10 of "10 liter" qualifies the price in that row). Units, currencies and
periods a cell does not state come from its column header ("Price (SEK)",
"Pris per timme", "Årsavgift"); a period stated only by the paragraph just
before a table or list ("Priserna gäller per år"), or by a table's nearest
heading ("## Priser per dygn"), flows to its facts too.
"""

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from grounding.chunking import parse_front_matter
from grounding.clauses import clauses_of, conditions_of, is_marker, number_term
from grounding.lexicon import merged
from grounding.notation import (
    TIME_UNITS,
    Kind,
    Reading,
    find_period,
    period_of_compound,
    read_numbers,
)
from grounding.terms import terms
from grounding.text import detect_language

__all__ = ["Fact", "FactKind", "Kind", "extract_facts", "table_header_line", "value_keys"]

FactKind = Kind  # the kinds of number, as the models and the admin name them

_GROUPS = {
    Kind.PHONE: "phone",
    Kind.DATE: "date",
    Kind.TIME: "time",
    Kind.TIME_RANGE: "time",
    Kind.CODE: "code",
}


def value_keys(kind: Kind, value: str) -> tuple[str, ...]:
    """The lookup keys of a value: its own, plus the ends of a range and a date's day of year."""
    group = _GROUPS.get(kind, "num")
    keys = [f"{group}:{value}"]
    if kind is Kind.TIME_RANGE or (group == "num" and "-" in value.lstrip("-")):
        keys.extend(f"{group}:{end}" for end in value.split("-") if end)
    if kind is Kind.DATE and not value.startswith("--"):
        keys.append(f"date:--{value[5:]}")
    return tuple(keys)


@dataclass(frozen=True, slots=True)
class Fact:
    value: str
    kind: Kind
    unit: str | None
    period: str | None
    subject: frozenset[str]
    qualifiers: frozenset[str]
    context: frozenset[str]
    subject_text: str
    file: str
    line: int  # 1-based, in the file
    cell: tuple[int, int] | None  # (row, column) in its table; the header row is 0
    text: str  # the source line
    language: str
    # The fact's key (what it is about, the module table's "key" columns) and its group: the
    # parallel facts it must be told apart from (``grounding.lookup.FactTable.siblings``).
    entity: frozenset[str] = frozenset()
    attribute: frozenset[str] = frozenset()
    group: str = ""

    def keys(self) -> tuple[str, ...]:
        return value_keys(self.kind, self.value)

    @property
    def locator(self) -> str:
        """``PATH:LINE``: the reference a generator writes after the number."""
        return f"{self.file}:{self.line}"

    @property
    def fact_id(self) -> str:
        """A stable id: the same while the fact's file, line, place in its line and value are."""
        return fact_id(self.file, self.line, self.cell, self.value, str(self.kind))

    @property
    def key(self) -> frozenset[str]:
        return self.entity | self.attribute


def fact_id(file: str, line: int, cell, value: str, kind: str) -> str:
    """``F:`` and eight hex digits of the fact's place and value (``Fact.fact_id``)."""
    digest = hashlib.sha1(f"{file}:{line}:{cell}:{value}:{kind}".encode()).hexdigest()
    return f"F:{digest[:8]}"


# Block structure only: facts read each block's raw text, so the inline parse (emphasis, links),
# the larger part of markdown-it's cost, is switched off.
_MARKDOWN = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
_CURRENCIES = merged("currencies")
_UNITS = merged("units")


def extract_facts(
    markdown: str, *, file: str, language: str | None = None, first_line: int = 1
) -> list[Fact]:
    """Every number of ``markdown`` as a ``Fact`` (see the module table).

    ``first_line`` is the file line of the text's first line (for a chunk).
    """
    return list(_extract(markdown, file, language, first_line))


@lru_cache(maxsize=2048)
def _extract(markdown: str, file: str, language: str | None, first_line: int) -> tuple[Fact, ...]:
    front = parse_front_matter(markdown)
    lines = markdown.split("\n")
    if front.line_count:
        markdown = "\n" * front.line_count + "\n".join(lines[front.line_count :])
    language = language or detect_language(markdown)
    return tuple(_Walker(markdown, lines, file, language, first_line).walk())


@dataclass
class _Section:
    headings: list[tuple[int, str]]  # (level, title), outermost first

    def path(self) -> str:
        return " > ".join(title for _, title in self.headings)


class _Walker:
    def __init__(self, markdown: str, lines: list[str], file: str, language: str, first_line: int):
        self.tokens = _MARKDOWN.parse(markdown)
        self.lines = lines
        self.file = file
        self.language = language
        self.offset = first_line - 1
        self.headings: list[tuple[int, str]] = []
        self.lead_in: str = ""  # the last paragraph before a list or table, in this section

    # -- context -------------------------------------------------------------
    def _heading_terms(self) -> frozenset[str]:
        return frozenset().union(*(terms(title, self.language) for _, title in self.headings))

    def _nearest_heading_terms(self) -> frozenset[str]:
        return terms(self.headings[-1][1], self.language) if self.headings else frozenset()

    def _path(self, *more: str) -> str:
        return " > ".join([title for _, title in self.headings] + [m for m in more if m])

    def walk(self) -> Iterable[Fact]:
        tokens = self.tokens
        index = 0
        list_depth = 0
        while index < len(tokens):
            token = tokens[index]
            if token.type == "heading_open":
                inline = tokens[index + 1]
                level = int(token.tag[1])
                self.headings = [h for h in self.headings if h[0] < level]
                yield from self._block(inline, lead_in="", heading=True)
                self.headings.append((level, inline.content.strip()))
                self.lead_in = ""
                index += 3
                continue
            if token.type in ("bullet_list_open", "ordered_list_open"):
                if list_depth == 0:
                    self.list_lead_in = self.lead_in
                list_depth += 1
            elif token.type in ("bullet_list_close", "ordered_list_close"):
                list_depth -= 1
                if list_depth == 0:
                    self.lead_in = ""
            elif token.type == "list_item_open" and token.info and token.markup in (".", ")"):
                yield from self._ordinal(token, tokens, index)
            elif token.type == "table_open":
                end = next(i for i in range(index, len(tokens)) if tokens[i].type == "table_close")
                yield from self._table(tokens[index:end])
                self.lead_in = ""
                index = end + 1
                continue
            elif token.type == "inline":
                if list_depth:
                    yield from self._block(token, lead_in=self.list_lead_in)
                else:
                    yield from self._block(token, lead_in="")
                    self.lead_in = token.content
            index += 1

    # -- prose ---------------------------------------------------------------
    def _block(self, inline: Token, *, lead_in: str, heading: bool = False) -> Iterable[Fact]:
        text = inline.content
        readings = read_numbers(text, self.language)
        if not readings:
            return
        inherited = _inherited(lead_in, self.language)
        lead_in_terms = terms(lead_in, self.language) if lead_in else frozenset()
        headings = self._heading_terms()
        nearest = self._nearest_heading_terms()
        numbers = {number_term(text, reading) for reading in readings}
        context = terms(text, self.language) | numbers | headings | lead_in_terms
        first_line = inline.map[0] if inline.map else 0
        for clause in clauses_of(text, readings, self.language):
            reading = clause.reading
            line = first_line + text.count("\n", 0, reading.start)
            reading = _inherit(reading, *inherited, clause_period=clause.period)
            own = _key_terms(clause.terms)
            section = f"section:{self.file}:{self._path()}"
            if heading:
                entity, attribute, group = own, frozenset(), ""
            elif label := _label_key(self._line(line), self.language):
                # "- Cykel: högst 25 000 kr": the label is the entity, the line's other words
                # and the heading the attribute.
                entity, attribute, group = label, (own - label) | _key_terms(nearest), section
            else:
                entity, attribute, group = _key_terms(nearest), own, section
            yield self._fact(
                reading,
                subject=clause.terms | clause.lead | headings | lead_in_terms,
                qualifiers=clause.terms | clause.conditions | (headings if heading else nearest),
                context=context,
                subject_text=self._path(clause.text.strip()),
                line=line,
                cell=None,
                key=(entity, attribute, group),
            )

    def _ordinal(self, item: Token, tokens: list[Token], index: int) -> Iterable[Fact]:
        inline = next((t for t in tokens[index:] if t.type == "inline"), None)
        if inline is None or not item.map:
            return
        item_terms = terms(inline.content, self.language)
        yield self._fact(
            Reading(item.info, 0, 0, Kind.ORDINAL, item.info),
            subject=item_terms | self._heading_terms(),
            qualifiers=item_terms,
            context=item_terms | self._heading_terms(),
            subject_text=self._path(inline.content.strip()),
            line=item.map[0],
            cell=None,
        )

    # -- tables --------------------------------------------------------------
    def _table(self, tokens: list[Token]) -> Iterable[Fact]:
        rows: list[tuple[int, list[str]]] = []
        for i, token in enumerate(tokens):
            if token.type == "tr_open":
                cells = []
                for cell in tokens[i + 1 :]:
                    if cell.type == "tr_close":
                        break
                    if cell.type == "inline":
                        cells.append(cell.content.strip())
                rows.append((token.map[0] if token.map else 0, cells))
        if not rows:
            return
        _, header = rows[0]
        lead_in = self.lead_in
        lead_in_terms = terms(lead_in, self.language) if lead_in else frozenset()
        headings = self._heading_terms()
        nearest = self._nearest_heading_terms()
        header_terms = [terms(cell, self.language) for cell in header]
        header_context = frozenset().union(*header_terms)
        # What the lead-in does not state, the nearest heading may ("## Priser per dygn").
        heading = self.headings[-1][1] if self.headings else ""
        inherited_table = _merge(
            _inherited(lead_in, self.language), _inherited(heading, self.language)
        )
        for row_index, (line, cells) in enumerate(rows):
            key_end = _key_end(cells) if row_index else len(cells)
            key_text = " ".join(cells[:key_end])
            key_readings = read_numbers(key_text, self.language)
            words_of = [terms(cell, self.language) for cell in cells]
            key_terms = frozenset().union(*words_of[:key_end])
            key_terms |= {number_term(key_text, r) for r in key_readings}
            row_context = frozenset().union(*words_of)
            # The row's number-less cells before a number's own say what the row is ("| 6. Meter
            # change | Your grid operator installs a production meter | 1–3 weeks |"); those
            # after it are values of their own ("| More than 14 days before | Free of charge |").
            numbers = [read_numbers(cell, self.language) for cell in cells]
            wordy = [
                words if row_index and not found else frozenset()
                for words, found in zip(words_of, numbers, strict=True)
            ]
            key_headers = frozenset().union(*header_terms[:key_end]) if row_index else frozenset()
            for column, (cell, readings) in enumerate(zip(cells, numbers, strict=True)):
                if not readings:
                    continue
                column_header = header[column] if column < len(header) and row_index else ""
                column_terms = (
                    header_terms[column]
                    if column < len(header_terms) and row_index
                    else frozenset()
                )
                column_numbers = {
                    number_term(column_header, r)
                    for r in read_numbers(column_header, self.language)
                }
                inherited = _merge(_inherited(column_header, self.language), inherited_table)
                in_key = column < key_end
                # A body cell's own weekdays and months qualify its numbers: "Sun" in "Tue–Sat
                # 19.30, Sun 15.00" (its other words may name another count: "6 rolls 199 kr").
                own_words = (
                    [
                        frozenset(t for t in c.terms if t.startswith(("weekday:", "month:")))
                        for c in clauses_of(cell, readings, self.language)
                    ]
                    if row_index and not in_key
                    else [frozenset()] * len(readings)
                )
                # What the row's description and its key column ("Loan amount") say of it.
                described = key_headers.union(*wordy[key_end:column])
                for reading, words in zip(readings, own_words, strict=True):
                    conditions = conditions_of(cell, reading)
                    reading = _inherit(reading, *inherited)
                    own = frozenset({number_term(cell, reading)})
                    if row_index == 0:  # a header cell is about itself, not its neighbours
                        cell_numbers = {number_term(cell, r) for r in readings}
                        qualifiers = words_of[column] | (cell_numbers - own)
                        key = (_key_terms(words_of[column]), _key_terms(nearest), "")
                    else:
                        qualifiers = (key_terms - own) | column_terms | column_numbers | words
                        # The row's key is the entity, the column the attribute; the group
                        # is the table (its rows of this column, its columns of this row).
                        key = (
                            _key_terms(key_terms - own) | _key_terms(words),
                            _key_terms(column_terms | column_numbers),
                            f"table:{self.file}:{rows[0][0] + 1 + self.offset}",
                        )
                    yield self._fact(
                        reading,
                        subject=qualifiers | described | headings | lead_in_terms,
                        qualifiers=(
                            (qualifiers | nearest) if not in_key else (qualifiers - own | nearest)
                        )
                        | conditions,
                        context=row_context | header_context | headings | lead_in_terms,
                        subject_text=self._path(key_text if row_index else "", column_header),
                        line=line,
                        cell=(row_index, column),
                        key=key,
                    )

    def _line(self, line: int) -> str:
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    def _fact(
        self,
        reading: Reading,
        *,
        subject,
        qualifiers,
        context,
        subject_text,
        line,
        cell,
        key=(frozenset(), frozenset(), ""),
    ) -> Fact:
        number = line + 1 + self.offset
        text = self._line(line)
        entity, attribute, group = key
        return Fact(
            value=reading.value,
            kind=reading.kind,
            unit=reading.unit,
            period=reading.period,
            subject=frozenset(subject),
            qualifiers=frozenset(qualifiers),
            context=frozenset(context),
            subject_text=subject_text,
            file=self.file,
            line=number,
            cell=cell,
            text=text,
            language=self.language,
            entity=frozenset(entity),
            attribute=frozenset(attribute),
            group=group,
        )


# What a key keeps of a fact's terms: words, weekdays and months and numbers of names; the
# number's own conditions ("bound:", "incl:", "per:") are what it states, not what it is about.
_CONDITION_MARKS = ("bound:", "incl:", "deadline:", "per:", "counts:", "#")


def _key_terms(found: frozenset[str]) -> frozenset[str]:
    return frozenset(t for t in found if not t.startswith(_CONDITION_MARKS))


def table_header_line(fact: Fact) -> int | None:
    """The line of the header of ``fact``'s table (None outside a table).

    A table has one line per row: the header, the separator, then the body rows in order.
    """
    if fact.cell is None:
        return None
    row = fact.cell[0]
    return fact.line if row == 0 else fact.line - row - 1


_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+")
_MAX_LABEL_WORDS = 5


def label_terms(fact: Fact) -> frozenset[str]:
    """The name a fact's line gives its subject: a table row's key cells, "Label:" before it,
    or a list item's bold lead ("- **Premium** includes ...")."""
    return _label_terms(fact.text, fact.cell is not None and fact.cell[0] > 0, fact.language)


_BOLD_LEAD = re.compile(r"\s*\*\*([^*]+)\*\*")


@lru_cache(maxsize=8192)
def _label_terms(text: str, table_row: bool, language: str) -> frozenset[str]:
    if table_row:
        cells = [cell.strip() for cell in text.strip().strip("|").split("|")]
        label = " ".join(cells[: _key_end(cells)])
    else:
        item = _LIST_MARKER.sub("", text)
        label, colon, _ = item.partition(":")
        if not colon:  # "- **Northern Lights Umeå**, Storgatan 48 – 6 screens"
            bold = _BOLD_LEAD.match(item)
            if bold is None:
                return frozenset()
            label = bold[1]
        if any(ch.isdigit() for ch in label) or len(label.split()) > _MAX_LABEL_WORDS:
            return frozenset()
    return frozenset(t for t in terms(label, language) if not is_marker(t))


@lru_cache(maxsize=8192)
def _label_key(text: str, language: str) -> frozenset[str]:
    """A line's "Label:" or bold lead as a key: its terms, weekdays and months included
    ("- Fredag: 10.00–17.00" is Friday's)."""
    item = _LIST_MARKER.sub("", text)
    label, colon, _ = item.partition(":")
    if not colon:
        bold = _BOLD_LEAD.match(item)
        if bold is None:
            return frozenset()
        label = bold[1]
    if any(ch.isdigit() for ch in label) or len(label.split()) > _MAX_LABEL_WORDS:
        return frozenset()
    return _key_terms(terms(label, language))


def _key_end(cells: list[str]) -> int:
    """How many leading cells name the row: up to the first one with a word in it."""
    for index, cell in enumerate(cells):
        if any(len(word) >= 2 for word in _words(cell)):
            return index + 1
    return 1


def _words(text: str) -> list[str]:
    word, found = [], []
    for ch in text + " ":
        if ch.isalpha():
            word.append(ch)
        elif word:
            found.append("".join(word))
            word = []
    return found


_Inherited = tuple[str | None, str | None, str | None]  # (currency, unit, period)


_BRACKETED = re.compile(r"\(\s*([^\W\d_]+)\s*\)")


def _inherited(text: str, language: str) -> _Inherited:
    """The currency, unit and period a header or lead-in states outside its own numbers."""
    if not text:
        return None, None, None
    for reading in read_numbers(text, language):  # "Fixed 1 year (öre/kWh)": the unit is "öre"
        text = text[: reading.start] + " " * (reading.end - reading.start) + text[reading.end :]
    currency = unit = None
    # A one-letter word is a unit only alone in brackets: "Längd (m)", not "Plan B"; a time
    # unit too ("Tid (min)" is a duration), not a period's ("Pris per timme").
    alone = {m[1] for m in _BRACKETED.finditer(text.lower())}
    for word in _words(text.lower()):
        if word in _CURRENCIES and currency is None:
            currency = _CURRENCIES[word]
        elif (
            word in _UNITS
            and unit is None
            and (len(word) >= 2 or word in alone)
            and (_UNITS[word] not in TIME_UNITS or word in alone)
        ):
            unit = _UNITS[word]
    period = find_period(text)
    if period is None:
        for word in _words(text):
            period = period_of_compound(word)
            if period:
                break
    return currency, unit, period


def _merge(first: _Inherited, second: _Inherited) -> _Inherited:
    return tuple(a or b for a, b in zip(first, second, strict=True))  # type: ignore[return-value]


def _inherit(
    reading: Reading, currency=None, unit=None, period=None, *, clause_period=None
) -> Reading:
    """``reading`` with what its header, lead-in or clause states and it does not."""
    changes = {}
    if reading.kind in (Kind.COUNT, Kind.QUANTITY, Kind.AMOUNT, Kind.DURATION, Kind.PERCENTAGE):
        period = reading.period or clause_period or period
        if period and period != reading.unit:
            changes["period"] = period
    if reading.kind is Kind.COUNT:
        if currency:
            changes.update(kind=Kind.AMOUNT, unit=currency)
        elif unit:
            changes.update(kind=Kind.DURATION if unit in TIME_UNITS else Kind.QUANTITY, unit=unit)
    return reading._replace(**changes) if changes else reading
