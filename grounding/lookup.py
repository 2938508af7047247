"""Where the checker finds a cited line's facts, their groups and aliases: ``FactLookup``.

Pure: no ORM, no I/O. The index (built from the database) provides a
``FactLookup`` for the whole KB; tests and callers without an index build a
``FactTable`` from documents or retrieved snippets.
"""

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from grounding.facts import Fact, extract_facts, label_terms
from grounding.snippets import Snippet
from grounding.terms import terms
from grounding.text import STOPWORDS


class FactLookup(Protocol):
    def by_value(self, key: str) -> Sequence[Fact]:
        """Every fact of the KB found under ``key`` (``Fact.keys()``)."""
        ...

    def weight(self, term: str) -> float:
        """How much ``term`` tells the KB's facts apart (see ``FactTable.weight``)."""
        ...

    def __len__(self) -> int:
        """How many facts the KB has (what a check's cost grows with)."""
        ...

    # -- facts as cards (``FactTable``'s docstrings say what each returns) ----------

    @property
    def files(self) -> frozenset[str]: ...

    def on_line(self, file: str, line: int) -> Sequence[Fact]: ...

    def by_id(self, fact_id: str) -> Fact | None: ...

    def siblings(
        self, fact: Fact, named_by: frozenset[str] | None = None
    ) -> list[tuple[Fact, frozenset[str]]]: ...

    def aliases(self, fact: Fact) -> frozenset[str]: ...

    def key_names(self, fact: Fact) -> frozenset[str]: ...

    def is_name(self, before: str, number: str, words: frozenset[str]) -> bool: ...

    def keyed_by(self, term: str) -> Sequence[Fact]: ...

    def of_kind(self, kind: str) -> Sequence[Fact]: ...

    def translations(self, term: str) -> frozenset[str]: ...

    @property
    def main_language(self) -> str | None: ...


