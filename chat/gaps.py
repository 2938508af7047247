"""KB gaps: the questions the agent could not answer, grouped by their search terms.

Pure: no ORM, no I/O. An editor reads the groups to learn what the KB lacks.

| step   | rule                                                                     |
|--------|--------------------------------------------------------------------------|
| terms  | ``grounding.text.query_terms(question)``: the terms retrieval searches   |
| key    | those terms, distinct and sorted: word order and stop words do not split |
| counts | questions in the group, and how many were withheld / had no support      |
| order  | most asked first, then most recently asked                               |
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from grounding.text import query_terms

EXAMPLES_PER_GAP = 3


@dataclass(slots=True)
class Gap:
    terms: tuple[str, ...]
    count: int = 0
    withheld: int = 0
    no_support: int = 0
    last_asked: datetime | None = None
    examples: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return " ".join(self.terms) or "(no search terms)"


def gaps_by_terms(rows: Iterable[dict]) -> list[Gap]:
    """Group rows ``{"question", "status", "created_at"}`` by their question's search terms."""
    gaps: dict[tuple[str, ...], Gap] = {}
    for row in rows:
        terms = tuple(sorted(set(query_terms(row["question"]))))
        gap = gaps.setdefault(terms, Gap(terms=terms))
        gap.count += 1
        if row["status"] == "no_support":
            gap.no_support += 1
        else:
            gap.withheld += 1
        if gap.last_asked is None or row["created_at"] > gap.last_asked:
            gap.last_asked = row["created_at"]
        question = row["question"].strip()
        if question not in gap.examples and len(gap.examples) < EXAMPLES_PER_GAP:
            gap.examples.append(question)
    return sorted(gaps.values(), key=lambda g: (-g.count, -g.last_asked.timestamp()))
