"""The import's rules: which file a source becomes, its category, its header and its text.

Pure: no ORM, no I/O.

| rule | how |
|---|---|
| file name | ``imported/<host>/<path as words joined by "-">.md`` for a page (``index`` for "/"), ``imported/files/<name>.md`` for a local file; at most 120 characters a part |
| category | the first ``(pattern, category)`` of ``KB_IMPORT_CATEGORIES`` whose pattern (``fnmatch``, case-insensitive) matches the URL's path; else the default (seed 002, section 2.2) |
| content hash | SHA-1 of the cleaned markdown (seed 002, section 1): a page whose hash is unchanged is not rewritten |
| header | front matter: ``title``, ``source`` (URL or file name), ``fetched_at``, ``sha1``, ``category`` |
| cleaning | no HTML survives: tags are removed with nh3 (script and style with their content), entities decoded, NUL and other control characters dropped, invisible format characters (bidi controls, zero-width characters: ``grounding.text.remove_invisible``) dropped, blank runs folded |
| a table with an empty header row (a Word table without a marked header) | its first row becomes the header, so its cells name the columns |
| a table whose first rows are captions (an HTML ``<caption>``, a first row of one cell spanning the columns: "Priser per person") | the captions become lines of text above it, and its first real row its header |
| links | text: ``[text](url)``, trafilatura's ``\\[text\\](url)``, images, reference links, ``<url>`` autolinks: their text only, targets and ``[ref]: url`` definitions dropped; anything a markdown parser (markdown-it) still reads as a link gets its brackets escaped |
"""

import hashlib
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase
from functools import cache
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

import nh3
from markdown_it import MarkdownIt

from grounding.text import remove_invisible