class FactTable:
    """A ``FactLookup`` over a list of facts, indexed once."""

    def __init__(self, facts: Iterable[Fact]):
        self.facts: tuple[Fact, ...] = tuple(facts)
        by_key: dict[str, list[Fact]] = defaultdict(list)
        for fact in self.facts:
            for key in fact.keys():  # noqa: SIM118 (a Fact, not a dict)
                by_key[key].append(fact)
        self._names = frozenset().union(*(_names(fact) for fact in self.facts))
        self._by_key = dict(by_key)
        self._files = frozenset(fact.file for fact in self.facts)
        self._by_line: dict[tuple[str, int], list[Fact]] = defaultdict(list)
        self._by_group: dict[str, list[Fact]] = defaultdict(list)
        self._by_id: dict[str, Fact] = {}
        for fact in self.facts:
            self._by_line[fact.file, fact.line].append(fact)
            if fact.group:
                self._by_group[fact.group].append(fact)
            self._by_id.setdefault(fact.fact_id, fact)
        self._twins = _twins(self.facts)
        languages = Counter(fact.language for fact in self.facts).most_common(1)
        self._main_language = languages[0][0] if languages else None
        self._aliases = {
            key: naming(frozenset().union(*(twin.key for twin in twins)))
            for key, twins in self._twins.items()
        }
        self._by_key_term: dict[str, list[Fact]] = defaultdict(list)
        self._by_kind: dict[str, list[Fact]] = defaultdict(list)
        translations: dict[str, set[str]] = defaultdict(set)
        for fact in self.facts:
            self._by_kind[str(fact.kind)].append(fact)
            for term in fact.key | self._aliases.get(id(fact), frozenset()):
                self._by_key_term[term].append(fact)
            for twin in self._only_twin(fact):
                for term in naming(twin.key) - fact.key:
                    translations[term].update(naming(fact.key) - twin.key)
        self._translations = {term: frozenset(found) for term, found in translations.items()}
        # Sections under one parent heading ("## Plus", "## Max"): their facts are parallel.
        self._parallel: dict[str, list[Fact]] = defaultdict(list)
        # Lines with one label in several sections ("Telefon:" under each office): parallel.
        self._labelled: dict[frozenset[str], list[Fact]] = defaultdict(list)
        for fact in self.facts:
            if fact.cell is None and fact.group:
                self._parallel[_parent(fact.group)].append(fact)
                if label := label_terms(fact):
                    self._labelled[label].append(fact)
        self._name_phrases: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for text in dict.fromkeys(fact.text for fact in self.facts):
            for before, number, after in _name_pairs(text):
                self._name_phrases[number].append((before, after))
        # Each fact's siblings and names, found at its first check: they depend on this table.
        self._siblings_found: dict[int, tuple[list, frozenset[str]]] = {}
        self._siblings_kept = 0
        self._key_names: dict[int, frozenset[str]] = {}

    def __len__(self) -> int:
        return len(self.facts)

    @property
    def main_language(self) -> str | None:
        """The language most of the KB's facts are stated in (None for no facts)."""
        return self._main_language

    @classmethod
    def from_documents(cls, documents: Mapping[str, str]) -> "FactTable":
        """Facts of whole markdown documents, by file name."""
        return cls(
            fact for file, text in documents.items() for fact in extract_facts(text, file=file)
        )

    @classmethod
    def from_snippets(cls, snippets: Iterable[Snippet]) -> "FactTable":
        """Facts of retrieved chunks only, each under its heading path (no KB-wide lookup)."""
        facts = []
        for snippet in snippets:
            parts = [part.strip() for part in snippet.heading.split(" > ") if part.strip()]
            headings = "".join(f"{'#' * level} {part}\n" for level, part in enumerate(parts, 1))
            facts.extend(
                extract_facts(
                    headings + snippet.text,
                    file=snippet.file,
                    first_line=snippet.start_line - len(parts),
                )
            )
        return cls(facts)

    def by_value(self, key: str) -> Sequence[Fact]:
        return self._by_key.get(key, ())

    def weight(self, term: str) -> float:
        """2 for a term that names a subject somewhere in the KB, else 1.

        A name is what labels a fact: a table row's key or column header, a list item's
        "Label:", the words of an enumeration's item. Those tell siblings apart (a plan,
        a weekday, a region, a season); a verb or "pris" in a sentence does not.
        """
        return NAME_WEIGHT if term in self._names else 1.0

    # -- facts as cards: a line's facts, a fact's group, its aliases ---------------

    @property
    def files(self) -> frozenset[str]:
        return self._files

    def on_line(self, file: str, line: int) -> Sequence[Fact]:
        """The facts of one KB line (what a ``[PATH:LINE]`` reference points at)."""
        return self._by_line.get((file, line), ())

    def by_id(self, fact_id: str) -> Fact | None:
        return self._by_id.get(fact_id)

    def siblings(
        self, fact: Fact, named_by: frozenset[str] | None = None
    ) -> list[tuple[Fact, frozenset[str]]]:
        """The facts ``fact`` must be told apart from, each with the terms that name it and
        not ``fact`` (see ``siblings_of``); a fact the KB's other language restates has its
        twin's siblings too ("Home Mellan ... SEK 1,500" is told from "Hem Total"). With
        ``named_by``, only the siblings one of those terms names."""
        found, names_any = self._siblings_found.get(id(fact)) or self._find_siblings(fact)
        if named_by is None:
            return list(found)
        if names_any.isdisjoint(named_by):
            return []
        return [(other, names) for other, names in found if not names.isdisjoint(named_by)]

    def _find_siblings(self, fact: Fact) -> tuple[list, frozenset[str]]:
        found = self._siblings(fact)
        own = fact.key | fact.subject
        for twin in self._twins.get(id(fact), ()):
            found += [(other, names - own) for other, names in self._siblings(twin) if names - own]
        names_any = frozenset().union(*(names for _, names in found))
        if not self._holds(fact):  # a fact of another table: its id may be reused
            return found, names_any
        self._siblings_kept += len(found)
        if self._siblings_kept > SIBLINGS_KEPT:  # a bound on memory: start again
            self._siblings_found.clear()
            self._siblings_kept = len(found)
        self._siblings_found[id(fact)] = found, names_any
        return found, names_any

    def _siblings(self, fact: Fact) -> list[tuple[Fact, frozenset[str]]]:
        parallel: Sequence[Fact] = ()
        kin: Sequence[Fact] = ()
        if fact.cell is None:
            parallel = self._parallel.get(_parent(fact.group), ())
            if label := label_terms(fact):
                parallel = (*parallel, *self._labelled.get(label, ()))
            kin = self._kin(fact)
        return siblings_of(
            fact,
            self._by_group.get(fact.group, ()),
            self.on_line(fact.file, fact.line),
            parallel,
            kin,
        )

    def _kin(self, fact: Fact) -> list[Fact]:
        """The lines of other sections, in any file, stating a number like the fact's (kind,
        unit, period, language) whose keys share two terms with its key ("Vi sparar din order
        i 7 dagar" under the web shop, "Vi sparar beställda läkemedel i butiken i 14 dagar"
        under prescriptions)."""
        own = naming(fact.key)
        found: dict[int, Fact] = {}
        for term in own:
            for other in self._by_key_term.get(term, ()):
                if (
                    other.cell is None
                    and other.group != fact.group
                    and (other.kind, other.unit, other.period, other.language)
                    == (fact.kind, fact.unit, fact.period, fact.language)
                    and len(own & naming(other.key)) >= KIN_SHARED
                ):
                    found.setdefault(id(other), other)
        return list(found.values())

    def aliases(self, fact: Fact) -> frozenset[str]:
        """The fact's key in the KB's other language, where a line there states it too."""
        return self._aliases.get(id(fact), frozenset())

    def key_names(self, fact: Fact) -> frozenset[str]:
        """What names the fact: the terms of its key and aliases that can name a subject."""
        found = self._key_names.get(id(fact))
        if found is None:
            found = naming(fact.key) | self.aliases(fact)
            if self._holds(fact):
                self._key_names[id(fact)] = found
        return found

    def _holds(self, fact: Fact) -> bool:
        """Whether ``fact`` is this table's own (what is found for it may be kept by its id)."""
        return self._by_id.get(fact.fact_id) is fact

    def _only_twin(self, fact: Fact) -> tuple[Fact, ...]:
        """The fact's twin when each language states its value once: a word-for-word
        translation of its key. Where either states it more often ("5 seats", "5 bankdagar"),
        which line restates which is not known, and no words are paired."""
        twins = self._twins.get(id(fact), ())
        if len(twins) == 1 and len(self._twins.get(id(twins[0]), ())) == 1:
            return twins
        return ()

    def keyed_by(self, term: str) -> Sequence[Fact]:
        """The facts whose key or alias has ``term``."""
        return self._by_key_term.get(term, ())

    def of_kind(self, kind: str) -> Sequence[Fact]:
        return self._by_kind.get(kind, ())

    def translations(self, term: str) -> frozenset[str]:
        """What ``term`` is in the KB's other language, as its pages in both say: the key
        terms of the facts whose only twins have it (a value stated once in each language)."""
        return self._translations.get(term, frozenset())

    def is_name(self, before: str, number: str, words: frozenset[str]) -> bool:
        """Whether ``number``, after the word ``before`` among ``words`` (the words around it),
        is a name of the KB's: "Zon 2" after "zon", "the 1-year fixed price" for "Fixed 1 year"
        (the name's word before and after it both near it)."""
        for word, after in self._name_phrases.get(number, ()):
            if word == before.lower() or (after and word in words and after in words):
                return True
        return False


