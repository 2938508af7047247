"""Value types shared by retrieval, verification and the chat pipeline."""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Snippet:
    """A retrieved KB chunk, as retrieval returns it (best first)."""

    file: str  # the path as the user knows it, e.g. "kb/pricing.md"
    text: str  # the chunk's text, lines as in the file
    start_line: int  # 1-based line number of the chunk's first line in the file
    heading: str = ""  # heading path above the chunk, e.g. "Priser > Premium"
    score: float = 0.0
    category: str = ""
    chunk_id: int | None = None

    def lines(self) -> list[tuple[int, str]]:
        """(line number in the file, line text) for every line of the chunk."""
        return [(self.start_line + i, line) for i, line in enumerate(self.text.split("\n"))]


@dataclass(frozen=True, slots=True)
class Citation:
    """What the client sees: ``{file, snippet}`` plus ``line`` and ``score``."""

    file: str
    snippet: str  # 1-3 lines of the file containing the supporting text
    line: int  # 1-based line of the snippet's first line
    score: float = 0.0

    def as_dict(self) -> dict:
        return {"file": self.file, "snippet": self.snippet, "line": self.line, "score": self.score}


@dataclass(frozen=True, slots=True)
class UnsupportedNumber:
    """A number of an answer that no cited line supports."""

    text: str  # as written in the answer
    kind: str
    reason: str  # short, for the audit trail: "not in retrieved snippets", "wrong subject", ...
    # Where the number does occur anywhere in the KB: [{"file":..., "line":..., "text":...}]
    kb_locations: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "text": self.text,
            "kind": self.kind,
            "reason": self.reason,
            "kb_locations": list(self.kb_locations),
        }


_WORDS = re.compile(r"[^\W\d_]{2,}")


@lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    # Five-letter prefixes stand in for stemming: "priset" and "priser" meet.
    return frozenset(word.lower()[:5] for word in _WORDS.findall(text))


def best_lines(
    answer: str, snippets: Sequence[Snippet], *, limit: int | None = None
) -> list[Citation]:
    """For each snippet, the line sharing most words with ``answer`` (retrieval order, or the
    best ``limit``)."""
    words = _words(answer)
    ranked = []
    for rank, snippet in enumerate(snippets):
        lines = [(n, text) for n, text in snippet.lines() if text.strip()] or snippet.lines()
        number, text = max(
            lines,
            key=lambda line: (
                len(words & _words(line[1])),
                not line[1].lstrip().startswith("#"),
                -line[0],
            ),
        )
        ranked.append((len(words & _words(text)), -rank, snippet, number, text))
    if limit is not None:
        ranked.sort(key=lambda entry: entry[:2], reverse=True)
        ranked = ranked[:limit]
    return [
        Citation(snippet.file, text.rstrip(), number, snippet.score)
        for _, _, snippet, number, text in ranked
    ]
