"""Markdown files into front matter and retrievable chunks.

Pure: no ORM, no I/O. A file is split on its headings first, so a chunk never
spans two sections; a long section is then cut into windows of whole lines
of at most ``size`` characters, each starting with about ``overlap``
characters of the previous window. Line numbers are 1-based and count the
front matter, so a chunk's lines can be quoted as ``file:line``.
"""

import re
from dataclasses import dataclass, field

_FRONT_MATTER_FENCE = "---"
_FRONT_MATTER_END = ("---", "...")
_KEY_VALUE = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_CODE_FENCE = re.compile(r"^\s*(```|~~~)")
HEADING_SEPARATOR = " > "
LIST_KEYS = frozenset({"keywords", "tags"})


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """``key: value`` pairs between ``---`` fences at the top of a file."""

    fields: dict[str, str] = field(default_factory=dict)
    lists: dict[str, tuple[str, ...]] = field(default_factory=dict)
    line_count: int = 0  # lines the front matter occupies, fences included

    def get(self, key: str, default: str = "") -> str:
        return self.fields.get(key, default)

    def get_list(self, key: str) -> tuple[str, ...]:
        return self.lists.get(key, ())


@dataclass(frozen=True, slots=True)
class Chunk:
    ordinal: int  # 0-based position in the file
    heading: str  # heading path of the chunk's section, e.g. "Priser > Premium"
    text: str  # whole lines of the file (a part of a line only for overlong lines)
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive


@dataclass(frozen=True, slots=True)
class _Section:
    heading: str
    lines: list[tuple[int, str]]  # (1-based line number, text)


def _parse_list(value: str) -> tuple[str, ...]:
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    items = (item.strip().strip("\"'").strip() for item in value.split(","))
    return tuple(item for item in items if item)


def parse_front_matter(text: str) -> FrontMatter:
    """The front matter of a markdown text; empty when the text has none.

    An opening fence without a closing one is not front matter: the text is
    then ordinary markdown (a horizontal rule).
    """
    lines = text.split("\n")
    if not lines or lines[0].strip() != _FRONT_MATTER_FENCE:
        return FrontMatter()
    fields: dict[str, str] = {}
    lists: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() in _FRONT_MATTER_END:
            return FrontMatter(fields=fields, lists=lists, line_count=number)
        match = _KEY_VALUE.match(line.strip())
        if not match:
            continue
        key, value = match.group(1).lower(), match.group(2).strip()
        if key in LIST_KEYS:
            lists[key] = _parse_list(value)
        else:
            fields[key] = value.strip("\"'").strip()
    return FrontMatter()


def _sections(lines: list[str], first_line: int) -> list[_Section]:
    """Split body lines on ATX headings (not inside code fences)."""
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []  # (level, title) of the headings in effect
    current: list[tuple[int, str]] = []
    heading = ""
    in_code = False
    for number, line in enumerate(lines, start=first_line):
        if _CODE_FENCE.match(line):
            in_code = not in_code
        match = None if in_code else _HEADING.match(line)
        if match:
            sections.append(_Section(heading=heading, lines=current))
            level, title = len(match.group(1)), match.group(2).strip()
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
            heading = HEADING_SEPARATOR.join(t for _, t in path)
            current = []
        current.append((number, line))
    sections.append(_Section(heading=heading, lines=current))
    return sections


def _has_body(lines: list[tuple[int, str]]) -> bool:
    return any(line.strip() and not _HEADING.match(line) for _, line in lines)


def _strip_blank_edges(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    start, end = 0, len(lines)
    while start < end and not lines[start][1].strip():
        start += 1
    while end > start and not lines[end - 1][1].strip():
        end -= 1
    return lines[start:end]


def _split_long_line(number: int, line: str, size: int) -> list[tuple[int, str]]:
    """An overlong line as pieces of at most ``size`` characters, cut at spaces."""
    pieces = []
    rest = line
    while len(rest) > size:
        cut = rest.rfind(" ", 0, size + 1)
        if cut <= 0:
            cut = size
        pieces.append((number, rest[:cut].rstrip()))
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append((number, rest))
    return pieces


def _windows(lines: list[tuple[int, str]], size: int, overlap: int) -> list[list[tuple[int, str]]]:
    """Whole-line windows of at most ``size`` characters with about ``overlap`` carried over."""
    windows: list[list[tuple[int, str]]] = []
    window: list[tuple[int, str]] = []
    length = 0  # characters of ``window`` joined with newlines
    fresh = False  # whether ``window`` holds a line no earlier window had
    for number, line in lines:
        if len(line) > size:
            if fresh:
                windows.append(window)
            windows.extend([piece] for piece in _split_long_line(number, line, size))
            window, length, fresh = [], 0, False
            continue
        added = len(line) + (1 if window else 0)
        if window and length + added > size:
            if fresh:
                windows.append(window)
            window = _tail(window, overlap, room=size - len(line) - 1)
            length = sum(len(text) for _, text in window) + max(len(window) - 1, 0)
            added = len(line) + (1 if window else 0)
        window.append((number, line))
        length += added
        fresh = True
    if fresh:
        windows.append(window)
    return windows


def _tail(window: list[tuple[int, str]], overlap: int, room: int) -> list[tuple[int, str]]:
    """The last lines of ``window`` totalling at most ``overlap`` (and ``room``) characters."""
    limit = min(overlap, room)
    tail: list[tuple[int, str]] = []
    length = 0
    for number, line in reversed(window):
        added = len(line) + (1 if tail else 0)
        if length + added > limit:
            break
        tail.insert(0, (number, line))
        length += added
    # Only leading blanks go: the next line follows the tail, so its lines stay contiguous.
    while tail and not tail[0][1].strip():
        tail.pop(0)
    return tail


def chunk_markdown(text: str, *, size: int = 1200, overlap: int = 150) -> list[Chunk]:
    """The chunks of a markdown text, front matter excluded, in file order."""
    if size < 1:
        raise ValueError("chunk size must be positive")
    overlap = max(0, min(overlap, size - 1))
    front = parse_front_matter(text)
    lines = text.split("\n")[front.line_count :]
    chunks: list[Chunk] = []
    for section in _sections(lines, first_line=front.line_count + 1):
        if not _has_body(section.lines):
            continue
        for window in _windows(_strip_blank_edges(section.lines), size, overlap):
            window = _strip_blank_edges(window)
            if not window:
                continue
            chunks.append(
                Chunk(
                    ordinal=len(chunks),
                    heading=section.heading,
                    text="\n".join(line for _, line in window),
                    start_line=window[0][0],
                    end_line=window[-1][0],
                )
            )
    return chunks


def first_heading(text: str) -> str:
    """The text of the first heading of a markdown text, or ""."""
    front = parse_front_matter(text)
    for section in _sections(text.split("\n")[front.line_count :], front.line_count + 1):
        if section.heading:
            return section.heading.split(HEADING_SEPARATOR)[0]
    return ""