NAME_WEIGHT = 2.0
# How many key terms a line of another section shares with a fact to be its kin.
KIN_SHARED = 2
# How many (fact, sibling) pairs a table keeps found (about 0.6 kB each; the shipped KB has
# 2,600): a check finds the rest again.
SIBLINGS_KEPT = 20_000


def _names(fact: Fact) -> frozenset[str]:
    if fact.cell is not None:
        return fact.qualifiers
    return label_terms(fact)


# -- groups, aliases and names ---------------------------------------------------------

_NOT_A_NAME = ("bound:", "incl:", "deadline:", "per:", "counts:", "#")


def naming(found: frozenset[str]) -> frozenset[str]:
    """The terms of ``found`` that can name a subject: no bound, period or count marker."""
    return frozenset(t for t in found if not t.startswith(_NOT_A_NAME))


def siblings_of(
    fact: Fact,
    group: Iterable[Fact],
    line: Iterable[Fact],
    parallel: Iterable[Fact] = (),
    kin: Iterable[Fact] = (),
) -> list[tuple[Fact, frozenset[str]]]:
    """The parallel facts of ``fact`` and what names each of them and not ``fact``.

    | fact | its siblings | what names a sibling |
    |---|---|---|
    | a table's body cell | the other rows of its column, the other columns of its row | the sibling's row key (same column) or column header (same row) |
    | a number of a list or paragraph | the other numbers under its heading, its line's included | the sibling's key (its label, or its clause's words) |
    | the same, in one of several sections under one heading ("## Plus", "## Max") | the numbers of the other sections | the sibling's heading |
    | a labelled line ("Telefon: ...") | the lines with the same label in other sections, in any file ("Telefon:" under each office) | the sibling's heading |
    | a number of a list or paragraph | the numbers of the same kind, unit and period in other sections, in any file, whose key shares two terms with its key | the sibling's key |

    A sibling that states the same value is none (two plans with one price). The terms the
    fact's own key or subject has are never a sibling's name, except, for another row of its
    column, what every row's subject has (the table's heading may name every row).
    """
    own = fact.key | fact.subject
    found: dict[int, tuple[Fact, frozenset[str]]] = {}

    def add(other: Fact, names: frozenset[str], own: frozenset[str] = own) -> None:
        names = naming(names) - own
        if other is not fact and other.value != fact.value and names:
            found.setdefault(id(other), (other, names))

    if fact.cell is not None and fact.cell[0] > 0:
        row, column = fact.cell
        body = [other for other in group if other.cell is not None and other.cell[0] > 0]
        # What every row's subject has is the table's (its headings, its lead-in), and may
        # name every row ("bilpool i Umeå, Luleå och Sundsvall"): it names another row still.
        rows_own = own - fact.subject.intersection(*(other.subject for other in body))
        for other in body:
            if other.cell[1] == column and other.cell[0] != row:
                add(other, other.entity, rows_own | fact.key)
            elif other.cell[0] == row and other.cell[1] != column:
                add(other, other.attribute)
    elif fact.cell is None:
        for other in (*group, *line):
            if other.cell is None:
                add(other, other.key)
        for other in parallel:
            if other.group != fact.group:
                add(other, _heading_terms(other))
        for other in kin:
            add(other, other.key)
    return list(found.values())


