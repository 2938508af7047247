"""Where the checker finds candidate facts: the ``FactLookup`` protocol and an in-memory table.

Pure: no ORM, no I/O. The index (built from the database) provides a
``FactLookup`` for the whole KB; tests and callers without an index build a
``FactTable`` from documents or retrieved snippets.
"""

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from grounding.facts import Fact, extract_facts, label_terms
from grounding.snippets import Snippet


class FactLookup(Protocol):
    def by_value(self, key: str) -> Sequence[Fact]:
        """Every fact of the KB found under ``key`` (``Fact.keys()``)."""
        ...

    def in_lines(self, file: str, first: int, last: int) -> Sequence[Fact]:
        """The facts on lines ``first``..``last`` of ``file`` (a retrieved chunk)."""
        ...

    def qualified_by(self, term: str, kind: str) -> Sequence[Fact]:
        """The facts of ``kind`` with ``term`` among their qualifiers.

        What a swapped subject names: the checker compares them with the fact it cites.
        """
        ...

    def weight(self, term: str) -> float:
        """How much ``term`` tells the KB's facts apart (see ``FactTable.weight``)."""
        ...


class FactTable:
    """A ``FactLookup`` over a list of facts, indexed once."""

    def __init__(self, facts: Iterable[Fact]):
        self.facts: tuple[Fact, ...] = tuple(facts)
        by_key: dict[str, list[Fact]] = defaultdict(list)
        by_file: dict[str, list[Fact]] = defaultdict(list)
        by_qualifier: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        for fact in self.facts:
            for key in fact.keys():  # noqa: SIM118 (a Fact, not a dict)
                by_key[key].append(fact)
            by_file[fact.file].append(fact)
            for term in fact.qualifiers:
                by_qualifier[term, fact.kind].append(fact)
        self._names = frozenset().union(*(_names(fact) for fact in self.facts))
        self._by_key = dict(by_key)
        self._by_file = dict(by_file)
        self._by_qualifier = dict(by_qualifier)

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

    def in_lines(self, file: str, first: int, last: int) -> Sequence[Fact]:
        return [fact for fact in self._by_file.get(file, ()) if first <= fact.line <= last]

    def qualified_by(self, term: str, kind: str) -> Sequence[Fact]:
        return self._by_qualifier.get((term, kind), ())

    def weight(self, term: str) -> float:
        """2 for a term that names a subject somewhere in the KB, else 1.

        A name is what labels a fact: a table row's key or column header, a list item's
        "Label:", the words of an enumeration's item. Those tell siblings apart (a plan,
        a weekday, a region, a season); a verb or "pris" in a sentence does not.
        """
        return NAME_WEIGHT if term in self._names else 1.0


NAME_WEIGHT = 2.0


def _names(fact: Fact) -> frozenset[str]:
    if fact.cell is not None:
        return fact.qualifiers
    return label_terms(fact)