IMPORT_FOLDER = "imported"
_MAX_PART = 120
_UNSAFE = re.compile(r"[^a-z0-9åäö]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BLANK_RUN = re.compile(r"\n{3,}")


@dataclass(frozen=True, slots=True)
class ImportedDocument:
    """One source as it will be written into the KB."""

    kb_path: str  # relative to the KB directory: "imported/example.com/priser.md"
    source: str  # the page's URL or the file's name
    title: str
    category: str
    markdown: str  # the cleaned body, without the header

    @property
    def sha1(self) -> str:
        return content_sha1(self.markdown)

    def file_text(self, fetched_at: datetime) -> str:
        return (
            front_matter(
                title=self.title,
                source=self.source,
                fetched_at=fetched_at,
                sha1=self.sha1,
                category=self.category,
            )
            + self.markdown.rstrip("\n")
            + "\n"
        )


def content_sha1(markdown: str) -> str:
    return hashlib.sha1(markdown.encode("utf-8"), usedforsecurity=False).hexdigest()


def _slug(text: str) -> str:
    return _UNSAFE.sub("-", unquote(text).lower()).strip("-")[:_MAX_PART].strip("-")


def page_path(url: str) -> str:
    """The KB path of a page: ``imported/<host>/<path words>.md``."""
    parts = urlsplit(url)
    host = _slug(parts.hostname or "site") or "site"
    segments = [p for p in (parts.path or "/").split("/") if p not in ("", ".", "..")]
    if segments:
        segments[-1] = PurePosixPath(segments[-1]).stem
    words = "-".join(filter(None, (_slug(p) for p in segments)))
    if parts.query:
        words = "-".join(filter(None, (words, _slug(parts.query))))
    return f"{IMPORT_FOLDER}/{host}/{(words or 'index')[:_MAX_PART]}.md"


def file_path(name: str) -> str:
    """The KB path of a local file: ``imported/files/<its path's words>.md``."""
    path = PurePosixPath(name)
    words = "-".join(filter(None, (_slug(p) for p in path.with_suffix("").parts)))
    suffix = _slug(path.suffix)
    return f"{IMPORT_FOLDER}/files/{(words or 'document')[:_MAX_PART]}{'-' + suffix if suffix else ''}.md"


def category_for(url: str, rules: Sequence[tuple[str, str]], default: str = "") -> str:
    """The category of the first rule whose pattern matches the URL's path."""
    path = (urlsplit(url).path or "/").lower()
    for pattern, category in rules:
        if fnmatchcase(path, pattern.lower()):
            return category
    return default


def clean_markdown(text: str) -> str:
    """The extracted markdown with nothing executable, unstorable or linked left in it."""
    text = links_as_text(text)  # before nh3, which would take <https://...> for a tag
    text = nh3.clean(text, tags=set(), clean_content_tags={"script", "style"})
    text = html.unescape(text)  # nh3 escapes what it keeps; markdown wants the characters
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = remove_invisible(text)  # bidi controls, zero-width and other format characters
    text = links_as_text(text)  # entities decoded: &#91;x&#93;(url) is a link now
    lines = _promote_empty_headers([line.rstrip() for line in text.split("\n")])
    lines = _caption_rows_out(lines)
    return _BLANK_RUN.sub("\n\n", "\n".join(lines)).strip() + "\n"


# A link's target: <anything> or a run without spaces with balanced parentheses, then a title.
_TARGET = r"(?:<[^<>\n]*>|(?:[^()\s]|\((?:[^()\s])*\))*)"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?"""
_BRACKETED = r"\\?\[((?:[^\[\]\\]|\\.)*?)\\?\]"  # [text], or \[text\] as trafilatura escapes it
_INLINE_LINK = re.compile(rf"!?{_BRACKETED}\\?\(\s*{_TARGET}{_TITLE}\s*\\?\)")
_REFERENCE_LINK = re.compile(rf"!?{_BRACKETED}\[[^\[\]\n]*\]")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\S.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<((?:[a-zA-Z][a-zA-Z0-9+.-]{1,31}:|mailto:)[^<>\s]*|[^<>\s@]+@[^<>\s]+)>")
_LINK_TOKENS = frozenset({"link_open", "image"})


def links_as_text(text: str) -> str:
    """Markdown links, images, autolinks and link definitions as their text, targets dropped.

    ``[Boka](https://other.example)`` and trafilatura's escaped ``\\[Boka\\](...)`` become
    ``Boka``, ``![Karta](karta.png)`` becomes ``Karta``, ``<https://other.example>`` becomes the
    address as plain text, ``[ref]: https://...`` lines go. Whatever a markdown parser would
    still read as a link has its brackets escaped, so no link reaches the KB or an answer.
    """
    for _ in range(8):  # nested: [[a](b)](c)
        cleaned = _INLINE_LINK.sub(lambda m: _unescaped(m.group(1)), text)
        cleaned = _REFERENCE_LINK.sub(lambda m: _unescaped(m.group(1)), cleaned)
        cleaned = _DEFINITION.sub("", cleaned)
        cleaned = _AUTOLINK.sub(lambda m: m.group(1), cleaned)
        if cleaned == text:
            break
        text = cleaned
    if any(_is_link(token) for token in _markdown().parse(text)):
        text = re.sub(r"(?<!\\)([\[\]])", r"\\\1", text)
    return text


def _unescaped(text: str) -> str:
    return re.sub(r"\\([\[\]()])", r"\1", text)


def _is_link(token) -> bool:
    if token.type in _LINK_TOKENS:
        return True
    return any(_is_link(child) for child in token.children or ())


@cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


_EMPTY_ROW = re.compile(r"^\|(?:\s*\|)+$")
_RULE_ROW = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


def _promote_empty_headers(lines: list[str]) -> list[str]:
    out: list[str] = []
    index = 0
    while index < len(lines):
        if (
            _EMPTY_ROW.match(lines[index])
            and index + 2 < len(lines)
            and _RULE_ROW.match(lines[index + 1])
            and lines[index + 2].startswith("|")
        ):
            out += [lines[index + 2], lines[index + 1]]
            index += 3
            continue
        out.append(lines[index])
        index += 1
    return out


_CELLS = re.compile(r"(?<!\\)\|")


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in _CELLS.split(row.strip().strip("|"))]


def _caption_row(row: str) -> str | None:
    """The text of a row that is a caption (one cell of text, the others empty), else None."""
    cells = _cells(row)
    filled = [cell for cell in cells if cell]
    return filled[0] if len(cells) > 1 and len(filled) == 1 and cells[0] else None


def _caption_rows_out(lines: list[str]) -> list[str]:
    """A table whose first rows are captions (``<caption>``, a cell spanning the columns):
    the captions go above it as text and its first real row becomes its header row."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        if not lines[index].startswith("|"):
            out.append(lines[index])
            index += 1
            continue
        end = index
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        table = lines[index:end]
        rows = [row for row in table if not _RULE_ROW.match(row)]
        captions = []
        while len(rows) > 1 and (caption := _caption_row(rows[0])) is not None:
            captions.append(caption)
            rows.pop(0)
        if captions:
            rule = "|" + "---|" * len(_cells(rows[0]))
            out += [*captions, "", rows[0], rule, *rows[1:]]
        else:
            out += table
        index = end
    return out


def _field(value: str) -> str:
    """One line of front matter: whitespace folded (the reader strips quotes at the ends)."""
    return " ".join(value.split())


def front_matter(*, title: str, source: str, fetched_at: datetime, sha1: str, category: str) -> str:
    return (
        "---\n"
        f"title: {_field(title)}\n"
        f"source: {_field(source)}\n"
        f"fetched_at: {fetched_at.isoformat(timespec='seconds')}\n"
        f"sha1: {sha1}\n"
        f"category: {_field(category)}\n"
        "---\n\n"
    )


def sha1_of_file(text: str) -> str | None:
    """The ``sha1`` a file's header records, if any (to compare without re-reading the body)."""
    match = re.search(r"^sha1: ([0-9a-f]{40})$", text[:2000], re.MULTILINE)
    return match.group(1) if match else None


def web_url(value: str) -> str:
    """``value`` when it is an http(s) URL with a host (a citation may link to it), else ""."""
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme.lower() in ("http", "https") and parts.hostname and len(value) <= 2000:
        return value
    return ""