def _parent(group: str) -> str:
    """A section's parent: its group without the last heading."""
    head, _, _ = group.rpartition(" > ")
    return head


def _heading_terms(fact: Fact) -> frozenset[str]:
    """The terms of the fact's own (last) heading."""
    _, _, last = fact.group.rpartition(" > ")
    return terms(last, fact.language) if last else frozenset()


def _twins(facts: Sequence[Fact]) -> dict[int, tuple[Fact, ...]]:
    """For each fact, the facts in another language that state its value alike (same value,
    kind, unit and period): the KB's own pages restating it. Their keys are its aliases."""
    by_value: dict[tuple, list[Fact]] = defaultdict(list)
    for fact in facts:
        by_value[fact.value, fact.kind, fact.unit, fact.period].append(fact)
    twins: dict[int, tuple[Fact, ...]] = {}
    for same in by_value.values():
        if len({fact.language for fact in same}) < 2:
            continue
        for fact in same:
            twins[id(fact)] = tuple(other for other in same if other.language != fact.language)
    return twins


# A name written with a number: a capitalised word right before it, and the word after it
# ("Zon 2", "Fixed 3 years", "iPhone 17"), or letters and digits glued ("SE4", "5G").
_NAME_PAIR = re.compile(
    r"\b([^\W\d_][\w]*)[ \u00a0-](\d{1,4})\b(?![.,:]\d)(?:[ \u00a0-]([^\W\d_]+))?"
)
_GLUED = re.compile(r"\b(?:([^\W\d_]+)(\d{1,4})|(\d{1,4})([^\W\d_]+))\b")


def _name_pairs(text: str) -> frozenset[tuple[str, str, str]]:
    """(word before, number, word after) of every name of ``text`` written with a number."""
    found = set()
    for match in _NAME_PAIR.finditer(text):
        word = match[1]
        if any(ch.isupper() for ch in word) and word.lower() not in STOPWORDS:
            found.add((word.lower(), str(int(match[2])), (match[3] or "").lower()))
    for match in _GLUED.finditer(text):
        if match[1]:
            found.add((match[1].lower(), str(int(match[2])), ""))
        else:
            found.add((match[4].lower(), str(int(match[3])), ""))
    return frozenset(found)
