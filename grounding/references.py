"""The references a generator writes after each number, and the answer without them.

Pure: no ORM, no I/O. A generator that cites writes, right after every number
(after its unit, period or bound words, before the punctuation that ends the
clause), where the number comes from:

| written | what it is | becomes |
|---|---|---|
| ``[priser.md:12]``, ``[kb/pricing.md:18]`` | the KB locator ``PATH:LINE``: the line the number was taken from | a reference; removed from the text |
| ``[F:3f513e88]`` | the product's own id of a fact (``Fact.fact_id``) | a reference; removed |
| ``[Q]`` | the number repeats the question's | a reference to the question; removed |
| ``[1]``, ``[^1]``, ``【1】``, ``[1, 2]`` | a chunk marker, as models cite their context | nothing: removed, never a number |

A reference belongs to every number before it back to the previous
reference in its sentence ("08:00–17:00 [oppettider.md:7]" is one number;
"mellan 18 och 64 år [tillagg.md:8]" gives both ends one line).
"""

import re
from dataclasses import dataclass

# A reference or a chunk marker, with the space before it.
_MARK = re.compile(
    r"[ \t\u00a0]?(?:"
    r"\[(?P<ref>Q|F:[0-9a-f]{8}|[^\[\]\s:]+(?:/[^\[\]\s:]+)*:\d{1,6})\]"
    r"|\[\^?\d{1,3}(?:\s*,\s*\^?\d{1,3})*\]"
    r"|【\d{1,3}(?:[†:][^】]{0,40})?】"
    r")"
)
QUESTION = "Q"


@dataclass(frozen=True, slots=True)
class Reference:
    """A reference as written, and where it stood in the text without references."""

    target: str  # "priser.md:12", "F:3f513e88" or "Q"
    position: int  # offset in the cleaned text: right after what it follows

    @property
    def is_question(self) -> bool:
        return self.target == QUESTION

    @property
    def is_fact_id(self) -> bool:
        return self.target.startswith("F:")

    @property
    def locator(self) -> tuple[str, int] | None:
        """(path, line) of a ``PATH:LINE`` reference."""
        if self.is_question or self.is_fact_id:
            return None
        path, _, line = self.target.rpartition(":")
        return path, int(line)


def strip_references(text: str) -> tuple[str, list[Reference]]:
    """``text`` without its references and chunk markers, and the references in order."""
    parts: list[str] = []
    references: list[Reference] = []
    length = 0
    last = 0
    for match in _MARK.finditer(text):
        piece = text[last : match.start()]
        parts.append(piece)
        length += len(piece)
        if match["ref"]:
            references.append(Reference(match["ref"], length))
        last = match.end()
    parts.append(text[last:])
    return "".join(parts), references
